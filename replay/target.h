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
	uint64_t whole_max;   /* largest IO the device takes without a split:
			       * max_sectors_kb, and max_segments pages (the
			       * slot buffers are page aligned, a page may be a
			       * segment); 0 when unknown or a file */
	uint64_t chunk;       /* queue/chunk_sectors in bytes: an IO across a
			       * multiple is split; 0 when none */
} target;

/* Look at path without opening it for IO: block device or file, size.
 * 0 or a negative br_code naming path. */
int target_stat(target *t, const char *path, br_error *err);

/* The request queue size of block device rdev from sysfs_root (normally
 * "/sys"): queue/nr_requests of the device, or of the disk a partition
 * belongs to. 0 when it cannot be read. */
unsigned target_queue_depth(const char *sysfs_root, dev_t rdev);

/* Any queue attribute of rdev (or of its disk) as a number, 0 when unread. */
uint64_t target_queue_attr(const char *sysfs_root, dev_t rdev, const char *name);

/* The device would split an IO of len bytes at off (whole_max, chunk). */
bool target_would_split(const target *t, uint64_t off, uint64_t len);

/* Open for the replay. excl: claim a block device exclusively (fails with
 * "busy" when mounted or claimed by someone else). */
int target_open(target *t, bool write, bool excl, br_error *err);

/* Close what target_open opened; safe to call twice. */
void target_close(target *t);

#endif
