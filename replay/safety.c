#include "safety.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blkreel/event.h"
#include "probe.h"
#include "tool/sysfs.h"

/* The whole-disk device of a partition M:m (from sysfs), or rdev itself. */
static dev_t whole_disk(dev_t rdev)
{
	char dir[128];
	unsigned ma, mi;
	tool_sysfs_dir(dir, sizeof dir, major(rdev), minor(rdev));
	if (!tool_sysfs_is_partition(dir) || !tool_sysfs_disk(dir, &ma, &mi))
		return rdev;
	return makedev(ma, mi);
}

/* Block device number of a mount's source ("/dev/..."), 0 when it has none. */
static dev_t source_rdev(const char *line)
{
	const char *sep = strstr(line, " - ");
	char fstype[256], source[1024];
	if (!sep || sscanf(sep + 3, "%255s %1023s", fstype, source) != 2 || source[0] != '/')
		return 0;
	struct stat st;
	return stat(source, &st) == 0 && S_ISBLK(st.st_mode) ? st.st_rdev : 0;
}

/* Does mounted device d sit on disk (itself or one of its partitions)? */
static bool on_disk(dev_t d, dev_t disk)
{
	return d && major(d) && (d == disk || whole_disk(d) == disk);
}

bool safety_mounted(dev_t rdev, char *where, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return false;
	dev_t disk = whole_disk(rdev);
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned id, parent, ma, mi;
		char root[1024], mnt[1024];
		if (sscanf(line, "%u %u %u:%u %1023s %1023s", &id, &parent, &ma, &mi, root, mnt) != 6)
			continue;
		/* st_dev of the mount, or (btrfs, overlay: an anonymous st_dev)
		 * the device its source names */
		dev_t d = makedev(ma, mi), src = source_rdev(line);
		dev_t hit = on_disk(d, disk) ? d : on_disk(src, disk) ? src : 0;
		if (!hit)
			continue;
		const char *rel = hit == rdev ? "" : hit == disk ? ", the disk this partition is on"
				: rdev == disk ? ", a partition of it" : ", another partition of its disk";
		snprintf(where, size, "%s (device %u:%u%s)", mnt, major(hit), minor(hit), rel);
		found = true;
	}
	fclose(f);
	return found;
}

/* First entry of /sys/dev/block/M:m/holders, into holder. */
static bool held_one(dev_t rdev, char *holder, size_t size)
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

bool safety_held(dev_t rdev, char *holder, size_t size)
{
	char name[256];
	if (held_one(rdev, name, sizeof name)) {
		snprintf(holder, size, "%s", name);
		return true;
	}
	dev_t disk = whole_disk(rdev);
	if (disk != rdev && held_one(disk, name, sizeof name)) {
		snprintf(holder, size, "%s (holding the disk this partition is on)", name);
		return true;
	}
	/* the disk's partitions are the subdirectories with a "partition" file */
	char path[128];
	tool_sysfs_dir(path, sizeof path, major(disk), minor(disk));
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	bool held = false;
	while (!held && (e = readdir(d))) {
		char part[512], dev[520];
		unsigned ma, mi;
		snprintf(part, sizeof part, "%s/%s", path, e->d_name);
		snprintf(dev, sizeof dev, "%s/dev", part);
		if (e->d_name[0] == '.' || !tool_sysfs_read_dev(dev, &ma, &mi) ||
		    makedev(ma, mi) == rdev || !tool_sysfs_is_partition(part))
			continue;
		if (held_one(makedev(ma, mi), name, sizeof name)) {
			snprintf(holder, size, "%s (holding %s, %s)", name, e->d_name,
				 rdev == disk ? "a partition of it" : "another partition of its disk");
			held = true;
		}
	}
	closedir(d);
	return held;
}

bool safety_backing_loop(const char *sys_block, const struct stat *file, char *loop, size_t size,
			 dev_t *loop_rdev)
{
	DIR *d = opendir(sys_block);
	if (!d)
		return false;
	struct dirent *e;
	bool found = false;
	while (!found && (e = readdir(d))) {
		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		char path[512], backing[4096];
		snprintf(path, sizeof path, "%s/%s/loop/backing_file", sys_block, e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool ok = fgets(backing, sizeof backing, f) != NULL;
		fclose(f);
		if (!ok)
			continue;
		backing[strcspn(backing, "\n")] = 0;
		struct stat st;
		if (stat(backing, &st) != 0 || st.st_dev != file->st_dev || st.st_ino != file->st_ino)
			continue;
		unsigned ma, mi;
		snprintf(path, sizeof path, "%s/%s/dev", sys_block, e->d_name);
		if (!tool_sysfs_read_dev(path, &ma, &mi))
			continue;
		snprintf(loop, size, "/dev/%s", e->d_name);
		*loop_rdev = makedev(ma, mi);
		found = true;
	}
	closedir(d);
	return found;
}

/* Why dev (the target, or the loop device over it) is in use, or false. */
static bool in_use(dev_t rdev, char *why, size_t size)
{
	char what[1100];
	if (safety_mounted(rdev, what, sizeof what)) {
		snprintf(why, size, "mounted on %s", what);
		return true;
	}
	if (safety_held(rdev, what, sizeof what)) {
		snprintf(why, size, "in use by %s", what);
		return true;
	}
	return false;
}

int safety_check_use(const target *t, bool write, bool force, br_error *err)
{
	char why[1800];
	bool busy = false;
	if (t->blockdev) {
		busy = in_use(t->rdev, why, sizeof why);
	} else {
		struct stat st;
		char loop[300], loop_why[1400];
		dev_t lr;
		if (stat(t->path, &st) == 0 && safety_backing_loop("/sys/block", &st, loop, sizeof loop, &lr) &&
		    in_use(lr, loop_why, sizeof loop_why)) {
			snprintf(why, sizeof why, "it is the backing file of %s, which is %s", loop, loop_why);
			busy = true;
		}
	}
	if (!busy)
		return 0;
	if (write)
		return br_error_set(err, BR_EINVAL, 0, t->path, -1,
				    "refusing to write: %s; a target in use is never written, "
				    "--force or not", why);
	if (!force)
		return br_error_set(err, BR_EINVAL, 0, t->path, -1,
				    "refusing: %s (--force to read it anyway; it is never written)", why);
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
