/* safety.h — checks before a replay touches a target: mounted (the device
 * itself or one of its partitions), holders (device-mapper, md), a
 * filesystem or partition signature, and writing to the very device the
 * trace was captured from. Each refusal names the reason and says --force. */
#ifndef REPLAY_SAFETY_H
#define REPLAY_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "target.h"

/* Mount point of rdev or of a partition of it, copied into where; true when
 * mounted. */
bool safety_mounted(dev_t rdev, char *where, size_t size);

/* Name of a holder of rdev (/sys/dev/block/M:m/holders), or false. */
bool safety_held(dev_t rdev, char *holder, size_t size);

/* Before opening: mounted / held. Returns 0 or BR_EINVAL with err set. */
int safety_check_use(const target *t, br_error *err);

/* After opening: signature, and (when writing) a trace device that is this
 * target. trace_devs: BR_MKDEV numbers of the traced devices. */
int safety_check_content(const target *t, bool write, const uint32_t *trace_devs,
			 size_t ntrace_devs, br_error *err);

#endif
