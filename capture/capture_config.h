/* capture_config.h — what a capture is asked to do, as parsed from the
 * command line and checked against the system (devices resolved). */
#ifndef BLKREEL_CAPTURE_CONFIG_H
#define BLKREEL_CAPTURE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAP_MAX_DEVICES 64

struct cap_hooks; /* hooks.h: test and bench builds only */

typedef struct cap_device {
	const char *path;     /* as given: /dev/loop0 */
	char name[64];        /* kernel name: loop0 (sysfs, debugfs) */
	char sysfs[256];      /* /sys/dev/block/7:0 */
	uint32_t dev;         /* BR_MKDEV encoding, as in records */
	unsigned major, minor;
} cap_device;

typedef struct cap_config {
	cap_device devices[CAP_MAX_DEVICES];
	size_t ndevices;
	uint16_t act_mask;     /* BLK_TC_* bits; 0xffff = all */
	uint32_t pid;          /* 0 = every process */
	uint64_t start_lba, end_lba; /* end 0 = no upper bound */
	uint64_t buf_size;     /* bytes per buffer (0 = backend default) */
	unsigned buf_count;    /* buffers per CPU (0 = backend default) */
	unsigned ncpu;         /* possible CPUs (streams 0..ncpu-1) */
	FILE *log;             /* where backends say what they did (mounts); NULL = quiet */
	const struct cap_hooks *hooks; /* test and bench builds (hooks.h); NULL in release */
} cap_config;

#endif
