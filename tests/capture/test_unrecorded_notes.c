/* test_unrecorded_notes.c — the completions no record shows, file by file:
 * samples of a device's count (a sysfs folder made here) against the C
 * records read, and what each closing file notes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blkreel/event.h"

/* capture/'s modules come from its internal archive, through its headers */
#include "../../capture/unrecorded_notes.h"

#define MS (1000ull * 1000)

static char root[64];
static cap_config cfg;
static cap_dev_check check;
static cap_unrecorded_notes notes;

/* The device's completed reads now (field 1 of its stat). */
static void device_completed(unsigned n)
{
	char path[128];
	snprintf(path, sizeof path, "%s/disk/stat", root);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fprintf(f, "%u 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", n);
	fclose(f);
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/blkreel-unrec.XXXXXX");
	cr_assert(mkdtemp(root), "mkdtemp");
	char path[128];
	snprintf(path, sizeof path, "%s/disk", root);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/disk/mq", root);
	cr_assert_eq(mkdir(path, 0755), 0);
	memset(&cfg, 0, sizeof cfg);
	memset(&notes, 0, sizeof notes);
	cfg.ndevices = 1;
	cfg.devices[0].dev = BR_MKDEV(7, 0);
	snprintf(cfg.devices[0].sysfs, sizeof cfg.devices[0].sysfs, "%s/disk", root);
	device_completed(100);
	cap_dev_check_start(&check, &cfg, NULL);
	cr_assert(check.counted[0], "the device made here is not counted");
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(unrecorded_notes, .init = setup, .fini = teardown);

/* A read round at now: the device has completed `completed` requests
 * since the start when it begins, `recorded` C records were read by its
 * end, the newest of them at trace time newest. */
static void round_at(uint64_t now, unsigned completed, unsigned recorded, uint64_t newest)
{
	device_completed(100 + completed);
	bool counted = cap_unrecorded_round_begin(&notes, &check, &cfg, now);
	device_completed(100 + completed + 1000); /* counted after it began: not the sample's */
	check.recorded[0] = recorded;
	if (counted)
		cap_unrecorded_round_end(&notes, &check, &cfg, newest);
}

Test(unrecorded_notes, each_file_notes_the_losses_sampled_before_its_cut_and_the_set_adds_up)
{
	round_at(0, 10, 8, 1000);         /* 2 lost by then */
	round_at(30 * MS, 30, 27, 2000);  /* 3 */
	round_at(35 * MS, 40, 20, 2500);  /* not due: no sample (it would say 20) */
	round_at(60 * MS, 50, 48, 3000);  /* 2: completions recorded since mask one */
	cr_expect_eq(cap_unrecorded_file(&notes, 999), 0, "a cut before every sample notes nothing");
	cr_expect_eq(cap_unrecorded_file(&notes, 1500), 2);
	cr_expect_eq(cap_unrecorded_file(&notes, 2600), 1, "the sample at 2000, beyond the 2 noted");
	cr_expect_eq(cap_unrecorded_file(&notes, 3500), 0, "a sample that counts less notes nothing");
	uint64_t run = 0;
	cr_expect_eq(cap_unrecorded_last(&notes, 5, &run), 2, "the last file: the final count's rest");
	cr_expect_eq(run, 5);
}

Test(unrecorded_notes, the_run_count_is_what_the_files_said_when_a_sample_saw_more)
{
	round_at(0, 10, 6, 1000);
	cr_expect_eq(cap_unrecorded_file(&notes, 1000), 4);
	uint64_t run = 0;
	cr_expect_eq(cap_unrecorded_last(&notes, 3, &run), 0);
	cr_expect_eq(run, 4, "the files' notes add up to the run's count");
}

Test(unrecorded_notes, a_round_that_left_records_unread_makes_no_sample)
{
	check.behind = true;
	round_at(0, 10, 2, 1000); /* records of 8 completions still in the kernel */
	check.behind = false;
	cr_expect_eq(cap_unrecorded_file(&notes, 5000), 0);
	round_at(30 * MS, 20, 20, 2000);
	cr_expect_eq(cap_unrecorded_file(&notes, 5000), 0);
	uint64_t run = 9;
	cr_expect_eq(cap_unrecorded_last(&notes, 0, &run), 0);
	cr_expect_eq(run, 0);
}

Test(unrecorded_notes, no_check_no_sample)
{
	device_completed(150);
	cr_expect(!cap_unrecorded_round_begin(&notes, NULL, &cfg, 0), "no check, yet a count");
	cap_unrecorded_round_end(&notes, NULL, &cfg, 1000);
	cr_expect_eq(cap_unrecorded_file(&notes, 5000), 0);
}

/* A file cut long after its samples (the sink held its events back): the
 * oldest samples are merged away, the newest of them kept for such a cut. */
Test(unrecorded_notes, samples_beyond_the_bound_keep_the_newest_merged_away)
{
	unsigned n = CAP_UNRECORDED_SAMPLES + 10;
	for (unsigned k = 0; k < n; k++)
		round_at((uint64_t)k * CAP_UNRECORDED_SAMPLE_NS, 10 * (k + 1), 9 * (k + 1), 1000 * (k + 1));
	/* samples 1..10 were merged away; 10 (at 10000) is kept */
	cr_expect_eq(cap_unrecorded_file(&notes, 10500), 10, "the newest sample merged away, at or before the cut");
	cr_expect_eq(cap_unrecorded_file(&notes, 11000), 1);
	cr_expect_eq(cap_unrecorded_file(&notes, 1000ull * n), n - 11);
}
