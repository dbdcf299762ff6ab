/* test_replay_kernel.c — blkreel-replay against real loop devices over files
 * in a temp dir: counts per kind, the written pattern read back from the
 * backing file, reads only without --write, flushes and discards, address
 * fitting (refusal naming the first IO, --wrap, --scale), refusal of mounted
 * and formatted targets, the replay trace (-o) read by blkreel-parse and
 * blkparse, the JSON report, loose timing sanity, and a capture of the
 * replay compared IO by IO with the trace, and the order kept when the
 * replay outruns the device's queue. Skips only where not root. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/reader.h"
#include "kernel_suite.h"
#include "testutil.h"
#include "tracegen.h"
#include "replay_fixture.h"
#include "../../replay/pattern.h"

TestSuite(replay_kernel, .init = rf_setup, .fini = rf_teardown, .timeout = 120);

static unsigned count_kind(char k)
{
	unsigned n = 0;
	for (unsigned i = 0; i < RF_N; i++)
		n += rf_kind(i) == k;
	return n;
}

static void fill_file(const char *file, uint64_t off, size_t len, int byte)
{
	char *buf = malloc(len);
	memset(buf, byte, len);
	FILE *f = fopen(file, "r+");
	cr_assert_not_null(f);
	fseeko(f, (off_t)off, SEEK_SET);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
}

/* IO i's sectors in the backing file carry the pattern of (offset, seq). */
static bool has_pattern(const char *img, uint64_t at, uint64_t trace_off, uint64_t seq)
{
	uint8_t buf[RF_IO_BYTES];
	if (!rf_pread(img, at, buf, sizeof buf))
		return false;
	for (unsigned s = 0; s < RF_IO_BYTES / 512; s++) {
		uint64_t o, q;
		uint32_t idx;
		if (!pattern_check(buf + 512 * s, &o, &q, &idx) || o != trace_off || q != seq || idx != s)
			return false;
	}
	return true;
}

static bool all_zero(const char *img, uint64_t at, size_t len)
{
	uint8_t *buf = malloc(len);
	bool ok = rf_pread(img, at, buf, len);
	for (size_t i = 0; ok && i < len; i++)
		ok = buf[i] == 0;
	free(buf);
	return ok;
}

Test(replay_kernel, writes_pattern_flush_discard)
{
	const char *dev = rf_loop(0, 64);
	const char *img = rf_path("img0");
	fill_file(img, RF_DISCARD_SECTOR * 512, RF_DISCARD_BYTES, 0xff);
	const char *trace = rf_trace("t.blktrace");
	const char *rep = rf_path("r.json");
	char *out = NULL, *err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d %s --write --report '%s'", trace, dev, rep);
	cr_assert_eq(rc, 0, "exit %d: %s\n%s", rc, err, out);
	cr_assert(strstr(out, "issue error"), "%s", out);
	cr_assert_eq(rf_json(rep, "['planned']['read']"), count_kind('R'));
	cr_assert_eq(rf_json(rep, "['issued']['read']"), count_kind('R'));
	cr_assert_eq(rf_json(rep, "['issued']['write']"), count_kind('W'));
	cr_assert_eq(rf_json(rep, "['issued']['flush']"), 1);
	cr_assert_eq(rf_json(rep, "['issued']['discard']"), 1);
	cr_assert_eq(rf_json(rep, "['failed']['write']") + rf_json(rep, "['failed']['discard']"), 0);
	/* every write is where the trace put it, carrying its offset and sequence */
	for (unsigned i = 0; i < RF_N; i++) {
		if (rf_kind(i) == 'W')
			cr_assert(has_pattern(img, rf_offset(i), rf_offset(i), i), "write %u not found", i);
		else if (rf_kind(i) == 'R')
			cr_assert(all_zero(img, rf_offset(i), RF_IO_BYTES), "read %u wrote data", i);
	}
	/* the discard punched the 0xff region out of the backing file */
	cr_assert(all_zero(img, RF_DISCARD_SECTOR * 512, RF_DISCARD_BYTES), "discard not replayed");
	free(out);
	free(err);
}

Test(replay_kernel, reads_only_without_write)
{
	const char *dev = rf_loop(0, 64);
	const char *img = rf_path("img0");
	fill_file(img, RF_DISCARD_SECTOR * 512, RF_DISCARD_BYTES, 0xff);
	const char *trace = rf_trace("t.blktrace");
	const char *rep = rf_path("r.json");
	char *out = NULL, *err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d %s --no-stall --report '%s'", trace, dev, rep);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	cr_assert_eq(rf_json(rep, "['issued']['read']"), count_kind('R'));
	cr_assert_eq(rf_json(rep, "['issued']['write']"), 0);
	cr_assert_eq(rf_json(rep, "['issued']['discard']"), 0);
	cr_assert_eq(rf_json(rep, "['not_replayed_without_write']['write']"), count_kind('W'));
	cr_assert_eq(rf_json(rep, "['not_replayed_without_write']['flush']"), 1);
	cr_assert(strstr(out, "not replayed without --write"), "%s", out);
	for (unsigned i = 0; i < RF_N; i++)
		if (rf_kind(i) == 'W')
			cr_assert(all_zero(img, rf_offset(i), RF_IO_BYTES), "write %u happened", i);
	uint8_t b[512];
	cr_assert(rf_pread(img, RF_DISCARD_SECTOR * 512, b, sizeof b) && b[0] == 0xff);
	free(out);
	free(err);
}

Test(replay_kernel, beyond_end_refused_then_wrap_and_scale)
{
	const char *dev = rf_loop(0, 64);
	const char *img = rf_path("img0");
	uint64_t offs[3] = { 4096, 100ull << 20, 8192 };   /* the second is beyond 64 MiB */
	const char *trace = rf_trace_offsets("far.blktrace", offs, 3, true);
	char *out = NULL, *err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d %s --write", trace, dev);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
	cr_assert(strstr(err, "does not fit") && strstr(err, "sector 204800"), "%s", err);
	cr_assert(strstr(err, "--wrap"), "%s", err);
	cr_assert(all_zero(img, 0, 16384), "something was written before the refusal");
	free(out);
	free(err);
	out = err = NULL;

	rc = rf_replay(&out, &err, "'%s' -d %s --write --wrap", trace, dev);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	cr_assert(has_pattern(img, 4096, 4096, 0));
	cr_assert(has_pattern(img, (100ull << 20) % (64ull << 20), 100ull << 20, 1), "wrap: not at modulo");
	free(out);
	free(err);
	out = err = NULL;

	rc = rf_replay(&out, &err, "'%s' -d %s --write --scale", trace, dev);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	uint64_t end = (100ull << 20) + RF_IO_BYTES, size = 64ull << 20;
	uint64_t at = (uint64_t)((unsigned __int128)(100ull << 20) * size / end) & ~511ull;
	if (at + RF_IO_BYTES > size)
		at = (size - RF_IO_BYTES) & ~511ull;
	cr_assert(has_pattern(img, at, 100ull << 20, 1), "scale: not at %llu", (unsigned long long)at);
	/* the last IO (the first one shrinks onto sectors the last overwrites) */
	uint64_t at2 = (uint64_t)((unsigned __int128)8192 * size / end) & ~511ull;
	cr_assert(has_pattern(img, at2, 8192, 2), "scale: IO 2 not at %llu", (unsigned long long)at2);
	free(out);
	free(err);
}

Test(replay_kernel, offset_moves_ios)
{
	const char *dev = rf_loop(0, 64);
	const char *img = rf_path("img0");
	uint64_t offs[2] = { 0, 65536 };
	const char *trace = rf_trace_offsets("o.blktrace", offs, 2, true);
	char *err = NULL;
	int rc = rf_replay(NULL, &err, "'%s' -d %s --write --offset 1M -q", trace, dev);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(has_pattern(img, (1 << 20), 0, 0));
	cr_assert(has_pattern(img, (1 << 20) + 65536, 65536, 1));
	cr_assert(all_zero(img, 0, 4096));
	free(err);
}

Test(replay_kernel, refuses_signature_and_mounted)
{
	const char *dev = rf_loop(0, 64);
	const char *trace = rf_trace("t.blktrace");
	char *out = NULL, *err = NULL;
	cr_assert_eq(tu_runf(NULL, NULL, &err, "mkfs.ext4 -q -F %s", dev), 0, "%s", err);
	free(err);
	err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d %s", trace, dev);
	cr_assert_eq(rc, 1, "%s", out);
	cr_assert(strstr(err, "ext2/3/4") && strstr(err, "--force"), "%s", err);
	free(out);
	free(err);
	out = err = NULL;
	/* --force replays it (reads only) */
	rc = rf_replay(NULL, &err, "'%s' -d %s --force --no-stall -q", trace, dev);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	err = NULL;

	snprintf(rf.mnt, sizeof rf.mnt, "%s/mnt", rf.dir);
	cr_assert_eq(tu_runf(NULL, NULL, &err, "mkdir -p '%s' && mount %s '%s'", rf.mnt, dev, rf.mnt), 0,
		     "%s", err);
	free(err);
	err = NULL;
	rc = rf_replay(&out, &err, "'%s' -d %s --write", trace, dev);
	cr_assert_eq(rc, 1);
	cr_assert(strstr(err, "mounted on"), "%s", err);
	free(out);
	free(err);
	out = err = NULL;
	rc = rf_replay(&out, &err, "'%s' -d %s --force --no-stall -q", trace, dev);
	cr_assert_eq(rc, 0, "--force reads a mounted device: %s", err);
	free(out);
	free(err);
}

static char *sha256_of(const char *file)
{
	char *out = NULL;
	cr_assert_eq(tu_runf(&out, NULL, NULL, "sync && sha256sum '%s'", file), 0);
	out[strcspn(out, " ")] = 0;
	return out;
}

/* --write --force onto target must be refused (exit 1, message naming
 * why), and the image behind it must not change. */
static void refused_untouched(const char *trace, const char *target, const char *img, const char *why)
{
	char *before = sha256_of(img), *out = NULL, *err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d '%s' --write --force --no-stall -q", trace, target);
	cr_assert_eq(rc, 1, "%s onto %s: exit %d: %s %s", why, target, rc, out, err);
	cr_assert(strstr(err, why) && strstr(err, "never written"), "%s: %s", target, err);
	char *after = sha256_of(img);
	cr_assert_str_eq(before, after, "%s changed under a refused replay onto %s", img, target);
	free(before);
	free(after);
	free(out);
	free(err);
}

static void mount_it(const char *dev)
{
	char *err = NULL;
	snprintf(rf.mnt, sizeof rf.mnt, "%s/mnt", rf.dir);
	cr_assert_eq(tu_runf(NULL, NULL, &err, "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 %s "
			     "&& mkdir -p '%s' && mount %s '%s'", dev, rf.mnt, dev, rf.mnt), 0, "%s", err);
	free(err);
}

static void unmount_it(void)
{
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "umount '%s'", rf.mnt), 0);
	rf.mnt[0] = 0;
}

/* An MBR with two Linux partitions of 20 MiB, at 1 MiB and at 22 MiB. */
static void write_mbr(const char *img)
{
	uint8_t mbr[512] = { 0 };
	const uint32_t start[2] = { 2048, 45056 }, count = 40960;
	for (int i = 0; i < 2; i++) {
		uint8_t *e = mbr + 446 + 16 * i;
		e[4] = 0x83;
		for (int b = 0; b < 4; b++) {
			e[8 + b] = (uint8_t)(start[i] >> (8 * b));
			e[12 + b] = (uint8_t)(count >> (8 * b));
		}
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	int fd = open(img, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, mbr, sizeof mbr, 0), (ssize_t)sizeof mbr);
	close(fd);
}

/* Whatever the flags, a target in use is never written: a mounted device,
 * the regular file behind a mounted loop device, a partition whose sibling
 * is mounted and the disk under a mounted partition, and a device another
 * program holds open with O_EXCL. --force only overrides the signature and
 * traced-device checks, as the last replay shows. */
Test(replay_kernel, targets_in_use_never_written)
{
	const char *dev = rf_loop(0, 64);
	char img[512];
	snprintf(img, sizeof img, "%s", rf_path("img0"));
	const char *trace = rf_trace("t.blktrace");
	mount_it(dev);
	refused_untouched(trace, dev, img, "mounted on");
	refused_untouched(trace, img, img, "backing file of");
	unmount_it();

	/* a partitioned loop device over a file of ours */
	char disk_img[512], *out = NULL;
	snprintf(disk_img, sizeof disk_img, "%s", rf_path("img1"));
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "truncate -s 64M '%s'", disk_img), 0);
	write_mbr(disk_img);
	cr_assert_eq(tu_runf(&out, NULL, NULL, "losetup -P --find --show '%s'", disk_img), 0);
	snprintf(rf.loop[1], sizeof rf.loop[1], "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	char p1[80], p2[80];
	snprintf(p1, sizeof p1, "%sp1", rf.loop[1]);
	snprintf(p2, sizeof p2, "%sp2", rf.loop[1]);
	for (int i = 0; i < 25 && (access(p1, F_OK) || access(p2, F_OK)); i++)
		usleep(20000); /* devtmpfs creates the partition nodes */
	if (access(p2, F_OK)) /* a kernel without the MBR parser: add them (BLKPG) */
		cr_assert_eq(tu_runf(NULL, NULL, NULL, "addpart %s 1 2048 40960 && addpart %s 2 45056 40960",
				     rf.loop[1], rf.loop[1]), 0);
	for (int i = 0; i < 100 && (access(p1, F_OK) || access(p2, F_OK)); i++)
		usleep(20000);
	cr_assert_eq(access(p2, F_OK), 0, "no %s after losetup -P", p2);
	mount_it(p1);
	refused_untouched(trace, p2, disk_img, "another partition of its disk");
	refused_untouched(trace, rf.loop[1], disk_img, "a partition of it");
	refused_untouched(trace, disk_img, disk_img, "backing file of");
	unmount_it();

	/* someone else holds it open exclusively */
	int fd = open(dev, O_RDONLY | O_EXCL);
	cr_assert_geq(fd, 0, "O_EXCL open of %s", dev);
	refused_untouched(trace, dev, img, "busy");
	close(fd);
	/* in use by nobody: --force writes over the ext4 signature */
	char *err = NULL;
	int rc = rf_replay(NULL, &err, "'%s' -d %s --write --force --no-stall -q", trace, dev);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
}

Test(replay_kernel, replay_trace_readable_and_json)
{
	const char *dev = rf_loop(0, 64);
	const char *trace = rf_trace("t.blktrace");
	const char *rep = rf_path("r.json");
	const char *o = rf_path("replayed.blktrace.gz");
	char *out = NULL, *err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d %s --write --no-stall -o '%s' --report '%s' -q", trace,
			   dev, o, rep);
	cr_assert_eq(rc, 0, "%s", err);
	free(out);
	free(err);
	out = err = NULL;
	cr_assert_eq(tu_runf(NULL, NULL, &err, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
			     rep), 0, "%s", err);
	free(err);
	err = NULL;
	/* Q, D and C for each of the 200 IOs */
	rc = tu_runf(&out, NULL, &err, "'%s' --info '%s'", tu_bin("blkreel-parse"), o);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "events: 600"), "%s", out);
	free(out);
	free(err);
	out = err = NULL;
	if (!tu_have("blkparse"))
		return;
	rc = tu_runf(&out, NULL, &err, "zcat '%s' | blkparse -i -", o);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(tu_count_lines(out, "  D  "), RF_N, "%s", out);
	cr_assert_eq(tu_count_lines(out, "  C  "), RF_N);
	free(out);
	free(err);
}

Test(replay_kernel, timing_speed_and_no_stall)
{
	const char *dev = rf_loop(0, 64);
	const char *trace = rf_trace("t.blktrace");
	const char *rep = rf_path("r.json");
	double span = 198 * RF_STEP_NS / 1e9; /* reads only: IO 1 to IO 199 */
	char *err = NULL;
	int rc = rf_replay(NULL, &err, "'%s' -d %s -q --report '%s'", trace, dev, rep);
	cr_assert_eq(rc, 0, "%s", err);
	double d1 = rf_json(rep, "['duration_s']");
	cr_assert(d1 > span * 0.97 && d1 < span * 1.25, "speed 1: %.4f s for a %.4f s span", d1, span);
	/* reads only: the first read is IO 1, the last IO 199 */
	cr_assert(fabs(rf_json(rep, "['trace_span_s']") - 198 * RF_STEP_NS / 1e9) < 1e-6);
	cr_assert(rf_json(rep, "['issue_error_ns']['p50']") < 5e6, "median issue error above 5 ms");
	free(err);
	err = NULL;
	rc = rf_replay(NULL, &err, "'%s' -d %s -q --speed 2 --report '%s'", trace, dev, rep);
	cr_assert_eq(rc, 0, "%s", err);
	double d2 = rf_json(rep, "['duration_s']");
	cr_assert(d2 > span / 2 * 0.97 && d2 < span / 2 * 1.3, "speed 2: %.4f s", d2);
	free(err);
	err = NULL;
	rc = rf_replay(NULL, &err, "'%s' -d %s -q --no-stall --report '%s'", trace, dev, rep);
	cr_assert_eq(rc, 0, "%s", err);
	double d3 = rf_json(rep, "['wall_s']");
	cr_assert(d3 < span / 2, "--no-stall took %.4f s", d3);
	cr_assert_eq(rf_json(rep, "['issued']['read']"), count_kind('R'));
	free(err);
}

Test(replay_kernel, threads_engine_and_closed)
{
	const char *dev = rf_loop(0, 64);
	const char *img = rf_path("img0");
	const char *trace = rf_trace("t.blktrace");
	const char *rep = rf_path("r.json");
	char *out = NULL, *err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d %s --write --engine threads --speed 4 --report '%s'",
			   trace, dev, rep);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "engine threads"), "%s", out);
	cr_assert_eq(rf_json(rep, "['issued']['write']"), count_kind('W'));
	cr_assert_eq(rf_json(rep, "['issued']['flush']"), 1);
	for (unsigned i = 0; i < RF_N; i++)
		if (rf_kind(i) == 'W')
			cr_assert(has_pattern(img, rf_offset(i), rf_offset(i), i));
	free(out);
	free(err);
	out = err = NULL;
	rc = rf_replay(&out, &err, "'%s' -d %s --closed --speed 4 --report '%s'", trace, dev, rep);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "closed loop"), "%s", out);
	cr_assert_eq(rf_json(rep, "['issued']['read']"), count_kind('R'));
	free(out);
	free(err);
}

/* blkreel-replay bounded by timeout(1): 124 when it had to be stopped. */
static int bounded_replay(unsigned seconds, char **out, const char *args)
{
	char *err = NULL;
	int rc = tu_runf(out, NULL, &err, "timeout -s KILL %u '%s' --no-progress %s", seconds,
			 tu_bin("blkreel-replay"), args);
	cr_assert_neq(rc, 128 + 9, "the replay (%s) had not ended after %u s: it hangs", args, seconds);
	cr_assert_eq(rc, 0, "%s: %s", args, err);
	free(err);
	return rc;
}

/* --closed used to hang (issue 25): an IO the device refused (RWF_NOWAIT,
 * -EAGAIN) was parked for the completion thread to send again, but when the
 * timing thread, polling for the completions its IO waits for, was the one
 * to take the refusal while the completion thread slept without a timeout,
 * nothing sent it again; with nothing else in flight, the replay waited for
 * ever. The bundled sample hung in about 1 run of 10 on a RAM-backed loop
 * (its 1-2 MiB writes are always refused with RWF_NOWAIT here); a trace of
 * 2 MiB writes one after another hung every time. Each replay here is
 * stopped after 60 s (it takes seconds) and fails the test then. */
Test(replay_kernel, closed_loop_ends, .timeout = 400)
{
	const char *dev = rf_ram_loop(0, 1024);
	const char *sample = tu_sample("ext4-fio-rand-1t.blktrace.gz");
	const char *rep = rf_path("closed.json");
	char args[1536];
	snprintf(args, sizeof args, "'%s' -d %s --write --force --closed --report '%s'", sample, dev, rep);
	for (int run = 0; run < 3; run++) {
		char *out = NULL;
		bounded_replay(60, &out, args);
		cr_assert_eq(rf_json(rep, "['issued']['write']"), 2750, "%s", out);
		cr_assert_eq(rf_json(rep, "['issued']['read']"), 4000, "%s", out);
		free(out);
	}

	/* 2 MiB writes, each issued after the previous one completed */
	enum { N = 100 };
	const uint32_t bytes = 2u << 20;
	tg_buf b = { 0 };
	uint32_t tdev = BR_MKDEV(RF_DEV_MAJ, RF_DEV_MIN);
	for (unsigned i = 0; i < N; i++) {
		uint64_t t = 1000000000ull + i * 1000000ull;
		br_event d = tg_io(t, tdev, 0, TG_D_W, (uint64_t)i * (bytes / 512), bytes, 42);
		br_event c = tg_io(t + 500000, tdev, 0, TG_C_W, (uint64_t)i * (bytes / 512), bytes, 0);
		tg_append(&b, &d, false);
		tg_append(&b, &c, false);
	}
	const char *trace = rf_path("serial-2m.blktrace");
	cr_assert_eq(tg_write(&b, trace), 0);
	tg_free(&b);
	snprintf(args, sizeof args, "'%s' -d %s --write --closed --report '%s'", trace, dev, rep);
	for (int run = 0; run < 2; run++) {
		char *out = NULL;
		bounded_replay(60, &out, args);
		cr_assert_eq(rf_json(rep, "['issued']['write']"), N, "%s", out);
		free(out);
	}
}

Test(replay_kernel, regular_file_target)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (the other cases use loop devices)");
	const char *img = rf_path("file.img");
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "truncate -s 64M '%s'", img), 0);
	const char *trace = rf_trace("t.blktrace");
	char *out = NULL, *err = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d '%s' --write --no-stall", trace, img);
	cr_assert_eq(rc, 0, "%s\n%s", err, out);
	for (unsigned i = 0; i < RF_N; i++)
		if (rf_kind(i) == 'W')
			cr_assert(has_pattern(img, rf_offset(i), rf_offset(i), i));
	free(out);
	free(err);
}

Test(replay_kernel, empty_and_completion_only_traces)
{
	const char *dev = rf_loop(0, 16);
	const char *empty = rf_path("empty.blktrace");
	cr_assert_eq(tu_write_file(empty, "", 0), 0);
	char *err = NULL;
	int rc = rf_replay(NULL, &err, "'%s' -d %s", empty, dev);
	cr_assert_eq(rc, 1);
	cr_assert(strstr(err, "no events") || strstr(err, "empty"), "%s", err);
	free(err);
	err = NULL;

	tg_buf b = { 0 };
	for (unsigned i = 0; i < 10; i++) {
		br_event c = tg_io(1000 + i * 1000, BR_MKDEV(8, 99), 0, TG_C_R, i * 8, 4096, 0);
		tg_append(&b, &c, false);
	}
	const char *conly = rf_path("c.blktrace");
	cr_assert_eq(tg_write(&b, conly), 0);
	tg_free(&b);
	rc = rf_replay(NULL, &err, "'%s' -d %s", conly, dev);
	cr_assert_eq(rc, 1);
	cr_assert(strstr(err, "only completions"), "%s", err);
	free(err);
}

/* Capture the replay with blkreel-capture: the device sees the trace's
 * reads and writes, same sectors, sizes and directions, in the same order. */
Test(replay_kernel, capture_matches_trace)
{
	const char *dev = rf_loop(0, 64);
	const char *trace = rf_trace("t.blktrace");
	const char *cap = rf_captured_replay(dev, NULL, "-q '%s' -d %s --write", trace, dev);
	br_reader *r;
	br_error e;
	const char *paths[1] = { cap };
	cr_assert_eq(br_reader_open(&r, paths, 1, NULL, &e), 0, "%s", e.msg);
	br_event ev;
	unsigned next = 0;
	bool probe_seen = false;
	while (br_reader_next(r, &ev, &e) == 1) {
		if (br_event_code(&ev) != __BLK_TA_ISSUE || ev.bytes == 0 || br_event_is_discard(&ev))
			continue;
		/* the safety probe reads the first 68 KiB once, before the replay */
		if (!probe_seen && next == 0 && ev.sector == 0 && ev.bytes != RF_IO_BYTES &&
		    !br_event_is_write(&ev)) {
			probe_seen = true;
			continue;
		}
		while (next < RF_N && rf_kind(next) != 'R' && rf_kind(next) != 'W')
			next++;
		cr_assert_lt(next, RF_N, "more data IOs captured than replayed");
		cr_assert_eq(ev.sector * 512, rf_offset(next), "IO %u: sector %llu", next,
			     (unsigned long long)ev.sector);
		cr_assert_eq(ev.bytes, RF_IO_BYTES);
		cr_assert_eq(br_event_is_write(&ev), rf_kind(next) == 'W', "IO %u direction", next);
		next++;
	}
	br_reader_close(r);
	while (next < RF_N && rf_kind(next) != 'R' && rf_kind(next) != 'W')
		next++;
	cr_assert_eq(next, RF_N, "only %u of the trace's IOs seen on the device", next);
}

/* IOs the replay's report says it sent to wait through io_uring's workers
 * ("refused N IOs refused ...; M IOs sent to wait through io_uring's
 * workers in all"): the only ones that can reach the device out of order;
 * 0 when it has no such line. */
static unsigned refused_in(const char *out)
{
	const char *l = strstr(out, "  refused ");
	if (!l)
		return 0;
	const char *m = strstr(l, "; ");
	cr_assert_not_null(m, "%s", l);
	return (unsigned)strtoul(m + 2, NULL, 10);
}

/* Read IOs of a capture that went to the device after one planned later.
 * Order is judged per CPU the issue was logged on: each CPU's events are in
 * the order they happened, while the capture merges CPUs by clocks that a VM
 * may not keep in step to the microsecond, and the timing thread can move
 * between CPUs mid-burst. */
static unsigned device_inversions(const char *cap, const uint64_t *offs, unsigned n)
{
	const char *paths[1] = { cap };
	br_reader *r;
	br_error e;
	cr_assert_eq(br_reader_open(&r, paths, 1, NULL, &e), 0, "%s", e.msg);
	enum { MAX_CPUS = 1024 };
	static int last_idx[MAX_CPUS];
	bool *seen = calloc(n, sizeof *seen);
	for (unsigned c = 0; c < MAX_CPUS; c++)
		last_idx[c] = -1;
	unsigned found = 0, inversions = 0, foreign = 0;
	br_event ev;
	while (br_reader_next(r, &ev, &e) == 1) {
		if (br_event_code(&ev) != __BLK_TA_ISSUE || ev.bytes != RF_IO_BYTES)
			continue;
		int idx = -1;
		for (unsigned j = 0; j < n && idx < 0; j++)
			if (offs[j] == ev.sector * 512 && !seen[j])
				idx = (int)j;
		if (idx < 0 || ev.cpu >= MAX_CPUS) {
			foreign++;
			continue;
		}
		seen[idx] = true;
		found++;
		if (idx < last_idx[ev.cpu])
			inversions++; /* issued after an IO planned later */
		else
			last_idx[ev.cpu] = idx;
	}
	br_reader_close(r);
	free(seen);
	cr_assert_eq(found, n, "only %u of %u reads seen (%u other 4 KiB issues)", found, n, foreign);
	return inversions;
}

/* 3000 reads due 1 µs apart (a 1 ms trace at --speed 1000) overrun the loop
 * device's request queue. By default the replay holds IOs beyond the queue
 * (nr_requests, less one request per CPU) on its timing thread, so the
 * device sees them in trace order. What is guaranteed exactly: an IO the
 * device refuses for want of a free request (RWF_NOWAIT gets -EAGAIN; the
 * kernel posts a completion before it frees the request) is sent again to
 * wait, through io_uring's workers, and counted; so is an IO beyond the
 * queue (asked for with --max-inflight), sent that way from the start; and
 * only such IOs can reach the device out of order. Asking for twice the
 * queue sends many that way, and still every inversion is one of them:
 * without RWF_NOWAIT, IOs went to io_uring's racing workers uncounted. */
Test(replay_kernel, order_kept_when_the_queue_is_full)
{
	const char *dev = rf_loop(0, 64);
	enum { N = 3000 };
	static uint64_t offs[N];
	for (unsigned i = 0; i < N; i++)
		offs[i] = (uint64_t)((i * 7919u) % 16384u) * RF_IO_BYTES; /* scattered, all distinct */
	const char *trace = rf_trace_offsets("many.blktrace", offs, N, false);
	char nr_path[256];
	snprintf(nr_path, sizeof nr_path, "/sys/block/%s/queue/nr_requests", dev + 5);
	FILE *f = fopen(nr_path, "r");
	cr_assert_not_null(f, "%s", nr_path);
	unsigned nr = 0;
	cr_assert_eq(fscanf(f, "%u", &nr), 1);
	fclose(f);
	unsigned spare = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	cr_assert_gt(nr, spare);
	char *out = NULL, *err = NULL;
	const char *cap = rf_captured_replay(dev, &out, "'%s' -d %s --speed 1000", trace, dev);
	unsigned inversions = device_inversions(cap, offs, N), refused = refused_in(out);
	cr_assert_leq(inversions, refused, "%u IOs issued out of trace order, %u refused by the queue",
		      inversions, refused);
	char want[192];
	snprintf(want, sizeof want, "at most %u in flight (the request queue of %s holds %u; %u kept free",
		 nr - spare, dev, nr, spare);
	cr_assert(strstr(out, want), "no '%s' in: %s", want, out);
	free(out);
	out = NULL;

	/* twice what the queue holds, as fast as possible, allowed with a
	 * warning: the queue overflows (416-705 refusals in 3000 here; without
	 * RWF_NOWAIT, 800-875 inversions that nothing counted), and the refused
	 * IOs are the only ones out of order. How many overflow depends on how
	 * fast the device completes (under ASan and a CPU hog, none did). */
	const char *rep = rf_path("order.json");
	cap = rf_captured_replay(dev, &out, "'%s' -d %s --no-stall --max-inflight %u --report '%s'", trace, dev,
				 2 * nr, rep);
	inversions = device_inversions(cap, offs, N);
	refused = refused_in(out);
	cr_assert_leq(inversions, refused, "%u IOs issued out of trace order, %u refused by the queue",
		      inversions, refused);
	cr_assert_eq(rf_json(rep, "['queue_full']['through_workers']"), refused, "the JSON report's count differs from the text's");
	cr_assert_leq(rf_json(rep, "['queue_full']['refused']"), refused);
	free(out);

	int rc = rf_replay(NULL, &err, "'%s' -d %s -q --no-stall --max-inflight %u", trace, dev, nr + 1);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(err, "reach it out of order"), "%s", err);
	free(err);
}

/* A bio the block layer refuses before issue (a non-blocking submission
 * finding the queue full, or one it would have to split) is completed with
 * an error: in a capture, a Q and a C with an error and no D, which is not
 * a served IO (issue 25). The sample's 1 MiB-and-more writes are larger
 * than a loop device takes in one request (max_segments 128 pages); sent
 * without blocking they were refused 9 times each: 351 refused bios in a
 * capture of one replay; they are sent to wait now. Other refusals remain,
 * of small IOs at 32-126 in flight of the queue's 128 requests (2-8 of
 * 6750 quiet, 4450-6160 beside two CPU hogs; the cause is not known): the
 * capture must hold exactly the refusals the replay's report counts, kept
 * apart by the analysis, and the trace's bytes issued. */
Test(replay_kernel, refused_bios_in_capture_are_those_the_replay_counted, .timeout = 300)
{
	const char *dev = rf_ram_loop(0, 1024);
	const char *sample = tu_sample("ext4-fio-rand-1t.blktrace.gz");
	const char *modes[] = { "", "--closed" };
	for (size_t m = 0; m < 2; m++) {
		char *out = NULL, *info = NULL;
		const char *cap = rf_captured_replay(dev, &out, "'%s' -d %s --write --force %s", sample,
						     dev, modes[m]);
		int rc = tu_run_tool(&info, NULL, "blkreel-parse", "--info '%s'", cap);
		cr_assert_eq(rc, 0);
		const char *l = strstr(info, "completions: ");
		unsigned errors = ~0u;
		cr_assert(l && sscanf(l, "completions: %*u flush, %*u FUA, %u with error", &errors) == 1,
			  "%s", info);
		/* the report's own count: "  refused        N IOs refused before issue" */
		const char *said = strstr(out, "  refused ");
		unsigned refused = said ? (unsigned)strtoul(said + 10, NULL, 10) : 0;
		cr_expect_eq(errors, refused, "the capture holds %u refused bios, the replay said %u (%s): %s",
			     errors, refused, modes[m], out);
		if (errors)
			cr_expect(strstr(info, "refused before issue: ") != NULL,
				  "the analysis does not keep the refused bios apart: %s", info);
		cr_expect(strstr(info, " (79.7 MiB)") != NULL, "the capture issued other bytes than the "
			  "trace's 79.7 MiB of writes (%s): %s", modes[m], info);
		cr_expect(strstr(out, "larger than the device takes at once"), "%s", out);
		free(out);
		free(info);
	}
}

/* A loop device over a sparse file on a 1 MiB tmpfs of our own: writes past
 * what the tmpfs holds fail on the device (ENOSPC). They are counted by
 * errno, the replay goes on and exits 1; --stop-on-error stops at the first. */
Test(replay_kernel, target_errors_counted_and_stop_on_error)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to mount a tmpfs and create loop devices");
	const char *mnt = rf_path("small");
	char *err = NULL;
	cr_assert_eq(tu_runf(NULL, NULL, &err, "mkdir -p '%s' && mount -t tmpfs -o size=1M tmpfs '%s'",
			     mnt, mnt), 0, "mount: %s", err);
	free(err);
	err = NULL;
	snprintf(rf.mnt, sizeof rf.mnt, "%s", mnt);
	if (tu_loop_create(mnt, "img", 64, rf.loop[0], sizeof rf.loop[0]))
		cr_skip_test("no loop device available");
	const char *dev = rf.loop[0];
	enum { N = 600 }; /* 2.3 MiB of 4 KiB writes into 1 MiB */
	static uint64_t offs[N];
	for (unsigned i = 0; i < N; i++)
		offs[i] = (uint64_t)i * 3 * RF_IO_BYTES;
	const char *trace = rf_trace_offsets("w.blktrace", offs, N, true);
	const char *rep = rf_path("r.json");
	char *out = NULL;
	int rc = rf_replay(&out, &err, "'%s' -d %s --write --speed 10 --report '%s'", trace, dev, rep);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
	double issued = rf_json(rep, "['issued']['write']"), failed = rf_json(rep, "['failed']['write']");
	cr_assert_eq(issued, N, "the replay stopped at a failure: %s", out);
	cr_assert(failed > N / 2 && failed < N, "%g of %d writes failed", failed, N);
	cr_assert(strstr(out, "failures: ENOSPC"), "%s", out);
	char want[64];
	snprintf(want, sizeof want, "%.0f IOs failed (see the report)", failed);
	cr_assert(strstr(err, want), "%s", err);
	free(out);
	free(err);
	out = err = NULL;

	rc = rf_replay(&out, &err, "'%s' -d %s --write --speed 10 --stop-on-error --report '%s'", trace,
		       dev, rep);
	cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
	issued = rf_json(rep, "['issued']['write']");
	failed = rf_json(rep, "['failed']['write']");
	cr_assert(failed >= 1, "%s", out);
	/* after the first failure only IOs already handed over may still fail */
	cr_assert(issued < N, "%g issued despite --stop-on-error", issued);
	cr_assert(strstr(err, "stopped there (--stop-on-error)"), "%s", err);
	free(out);
	free(err);
}

/* A foreign trace (blkreplay's .load format: D events only, no device, no
 * completions) replays once formats/ reads it; skipped until then. */
Test(replay_kernel, foreign_load_trace_onto_file)
{
	const char *load = tu_realtrace("schoebel_blkreplay/linux-mysql.load.gz");
	if (!load)
		cr_skip_test("../shared/realtraces/schoebel_blkreplay not present");
	char *out = NULL, *err = NULL;
	if (tu_runf(&out, NULL, &err, "'%s' --info '%s'", tu_bin("blkreel-parse"), load) != 0)
		cr_skip_test("blkreel-parse does not read .load traces yet: %s", err);
	free(out);
	free(err);
	out = err = NULL;
	const char *img = rf_path("load.img");
	const char *rep = rf_path("r.json");
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "truncate -s 256M '%s'", img), 0);
	int rc = rf_replay(&out, &err, "'%s' -d '%s' --scale --no-stall --report '%s'", load, img, rep);
	cr_assert_eq(rc, 0, "%s\n%s", err, out);
	double planned = rf_json(rep, "['planned']['read']");
	cr_assert_gt(planned, 0);
	cr_assert_eq(rf_json(rep, "['issued']['read']"), planned);
	cr_assert_gt(rf_json(rep, "['not_replayed_without_write']['write']"), 0);
	cr_assert(strstr(out, "no completions to tell"), "%s", out);
	free(out);
	free(err);
}

/* The trace read twice (scan, then replay) also works from standard input. */
Test(replay_kernel, trace_from_stdin)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (the other cases use loop devices)");
	const char *img = rf_path("file.img");
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "truncate -s 64M '%s'", img), 0);
	const char *trace = rf_trace("t.blktrace");
	const char *rep = rf_path("r.json");
	char *err = NULL;
	char replay[1024];
	snprintf(replay, sizeof replay, "%s", tu_bin("blkreel-replay"));
	int rc = tu_runf(NULL, NULL, &err, "'%s' --no-progress -q - -d '%s' --no-stall --report '%s' < '%s'",
			 replay, img, rep, trace);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(rf_json(rep, "['issued']['read']"), count_kind('R'));
	free(err);
}
