/* The report analysis (blkreel/analysis.h) on hand-built event sequences
 * whose every answer is worked out by hand: the btt phases with merges,
 * splits, remaps and requeues; IOs that never complete; sizes, seek
 * distances, queue depth and idle time; hot ranges and their bursts; per
 * process; the per-bio hook; and the comparison ranking. */
#include <criterion/criterion.h>
#include <endian.h>
#include <string.h>

#include "blkreel/analysis.h"
#include "tracegen.h"

#define DEV BR_MKDEV(8, 16)
#define W(code) (BLK_TA_##code | BLK_TC_ACT(BLK_TC_WRITE))
#define R(code) (BLK_TA_##code | BLK_TC_ACT(BLK_TC_READ))

typedef struct feed {
	br_analysis *a;
	uint32_t pid;
} feed;

static void start(feed *f, const br_analysis_opts *o)
{
	br_error err;
	f->pid = 100;
	cr_assert_eq(br_analysis_new(&f->a, o, &err), 0);
}

static void ev_at(feed *f, uint64_t t, uint32_t dev, uint32_t action, uint64_t sec, uint32_t bytes,
		  const void *pdu, uint16_t pdu_len)
{
	br_event ev = tg_io(t, dev, 0, action, sec, bytes, f->pid);
	ev.pdu = pdu;
	ev.pdu_len = pdu_len;
	br_error err;
	cr_assert_eq(br_analysis_add(f->a, &ev, &err), 0);
}

static void ev(feed *f, uint64_t t, uint32_t action, uint64_t sec, uint32_t bytes)
{
	ev_at(f, t, DEV, action, sec, bytes, NULL, 0);
}

static const br_analysis_result *finish(feed *f)
{
	br_error err;
	cr_assert_eq(br_analysis_finish(f->a, &err), 0);
	return br_analysis_get(f->a);
}

static void expect_phase(const br_analysis_result *r, enum br_phase p, uint64_t n, double avg)
{
	cr_expect_eq(r->phase[p].count, n, "%s: N %llu, want %llu", br_analysis_phase_name(p),
		     (unsigned long long)r->phase[p].count, (unsigned long long)n);
	if (n)
		cr_expect_float_eq(br_hist_mean(&r->phase[p]), avg, 1e-9, "%s: avg %f, want %f",
				   br_analysis_phase_name(p), br_hist_mean(&r->phase[p]), avg);
}

/* Q G I D C of one 4 KiB write. */
Test(analysis, one_io_all_phases)
{
	feed f;
	start(&f, NULL);
	ev(&f, 0, W(QUEUE), 100, 4096);
	ev(&f, 10, W(GETRQ), 100, 4096);
	ev(&f, 30, W(INSERT), 100, 4096);
	ev(&f, 100, W(ISSUE), 100, 4096);
	ev(&f, 1100, W(COMPLETE), 100, 4096);
	const br_analysis_result *r = finish(&f);
	expect_phase(r, BR_PHASE_Q2G, 1, 10);
	expect_phase(r, BR_PHASE_G2I, 1, 20);
	expect_phase(r, BR_PHASE_I2D, 1, 70);
	expect_phase(r, BR_PHASE_D2C, 1, 1000);
	expect_phase(r, BR_PHASE_Q2C, 1, 1100);
	expect_phase(r, BR_PHASE_Q2M, 0, 0);
	cr_expect_eq(r->totals->ios[BR_DIR_WRITE], 1);
	cr_expect_eq(r->size_hist[12], 1);           /* 4096 = 2^12 */
	cr_expect_eq(r->qd_ns[1], 1000);
	cr_expect_eq(r->qd_ns[0], 100);
	cr_expect_eq(r->idle_ns, 100);
	cr_expect_eq(r->idle_periods, 0);            /* no gap between two busy stretches */
	cr_expect_float_eq(r->span_s, 1100e-9, 1e-15);
	cr_expect_eq(r->ndevices, 1);
	cr_expect_eq(r->devices[0].id, DEV);
	cr_expect_eq(r->devices[0].q2c_n, 1);
	br_analysis_free(f.a);
}

/* Three bios become one request: a back merge and a front merge. Each bio
 * counts in Q2C and D2C (btt weights D2C by bios); Q2M/M2D per merged bio;
 * Q2G/G2I/I2D once for the request. */
Test(analysis, back_and_front_merges)
{
	feed f;
	start(&f, NULL);
	ev(&f, 0, W(QUEUE), 8, 4096);
	ev(&f, 5, W(GETRQ), 8, 4096);
	ev(&f, 6, W(INSERT), 8, 4096);
	ev(&f, 10, W(QUEUE), 16, 4096);
	ev(&f, 12, W(BACKMERGE), 16, 4096);
	ev(&f, 20, W(QUEUE), 0, 4096);
	ev(&f, 22, W(FRONTMERGE), 0, 4096);
	ev(&f, 50, W(ISSUE), 0, 12288);
	ev(&f, 150, W(COMPLETE), 0, 12288);
	const br_analysis_result *r = finish(&f);
	expect_phase(r, BR_PHASE_Q2C, 3, (150.0 + 140 + 130) / 3);
	expect_phase(r, BR_PHASE_D2C, 3, 100);
	expect_phase(r, BR_PHASE_Q2M, 2, 2);
	expect_phase(r, BR_PHASE_M2D, 2, (38.0 + 28) / 2);
	expect_phase(r, BR_PHASE_Q2G, 1, 5);
	expect_phase(r, BR_PHASE_G2I, 1, 1);
	expect_phase(r, BR_PHASE_I2D, 1, 44);
	cr_expect_float_eq(r->merge_ratio, 3.0, 1e-12);
	cr_expect_eq(r->totals->merged, 2);
	cr_expect_eq(r->totals->never_issued, 0);
	cr_expect_eq(r->totals->never_completed, 0);
	br_analysis_free(f.a);
}

/* A requeued request counts its last insert and dispatch only. */
Test(analysis, requeue_counts_the_last_dispatch)
{
	feed f;
	start(&f, NULL);
	ev(&f, 0, R(QUEUE), 64, 8192);
	ev(&f, 1, R(GETRQ), 64, 8192);
	ev(&f, 2, R(INSERT), 64, 8192);
	ev(&f, 10, R(ISSUE), 64, 8192);
	ev(&f, 20, R(REQUEUE), 64, 8192);
	ev(&f, 30, R(INSERT), 64, 8192);
	ev(&f, 40, R(ISSUE), 64, 8192);
	ev(&f, 140, R(COMPLETE), 64, 8192);
	const br_analysis_result *r = finish(&f);
	expect_phase(r, BR_PHASE_D2C, 1, 100);
	expect_phase(r, BR_PHASE_I2D, 1, 10);
	expect_phase(r, BR_PHASE_Q2C, 1, 140);
	cr_expect_eq(r->totals->requeues, 1);
	cr_expect_eq(r->qd_ns[1], 10 + 100);         /* [10,20) and [40,140) */
	cr_expect_eq(r->qd_ns[0], 10 + 20);          /* [0,10) and [20,40) */
	cr_expect_eq(r->idle_periods, 1);
	cr_expect_eq(r->idle_max_ns, 20);
	br_analysis_free(f.a);
}

/* A bio queued on a device-mapper device and remapped to a disk keeps its
 * first Q: Q2C spans both devices. */
Test(analysis, remap_keeps_the_first_queue)
{
	feed f;
	start(&f, NULL);
	const uint32_t dm = BR_MKDEV(253, 0);
	struct blk_io_trace_remap rp = {
		.device_from = htobe32(dm), .device_to = htobe32(DEV), .sector_from = htobe64(1000),
	};
	ev_at(&f, 0, dm, W(QUEUE), 1000, 4096, NULL, 0);
	ev_at(&f, 3, DEV, W(REMAP), 5000, 4096, &rp, sizeof rp);
	ev_at(&f, 4, DEV, W(QUEUE), 5000, 4096, NULL, 0);
	ev_at(&f, 6, DEV, W(GETRQ), 5000, 4096, NULL, 0);
	ev_at(&f, 10, DEV, W(ISSUE), 5000, 4096, NULL, 0);
	ev_at(&f, 60, DEV, W(COMPLETE), 5000, 4096, NULL, 0);
	const br_analysis_result *r = finish(&f);
	expect_phase(r, BR_PHASE_Q2C, 1, 60);
	expect_phase(r, BR_PHASE_D2C, 1, 50);
	expect_phase(r, BR_PHASE_Q2G, 1, 6);
	cr_expect_eq(r->totals->remaps, 1);
	cr_expect_eq(r->totals->never_issued, 0);
	br_analysis_free(f.a);
}

/* A split bio: the head keeps the bio (one Q2C), the tail is a request of
 * its own with no Q (one D2C, no Q2G). */
Test(analysis, split_tail_is_its_own_request)
{
	feed f;
	start(&f, NULL);
	uint64_t at = htobe64(8);
	ev(&f, 0, W(QUEUE), 0, 8192);
	ev_at(&f, 1, DEV, W(SPLIT), 0, 8192, &at, sizeof at);
	ev(&f, 2, W(GETRQ), 0, 4096);
	ev(&f, 3, W(GETRQ), 8, 4096);
	ev(&f, 10, W(ISSUE), 0, 4096);
	ev(&f, 11, W(ISSUE), 8, 4096);
	ev(&f, 30, W(COMPLETE), 0, 4096);
	ev(&f, 41, W(COMPLETE), 8, 4096);
	const br_analysis_result *r = finish(&f);
	expect_phase(r, BR_PHASE_Q2C, 1, 30);
	expect_phase(r, BR_PHASE_D2C, 2, 25);
	expect_phase(r, BR_PHASE_Q2G, 1, 2);
	cr_expect_eq(r->totals->splits, 1);
	cr_expect_eq(r->totals->never_completed, 0);
	br_analysis_free(f.a);
}

/* IOs that never complete are counted, not dropped; a completion that
 * matches nothing is counted too. */
Test(analysis, unfinished_and_unmatched)
{
	feed f;
	start(&f, NULL);
	ev(&f, 0, W(QUEUE), 0, 4096);                 /* never issued */
	ev(&f, 5, W(QUEUE), 800, 4096);
	ev(&f, 10, W(ISSUE), 800, 4096);              /* never completed */
	ev(&f, 20, W(COMPLETE), 5000, 4096);          /* matches nothing */
	const br_analysis_result *r = finish(&f);
	cr_expect_eq(r->totals->never_issued, 1);
	cr_expect_eq(r->totals->never_completed, 1);
	cr_expect_eq(r->totals->orphan_completions, 1);
	cr_expect_eq(r->orphan_completions, 1);
	expect_phase(r, BR_PHASE_Q2C, 0, 0);
	/* open at the end: lost, so never in flight (idle all along) */
	cr_expect_eq(r->qd_ns[1], 0);
	cr_expect_eq(r->qd_ns[0], 20);
	cr_expect_eq(r->totals->lost_ios, 1);
	br_analysis_free(f.a);
}

/* An empty completion is a flush's end, or the end-of-bio record FUA and
 * preflush writes log after their sized C: it never completes a request
 * that has sectors. (br_stats does: see the report's notes.) */
Test(analysis, empty_completion_is_not_the_end_of_a_write)
{
	feed f;
	start(&f, NULL);
	ev(&f, 0, W(QUEUE), 800, 4096);
	ev(&f, 10, W(ISSUE), 800, 4096);
	ev(&f, 20, W(COMPLETE), 800, 0);              /* end-of-bio record, not the C */
	ev(&f, 30, W(COMPLETE), 800, 4096);
	ev(&f, 31, W(COMPLETE), 800, 0);              /* and the usual one after it */
	ev(&f, 40, BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_FLUSH), 0, 0); /* two flushes in flight */
	ev(&f, 41, BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_FLUSH), 0, 0);
	ev(&f, 50, BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_FLUSH), 0, 0);
	ev(&f, 60, BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_FLUSH), 0, 0);
	const br_analysis_result *r = finish(&f);
	cr_expect_eq(r->empty_completions, 2);
	cr_expect_eq(r->orphan_completions, 0);
	expect_phase(r, BR_PHASE_Q2C, 1, 30);
	expect_phase(r, BR_PHASE_D2C, 3, (20.0 + 10 + 19) / 3); /* the write, then each flush once */
	cr_expect_eq(r->qd_ns[2], 9);                 /* both flushes in flight [41,50) */
	cr_expect_eq(r->qd_max, 2);
	cr_expect_float_eq(r->qd_avg, (20.0 + 9 * 2 + 1 + 10) / 60, 1e-12);
	br_analysis_free(f.a);
}

/* Newer kernels log a flush request's D at sector 0 and its C at sector
 * ~0; the preflush bios it served (Q "FWS", empty) end with their own
 * empty completions at sector 0, oldest first. */
Test(analysis, flush_request_and_the_preflush_bios_it_serves)
{
	feed f;
	start(&f, NULL);
	const uint32_t fws = BLK_TC_ACT(BLK_TC_WRITE) | BLK_TC_ACT(BLK_TC_FLUSH) | BLK_TC_ACT(BLK_TC_SYNC);
	const uint32_t fn = BLK_TC_ACT(BLK_TC_READ) | BLK_TC_ACT(BLK_TC_FLUSH);
	ev(&f, 0, BLK_TA_QUEUE | fws, 0, 0);
	ev(&f, 1, BLK_TA_GETRQ | fws, 0, 0);
	ev(&f, 5, BLK_TA_QUEUE | fws, 0, 0);
	ev(&f, 6, BLK_TA_GETRQ | fws, 0, 0);
	ev(&f, 10, BLK_TA_ISSUE | fn, 0, 0);
	ev(&f, 110, BLK_TA_COMPLETE | fn, UINT64_MAX, 0);
	ev(&f, 111, W(COMPLETE), 0, 0);               /* the bio queued at 0 */
	ev(&f, 112, W(COMPLETE), 0, 0);               /* the bio queued at 5 */
	ev(&f, 113, W(COMPLETE), 0, 0);               /* nothing left: an end record */
	const br_analysis_result *r = finish(&f);
	expect_phase(r, BR_PHASE_D2C, 1, 100);
	expect_phase(r, BR_PHASE_Q2C, 2, (111.0 + 107.0) / 2);
	expect_phase(r, BR_PHASE_Q2G, 2, 1);
	cr_expect_eq(r->empty_completions, 1);
	cr_expect_eq(r->open_queued + r->open_issued, 0);
	cr_expect_eq(r->qd_ns[1], 100);
	cr_expect_eq(r->qd_max, 1);
	br_analysis_free(f.a);
}

static void dc(feed *f, uint64_t t, uint64_t sec, uint32_t bytes)
{
	ev(f, t, W(ISSUE), sec, bytes);
	ev(f, t + 5, W(COMPLETE), sec, bytes);
}

/* Seeks on D by the 128-sector rule, with distances binned by power of two
 * and direction. */
Test(analysis, seek_distances_and_sequential_fraction)
{
	feed f;
	start(&f, NULL);
	dc(&f, 0, 0, 4096);        /* first: not a seek */
	dc(&f, 10, 8, 4096);       /* sequential */
	dc(&f, 20, 16 + 128, 4096);/* 128 away: not a seek */
	dc(&f, 30, 1160, 4096);    /* 1160 - 152 = 1008 forward: 2^9..2^10 */
	dc(&f, 40, 0, 4096);       /* 1168 back: 2^10..2^11 */
	const br_analysis_result *r = finish(&f);
	cr_expect_eq(r->totals->seeks, 2);
	cr_expect_eq(r->seek_fwd[9], 1);
	cr_expect_eq(r->seek_back[10], 1);
	cr_expect_float_eq(r->seq_fraction, 3.0 / 5.0, 1e-12);
	uint64_t all = 0;
	for (int b = 0; b < BR_DIST_BINS; b++)
		all += r->seek_fwd[b] + r->seek_back[b];
	cr_expect_eq(all, r->totals->seeks);
	br_analysis_free(f.a);
}

/* Hot ranges: bytes per range, sorted, and bursts separated by pauses of
 * a second or more. */
Test(analysis, hot_ranges_and_bursts)
{
	feed f;
	br_analysis_opts o = { .range_bytes = 1 << 20 };
	start(&f, &o);
	const uint64_t s = 1000000000ull;
	dc(&f, 0, 0, 65536);
	dc(&f, s / 10, 128, 65536);     /* same burst */
	dc(&f, 2 * s, 256, 65536);      /* second burst */
	dc(&f, 4 * s, 384, 65536);      /* third */
	dc(&f, 4 * s + 100, 5 * 2048, 4096); /* range 5 (1 MiB = 2048 sectors) */
	const br_analysis_result *r = finish(&f);
	cr_assert_eq(r->nranges, 2);
	cr_expect_eq(r->ranges[0].start_byte, 0);
	cr_expect_eq(r->ranges[0].bytes[BR_DIR_WRITE], 4 * 65536);
	cr_expect_eq(r->ranges[0].ios, 4);
	cr_expect_eq(r->ranges[0].bursts, 3);
	cr_expect_float_eq(r->ranges[0].burst_interval_ns, 2.0 * s, 1);
	cr_expect_eq(r->ranges[1].start_byte, 5 << 20);
	cr_expect_eq(r->ranges[1].bursts, 1);
	cr_expect_float_eq(r->ranges[1].burst_interval_ns, 0, 1e-12);
	br_analysis_free(f.a);
}

/* Processes are counted by who queued; sorted by bytes. */
Test(analysis, per_process)
{
	feed f;
	start(&f, NULL);
	f.pid = 7;
	ev(&f, 0, W(QUEUE), 0, 4096);
	ev(&f, 1, W(QUEUE), 100, 4096);
	f.pid = 9;
	ev(&f, 2, R(QUEUE), 500, 65536);
	f.pid = 0; /* completions come from an interrupt */
	ev(&f, 10, W(ISSUE), 0, 4096);
	ev(&f, 11, W(ISSUE), 100, 4096);
	ev(&f, 12, R(ISSUE), 500, 65536);
	ev(&f, 20, W(COMPLETE), 0, 4096);
	ev(&f, 31, W(COMPLETE), 100, 4096);
	ev(&f, 52, R(COMPLETE), 500, 65536);
	const br_analysis_result *r = finish(&f);
	cr_assert_eq(r->nprocs, 2);
	cr_expect_eq(r->procs[0].id, 9);
	cr_expect_eq(r->procs[0].bytes[BR_DIR_READ], 65536);
	cr_expect_eq(r->procs[1].id, 7);
	cr_expect_eq(r->procs[1].ios[BR_DIR_WRITE], 2);
	cr_expect_eq(r->procs[1].q2c_n, 2);
	cr_expect_float_eq(r->procs[1].q2c_sum_ns, 20.0 + 30.0, 1e-9);
	cr_expect_float_eq(r->procs[0].d2c_sum_ns, 40.0, 1e-9);
	br_analysis_free(f.a);
}

typedef struct seen {
	int n;
	br_analysis_bio b[4];
} seen;

static int on_bio(void *arg, const br_analysis_bio *b)
{
	seen *s = arg;
	if (s->n < 4)
		s->b[s->n] = *b;
	s->n++;
	return 0;
}

static int stop(void *arg, const br_analysis_bio *b)
{
	(void)arg;
	(void)b;
	return BR_ESYS;
}

/* The per-bio hook sees each completed bio once, with its own Q and merge
 * time and the request's D and C; an error from it stops the analysis. */
Test(analysis, per_bio_hook)
{
	seen s = { 0 };
	br_analysis_opts o = { .on_bio = on_bio, .on_bio_arg = &s };
	feed f;
	start(&f, &o);
	ev(&f, 0, W(QUEUE), 8, 4096);
	ev(&f, 2, W(GETRQ), 8, 4096);
	ev(&f, 10, W(QUEUE), 16, 4096);
	ev(&f, 12, W(BACKMERGE), 16, 4096);
	ev(&f, 50, W(ISSUE), 8, 8192);
	ev(&f, 150, W(COMPLETE), 8, 8192);
	finish(&f);
	cr_assert_eq(s.n, 2);
	cr_expect_eq(s.b[0].q_ns, 0);
	cr_expect_eq(s.b[0].g_ns, 2);
	cr_expect_eq(s.b[0].m_ns, 0);
	cr_expect_eq(s.b[1].q_ns, 10);
	cr_expect_eq(s.b[1].m_ns, 12);
	cr_expect_eq(s.b[1].g_ns, 0);
	cr_expect_eq(s.b[1].d_ns, 50);
	cr_expect_eq(s.b[1].c_ns, 150);
	cr_expect_eq(s.b[1].sector, 8);
	cr_expect_eq(s.b[1].sectors, 16);
	br_analysis_free(f.a);

	o.on_bio = stop;
	start(&f, &o);
	ev(&f, 0, W(QUEUE), 8, 4096);
	ev(&f, 1, W(ISSUE), 8, 4096);
	br_event c = tg_io(2, DEV, 0, W(COMPLETE), 8, 4096, 1);
	br_error err;
	cr_expect_eq(br_analysis_add(f.a, &c, &err), BR_ESYS);
	br_analysis_free(f.a);
}

/* Trace A: seeks everywhere and a slow device; trace B: sequential and
 * fast. B wins throughput; seeks and D2C are ranked as explanations that
 * agree with it, with their ratios. */
Test(analysis, comparison_ranks_what_goes_with_throughput)
{
	feed a, b;
	start(&a, NULL);
	start(&b, NULL);
	for (int i = 0; i < 100; i++) {
		uint64_t t = (uint64_t)i * 1000;
		uint64_t far = (uint64_t)(i % 2) * 100000 + (uint64_t)i * 8;
		ev(&a, t, R(QUEUE), far, 4096);
		ev(&a, t + 10, R(ISSUE), far, 4096);
		ev(&a, t + 810, R(COMPLETE), far, 4096);  /* D2C 800 */
		ev(&b, t / 2, R(QUEUE), (uint64_t)i * 8, 4096);
		ev(&b, t / 2 + 10, R(ISSUE), (uint64_t)i * 8, 4096);
		ev(&b, t / 2 + 210, R(COMPLETE), (uint64_t)i * 8, 4096); /* D2C 200 */
	}
	const br_analysis_result *res[2] = { finish(&a), finish(&b) };
	br_cmp c;
	br_error err;
	cr_assert_eq(br_analysis_compare(res, 2, &c, &err), 0);
	cr_expect_eq(c.tput_best, 1);
	const br_cmp_metric *seeks = NULL, *d2c = NULL;
	for (size_t i = 0; i < c.nmetrics; i++) {
		if (!strcmp(c.m[i].key, "seeks_per_s"))
			seeks = &c.m[i];
		if (!strcmp(c.m[i].key, "d2c_avg_ms"))
			d2c = &c.m[i];
		if (i > 3)
			cr_expect(c.m[i - 1].score >= c.m[i].score, "sorted by score");
	}
	cr_assert(seeks && d2c);
	cr_expect_str_eq(c.m[0].key, "mbps");
	cr_expect_str_eq(c.m[1].key, "iops");
	cr_expect_str_eq(c.m[2].key, "run_s");
	cr_expect_eq(d2c->best, 1);
	cr_expect(d2c->agrees);
	cr_expect_float_eq(d2c->ratio, 4.0, 1e-9);
	cr_expect_float_eq(d2c->v[0], 0.0008, 1e-12);
	/* A: 99 seeks over 99.81 us; B: none, so no ratio (scored 0) */
	cr_expect_eq(seeks->best, 1);
	cr_expect_eq(seeks->ratio, 0);
	cr_expect_eq(res[0]->totals->seeks, 99);
	br_cmp_free(&c);
	cr_expect_eq(br_analysis_compare(res, 1, &c, &err), BR_EINVAL);
	br_analysis_free(a.a);
	br_analysis_free(b.a);
}
