/* safety.h — checks before a replay touches a target: mounted (the device
 * itself or one of its partitions), holders (device-mapper, md), a
 * filesystem or partition signature, and writing to the very device the
 * trace was captured from. Each refusal names the reason and says --force. */
#ifndef REPLAY_SAFETY_H
#define REPLAY_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "blkreel/error.h"
#include "target.h"

/* Mount point of rdev, of a partition of it, or (rdev a partition) of its
 * disk or another partition of that disk, copied into where; true when
 * mounted. */
bool safety_mounted(dev_t rdev, char *where, size_t size);

/* Name of a holder (/sys/dev/block/M:m/holders: device-mapper, md, ...) of
 * rdev, of its disk, or of a partition of that disk; false when none. */
bool safety_held(dev_t rdev, char *holder, size_t size);

/* The loop device (under sys_block, normally "/sys/block") whose backing
 * file is file: its /dev path into loop and its number; false when none. */
bool safety_backing_loop(const char *sys_block, const struct stat *file, char *loop, size_t size,
			 dev_t *loop_rdev);

/* Before opening: a block device mounted or held (itself, its disk or a
 * sibling partition), or a regular file backing a loop device that is.
 * With write, always refused; without, unless force. Returns 0 or
 * BR_EINVAL with err set. */
int safety_check_use(const target *t, bool write, bool force, br_error *err);

/* After opening: signature, and (when writing) a trace device that is this
 * target. trace_devs: BR_MKDEV numbers of the traced devices. */
int safety_check_content(const target *t, bool write, const uint32_t *trace_devs,
			 size_t ntrace_devs, br_error *err);

#endif
