/* probe.h — does a device or file start with a filesystem or partition
 * table? A small blkid-like check of well-known magic numbers: ext2/3/4,
 * XFS, btrfs, Linux swap, MBR and GPT. */
#ifndef REPLAY_PROBE_H
#define REPLAY_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"

/* Bytes probe_buffer looks at (the btrfs superblock is at 64 KiB). */
#define PROBE_BYTES (64 * 1024 + 4096)

/* Name of the first signature found in buf (len bytes from offset 0 of the
 * target; shorter buffers just check less), or NULL. */
const char *probe_buffer(const uint8_t *buf, size_t len);

/* Read the start of fd (which may be O_DIRECT) and probe it. Returns 0 and sets *found (NULL when
 * clean), or a negative br_code naming path. */
int probe_fd(int fd, const char *path, const char **found, br_error *err);

#endif
