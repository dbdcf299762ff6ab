#include "kstate/tracefs_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstate/fs_mount.h"

static int ensure(const char *dir, const char *probe, const char *fstype, FILE *log, cap_kstate *ks,
		  br_error *err)
{
	bool mounted;
	int rc = cap_fs_mount_if_absent(dir, probe, fstype, &mounted, err);
	if (mounted) {
		/* recorded even when the probe failed: it is ours to unmount */
		br_error e;
		int nrc = cap_kstate_note_mount(ks, dir, rc ? &e : err);
		if (nrc) {
			cap_fs_unmount(dir, &e);
			return rc ? rc : nrc;
		}
		if (log)
			fprintf(log, "blkreel-capture: %s was not mounted: mounted it at %s for this capture\n", fstype,
				dir);
	}
	return rc;
}

int cap_tracefs_ensure(FILE *log, cap_kstate *ks, br_error *err)
{
	return ensure(CAP_TRACEFS, "current_tracer", "tracefs", log, ks, err);
}

int cap_debugfs_ensure(FILE *log, cap_kstate *ks, br_error *err)
{
	return ensure(CAP_DEBUGFS, "block", "debugfs", log, ks, err);
}

uint64_t cap_stats_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char line[128];
	size_t klen = strlen(key);
	uint64_t v = 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			v = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

unsigned cap_possible_cpus(void)
{
	/* /sys/devices/system/cpu/possible is "0-N": streams are indexed by
	 * CPU number, so the count is the highest number plus one. */
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	unsigned lo = 0, hi = 0;
	if (f) {
		char buf[64] = "";
		if (fgets(buf, sizeof buf, f)) {
			char *last = strrchr(buf, ',');
			const char *r = last ? last + 1 : buf;
			if (sscanf(r, "%u-%u", &lo, &hi) < 2)
				hi = lo;
		}
		fclose(f);
		return hi + 1;
	}
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (unsigned)n : 1;
}
