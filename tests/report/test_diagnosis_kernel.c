/* test_diagnosis_kernel.c — blkreel-report's diagnosis judged on controlled
 * pairs captured for real (root): each pair is one fio job traced twice on
 * loop devices we create, with ONE known difference between the two sides
 * (depth, think time, flushes, request size limit, IO size, merging,
 * read-ahead, scheduler, the device's speed, journalling), so the cause that must
 * come first is known; A/A pairs change nothing (their two sides run at
 * once on two devices built alike, so the host's drift between runs hits
 * both) and must give an empty diagnosis: no confirmed cause; a timing
 * shift within the host's run-to-run spread may be listed as unconfirmed
 * (issue 11, and issue 25's single-pair rule). The recipes are
 * tests/report/pairs/make_pairs.sh --quick, the same script that made the
 * full-length pairs; see its --list. Side B is always the slower one. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnosis_pairs.h"
#include "kernel_suite.h"
#include "testutil.h"

TestSuite(diagnosis_kernel, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 300);

/* Causes a pair may lead with, and the throughput factor the spec ties the
 * mechanism to (NULL: more than one factor is legitimate). */
typedef struct expectation {
	const char *pair;
	const char *causes[3];
	const char *factor;
} expectation;

/* The first cause must carry at least this share of the difference (summed
 * over entries with that cause id, should a report split one cause by factor).
 * The issue asks that the known cause come first; a pair whose one change
 * has side effects shares the gap (data=journal: amplification 0.47, the
 * journal's 2 KiB bios as io_size 0.35, plugging 0.18 in a quiet CI run),
 * so this only insists the first cause is a real part of the answer. */
#define MIN_FIRST_SHARE 0.3
/* The spec: causes under 5 % of the difference are not causes. */
#define MIN_ANY_SHARE 0.05

static void expect_cause(const expectation *e)
{
	dp_report r;
	dp_capture_pair(e->pair, DP_DIFFERENT, &r);
	char listing[4096];
	dp_describe(&r, listing, sizeof listing);
	cr_assert(r.has_diagnosis, "%s: blkreel-report --json has no top-level \"diagnosis\" array\n%s", e->pair, listing);
	dp_assert_well_formed(e->pair, &r, MIN_ANY_SHARE);
	/* every pair's difference is built far past the host's run-to-run
	 * spread (the idle pair's think time too): its cause is confirmed by
	 * one run per side (BR_DIAG_RERUN_RATIO) */
	cr_assert_gt(r.n, 0, "%s: no confirmed cause for a pair %.2fx apart in MB/s\n%s", e->pair,
		     r.mbps[0] / r.mbps[1], listing);
	const dp_cause *first = &r.c[0];
	bool known = false;
	for (int i = 0; i < 3 && e->causes[i]; i++)
		known |= strcmp(first->cause, e->causes[i]) == 0;
	cr_assert(known, "%s: first cause is \"%s\", expected \"%s\"%s%s\n%s", e->pair, first->cause, e->causes[0],
		  e->causes[1] ? " or \"" : "", e->causes[1] ? e->causes[1] : "", listing);
	cr_assert_str_eq(first->worse, "b", "%s: first cause says \"%s\" is worse; B is the slower side\n%s", e->pair,
			 first->worse, listing);
	double share = 0;
	for (int i = 0; i < r.n; i++)
		if (strcmp(r.c[i].cause, first->cause) == 0)
			share += r.c[i].share;
	cr_assert_geq(share, MIN_FIRST_SHARE, "%s: \"%s\" explains only %.2f of the difference\n%s", e->pair,
		      first->cause, share, listing);
	if (e->factor)
		cr_assert_str_eq(first->factor, e->factor, "%s: \"%s\" is put on factor \"%s\", expected \"%s\"\n%s",
				 e->pair, first->cause, first->factor, e->factor, listing);
}

static void expect_nothing(const char *pair, enum dp_kind kind)
{
	dp_report r;
	dp_capture_pair(pair, kind, &r);
	char listing[4096];
	dp_describe(&r, listing, sizeof listing);
	cr_assert(r.has_diagnosis, "%s: blkreel-report --json has no top-level \"diagnosis\" array\n%s", pair, listing);
	cr_assert_eq(r.n, 0, "%s: the same job captured twice (%.2fx in MB/s) gave a diagnosis\n%s", pair,
		     r.mbps[0] / r.mbps[1], listing);
}

Test(diagnosis_kernel, queue_depth_is_concurrency)
{
	expect_cause(&(expectation){ "concurrency", { "concurrency" }, "N_busy" });
}

Test(diagnosis_kernel, think_time_is_idle)
{
	expect_cause(&(expectation){ "idle", { "idle" }, "U" });
}

Test(diagnosis_kernel, fsync_per_write_is_flush)
{
	expect_cause(&(expectation){ "flush", { "flush" }, NULL });
}

Test(diagnosis_kernel, max_sectors_kb_is_split)
{
	expect_cause(&(expectation){ "split", { "split", "io_size" }, "S" });
}

Test(diagnosis_kernel, application_block_size_is_io_size)
{
	expect_cause(&(expectation){ "io_size", { "io_size" }, "S" });
}

Test(diagnosis_kernel, nomerges_is_merge)
{
	expect_cause(&(expectation){ "merge", { "merge" }, "S" });
}

Test(diagnosis_kernel, read_ahead_kb_is_readahead)
{
	expect_cause(&(expectation){ "readahead", { "readahead" }, NULL });
}

Test(diagnosis_kernel, bfq_is_scheduler)
{
	expect_cause(&(expectation){ "scheduler", { "scheduler" }, NULL });
}

Test(diagnosis_kernel, throttled_lower_device_is_service_time)
{
	expect_cause(&(expectation){ "service_time", { "service_time" }, "R" });
}

Test(diagnosis_kernel, data_journal_is_amplification)
{
	expect_cause(&(expectation){ "amplification", { "amplification" }, NULL });
}

Test(diagnosis_kernel, same_random_reads_twice_is_nothing)
{
	expect_nothing("aa_randread", DP_SAME);
}

Test(diagnosis_kernel, same_depth_4_writes_twice_is_nothing)
{
	expect_nothing("aa_qd4_writes", DP_SAME);
}

Test(diagnosis_kernel, same_buffered_reads_twice_is_nothing)
{
	expect_nothing("aa_buffered_read", DP_SAME);
}

/* The issue-25 case: the same job captured twice, one run after the
 * other. The host drifts between runs (tests/bench/rerun_spread.sh), which
 * one capture per side cannot show: at most an unconfirmed timing shift. */
Test(diagnosis_kernel, same_job_rerun_is_at_most_unconfirmed)
{
	expect_nothing("rerun_randread", DP_RERUN);
}
