/* target.h — a device or regular file the replay issues IOs to: its size,
 * the alignment O_DIRECT needs, and the descriptors (direct and buffered). */
#ifndef REPLAY_TARGET_H
#define REPLAY_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "blkreel/error.h"

typedef struct target {
	const char *path;
	bool blockdev;
	dev_t rdev;          /* block device number (blockdev only) */
	uint64_t size;       /* bytes */
	unsigned align;      /* O_DIRECT offset/length alignment, bytes */
	int fd;              /* O_DIRECT when direct, else buffered */
	int fd_buf;          /* buffered descriptor */
	bool direct;
	bool excl;           /* block device opened with O_EXCL */
	const char *direct_note; /* why O_DIRECT is off, or NULL */
	unsigned queue_depth; /* requests the device's queue holds (sysfs
			       * nr_requests), 0 when unknown or a file */
} target;

/* Look at path without opening it for IO: block device or file, size.
 * 0 or a negative br_code naming path. */
int target_stat(target *t, const char *path, br_error *err);

/* The request queue size of block device rdev from sysfs_root (normally
 * "/sys"): queue/nr_requests of the device, or of the disk a partition
 * belongs to. 0 when it cannot be read. */
unsigned target_queue_depth(const char *sysfs_root, dev_t rdev);

/* Open for the replay. excl: claim a block device exclusively (fails with
 * "busy" when mounted or claimed by someone else). */
int target_open(target *t, bool write, bool excl, br_error *err);

/* Close what target_open opened; safe to call twice. */
void target_close(target *t);

#endif
