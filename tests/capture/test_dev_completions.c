/* test_dev_completions.c — a device's completed requests from a sysfs
 * folder made here (stat, mq/, partition), and what may be checked. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blkreel/event.h"

/* capture/'s modules come from its internal archive, through its headers */
#include "../../capture/dev_completions.h"
#include "../../capture/devices.h"

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/blkreel-devc.XXXXXX");
	cr_assert(mkdtemp(root), "mkdtemp");
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(dev_completions, .init = setup, .fini = teardown);

static void put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void folder(const char *rel)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
}

static cap_device dev_at(const char *rel, unsigned ma, unsigned mi)
{
	cap_device d = { .dev = BR_MKDEV(ma, mi), .major = ma, .minor = mi };
	snprintf(d.sysfs, sizeof d.sysfs, "%s/%s", root, rel);
	return d;
}

/* fields 1, 5, 12 and 16: reads, writes, discards, flushes completed */
#define STAT17 "     100        3      800       50      200        4     1600       70        2      120      130       10        0       80        5        7        1\n"

Test(dev_completions, a_disk_sums_reads_writes_discards_and_flushes)
{
	folder("disk");
	folder("disk/mq");
	put("disk/stat", STAT17);
	cap_device d = dev_at("disk", 7, 0);
	uint64_t ios = 0;
	cr_assert(cap_dev_completed(&d, &ios));
	cr_expect_eq(ios, 100 + 200 + 10 + 7);
}

Test(dev_completions, an_older_kernel_without_discard_and_flush_fields)
{
	folder("disk");
	folder("disk/mq");
	put("disk/stat", "5 0 40 1 6 0 48 2 0 3 3\n");
	cap_device d = dev_at("disk", 7, 1);
	uint64_t ios = 0;
	cr_assert(cap_dev_completed(&d, &ios));
	cr_expect_eq(ios, 11);
}

Test(dev_completions, a_partition_counts_when_its_disk_is_request_based)
{
	folder("disk");
	folder("disk/mq");
	folder("disk/part1");
	put("disk/dev", "8:0\n");
	put("disk/part1/partition", "1\n");
	put("disk/part1/stat", STAT17);
	cap_device d = dev_at("disk/part1", 8, 1);
	uint64_t ios = 0;
	cr_assert(cap_dev_completed(&d, &ios));
	cr_expect_eq(ios, 317);
	cap_config cfg = { .ndevices = 1 };
	cfg.devices[0] = d;
	cr_expect(cap_dev_countable(&cfg, 0), "a partition alone is countable");
	cfg.devices[1] = dev_at("disk", 8, 0);
	cfg.ndevices = 2;
	cr_expect(!cap_dev_countable(&cfg, 0), "a partition whose disk is traced too is not");
	cr_expect(cap_dev_countable(&cfg, 1), "the disk itself is");
}

Test(dev_completions, bio_based_short_or_missing_stat_is_not_counted)
{
	folder("bio");
	put("bio/stat", STAT17); /* no mq/: a bio-based device (dm, md) */
	cap_device d = dev_at("bio", 253, 0);
	uint64_t ios = 99;
	cr_expect(!cap_dev_completed(&d, &ios));
	folder("short");
	folder("short/mq");
	put("short/stat", "1 2 3\n");
	d = dev_at("short", 7, 2);
	cr_expect(!cap_dev_completed(&d, &ios));
	folder("none");
	folder("none/mq");
	d = dev_at("none", 7, 3);
	cr_expect(!cap_dev_completed(&d, &ios));
	cr_expect_eq(ios, 99, "a count that failed leaves ios alone");
}

Test(dev_completions, unrecorded_is_what_the_records_do_not_cover)
{
	cr_expect_eq(cap_dev_unrecorded(1000, 1500, 500), 0);
	cr_expect_eq(cap_dev_unrecorded(1000, 1500, 470), 30);
	cr_expect_eq(cap_dev_unrecorded(1000, 1500, 520), 0, "partial completions add records, never losses");
	cr_expect_eq(cap_dev_unrecorded(1500, 1000, 0), 0, "a counter that went back (device reset) counts nothing");
}
