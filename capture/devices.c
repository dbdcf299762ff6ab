#include "devices.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blkreel/event.h"
#include "tool/sysfs.h"

#define CAP_SYS_ADMIN_BIT 21

int cap_check_privileges(br_error *err)
{
	if (geteuid() == 0)
		return 0;
	/* Not root: CapEff may still hold CAP_SYS_ADMIN (a capability-aware
	 * launcher), which is all the kernel interfaces check. */
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	if (f) {
		char line[256];
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "CapEff: %llx", &eff) == 1)
				break;
		fclose(f);
	}
	if (eff & (1ull << CAP_SYS_ADMIN_BIT))
		return 0;
	return br_error_set(err, BR_EINVAL, 0, NULL, -1,
			    "tracing block devices needs root (CAP_SYS_ADMIN); run it with sudo");
}

int cap_device_resolve(const char *path, cap_device *d, br_error *err)
{
	memset(d, 0, sizeof *d);
	d->path = path;
	struct stat st;
	if (stat(path, &st))
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot access");
	if (!S_ISBLK(st.st_mode))
		return br_error_set(err, BR_EINVAL, 0, path, -1, "is not a block device");
	d->major = major(st.st_rdev);
	d->minor = minor(st.st_rdev);
	d->dev = BR_MKDEV(d->major, d->minor);
	tool_sysfs_dir(d->sysfs, sizeof d->sysfs, d->major, d->minor);
	char link[512];
	ssize_t n = readlink(d->sysfs, link, sizeof link - 1);
	if (n < 0)
		return br_error_set(err, BR_ESYS, errno, d->sysfs, -1, "cannot find %s in sysfs", path);
	link[n] = 0;
	snprintf(d->name, sizeof d->name, "%s", basename(link));
	return 0;
}

bool cap_device_is_partition(const cap_device *d)
{
	return tool_sysfs_is_partition(d->sysfs);
}

bool cap_device_disk(const cap_device *d, uint32_t *disk)
{
	unsigned ma, mi;
	if (!tool_sysfs_disk(d->sysfs, &ma, &mi))
		return false;
	*disk = BR_MKDEV(ma, mi);
	return true;
}
