/* backend_bpf_devs.h — which kernel events belong to which traced device.
 * Bio events carry the device the bio was sent to (a partition's own
 * dev_t), request events the whole disk's; so a partition gets two rules:
 * its dev_t for bio events, and the disk's dev_t within its sector range
 * for request events. */
#ifndef BLKREEL_CAPTURE_BACKEND_BPF_DEVS_H
#define BLKREEL_CAPTURE_BACKEND_BPF_DEVS_H

#include <stddef.h>

#include "blkreel/error.h"
#include "backends/bpf/capture_record.h"
#include "capture_config.h"

/* Rules for cfg's devices into rules[BCR_MAX_DEVS]; whole disks first, so
 * a disk traced together with one of its partitions keeps its requests.
 * Returns the number of rules or a negative br_code. */
int bpf_dev_rules(const cap_config *cfg, struct bcr_dev *rules, br_error *err);

#endif
