/* test_stats.c — the shared statistics (blkreel/stats.h) on hand-built
 * traces whose answers are worked out in the comments: throughput, IOPS,
 * the last partial bucket, seeks with the 128-sector rule, Q→D→C pairing
 * with merges, splits, remaps, requeues and IOs that never complete, the
 * in-flight integral, the histogram, coarsening, and the event-kind
 * fallback; flushes and empty completions as the kernel logs them; and,
 * on the real samples, the in-flight average against a plain count. */
#include <criterion/criterion.h>
#include <endian.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/reader.h"
#include "blkreel/stats.h"
#include "stats/stats_internal.h" /* stats_hist_add2 */
#include "plain_flight.h"
#include "testutil.h"

#define MS 1000000ull
#define US 1000ull
#define SEC 1000000000ull
#define T0 (5 * SEC) /* traces do not start at 0 */
#define R BLK_TC_ACT(BLK_TC_READ)
#define W BLK_TC_ACT(BLK_TC_WRITE)
#define DEV_A BR_MKDEV(8, 0)
#define DEV_B BR_MKDEV(8, 16)

static br_stats *S;
static br_error E;

static void setup(void)
{
	cr_assert_eq(br_stats_new(&S, &(br_stats_opts){ .latency_series = true }, &E), 0);
}

static void teardown(void)
{
	br_stats_free(S);
}

static void ev_dev(uint64_t t, unsigned code, uint32_t rw, uint64_t sector, uint32_t bytes, uint32_t dev)
{
	br_event ev = { .time = T0 + t, .sector = sector, .bytes = bytes,
			.action = rw | code, .device = dev, .pid = 1 };
	cr_assert_eq(br_stats_add(S, &ev, &E), 0);
}

static void ev(uint64_t t, unsigned code, uint32_t rw, uint64_t sector, uint32_t bytes)
{
	ev_dev(t, code, rw, sector, bytes, DEV_A);
}

static const br_stats_totals *finish(void)
{
	cr_assert_eq(br_stats_finish(S, &E), 0);
	return br_stats_get_totals(S);
}

TestSuite(stats, .init = setup, .fini = teardown);

/* Three 4 KiB reads and one 8 KiB write completed at 0, 0.5, 1.2, 1.6 s;
 * the trace ends with an unplug at 2 s - 1 ns. 1 s buckets: [0,1) has 2
 * reads = 8192 B over 1 s; [1,2) has the write and a read over 1 s. */
Test(stats, throughput_and_iops_on_completions)
{
	ev(0, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(500 * MS, __BLK_TA_COMPLETE, R, 8, 4096);
	ev(1200 * MS, __BLK_TA_COMPLETE, W, 100, 8192);
	ev(1600 * MS, __BLK_TA_COMPLETE, R, 16, 4096);
	ev(2 * SEC - 1, __BLK_TA_UNPLUG_IO, 0, 0, 0);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->io_kind, BR_KIND_C);
	cr_expect_eq(t->ios[BR_DIR_READ], 3);
	cr_expect_eq(t->ios[BR_DIR_WRITE], 1);
	cr_expect_eq(t->bytes[BR_DIR_READ], 12288);
	cr_expect_eq(t->bytes[BR_DIR_WRITE], 8192);
	br_stats_series s;
	cr_assert_eq(br_stats_series_get(S, SEC, 0, 0, &s, &E), 0);
	cr_assert_eq(s.n, 2);
	cr_expect_eq(s.b[0].bytes[BR_DIR_READ], 8192);
	cr_expect_eq(s.b[0].covered_ns, SEC);
	cr_expect_float_eq(br_stats_bucket_mbps(&s.b[0], BR_DIR_READ), 0.008192, 1e-9);
	cr_expect_float_eq(br_stats_bucket_iops(&s.b[0]), 2.0, 1e-9);
	cr_expect_eq(s.b[1].covered_ns, SEC);
	cr_expect_eq(s.b[1].bytes[BR_DIR_WRITE], 8192);
	cr_expect_float_eq(br_stats_bucket_iops(&s.b[1]), 2.0, 1e-9);
	cr_expect_float_eq(br_stats_bucket_mbps(&s.b[1], -1), 12288 / 1e6, 1e-9);
	br_stats_series_free(&s);
}

/* Events at 0, 0.9 and 2.1 s in 1 s buckets: the last bucket covers only
 * 0.1 s, so it is folded into [1,2): no inflated rate. */
Test(stats, short_last_bucket_is_folded)
{
	ev(0, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(900 * MS, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(2100 * MS, __BLK_TA_COMPLETE, R, 0, 4096);
	finish();
	br_stats_series s;
	cr_assert_eq(br_stats_series_get(S, SEC, 0, 0, &s, &E), 0);
	cr_assert_eq(s.n, 2);
	cr_expect_eq(s.b[1].ios[BR_DIR_READ], 1);
	cr_expect_eq(s.b[1].covered_ns, SEC + 100 * MS + 1);
	cr_expect_float_eq(br_stats_bucket_iops(&s.b[1]), 1 / 1.100000001, 1e-9);
	br_stats_series_free(&s);
}

/* Seeks on D, per device: [0,8) then 136 (exactly 128 away: no seek), then
 * 273 (129 past the end at 144: seek), then back to 0 (281 away: seek).
 * Device B's first IO is not a seek even though it is far away. */
Test(stats, seeks_use_the_128_sector_rule_per_device)
{
	ev(0, __BLK_TA_ISSUE, R, 0, 4096);
	ev_dev(1 * MS, __BLK_TA_ISSUE, R, 999999, 4096, DEV_B);
	ev(2 * MS, __BLK_TA_ISSUE, R, 136, 4096);
	ev(3 * MS, __BLK_TA_ISSUE, R, 273, 4096);
	ev(4 * MS, __BLK_TA_ISSUE, R, 0, 4096);
	ev_dev(5 * MS, __BLK_TA_ISSUE, R, 1000007, 4096, DEV_B); /* 0 away */
	const br_stats_totals *t = finish();
	cr_expect_eq(t->seek_kind, BR_KIND_D);
	cr_expect_eq(t->seeks, 2);
	cr_expect_eq(t->seek_candidates, 6);
	cr_expect_eq(t->ndevices, 2);
	/* only D events: IOs fall back to D as well */
	cr_expect_eq(t->io_kind, BR_KIND_D);
}

Test(stats, kind_falls_back_to_queue_events)
{
	ev(0, __BLK_TA_QUEUE, W, 0, 4096);
	ev(1 * MS, __BLK_TA_QUEUE, W, 1000, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->io_kind, BR_KIND_Q);
	cr_expect_eq(t->seek_kind, BR_KIND_Q);
	cr_expect_eq(t->seeks, 1);
	cr_expect_eq(t->ios[BR_DIR_WRITE], 2);
	cr_expect_eq(t->never_issued, 2);
	cr_expect_eq(t->d2c.count, 0);
}

/* One IO: Q at 0, D at 10 us, C at 100 us: D2C 90 us, Q2C 100 us. */
Test(stats, simple_pairing)
{
	ev(0, __BLK_TA_QUEUE, R, 1000, 4096);
	ev(10 * US, __BLK_TA_ISSUE, R, 1000, 4096);
	ev(100 * US, __BLK_TA_COMPLETE, R, 1000, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->d2c.count, 1);
	cr_expect_eq(t->d2c.min, 90 * US);
	cr_expect_eq(t->q2c.min, 100 * US);
	cr_expect_eq(t->q2c_bios, 1);
	cr_expect_float_eq(t->q2c_bio_sum_ns, 100000.0, 1e-6);
	cr_expect_eq(t->queued, 1);
	cr_expect_eq(t->issued, 1);
	cr_expect_eq(t->completed, 1);
	cr_expect_eq(t->never_completed + t->never_issued + t->orphan_completions, 0);
	cr_expect_eq(t->inflight_max, 1);
	/* in flight from 10 to 100 us of a 100 us span */
	cr_expect_float_eq(t->inflight_avg, 0.9, 1e-9);
}

/* Bio A [100,108) queued at 0; bio B [108,116) at 5 us back-merges into A;
 * bio C [92,100) at 7 us front-merges. One request [92,116) issued at 10,
 * completed at 50: D2C 40, Q2C 50 (earliest Q), per-bio Q2C sum
 * 50 + 45 + 43 = 138 us over 3 bios. */
Test(stats, merges_fold_bios_into_one_request)
{
	ev(0, __BLK_TA_QUEUE, W, 100, 4096);
	ev(5 * US, __BLK_TA_QUEUE, W, 108, 4096);
	ev(5 * US, __BLK_TA_BACKMERGE, W, 108, 4096);
	ev(7 * US, __BLK_TA_QUEUE, W, 92, 4096);
	ev(7 * US, __BLK_TA_FRONTMERGE, W, 92, 4096);
	ev(10 * US, __BLK_TA_ISSUE, W, 92, 12288);
	ev(50 * US, __BLK_TA_COMPLETE, W, 92, 12288);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->merged, 2);
	cr_expect_eq(t->queued, 3);
	cr_expect_eq(t->d2c.count, 1);
	cr_expect_eq(t->d2c.min, 40 * US);
	cr_expect_eq(t->q2c.min, 50 * US);
	cr_expect_eq(t->q2c_bios, 3);
	cr_expect_float_eq(t->q2c_bio_sum_ns, 138000.0, 1e-6);
	cr_expect_eq(t->never_issued + t->never_completed, 0);
}

/* Q 0, D 10, R 20 (back to the queue), D 30, C 70: D2C counts from the
 * last D (40 us); in flight [10,20) and [30,70) = 50 of 70 us. */
Test(stats, requeue_restarts_device_time)
{
	ev(0, __BLK_TA_QUEUE, R, 0, 4096);
	ev(10 * US, __BLK_TA_ISSUE, R, 0, 4096);
	ev(20 * US, __BLK_TA_REQUEUE, R, 0, 4096);
	ev(30 * US, __BLK_TA_ISSUE, R, 0, 4096);
	ev(70 * US, __BLK_TA_COMPLETE, R, 0, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->requeues, 1);
	cr_expect_eq(t->d2c.min, 40 * US);
	cr_expect_eq(t->q2c.min, 70 * US);
	cr_expect_eq(t->inflight_max, 1);
	cr_expect_float_eq(t->inflight_avg, 50.0 / 70.0, 1e-9);
}

/* Counted, not dropped: one IO issued and never completed, one queued and
 * never issued, one completion that matches nothing. */
Test(stats, ios_that_never_complete_are_counted)
{
	ev(0, __BLK_TA_QUEUE, R, 0, 4096);
	ev(5 * US, __BLK_TA_QUEUE, R, 5000, 4096);
	ev(10 * US, __BLK_TA_ISSUE, R, 0, 4096);
	ev(20 * US, __BLK_TA_COMPLETE, R, 777, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->never_completed, 1);
	cr_expect_eq(t->never_issued, 1);
	cr_expect_eq(t->orphan_completions, 1);
	cr_expect_eq(t->d2c.count, 0);
}

/* Bio [0,16) queued at 0 is split at sector 8: both halves keep Q = 0.
 * D 2 and 3 us, C 10 and 12 us: D2C 8 and 9, Q2C 10 and 12 us. */
Test(stats, split_halves_keep_their_queue_time)
{
	ev(0, __BLK_TA_QUEUE, R, 0, 8192);
	uint64_t at = htobe64(8);
	br_event x = { .time = T0 + 1 * US, .sector = 0, .bytes = 8192, .action = R | __BLK_TA_SPLIT,
		       .device = DEV_A, .pdu = (const uint8_t *)&at, .pdu_len = 8 };
	cr_assert_eq(br_stats_add(S, &x, &E), 0);
	ev(2 * US, __BLK_TA_ISSUE, R, 0, 4096);
	ev(3 * US, __BLK_TA_ISSUE, R, 8, 4096);
	ev(10 * US, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(12 * US, __BLK_TA_COMPLETE, R, 8, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->splits, 1);
	cr_expect_eq(t->d2c.count, 2);
	cr_expect_eq(t->d2c.min, 8 * US);
	cr_expect_eq(t->d2c.max, 9 * US);
	cr_expect_eq(t->q2c.min, 10 * US);
	cr_expect_eq(t->q2c.max, 12 * US);
	cr_expect_eq(t->never_issued + t->never_completed, 0);
}

/* A bio queued on a dm device (253,0) at 0 is remapped (A) to sector 5000
 * of 8,0 at 1 us and queued there again at 2 us: one IO whose Q2C runs from
 * the first Q (10 us), counted once. */
Test(stats, remap_keeps_the_first_queue_time)
{
	uint32_t dm = BR_MKDEV(253, 0);
	ev_dev(0, __BLK_TA_QUEUE, W, 1000, 4096, dm);
	struct blk_io_trace_remap rp = { .device_from = htobe32(dm), .device_to = htobe32(DEV_A),
					 .sector_from = htobe64(1000) };
	br_event a = { .time = T0 + 1 * US, .sector = 5000, .bytes = 4096, .action = W | __BLK_TA_REMAP,
		       .device = DEV_A, .pdu = (const uint8_t *)&rp, .pdu_len = sizeof(rp) };
	cr_assert_eq(br_stats_add(S, &a, &E), 0);
	ev(2 * US, __BLK_TA_QUEUE, W, 5000, 4096);
	ev(3 * US, __BLK_TA_ISSUE, W, 5000, 4096);
	ev(10 * US, __BLK_TA_COMPLETE, W, 5000, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->remaps, 1);
	cr_expect_eq(t->queued, 1);
	cr_expect_eq(t->q2c.count, 1);
	cr_expect_eq(t->q2c.min, 10 * US);
	cr_expect_eq(t->d2c.min, 7 * US);
	cr_expect_eq(t->never_issued, 0);
}

/* D 0, D 10, C 20, C 40 (us): in flight 1,2,1 -> area 10+20+20 = 50 over
 * 40 us = 1.25; max 2. In 10 us buckets: averages 1, 2, 1, 1. */
Test(stats, in_flight_over_time)
{
	ev(0, __BLK_TA_ISSUE, R, 0, 4096);
	ev(10 * US, __BLK_TA_ISSUE, R, 800, 4096);
	ev(20 * US, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(40 * US, __BLK_TA_COMPLETE, R, 800, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->inflight_max, 2);
	cr_expect_float_eq(t->inflight_avg, 1.25, 1e-9);
	cr_expect_eq(t->orphan_issues, 2);
	br_stats_series s;
	cr_assert_eq(br_stats_series_get(S, 10 * US, 0, 0, &s, &E), 0);
	cr_assert_eq(s.n, 4); /* the 1 ns bucket at 40 us is folded into the 4th */
	cr_expect_float_eq(s.b[0].inflight_avg, 1.0, 1e-9);
	cr_expect_float_eq(s.b[1].inflight_avg, 2.0, 1e-9);
	cr_expect_float_eq(s.b[2].inflight_avg, 1.0, 1e-9);
	cr_expect_eq(s.b[1].inflight_max, 2);
	br_stats_series_free(&s);
}

/* A long trace: one completion a second for 3 hours makes the 10 us base
 * buckets coarsen to 10 s; totals survive and series stay bounded. */
Test(stats, buckets_coarsen_and_keep_totals)
{
	for (uint64_t i = 0; i <= 3 * 3600; i++)
		ev(i * SEC, __BLK_TA_COMPLETE, R, i * 8, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->ios[BR_DIR_READ], 3 * 3600 + 1);
	uint64_t bw = br_stats_base_width(S);
	cr_expect_eq(bw, 10 * SEC);
	uint64_t w = br_stats_pick_width(S, 300);
	cr_expect_eq(w, 50 * SEC); /* 10800 s / 300 = 36 s -> 50 s */
	br_stats_series s;
	cr_assert_eq(br_stats_series_get(S, w, 0, 0, &s, &E), 0);
	uint64_t sum = 0;
	for (size_t i = 0; i < s.n; i++)
		sum += s.b[i].ios[BR_DIR_READ];
	cr_expect_eq(sum, 3 * 3600 + 1);
	cr_expect_leq(s.n, 217);
	br_stats_series_free(&s);
}

Test(stats, pick_width_is_round)
{
	ev(0, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(180 * SEC, __BLK_TA_COMPLETE, R, 0, 4096);
	finish();
	cr_expect_eq(br_stats_pick_width(S, 300), 1 * SEC); /* minutes: 1 s */
}

Test(hist, quantiles_and_exact_small_values)
{
	br_hist h;
	br_hist_clear(&h);
	for (uint64_t v = 1; v <= 1000; v++)
		br_hist_add(&h, v);
	cr_expect_eq(h.count, 1000);
	cr_expect_eq(h.min, 1);
	cr_expect_eq(h.max, 1000);
	cr_expect_float_eq(br_hist_mean(&h), 500.5, 1e-9);
	double p50 = (double)br_hist_quantile(&h, 0.5), p99 = (double)br_hist_quantile(&h, 0.99);
	cr_expect(fabs(p50 - 500) / 500 < 1.0 / 32, "p50 %g", p50);
	cr_expect(fabs(p99 - 990) / 990 < 1.0 / 32, "p99 %g", p99);
	cr_expect_eq(br_hist_quantile(&h, 1.0), 1000);
	br_hist_clear(&h);
	for (uint64_t v = 0; v < 16; v++)
		br_hist_add(&h, v);
	cr_expect_eq(br_hist_quantile(&h, 0.5), 7); /* the 8th of 0..15 */
	for (unsigned b = 0; b < BR_HIST_BINS; b++) {
		uint64_t lo, hi;
		br_hist_bin_range(b, &lo, &hi);
		cr_assert_eq(br_hist_bin(lo), b, "bin %u", b);
		cr_assert_eq(br_hist_bin(hi - 1), b, "bin %u", b);
	}
}

/* What blkreel-replay reads from br_hist (its fidelity report): percentiles
 * within the bin resolution over five decades, and the count of values at
 * or below a limit (the "within 10 us / 100 us / 1 ms" shares). */
Test(hist, replay_percentiles_and_count_le)
{
	br_hist h;
	br_hist_clear(&h);
	for (uint64_t v = 1; v <= 100000; v++)
		br_hist_add(&h, v * 1000); /* 1 us .. 100 ms */
	struct { double q; double want; } cases[] = {
		{ 0.5, 50e6 }, { 0.9, 90e6 }, { 0.99, 99e6 }, { 0.001, 0.1e6 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double got = (double)br_hist_quantile(&h, cases[i].q);
		cr_assert(got >= cases[i].want * 0.97 && got <= cases[i].want * 1.035,
			  "q%.3f: %.0f, want about %.0f", cases[i].q, got, cases[i].want);
	}
	cr_assert_eq(br_hist_quantile(&h, 1.0), 100000000);
	cr_assert_eq(br_hist_count_le(&h, 0), 0);
	cr_assert_eq(br_hist_count_le(&h, 999), 0);          /* below min */
	cr_assert_eq(br_hist_count_le(&h, 100000000), 100000); /* at max */
	/* 10 ms: bin [9.961, 10.486) ms holds values up to 10.485 ms */
	uint64_t le = br_hist_count_le(&h, 10000000);
	cr_assert(le >= 10000 && le <= 10486, "%lu", (unsigned long)le);
	double m = br_hist_mean(&h);
	cr_assert(m > 50.0e6 && m < 50.01e6);
	/* exact below 16 ns; a value past the last bin keeps min/max exact */
	br_hist g;
	br_hist_clear(&g);
	for (uint64_t v = 0; v < 16; v++)
		br_hist_add(&g, v);
	cr_assert_eq(br_hist_count_le(&g, 9), 10);
	br_hist far;
	br_hist_clear(&far);
	br_hist_add(&far, UINT64_MAX / 2);
	br_hist_merge(&g, &far);
	cr_assert_eq(g.count, 17);
	cr_assert_eq(br_hist_quantile(&g, 1.0), UINT64_MAX / 2);
	cr_assert_eq(br_hist_count_le(&g, 1ull << 40), 16);
}

/* A request [0,16) completed in two parts: the first C covers [0,8) and
 * leaves the rest in flight; the second completes it. Latency is recorded
 * once, at the final completion (D 10 us, C 50 us: D2C 40 us). */
Test(stats, partial_completion_keeps_the_rest_open)
{
	ev(0, __BLK_TA_QUEUE, W, 0, 8192);
	ev(10 * US, __BLK_TA_ISSUE, W, 0, 8192);
	ev(30 * US, __BLK_TA_COMPLETE, W, 0, 4096);
	ev(50 * US, __BLK_TA_COMPLETE, W, 8, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->d2c.count, 1);
	cr_expect_eq(t->d2c.min, 40 * US);
	cr_expect_eq(t->completed, 2);
	cr_expect_eq(t->never_completed, 0);
	cr_expect_eq(t->bytes[BR_DIR_WRITE], 8192);
	/* in flight from 10 to 50 us of a 50 us span */
	cr_expect_float_eq(t->inflight_avg, 0.8, 1e-9);
}

/* Empty flushes pair like any request (at sector 0, length 0) but count no
 * bytes, IOs or seeks. */
Test(stats, empty_flush_pairs_but_moves_nothing)
{
	ev(0, __BLK_TA_QUEUE, W, 5000, 4096);
	ev(1 * US, __BLK_TA_ISSUE, W, 5000, 4096);
	ev(2 * US, __BLK_TA_QUEUE, W, 0, 0);
	ev(3 * US, __BLK_TA_ISSUE, W, 0, 0);
	ev(9 * US, __BLK_TA_COMPLETE, W, 0, 0);
	ev(11 * US, __BLK_TA_COMPLETE, W, 5000, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->ios[BR_DIR_WRITE], 1);
	cr_expect_eq(t->d2c.count, 2);
	cr_expect_eq(t->d2c.min, 6 * US);
	cr_expect_eq(t->d2c.max, 10 * US);
	cr_expect_eq(t->seek_candidates, 1);
	cr_expect_eq(t->inflight_max, 2);
}

/* The device filter keeps one device's IOs (and remaps onto it). */
Test(stats, device_filter)
{
	br_stats_free(S);
	cr_assert_eq(br_stats_new(&S, &(br_stats_opts){ .has_device = true, .device = DEV_B }, &E), 0);
	ev_dev(0, __BLK_TA_COMPLETE, R, 0, 4096, DEV_A);
	ev_dev(1 * MS, __BLK_TA_COMPLETE, R, 0, 8192, DEV_B);
	ev_dev(2 * MS, __BLK_TA_COMPLETE, W, 0, 4096, DEV_A);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->ios[BR_DIR_READ], 1);
	cr_expect_eq(t->bytes[BR_DIR_READ], 8192);
	cr_expect_eq(t->ios[BR_DIR_WRITE], 0);
	cr_expect_eq(t->ndevices, 1);
}

/* Per-bucket latency histograms: completions land in the bucket of their
 * C; buckets without completions have none. 1 ms buckets: IO 1 completes
 * at 0.5 ms (D2C 100 us), IO 2 at 2.5 ms (D2C 300 us). */
Test(stats, latency_per_bucket)
{
	ev(0, __BLK_TA_QUEUE, R, 0, 4096);
	ev(400 * US, __BLK_TA_ISSUE, R, 0, 4096);
	ev(500 * US, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(2000 * US, __BLK_TA_QUEUE, R, 800, 4096);
	ev(2200 * US, __BLK_TA_ISSUE, R, 800, 4096);
	ev(2500 * US, __BLK_TA_COMPLETE, R, 800, 4096);
	ev(3 * MS - 1, __BLK_TA_UNPLUG_IO, 0, 0, 0);
	finish();
	br_stats_series s;
	cr_assert_eq(br_stats_series_get(S, 1 * MS, 0, 0, &s, &E), 0);
	cr_assert_eq(s.n, 3);
	cr_assert(s.b[0].d2c && s.b[2].d2c);
	cr_expect_null(s.b[1].d2c);
	cr_expect_eq(s.b[0].d2c->min, 100 * US);
	cr_expect_eq(s.b[0].q2c->min, 500 * US);
	cr_expect_eq(s.b[2].d2c->min, 300 * US);
	cr_expect_eq(s.b[2].q2c->count, 1);
	br_stats_series_free(&s);
}

Test(hist, add_n_is_n_adds)
{
	br_hist a, b;
	br_hist_clear(&a);
	br_hist_clear(&b);
	for (int k = 0; k < 5; k++)
		br_hist_add(&a, 1234);
	br_hist_add(&a, 7);
	br_hist_add_n(&b, 1234, 5);
	br_hist_add_n(&b, 99, 0); /* nothing */
	br_hist_add_n(&b, 7, 1);
	cr_expect_eq(memcmp(&a, &b, sizeof a), 0);
	cr_expect_eq(b.count, 6);
	cr_expect_eq(b.min, 7);
	cr_expect_eq(b.max, 1234);
}

/* ---- flushes and empty completions ------------------------------------------
 * As the tracer logs them (samples/README.md): a flush request is "D FN" at
 * sector 0 with no data and no Q, completed by "C FN" at sector 0 (older
 * kernels) or ~0 (newer); the empty preflush bios it served ("Q FWS") end
 * with their own empty C at 0; a preflush write ("FWFSM") completes once
 * with its data and once more empty ("C WSM 229396 [0]"). Each case below
 * is a small trace with its answers worked out by hand (times in us). */
#define FN (BLK_TC_ACT(BLK_TC_READ) | BLK_TC_ACT(BLK_TC_FLUSH))
#define FWS (W | BLK_TC_ACT(BLK_TC_FLUSH) | BLK_TC_ACT(BLK_TC_SYNC))
#define FWFSM (FWS | BLK_TC_ACT(BLK_TC_FUA) | BLK_TC_ACT(BLK_TC_META))
#define WSM (W | BLK_TC_ACT(BLK_TC_SYNC) | BLK_TC_ACT(BLK_TC_META))
#define WS (W | BLK_TC_ACT(BLK_TC_SYNC))
#define NOWHERE UINT64_MAX /* a newer kernel's sector of "C FN" */

typedef struct fev {
	uint64_t t_us;
	unsigned code;
	uint32_t rw;
	uint64_t sector;
	uint32_t bytes;
} fev;

typedef struct flush_case {
	const char *name;
	fev ev[12];
	size_t n;
	double area_us;          /* in flight x us over the span */
	uint32_t inflight_max;
	uint64_t d2c_n, d2c_sum_us; /* the sum does not depend on which of two
	                               flushes in flight a C is paired with */
	uint64_t q2c_n, q2c_min_us;
	uint64_t orphan_c, empty_c;
	uint64_t orphan_d;       /* D with no Q: every flush request */
	uint64_t still_open;
} flush_case;

static const flush_case flush_cases[] = {
	{
		/* Two preflush bios wait at 0; the flush request serves them
		 * (in flight 3..7) and must not take either as its own: each
		 * ends with its empty C, oldest first (Q2C 8 and 7). Then a
		 * write in flight 11..20. Area 4 + 9 over 20 us. */
		"newer kernel: C FN at ~0, preflush bios end after it",
		{ { 0, __BLK_TA_QUEUE, FWS, 0, 0 },
		  { 2, __BLK_TA_QUEUE, FWS, 0, 0 },
		  { 3, __BLK_TA_ISSUE, FN, 0, 0 },
		  { 7, __BLK_TA_COMPLETE, FN, NOWHERE, 0 },
		  { 8, __BLK_TA_COMPLETE, WS, 0, 0 },
		  { 9, __BLK_TA_COMPLETE, WS, 0, 0 },
		  { 10, __BLK_TA_QUEUE, W, 800, 4096 },
		  { 11, __BLK_TA_ISSUE, W, 800, 4096 },
		  { 20, __BLK_TA_COMPLETE, W, 800, 4096 } },
		9, 13, 1, 2, 4 + 9, 3, 7, 0, 0, 1, 0,
	},
	{
		/* Two flushes in flight at once, both at sector 0: the second
		 * D is a new request, not the first issued again. In flight
		 * 1, 2, 1 over [0,2), [2,6), [6,8): area 2 + 8 + 2. */
		"older kernel: C FN at 0, two flushes in flight",
		{ { 0, __BLK_TA_ISSUE, FN, 0, 0 },
		  { 2, __BLK_TA_ISSUE, FN, 0, 0 },
		  { 6, __BLK_TA_COMPLETE, FN, 0, 0 },
		  { 8, __BLK_TA_COMPLETE, FN, 0, 0 } },
		4, 12, 2, 2, 6 + 6, 0, 0, 0, 0, 2, 0,
	},
	{
		/* A journal write sent with preflush (and FUA, emulated by a
		 * post-flush): preflush 1..4, data 5..7, post-flush 8..10,
		 * then the bio's own empty C at its sector: an end record,
		 * not an orphan. Area 3 + 2 + 2 over 11 us. */
		"preflush write completes twice",
		{ { 0, __BLK_TA_QUEUE, FWFSM, 1000, 4096 },
		  { 1, __BLK_TA_ISSUE, FN, 0, 0 },
		  { 4, __BLK_TA_COMPLETE, FN, NOWHERE, 0 },
		  { 5, __BLK_TA_ISSUE, WSM, 1000, 4096 },
		  { 7, __BLK_TA_COMPLETE, WSM, 1000, 4096 },
		  { 8, __BLK_TA_ISSUE, FN, 0, 0 },
		  { 10, __BLK_TA_COMPLETE, FN, NOWHERE, 0 },
		  { 11, __BLK_TA_COMPLETE, WSM, 1000, 0 } },
		8, 7, 1, 3, 3 + 2 + 2, 1, 7, 0, 1, 2, 0,
	},
	{
		/* End records at sectors where other requests start: one
		 * issued (in flight 1..9), one queued (issued at 5, in flight
		 * 5..10). Neither empty C may end them. Area 4 + 8 + 1 over
		 * 10 us; D2C 8 and 5; Q2C 9 and 8. */
		"empty C next to requests with sectors",
		{ { 0, __BLK_TA_QUEUE, W, 2000, 4096 },
		  { 1, __BLK_TA_ISSUE, W, 2000, 4096 },
		  { 2, __BLK_TA_QUEUE, W, 3000, 4096 },
		  { 3, __BLK_TA_COMPLETE, WS, 2000, 0 },
		  { 4, __BLK_TA_COMPLETE, WS, 3000, 0 },
		  { 5, __BLK_TA_ISSUE, W, 3000, 4096 },
		  { 9, __BLK_TA_COMPLETE, W, 2000, 4096 },
		  { 10, __BLK_TA_COMPLETE, W, 3000, 4096 } },
		8, 13, 2, 2, 8 + 5, 2, 8, 0, 2, 0, 0,
	},
	{
		/* A flush request left open at the end is counted as never
		 * completed, and lost: never in flight (no fake queue); an
		 * empty C with nothing open anywhere is an end record; a C with
		 * sectors and nothing open is an orphan. */
		"open flush, end record, orphan",
		{ { 0, __BLK_TA_ISSUE, FN, 0, 0 },
		  { 2, __BLK_TA_COMPLETE, WS, 5000, 0 },
		  { 6, __BLK_TA_COMPLETE, W, 5000, 4096 } },
		3, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
	},
};

Test(stats, flushes_and_empty_completions)
{
	for (size_t c = 0; c < sizeof flush_cases / sizeof flush_cases[0]; c++) {
		const flush_case *k = &flush_cases[c];
		br_stats_free(S);
		cr_assert_eq(br_stats_new(&S, NULL, &E), 0);
		for (size_t e = 0; e < k->n; e++)
			ev(k->ev[e].t_us * US, k->ev[e].code, k->ev[e].rw, k->ev[e].sector, k->ev[e].bytes);
		const br_stats_totals *t = finish();
		double span_us = (double)k->ev[k->n - 1].t_us - (double)k->ev[0].t_us;
		cr_expect(fabs(t->inflight_avg - k->area_us / span_us) < 1e-9, "%s: in flight %.6f, want %.6f",
			  k->name, t->inflight_avg, k->area_us / span_us);
		cr_expect_eq(t->inflight_max, k->inflight_max, "%s: max %u", k->name, t->inflight_max);
		cr_expect_eq(t->d2c.count, k->d2c_n, "%s: D2C count %llu", k->name,
			     (unsigned long long)t->d2c.count);
		cr_expect(fabs(t->d2c.sum - (double)(k->d2c_sum_us * US)) < 1e-6, "%s: D2C sum %.0f ns",
			  k->name, t->d2c.sum);
		cr_expect_eq(t->q2c.count, k->q2c_n, "%s: Q2C count %llu", k->name,
			     (unsigned long long)t->q2c.count);
		if (k->q2c_n)
			cr_expect_eq(t->q2c.min, k->q2c_min_us * US, "%s: Q2C min %llu ns", k->name,
				     (unsigned long long)t->q2c.min);
		cr_expect_eq(t->orphan_completions, k->orphan_c, "%s: orphan C %llu", k->name,
			     (unsigned long long)t->orphan_completions);
		cr_expect_eq(t->empty_completions, k->empty_c, "%s: empty C %llu", k->name,
			     (unsigned long long)t->empty_completions);
		cr_expect_eq(t->orphan_issues, k->orphan_d, "%s: orphan D %llu", k->name,
			     (unsigned long long)t->orphan_issues);
		cr_expect_eq(t->never_issued + t->never_completed, k->still_open, "%s: open %llu + %llu",
			     k->name, (unsigned long long)t->never_issued,
			     (unsigned long long)t->never_completed);
	}
}

/* ---- the real samples ---------------------------------------------------------
 * The time-weighted in-flight average must equal a plain count, integrated
 * over time (plain_flight.h): +1 on every D, -1 on every R and on every C
 * that carries sectors or ends a flush request ("C FN"), D's that no end
 * takes left out. That count needs no pairing at all, so it catches
 * pairing that leaves a request in flight forever or ends one early. The captures start before their workloads, so no
 * completion in them is a real orphan either. */
static void check_sample(const char *path)
{
	br_reader *r;
	cr_assert_eq(br_reader_open(&r, &path, 1, NULL, &E), 0, "%s: %s", path, E.msg);
	br_stats *s;
	cr_assert_eq(br_stats_new(&s, NULL, &E), 0);
	plain_flight p = { 0 };
	br_event e;
	int rc;
	while ((rc = br_reader_next(r, &e, &E)) == 1) {
		if (br_event_is_notify(&e))
			continue;
		pf_add(&p, &e);
		cr_assert_eq(br_stats_add(s, &e, &E), 0, "%s: %s", path, E.msg);
	}
	cr_assert_eq(rc, 0, "%s: %s", path, E.msg);
	cr_assert_eq(br_stats_finish(s, &E), 0);
	const br_stats_totals *t = br_stats_get_totals(s);
	pf_finish(&p);
	double want = p.avg;
	cr_expect(fabs(t->inflight_avg - want) <= 0.005 * want, "%s: in flight %.4f, plain count %.4f",
		  path, t->inflight_avg, want);
	cr_expect_eq(t->inflight_max, p.max, "%s: in flight max %u, plain count %u", path,
		     t->inflight_max, p.max);
	cr_expect_eq(t->lost_ios, p.lost, "%s: %llu lost, plain %llu", path,
		     (unsigned long long)t->lost_ios, (unsigned long long)p.lost);
	cr_expect_eq(t->orphan_completions, 0, "%s: %llu orphan completions", path,
		     (unsigned long long)t->orphan_completions);
	br_stats_free(s);
	br_reader_close(r);
}

Test(stats_real, in_flight_matches_a_plain_count)
{
	char pattern[1024];
	snprintf(pattern, sizeof pattern, "%s", tu_sample("*.blktrace.gz"));
	glob_t g;
	if (glob(pattern, 0, NULL, &g) || g.gl_pathc == 0)
		cr_skip_test("no samples/*.blktrace.gz");
	for (size_t k = 0; k < g.gl_pathc; k++)
		check_sample(g.gl_pathv[k]);
	globfree(&g);
	/* the raw per-CPU set from the ftrace tracer: flushes complete at
	 * sector 0 there ("C FN 0 [0]"), not at ~0 */
	char loop[1024];
	snprintf(loop, sizeof loop, "%s", tu_sample("ext4-loop"));
	char first[1100];
	snprintf(first, sizeof first, "%s.blktrace.0", loop);
	if (access(first, R_OK) == 0)
		check_sample(loop);
}

/* One CPU file of a two-CPU set alone (a partial per-CPU set: the other
 * CPU logged many of the completions): the IOs whose completions are
 * missing are lost, never in flight; what is in flight over time is the
 * completed requests' D→C and nothing else. */
Test(stats_real, partial_per_cpu_set_leaves_lost_ios_out)
{
	char loop[1024];
	snprintf(loop, sizeof loop, "%s.blktrace.1", tu_sample("ext4-loop"));
	size_t len;
	uint8_t *data = tu_read_file(loop, &len);
	if (!data)
		cr_skip_test("no samples/ext4-loop");
	char dir[] = "/tmp/blkreel-partial-XXXXXX";
	cr_assert(mkdtemp(dir));
	char part[1100], base[1100];
	snprintf(part, sizeof part, "%s/part.blktrace.1", dir);
	snprintf(base, sizeof base, "%s/part", dir);
	FILE *f = fopen(part, "wb");
	cr_assert(f && fwrite(data, 1, len, f) == len && fclose(f) == 0);
	free(data);
	br_reader *r;
	const char *p = base;
	cr_assert_eq(br_reader_open(&r, &p, 1, NULL, &E), 0, "%s", E.msg);
	br_stats *s;
	cr_assert_eq(br_stats_new(&s, NULL, &E), 0);
	br_event e;
	while (br_reader_next(r, &e, &E) == 1)
		cr_assert_eq(br_stats_add(s, &e, &E), 0);
	cr_assert_eq(br_stats_finish(s, &E), 0);
	const br_stats_totals *t = br_stats_get_totals(s);
	cr_expect_gt(t->lost_ios, 0);
	cr_expect_eq(t->lost_ios, t->never_completed);
	/* in flight is exactly the completed requests' D→C, nothing else */
	double span = (double)(t->last_ns - t->first_ns);
	double want = t->d2c.sum / span;
	cr_expect(fabs(t->inflight_avg - want) <= 1e-9 * want + 1e-12, "in flight %.6f, completed D2C %.6f",
		  t->inflight_avg, want);
	br_stats_free(s);
	br_reader_close(r);
	unlink(part);
	rmdir(dir);
}

/* The sweep runs only once something can be due (stats_flight_sweep_due):
 * an issue that enters an empty in-flight log after a sweep emptied it
 * must still be lost at the first event past the limit. IO 1 (D2C 990 us,
 * so the limit stays 1 s) is swept at 1.2 s; IO 2 issued then has no
 * completion by 2.3 s, where an event comes: lost, and its completion at
 * 2.4 s is late, never in flight. In flight: IO 1 (990 us) and IO 3
 * (100 ms) over 2.6 s. */
Test(stats, an_issue_after_an_emptying_sweep_is_lost_at_the_limit)
{
	ev(0, __BLK_TA_QUEUE, R, 0, 4096);
	ev(10 * US, __BLK_TA_ISSUE, R, 0, 4096);
	ev(1 * MS, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(1200 * MS, __BLK_TA_QUEUE, R, 1000, 4096);
	ev(1200 * MS, __BLK_TA_ISSUE, R, 1000, 4096);
	ev(2300 * MS, __BLK_TA_QUEUE, R, 5000, 4096);
	ev(2400 * MS, __BLK_TA_COMPLETE, R, 1000, 4096);
	ev(2500 * MS, __BLK_TA_ISSUE, R, 5000, 4096);
	ev(2600 * MS, __BLK_TA_COMPLETE, R, 5000, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->lost_ios, 1);
	cr_expect_eq(t->late_completions, 1);
	cr_expect_eq(t->inflight_max, 1);
	cr_expect_float_eq(t->inflight_avg, (990.0 * US + 100.0 * MS) / (2600.0 * MS), 1e-12);
}

/* Completions are counted into the in-flight sweep as soon as everything
 * before them in the log is settled, but never past an issue still open:
 * IO 0, issued first and never completed, holds back the completed IOs
 * behind it until it is lost at the limit (1 s), and is never in flight.
 * IOs 1..150: one every 10 ms from 5 ms, 2 ms each, never overlapping. */
Test(stats, settled_completions_wait_behind_an_open_issue)
{
	ev(0, __BLK_TA_ISSUE, R, 0, 4096);
	for (uint64_t i = 1; i <= 150; i++) {
		ev(i * 10 * MS - 5 * MS, __BLK_TA_ISSUE, R, i * 1000, 4096);
		ev(i * 10 * MS - 3 * MS, __BLK_TA_COMPLETE, R, i * 1000, 4096);
	}
	const br_stats_totals *t = finish();
	cr_expect_eq(t->lost_ios, 1);
	cr_expect_eq(t->never_completed, 1);
	cr_expect_eq(t->inflight_max, 1);
	cr_expect_float_eq(t->inflight_avg, 150 * 2.0 * MS / (1497.0 * MS), 1e-12);
	br_stats_series s;
	cr_assert_eq(br_stats_series_get(S, 100 * MS, 0, 0, &s, &E), 0);
	cr_assert_geq(s.n, 14);
	for (size_t i = 0; i < 13; i++) { /* (the last ones cover part of their width) */
		cr_expect_float_eq(s.b[i].inflight_avg, 0.2, 1e-9, "bucket %zu: %.6f", i, s.b[i].inflight_avg);
		cr_expect_eq(s.b[i].inflight_max, 1, "bucket %zu", i);
	}
	br_stats_series_free(&s);
}

/* The limit is taken when the sweep runs: a D2C of 0.5 s raises it to 2 s
 * after the first due time was worked out with 1 s, so IO 2, open 1.8 s,
 * is not lost; both IOs overlap from 0.1 to 0.5 s. */
Test(stats, a_limit_raised_after_the_due_time_keeps_an_io)
{
	ev(0, __BLK_TA_ISSUE, R, 0, 4096);
	ev(100 * MS, __BLK_TA_ISSUE, R, 1000, 4096);
	ev(500 * MS, __BLK_TA_COMPLETE, R, 0, 4096);
	ev(1200 * MS, __BLK_TA_QUEUE, R, 5000, 4096);
	ev(1900 * MS, __BLK_TA_COMPLETE, R, 1000, 4096);
	ev(2050 * MS, __BLK_TA_ISSUE, R, 5000, 4096);
	ev(2200 * MS, __BLK_TA_COMPLETE, R, 5000, 4096);
	const br_stats_totals *t = finish();
	cr_expect_eq(t->lost_ios, 0);
	cr_expect_eq(t->inflight_max, 2);
	cr_expect_float_eq(t->inflight_avg, (500.0 + 1800.0 + 150.0) / 2200.0, 1e-12);
}

/* The in-flight sweep runs behind the events and remembers its own bucket
 * (stats_bucket_at's STATS_HIT_SWEEP): across every coarsening each IO's
 * time in flight must still land in its own bucket, also when the sweep
 * comes back to the bucket it found before the widths changed (its lag,
 * the lost limit of 4 x 300 ms, is no multiple of the old width). One IO
 * every 250 ms, 300 ms in flight, for 4200 s (the buckets end at 10 s
 * from 4096 s on): 1.2 in flight on average in every bucket, at most 2. */
Test(stats, in_flight_per_bucket_survives_coarsening)
{
	uint64_t n = 4 * 4200;
	for (uint64_t i = 0; i <= n; i++) { /* in time order: IO i-1 ends 50 ms after IO i starts */
		if (i < n)
			ev(i * 250 * MS, __BLK_TA_ISSUE, R, i * 8, 4096);
		if (i > 0)
			ev((i - 1) * 250 * MS + 300 * MS, __BLK_TA_COMPLETE, R, (i - 1) * 8, 4096);
	}
	const br_stats_totals *t = finish();
	cr_assert_eq(br_stats_base_width(S), 10 * SEC);
	cr_expect_eq(t->lost_ios, 0);
	br_stats_series s;
	cr_assert_eq(br_stats_series_get(S, 10 * SEC, 0, 0, &s, &E), 0);
	cr_assert_geq(s.n, 419);
	/* (the first bucket has no IO running into it) */
	cr_expect_float_eq(s.b[0].inflight_avg, 1.195, 1e-9);
	for (size_t i = 1; i + 1 < s.n; i++) {
		cr_expect_float_eq(s.b[i].inflight_avg, 1.2, 1e-9, "bucket %zu: %.6f", i,
				   s.b[i].inflight_avg);
		cr_expect_eq(s.b[i].inflight_max, 2, "bucket %zu", i);
	}
	br_stats_series_free(&s);
}

/* A latency goes into the totals and its bucket with one bin worked out:
 * the same histograms as two br_hist_add calls, edge values included. */
Test(stats, adding_to_two_histograms_at_once_is_two_adds)
{
	static br_hist a1, b1, a2, b2;
	br_hist_clear(&a1);
	br_hist_clear(&b1);
	br_hist_clear(&a2);
	br_hist_clear(&b2);
	br_hist_add(&b1, 5000);
	br_hist_add(&b2, 5000); /* b already holds a value, a does not */
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t v = i < 4 ? (uint64_t[]){ 0, 1, UINT64_MAX, 1ull << 44 }[i] : x >> (x & 63);
		stats_hist_add2(&a1, &b1, v);
		br_hist_add(&a2, v);
		br_hist_add(&b2, v);
	}
	cr_expect_eq(memcmp(&a1, &a2, sizeof a1), 0);
	cr_expect_eq(memcmp(&b1, &b2, sizeof b1), 0);
	cr_expect_eq(a1.count, 20000);
}
