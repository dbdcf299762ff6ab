#include "safety.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "blkreel/event.h"
#include "probe.h"

/* The whole-disk device of a partition M:m (from sysfs), or rdev itself. */
static dev_t whole_disk(dev_t rdev)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/partition", major(rdev), minor(rdev));
	FILE *f = fopen(path, "r");
	if (!f)
		return rdev;
	fclose(f);
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/../dev", major(rdev), minor(rdev));
	f = fopen(path, "r");
	if (!f)
		return rdev;
	unsigned ma, mi;
	dev_t d = rdev;
	if (fscanf(f, "%u:%u", &ma, &mi) == 2)
		d = makedev(ma, mi);
	fclose(f);
	return d;
}

bool safety_mounted(dev_t rdev, char *where, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return false;
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned id, parent, ma, mi;
		char root[1024], mnt[1024];
		if (sscanf(line, "%u %u %u:%u %1023s %1023s", &id, &parent, &ma, &mi, root, mnt) != 6)
			continue;
		dev_t d = makedev(ma, mi);
		if (d == rdev || (major(d) == major(rdev) && whole_disk(d) == rdev)) {
			snprintf(where, size, "%s (device %u:%u)", mnt, ma, mi);
			found = true;
		}
	}
	fclose(f);
	return found;
}

bool safety_held(dev_t rdev, char *holder, size_t size)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/holders", major(rdev), minor(rdev));
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	bool held = false;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(holder, size, "%s", e->d_name);
		held = true;
		break;
	}
	closedir(d);
	return held;
}

int safety_check_use(const target *t, br_error *err)
{
	if (!t->blockdev)
		return 0;
	char what[1100];
	if (safety_mounted(t->rdev, what, sizeof what))
		return br_error_set(err, BR_EINVAL, 0, t->path, -1,
				    "refusing: mounted on %s (--force to replay anyway)", what);
	if (safety_held(t->rdev, what, sizeof what))
		return br_error_set(err, BR_EINVAL, 0, t->path, -1,
				    "refusing: in use by %s (--force to replay anyway)", what);
	return 0;
}

int safety_check_content(const target *t, bool write, const uint32_t *trace_devs,
			 size_t ntrace_devs, br_error *err)
{
	const char *sig = NULL;
	int rc = probe_fd(t->fd, t->path, &sig, err);
	if (rc)
		return rc;
	if (sig)
		return br_error_set(err, BR_EINVAL, 0, t->path, -1,
				    "refusing: it carries a %s (--force to replay anyway)", sig);
	if (write && t->blockdev) {
		for (size_t i = 0; i < ntrace_devs; i++) {
			if (BR_DEV_MAJOR(trace_devs[i]) == major(t->rdev) &&
			    BR_DEV_MINOR(trace_devs[i]) == minor(t->rdev))
				return br_error_set(err, BR_EINVAL, 0, t->path, -1,
						    "refusing to write: this is the device the trace "
						    "was captured from (%u,%u) (--force to write anyway)",
						    major(t->rdev), minor(t->rdev));
		}
	}
	return 0;
}
