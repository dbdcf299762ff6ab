/* tool/sysfs.h — what sysfs says of a block device, for the tools that
 * touch real devices (blkreel-capture's device checks and BPF rules,
 * blkreel-replay's safety checks). A device's folder is
 * /sys/dev/block/MAJ:MIN; these helpers take that folder (or a file in it)
 * and say false when sysfs does not have the answer. */
#ifndef BLKREEL_TOOL_SYSFS_H
#define BLKREEL_TOOL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/* "/sys/dev/block/MAJ:MIN" into buf. */
void tool_sysfs_dir(char *buf, size_t size, unsigned major, unsigned minor);

/* A "MAJ:MIN" file (a device's dev) into *major, *minor. */
bool tool_sysfs_read_dev(const char *path, unsigned *major, unsigned *minor);

/* A file holding one number (a partition's start or size, in sectors). */
bool tool_sysfs_read_u64(const char *path, unsigned long long *v);

/* Whether the device of folder dir is a partition (dir has a partition file). */
bool tool_sysfs_is_partition(const char *dir);

/* A partition's whole disk: the dev file of dir's parent folder. */
bool tool_sysfs_disk(const char *dir, unsigned *major, unsigned *minor);

#endif
