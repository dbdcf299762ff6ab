/* dev_completions.c — completed requests from a block device's sysfs stat. */
#include "dev_completions.h"

#include <stdio.h>
#include <unistd.h>

#include "blkreel/event.h"
#include "devices.h"

/* The disk's folder holds mq/ for blk-mq; a partition's is one up. */
static bool request_based(const cap_device *d)
{
	char path[320];
	snprintf(path, sizeof path, "%s%s/mq", d->sysfs, cap_device_is_partition(d) ? "/.." : "");
	return access(path, F_OK) == 0;
}

bool cap_dev_completed(const cap_device *d, uint64_t *ios)
{
	if (!request_based(d))
		return false;
	char path[320];
	snprintf(path, sizeof path, "%s/stat", d->sysfs);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	unsigned long long v[17] = { 0 };
	int n = 0;
	while (n < 17 && fscanf(f, "%llu", &v[n]) == 1)
		n++;
	fclose(f);
	if (n < 11) /* the fields every kernel of the last decade has */
		return false;
	*ios = v[0] + v[4] + v[11] + v[15]; /* fields 1, 5, 12, 16 (zero where absent) */
	return true;
}

bool cap_dev_countable(const cap_config *cfg, size_t i)
{
	const cap_device *d = &cfg->devices[i];
	uint32_t disk;
	if (!cap_device_is_partition(d))
		return true;
	if (!cap_device_disk(d, &disk))
		return false;
	for (size_t j = 0; j < cfg->ndevices; j++)
		if (cfg->devices[j].dev == disk)
			return false;
	return true;
}

void cap_dev_check_start(cap_dev_check *c, const cap_config *cfg, bool (*carries_c)(const cap_device *d))
{
	for (size_t i = 0; i < cfg->ndevices; i++) {
		const cap_device *d = &cfg->devices[i];
		c->recorded[i] = 0;
		c->counted[i] = (!carries_c || carries_c(d)) && cap_dev_countable(cfg, i) &&
				cap_dev_completed(d, &c->start[i]);
	}
}

void cap_dev_check_record(cap_dev_check *c, const cap_config *cfg, uint32_t dev)
{
	for (size_t i = 0; i < cfg->ndevices; i++)
		if (cfg->devices[i].dev == dev) {
			cap_dev_check_record_at(c, i);
			return;
		}
}

void cap_dev_check_end(cap_dev_check *c, const cap_config *cfg)
{
	for (size_t i = 0; i < cfg->ndevices; i++)
		if (c->counted[i])
			c->counted[i] = cap_dev_completed(&cfg->devices[i], &c->end[i]);
}

uint64_t cap_dev_check_unrecorded_at(const cap_dev_check *c, const cap_config *cfg, const uint64_t *at)
{
	uint64_t n = 0;
	for (size_t i = 0; i < cfg->ndevices; i++)
		if (c->counted[i])
			n += cap_dev_unrecorded(c->start[i], at[i], c->recorded[i]);
	return n;
}

uint64_t cap_dev_check_unrecorded(const cap_dev_check *c, const cap_config *cfg)
{
	return cap_dev_check_unrecorded_at(c, cfg, c->end);
}

void cap_dev_check_count(const cap_dev_check *c, const cap_config *cfg, uint64_t at[CAP_MAX_DEVICES])
{
	for (size_t i = 0; i < cfg->ndevices; i++)
		if (!c->counted[i] || !cap_dev_completed(&cfg->devices[i], &at[i]))
			at[i] = c->start[i];
}
