/* dev_completions.c — completed requests from a block device's sysfs stat. */
#include "dev_completions.h"

#include <stdio.h>
#include <unistd.h>

#include "blkreel/event.h"

/* The disk's folder holds mq/ for blk-mq; a partition's is one up. */
static bool request_based(const char *sysfs)
{
	char path[320];
	snprintf(path, sizeof path, "%s/partition", sysfs);
	bool part = access(path, F_OK) == 0;
	snprintf(path, sizeof path, "%s%s/mq", sysfs, part ? "/.." : "");
	return access(path, F_OK) == 0;
}

bool cap_dev_completed(const cap_device *d, uint64_t *ios)
{
	if (!request_based(d->sysfs))
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
	char path[320];
	snprintf(path, sizeof path, "%s/partition", d->sysfs);
	if (access(path, F_OK) != 0)
		return true;
	snprintf(path, sizeof path, "%s/../dev", d->sysfs);
	FILE *f = fopen(path, "re");
	unsigned ma, mi;
	bool read = f && fscanf(f, "%u:%u", &ma, &mi) == 2;
	if (f)
		fclose(f);
	if (!read)
		return false;
	for (size_t j = 0; j < cfg->ndevices; j++)
		if (cfg->devices[j].dev == BR_MKDEV(ma, mi))
			return false;
	return true;
}
