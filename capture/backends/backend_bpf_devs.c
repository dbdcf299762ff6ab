/* backend_bpf_devs.c — device match rules from sysfs (partition, start,
 * size, the parent disk's dev). */
#include "backends/backend_bpf_devs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blkreel/event.h"
#include "devices.h"
#include "tool/sysfs.h"

static int add(struct bcr_dev *rules, int n, uint32_t dev, unsigned stages, size_t index, uint64_t lo, uint64_t hi,
	       br_error *err)
{
	if (n >= BCR_MAX_DEVS)
		return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "more than %d device rules", BCR_MAX_DEVS);
	rules[n] = (struct bcr_dev){ .dev = dev, .stages = (bcr_u8)stages, .index = (bcr_u8)index, .lo = lo, .hi = hi };
	return n + 1;
}

int bpf_dev_rules(const cap_config *cfg, struct bcr_dev *rules, br_error *err)
{
	int n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < cfg->ndevices; i++) {
			const cap_device *d = &cfg->devices[i];
			bool part = cap_device_is_partition(d);
			if (part != (pass == 1))
				continue;
			if (!part) {
				n = add(rules, n, d->dev, BCR_STAGE_BIO | BCR_STAGE_RQ, i, 0, 0, err);
			} else {
				unsigned long long start, size;
				uint32_t disk;
				char path[300];
				snprintf(path, sizeof path, "%s/start", d->sysfs);
				bool bad = !tool_sysfs_read_u64(path, &start);
				snprintf(path, sizeof path, "%s/size", d->sysfs);
				bad = bad || !tool_sysfs_read_u64(path, &size);
				snprintf(path, sizeof path, "%s/../dev", d->sysfs);
				bad = bad || !cap_device_disk(d, &disk);
				if (bad)
					return br_error_set(err, BR_ESYS, errno, path, -1,
							    "cannot read the partition's place on its disk");
				n = add(rules, n, d->dev, BCR_STAGE_BIO, i, 0, 0, err);
				if (n > 0)
					n = add(rules, n, disk, BCR_STAGE_RQ, i, start, start + size, err);
			}
			if (n < 0)
				return n;
		}
	}
	return n;
}
