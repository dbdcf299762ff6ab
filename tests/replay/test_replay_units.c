/* test_replay_units.c — the replayer's pure parts, without devices: the
 * write pattern, the signature probe, and the planner (kinds, reads only, preflush split, address fitting, alignment,
 * completion matching for --closed), and the in-flight depth chosen from
 * the target queues (a fake sysfs tree). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "testutil.h"
#include "tracegen.h"

#include "../../replay/depth.h"
#include "../../replay/io.h"
#include "../../replay/pattern.h"
#include "../../replay/plan.h"
#include "../../replay/probe.h"
#include "../../replay/safety.h"
#include "../../replay/scan.h"
#include "../../replay/target.h"

/* ---- pattern ---------------------------------------------------------------- */

Test(pattern, stamps_read_back)
{
	uint8_t buf[4096];
	pattern_init_buffer(buf, sizeof buf);
	pattern_stamp(buf, sizeof buf, 123456789ull * 512, 42);
	for (unsigned s = 0; s < 8; s++) {
		uint64_t off, seq;
		uint32_t idx;
		cr_assert(pattern_check(buf + 512 * s, &off, &seq, &idx));
		cr_assert_eq(off, 123456789ull * 512);
		cr_assert_eq(seq, 42);
		cr_assert_eq(idx, s);
	}
	buf[700] ^= 1; /* filler of sector 1 */
	cr_assert_not(pattern_check(buf + 512, NULL, NULL, NULL));
	memset(buf, 0, 512);
	cr_assert_not(pattern_check(buf, NULL, NULL, NULL));
}

/* ---- probe ------------------------------------------------------------------ */

Test(probe, signatures)
{
	uint8_t *b = calloc(1, PROBE_BYTES);
	cr_assert_null(probe_buffer(b, PROBE_BYTES));
	b[1080] = 0x53, b[1081] = 0xEF;
	cr_assert_str_eq(probe_buffer(b, PROBE_BYTES), "ext2/3/4 filesystem");
	cr_assert_null(probe_buffer(b, 1024), "a short read cannot see it");
	memset(b, 0, PROBE_BYTES);
	memcpy(b, "XFSB", 4);
	cr_assert_str_eq(probe_buffer(b, PROBE_BYTES), "XFS filesystem");
	memset(b, 0, PROBE_BYTES);
	memcpy(b + 65536 + 64, "_BHRfS_M", 8);
	cr_assert_str_eq(probe_buffer(b, PROBE_BYTES), "btrfs filesystem");
	memset(b, 0, PROBE_BYTES);
	memcpy(b + 4086, "SWAPSPACE2", 10);
	cr_assert_str_eq(probe_buffer(b, PROBE_BYTES), "Linux swap");
	memset(b, 0, PROBE_BYTES);
	memcpy(b + 512, "EFI PART", 8);
	b[510] = 0x55, b[511] = 0xAA;
	cr_assert_str_eq(probe_buffer(b, PROBE_BYTES), "GPT partition table");
	memset(b, 0, PROBE_BYTES);
	b[510] = 0x55, b[511] = 0xAA;
	cr_assert_null(probe_buffer(b, PROBE_BYTES), "boot signature without partitions");
	b[446 + 4] = 0x83;
	cr_assert_str_eq(probe_buffer(b, PROBE_BYTES), "MBR partition table");
	free(b);
}

/* ---- planner ------------------------------------------------------------------ */

static target tg_file(uint64_t size, unsigned align)
{
	target t = { .path = "t.img", .size = size, .align = align, .direct = true, .fd = -1, .fd_buf = -1 };
	return t;
}

static br_event ev_of(uint64_t t, unsigned code, uint32_t cat, uint64_t sector, uint32_t bytes)
{
	br_event e = { .time = t, .sector = sector, .bytes = bytes, .device = BR_MKDEV(8, 0),
		       .action = code | BLK_TC_ACT(cat) };
	return e;
}

typedef struct planned {
	replay_item it[16];
	int n;
} planned;

static void feed(plan_state *p, const br_event *e, planned *out)
{
	replay_item two[2];
	int n = plan_feed(p, e, two);
	for (int i = 0; i < n && out->n < 16; i++)
		out->it[out->n++] = two[i];
}

Test(plan, kinds_preflush_and_reads_only)
{
	target t = tg_file(1 << 30, 512);
	plan_map m = { .any = true };
	plan_cfg cfg = { .maps = &m, .nmaps = 1, .targets = &t, .ntargets = 1 };
	plan_state *p = plan_new(&cfg);
	planned out = { .n = 0 };
	feed(p, &(br_event){ .time = 1, .action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_PROCESS }, &out);
	br_event q = ev_of(5, __BLK_TA_QUEUE, BLK_TC_READ, 8, 4096);
	feed(p, &q, &out);
	br_event e1 = ev_of(10, __BLK_TA_ISSUE, BLK_TC_READ, 8, 4096);
	br_event e2 = ev_of(20, __BLK_TA_ISSUE, BLK_TC_WRITE | BLK_TC_FLUSH | BLK_TC_FUA, 16, 8192);
	br_event e3 = ev_of(30, __BLK_TA_ISSUE, BLK_TC_WRITE | BLK_TC_FLUSH, 0, 0);
	br_event e4 = ev_of(40, __BLK_TA_ISSUE, BLK_TC_WRITE | BLK_TC_DISCARD, 1024, 1 << 20);
	br_event e5 = ev_of(50, __BLK_TA_ISSUE, 0, 0, 0); /* no data, no flush */
	feed(p, &e1, &out);
	feed(p, &e2, &out);
	feed(p, &e3, &out);
	feed(p, &e4, &out);
	feed(p, &e5, &out);
	cr_assert_eq(out.n, 5);
	cr_assert_eq(out.it[0].kind, RK_READ);
	cr_assert_eq(out.it[1].kind, RK_FLUSH, "a preflush write becomes a flush first");
	cr_assert_eq(out.it[2].kind, RK_WRITE);
	cr_assert(out.it[2].fua);
	cr_assert_eq(out.it[2].off, 16 * 512);
	cr_assert_eq(out.it[3].kind, RK_FLUSH);
	cr_assert_eq(out.it[4].kind, RK_DISCARD);
	for (int i = 0; i < out.n; i++)
		cr_assert_eq(out.it[i].seq, (uint64_t)i);
	const plan_totals *tot = plan_totals_get(p);
	cr_assert_eq(tot->preflush, 1);
	cr_assert_eq(tot->fua, 1);
	cr_assert_eq(tot->skipped_empty, 1);
	cr_assert_eq(tot->notify, 1);
	cr_assert_eq(tot->first_t, 10);
	cr_assert_eq(tot->last_t, 40);
	plan_free(p);

	cfg.reads_only = true;
	p = plan_new(&cfg);
	out.n = 0;
	feed(p, &e1, &out);
	feed(p, &e2, &out);
	feed(p, &e4, &out);
	cr_assert_eq(out.n, 1);
	tot = plan_totals_get(p);
	cr_assert_eq(tot->not_written[RK_WRITE], 1);
	cr_assert_eq(tot->not_written[RK_FLUSH], 1);
	cr_assert_eq(tot->not_written[RK_DISCARD], 1);
	plan_free(p);

	cfg.source_q = true;
	p = plan_new(&cfg);
	out.n = 0;
	feed(p, &q, &out);
	feed(p, &e1, &out);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.it[0].t_trace, 5);
	plan_free(p);
}

Test(plan, overflow_wrap_scale_offset)
{
	target t = tg_file(1 << 20, 512); /* 1 MiB */
	plan_map m = { .any = true };
	plan_cfg cfg = { .maps = &m, .nmaps = 1, .targets = &t, .ntargets = 1 };
	br_event far = ev_of(10, __BLK_TA_ISSUE, BLK_TC_READ, (3u << 20) / 512, 4096); /* at 3 MiB */
	br_event near = ev_of(20, __BLK_TA_ISSUE, BLK_TC_READ, 8, 4096);
	plan_state *p = plan_new(&cfg);
	planned out = { .n = 0 };
	feed(p, &near, &out);
	feed(p, &far, &out);
	const plan_totals *tot = plan_totals_get(p);
	cr_assert(tot->overflow);
	cr_assert_eq(tot->first_overflow.trace_off, 3u << 20);
	cr_assert_eq(tot->max_end[0], (3u << 20) + 4096);
	plan_free(p);

	cfg.fit = FIT_WRAP;
	p = plan_new(&cfg);
	out.n = 0;
	feed(p, &far, &out);
	cr_assert_not(plan_totals_get(p)->overflow);
	cr_assert_eq(out.it[0].off, 0, "3 MiB mod 1 MiB");
	plan_free(p);

	cfg.fit = FIT_SCALE;
	cfg.max_end[0] = (3u << 20) + 4096;
	p = plan_new(&cfg);
	out.n = 0;
	feed(p, &far, &out);
	feed(p, &near, &out);
	cr_assert(out.it[0].off + 4096 <= (1u << 20));
	cr_assert(out.it[0].off >= (1u << 20) - 8192);
	cr_assert_eq(out.it[1].off, 1024); /* about 4096 / 3, down to a sector */
	plan_free(p);

	cfg.fit = FIT_NONE;
	cfg.offset = 65536;
	p = plan_new(&cfg);
	out.n = 0;
	feed(p, &near, &out);
	cr_assert_eq(out.it[0].off, 65536 + 4096);
	plan_free(p);
}

Test(plan, alignment_widen_or_buffered)
{
	target t = tg_file(1 << 30, 4096);
	plan_map m = { .any = true };
	plan_cfg cfg = { .maps = &m, .nmaps = 1, .targets = &t, .ntargets = 1 };
	br_event e = ev_of(10, __BLK_TA_ISSUE, BLK_TC_READ, 9, 1024); /* 4608 + 1 KiB */
	plan_state *p = plan_new(&cfg);
	planned out = { .n = 0 };
	feed(p, &e, &out);
	cr_assert_eq(out.it[0].off, 4096);
	cr_assert_eq(out.it[0].len, 4096);
	cr_assert_not(out.it[0].buffered);
	cr_assert_eq(plan_totals_get(p)->unaligned, 1);
	plan_free(p);
	cfg.buffered = true;
	p = plan_new(&cfg);
	out.n = 0;
	feed(p, &e, &out);
	cr_assert_eq(out.it[0].off, 4608);
	cr_assert_eq(out.it[0].len, 1024);
	cr_assert(out.it[0].buffered);
	plan_free(p);
}

Test(plan, completions_give_closed_dependencies_and_inflight)
{
	target t = tg_file(1 << 30, 512);
	plan_map m = { .dev = BR_MKDEV(8, 0) };
	plan_cfg cfg = { .maps = &m, .nmaps = 1, .targets = &t, .ntargets = 1 };
	plan_state *p = plan_new(&cfg);
	planned out = { .n = 0 };
	br_event d1 = ev_of(10, __BLK_TA_ISSUE, BLK_TC_READ, 8, 4096);
	br_event d2 = ev_of(20, __BLK_TA_ISSUE, BLK_TC_READ, 16, 4096);
	br_event c1 = ev_of(30, __BLK_TA_COMPLETE, BLK_TC_READ, 8, 4096);
	br_event cx = ev_of(31, __BLK_TA_COMPLETE, BLK_TC_READ, 999, 4096); /* no D seen */
	br_event d3 = ev_of(40, __BLK_TA_ISSUE, BLK_TC_READ, 24, 4096);
	br_event other = ev_of(45, __BLK_TA_ISSUE, BLK_TC_READ, 24, 4096);
	other.device = BR_MKDEV(8, 16);
	feed(p, &d1, &out);
	feed(p, &d2, &out);
	feed(p, &c1, &out);
	feed(p, &cx, &out);
	feed(p, &d3, &out);
	feed(p, &other, &out);
	cr_assert_eq(out.n, 3);
	cr_assert_eq(out.it[0].deps, 0);
	cr_assert_eq(out.it[1].deps, 0);
	cr_assert_eq(out.it[2].deps, 1, "one matched completion before the third IO");
	const plan_totals *tot = plan_totals_get(p);
	cr_assert_eq(tot->unmapped, 1);
	cr_assert_eq(tot->ndevices, 2);
	plan_free(p);
}

Test(plan, pending_table_survives_growth_and_deletes)
{
	target t = tg_file(1ull << 40, 512);
	plan_map m = { .any = true };
	plan_cfg cfg = { .maps = &m, .nmaps = 1, .targets = &t, .ntargets = 1 };
	plan_state *p = plan_new(&cfg);
	planned out = { .n = 0 };
	/* 5000 outstanding, then complete them in a scrambled order */
	for (uint64_t i = 0; i < 5000; i++) {
		br_event d = ev_of(10 + i, __BLK_TA_ISSUE, BLK_TC_READ, i * 8, 4096);
		out.n = 0;
		feed(p, &d, &out);
	}
	for (uint64_t k = 0; k < 5000; k++) {
		uint64_t i = (k * 7919) % 5000;
		br_event c = ev_of(10000 + k, __BLK_TA_COMPLETE, BLK_TC_READ, i * 8, 4096);
		feed(p, &c, &out);
	}
	br_event d = ev_of(20000, __BLK_TA_ISSUE, BLK_TC_READ, 8, 4096);
	out.n = 0;
	feed(p, &d, &out);
	cr_assert_eq(out.it[0].deps, 5000);
	plan_free(p);
}

/* The trace's own in-flight comes from the shared statistics: a flush whose
 * completion carries sector ~0 ends, and the average is time-weighted over
 * the trace (D 10, D 20, C 30, D FN 35, C FN 40, C 50: area 55 over 40 ns). */
Test(scan, trace_inflight_from_shared_stats)
{
	char *dir = tu_tmpdir();
	cr_assert(dir);
	char path[1024];
	snprintf(path, sizeof path, "%s/t.bin", dir);
	uint32_t dev = BR_MKDEV(8, 0);
	uint32_t flush = BLK_TC_ACT(BLK_TC_FLUSH) | BLK_TC_ACT(BLK_TC_READ);
	br_event evs[] = {
		tg_io(10, dev, 0, TG_D_R, 8, 4096, 1),
		tg_io(20, dev, 0, TG_D_R, 16, 4096, 1),
		tg_io(30, dev, 0, TG_C_R, 8, 4096, 0),
		tg_io(35, dev, 0, BLK_TA_ISSUE | flush, 0, 0, 1),
		tg_io(40, dev, 0, BLK_TA_COMPLETE | flush, UINT64_MAX, 0, 0),
		tg_io(50, dev, 0, TG_C_R, 16, 4096, 0),
	};
	tg_buf b = { 0 };
	for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
		tg_append(&b, &evs[i], false);
	cr_assert_eq(tg_write(&b, path), 0);
	tg_free(&b);
	target t = tg_file(1 << 30, 512);
	plan_map m = { .any = true };
	plan_cfg cfg = { .maps = &m, .nmaps = 1, .targets = &t, .ntargets = 1 };
	plan_totals tot;
	br_error err;
	const char *inputs[] = { path };
	cr_assert_eq(scan_trace(inputs, 1, &cfg, &tot, &err), 0, "%s", err.msg);
	cr_expect_eq(tot.trace_inflight_max, 2);
	cr_expect_float_eq(tot.trace_inflight_avg, 55.0 / 40.0, 1e-9);
	tu_tmpdir_remove(dir);
}

/* ---- in-flight depth ---------------------------------------------------------- */

static void put_file(const char *dir, const char *rel, const char *text)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\" && printf '%%s' '%s' > '%s/%s'", dir,
		 rel, text, dir, rel);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* nr_requests of a disk, of a partition (its disk's queue, one level up
 * from the partition's own directory), and 0 when there is none. */
Test(depth, queue_depth_from_sysfs)
{
	char *root = tu_tmpdir();
	cr_assert(root);
	put_file(root, "block/loop7/queue/nr_requests", "128\n");
	put_file(root, "block/sdz/queue/nr_requests", "64\n");
	put_file(root, "block/sdz/sdz1/dev", "8:1\n");
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/dev/block' && ln -s ../../block/loop7 '%s/dev/block/7:7' && "
		 "ln -s ../../block/sdz/sdz1 '%s/dev/block/8:1'", root, root, root);
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(target_queue_depth(root, makedev(7, 7)), 128);
	cr_expect_eq(target_queue_depth(root, makedev(8, 1)), 64);
	cr_expect_eq(target_queue_depth(root, makedev(9, 9)), 0);
	put_file(root, "block/bad/queue/nr_requests", "lots\n");
	snprintf(cmd, sizeof cmd, "ln -s ../../block/bad '%s/dev/block/9:1'", root);
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(target_queue_depth(root, makedev(9, 1)), 0);
	tu_tmpdir_remove(root);
}

Test(depth, default_capped_at_smallest_queue)
{
	target t[3] = { { .path = "a.img" }, { .path = "/dev/big", .queue_depth = 1023 },
			{ .path = "/dev/small", .queue_depth = 64 } };
	/* timed: the default, lowered to the smallest queue */
	depth_plan p = depth_choose(0, false, 7, true, t, 3, 0);
	cr_expect_eq(p.depth, 64);
	cr_expect(p.capped);
	cr_expect_str_eq(p.queue_of, "/dev/small");
	cr_expect_eq(p.queue, 64);
	/* files only: no queue to respect */
	p = depth_choose(0, false, 7, true, t, 1, 0);
	cr_expect_eq(p.depth, DEPTH_DEFAULT);
	cr_expect(!p.capped);
	cr_expect_eq(p.queue, 0);
	/* --no-stall keeps the trace's depth when it fits */
	p = depth_choose(0, true, 7, true, t, 3, 0);
	cr_expect_eq(p.depth, 7);
	cr_expect(!p.capped);
	/* ... is capped when it does not, and a trace without completions (no
	 * depth to measure) starts from the default */
	p = depth_choose(0, true, 200, true, t, 3, 0);
	cr_expect_eq(p.depth, 64);
	cr_expect(p.capped);
	p = depth_choose(0, true, 0, false, t, 2, 0);
	cr_expect_eq(p.depth, DEPTH_DEFAULT);
	/* --max-inflight is obeyed, and flagged when above the queue */
	p = depth_choose(100, false, 7, true, t, 3, 0);
	cr_expect_eq(p.depth, 100);
	cr_expect(p.above_queue);
	cr_expect(!p.capped);
	p = depth_choose(64, true, 7, true, t, 3, 0);
	cr_expect_eq(p.depth, 64);
	cr_expect(!p.above_queue);
}

/* one request per CPU that may be completing stays free, never all of them */
Test(depth, spare_requests_for_completions)
{
	target t[2] = { { .path = "/dev/small", .queue_depth = 64 }, { .path = "/dev/tiny", .queue_depth = 2 } };
	depth_plan p = depth_choose(0, false, 7, true, t, 1, 2);
	cr_expect_eq(p.depth, 62);
	cr_expect(p.capped);
	cr_expect_eq(p.queue, 64);
	cr_expect_eq(p.spare, 2);
	p = depth_choose(0, true, 63, true, t, 1, 2);
	cr_expect_eq(p.depth, 62);
	p = depth_choose(0, true, 62, true, t, 1, 2);
	cr_expect_eq(p.depth, 62);
	cr_expect(!p.capped);
	cr_expect_eq(p.spare, 0);
	p = depth_choose(0, false, 7, true, t, 2, 4);
	cr_expect_eq(p.depth, 1);
	cr_expect_eq(p.spare, 1);
	/* an explicit depth is not lowered */
	p = depth_choose(64, false, 7, true, t, 1, 2);
	cr_expect_eq(p.depth, 64);
	cr_expect(!p.above_queue);
}

/* A regular file is matched to the loop device whose backing_file names it
 * (by device and inode, so another path to it matches too), never to one
 * backed by another file. */
Test(safety, backing_file_of_a_loop_device)
{
	char *root = tu_tmpdir();
	char cmd[2048], img[600], other[600];
	snprintf(img, sizeof img, "%s/disk.img", root);
	snprintf(other, sizeof other, "%s/other.img", root);
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && touch disk.img other.img && ln disk.img hard.img && "
		 "mkdir -p sys/loop3/loop sys/loop7/loop sys/sda && "
		 "echo '%s' > sys/loop3/loop/backing_file && echo 7:3 > sys/loop3/dev && "
		 "echo '%s/hard.img' > sys/loop7/loop/backing_file && echo 7:7 > sys/loop7/dev && "
		 "echo 8:0 > sys/sda/dev", root, other, root);
	cr_assert_eq(system(cmd), 0);
	char sys[600], loop[64];
	snprintf(sys, sizeof sys, "%s/sys", root);
	struct stat st;
	cr_assert_eq(stat(img, &st), 0);
	dev_t lr = 0;
	cr_assert(safety_backing_loop(sys, &st, loop, sizeof loop, &lr));
	cr_expect_str_eq(loop, "/dev/loop7");
	cr_expect_eq(lr, makedev(7, 7));
	snprintf(cmd, sizeof cmd, "%s/none.img", root);
	FILE *f = fopen(cmd, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(stat(cmd, &st), 0);
	cr_expect(!safety_backing_loop(sys, &st, loop, sizeof loop, &lr));
	cr_expect(!safety_backing_loop("/nonexistent", &st, loop, sizeof loop, &lr));
	tu_tmpdir_remove(root);
}
