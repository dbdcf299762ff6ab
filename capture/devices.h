/* devices.h — checking what the user asked to trace, before touching the
 * kernel: privileges, that each path is a block device, and what sysfs says
 * of it (a partition, and of which disk). */
#ifndef BLKREEL_CAPTURE_DEVICES_H
#define BLKREEL_CAPTURE_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "capture_config.h"

/* 0 when we are root or hold CAP_SYS_ADMIN, else BR_EINVAL with why. */
int cap_check_privileges(br_error *err);

/* Fill d from path: stat, S_ISBLK, kernel name and sysfs directory. */
int cap_device_resolve(const char *path, cap_device *d, br_error *err);

/* Whether d is a partition (its sysfs folder has a partition file). */
bool cap_device_is_partition(const cap_device *d);

/* A partition's whole disk (BR_MKDEV encoding) from sysfs; false when it
 * cannot be read. */
bool cap_device_disk(const cap_device *d, uint32_t *disk);

#endif
