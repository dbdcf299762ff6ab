#include "kstate/fs_mount.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

bool cap_fs_supported(const char *fstype)
{
	FILE *f = fopen("/proc/filesystems", "re");
	if (!f)
		return false;
	/* lines are "nodev\ttracefs" or "\text4" */
	char line[128];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		const char *name = strrchr(line, '\t');
		found = strcmp(name ? name + 1 : line, fstype) == 0;
	}
	fclose(f);
	return found;
}

bool cap_fs_mounted(const char *dir, const char *probe)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, probe);
	return access(path, F_OK) == 0;
}

int cap_fs_mount_if_absent(const char *dir, const char *probe, const char *fstype, bool *mounted,
			   br_error *err)
{
	*mounted = false;
	if (cap_fs_mounted(dir, probe))
		return 0;
	if (mount("nodev", dir, fstype, 0, NULL))
		return br_error_set(err, BR_ESYS, errno, dir, -1, "%s is not mounted and mounting it failed", fstype);
	*mounted = true;
	if (!cap_fs_mounted(dir, probe))
		return br_error_set(err, BR_EUNSUP, ENOENT, dir, -1, "no %s in it after mounting %s", probe, fstype);
	return 0;
}

int cap_fs_unmount(const char *dir, br_error *err)
{
	if (umount2(dir, MNT_DETACH) && errno != EINVAL)
		return br_error_set(err, BR_ESYS, errno, dir, -1, "cannot unmount");
	return 0;
}
