/* tracefs_util.h — finding (and if need be mounting) tracefs and debugfs,
 * and reading the small numbers the kernel keeps in them. */
#ifndef BLKREEL_CAPTURE_TRACEFS_UTIL_H
#define BLKREEL_CAPTURE_TRACEFS_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "blkreel/error.h"
#include "kstate/kstate.h"

#define CAP_TRACEFS "/sys/kernel/tracing"
#define CAP_DEBUGFS "/sys/kernel/debug"

/* Make sure tracefs is mounted at CAP_TRACEFS; mounts it (says so on log,
 * and records it in ks so it is unmounted at the end) when it is not. */
int cap_tracefs_ensure(FILE *log, cap_kstate *ks, br_error *err);
/* Same for debugfs at CAP_DEBUGFS. */
int cap_debugfs_ensure(FILE *log, cap_kstate *ks, br_error *err);

/* The value of "key: N" in a per_cpu stats file (0 when absent). */
uint64_t cap_stats_value(const char *path, const char *key);

/* Number of CPU streams: the per_cpu/cpuN directories (possible CPUs). */
unsigned cap_possible_cpus(void);

#endif
