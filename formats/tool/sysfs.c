#include "tool/sysfs.h"

#include <stdio.h>
#include <unistd.h>

void tool_sysfs_dir(char *buf, size_t size, unsigned major, unsigned minor)
{
	snprintf(buf, size, "/sys/dev/block/%u:%u", major, minor);
}

bool tool_sysfs_read_dev(const char *path, unsigned *major, unsigned *minor)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	unsigned ma, mi;
	bool ok = fscanf(f, "%u:%u", &ma, &mi) == 2;
	fclose(f);
	if (ok) {
		*major = ma;
		*minor = mi;
	}
	return ok;
}

bool tool_sysfs_read_u64(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok;
}

bool tool_sysfs_is_partition(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/partition", dir);
	return access(path, F_OK) == 0;
}

bool tool_sysfs_disk(const char *dir, unsigned *major, unsigned *minor)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/../dev", dir);
	return tool_sysfs_read_dev(path, major, minor);
}
