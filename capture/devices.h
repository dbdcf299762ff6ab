/* devices.h — checking what the user asked to trace, before touching the
 * kernel: privileges, and that each path is a block device. */
#ifndef BLKREEL_CAPTURE_DEVICES_H
#define BLKREEL_CAPTURE_DEVICES_H

#include "blkreel/error.h"
#include "capture_config.h"

/* 0 when we are root or hold CAP_SYS_ADMIN, else BR_EINVAL with why. */
int cap_check_privileges(br_error *err);

/* Fill d from path: stat, S_ISBLK, kernel name and sysfs directory. */
int cap_device_resolve(const char *path, cap_device *d, br_error *err);

#endif
