/* The reader: input detection, per-CPU merge order, byte order, notify
 * records, reordering, time windows, and bad input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blkreel/event_pipe.h"
#include "blkreel/reader.h"
#include "testutil.h"
#include "tracegen.h"

#define DEV BR_MKDEV(8, 16)


/* Read everything; returns the count, fills times/cpus (up to max). */
static size_t read_all(const char *const *paths, size_t n, const br_reader_opts *opts,
		       uint64_t *times, uint32_t *cpus, size_t max)
{
	br_reader *r;
	br_error err;
	int rc = br_reader_open(&r, paths, n, opts, &err);
	cr_assert_eq(rc, 0, "open: %s", err.msg);
	br_event ev;
	size_t count = 0;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (count < max) {
			if (times)
				times[count] = ev.time;
			if (cpus)
				cpus[count] = ev.cpu;
		}
		count++;
	}
	cr_assert_eq(rc, 0, "next: %s", err.msg);
	br_reader_close(r);
	return count;
}

TestSuite(reader, .init = tu_dir_setup, .fini = tu_dir_teardown);

Test(reader, cpu_set_is_merged_by_time)
{
	tg_buf b0 = { 0 }, b1 = { 0 };
	uint64_t t0[] = { 10, 30, 50 }, t1[] = { 20, 40 };
	for (int i = 0; i < 3; i++) {
		br_event ev = tg_io(t0[i], DEV, 0, TG_Q_W, 100 + i, 4096, 1);
		tg_append(&b0, &ev, false);
	}
	for (int i = 0; i < 2; i++) {
		br_event ev = tg_io(t1[i], DEV, 1, TG_Q_W, 200 + i, 4096, 1);
		tg_append(&b1, &ev, false);
	}
	cr_assert_eq(tg_write(&b0, tu_path("set.blktrace.0")), 0);
	cr_assert_eq(tg_write(&b1, tu_path("set.blktrace.1")), 0);
	uint64_t times[8];
	uint32_t cpus[8];
	const char *by_name[] = { tu_path("set") };
	cr_assert_eq(read_all(by_name, 1, NULL, times, cpus, 8), 5);
	uint64_t want_t[] = { 10, 20, 30, 40, 50 };
	uint32_t want_c[] = { 0, 1, 0, 1, 0 };
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(times[i], want_t[i]);
		cr_expect_eq(cpus[i], want_c[i]);
	}
	/* any member's name opens the whole set, as blkparse does */
	const char *by_member[] = { tu_path("set.blktrace.1") };
	cr_expect_eq(read_all(by_member, 1, NULL, NULL, NULL, 0), 5);
	tg_free(&b0);
	tg_free(&b1);
}

/* Equal timestamps on two CPUs come out in blkparse's file-mode order. */
Test(reader, equal_times_follow_blkparse_file_mode)
{
	tg_buf b[2] = { { 0 }, { 0 } };
	for (uint32_t cpu = 0; cpu < 2; cpu++)
		for (int i = 0; i < 3; i++) {
			br_event ev = tg_io(1000 + 10 * (uint64_t)i, DEV, cpu, TG_Q_W,
					    (uint64_t)(cpu * 1000 + i), 512, 7);
			ev.sequence = (uint32_t)i + 1;
			tg_append(&b[cpu], &ev, false);
		}
	cr_assert_eq(tg_write(&b[0], tu_path("tie.blktrace.0")), 0);
	cr_assert_eq(tg_write(&b[1], tu_path("tie.blktrace.1")), 0);
	uint32_t cpus[6];
	const char *p[] = { tu_path("tie") };
	cr_assert_eq(read_all(p, 1, NULL, NULL, cpus, 6), 6);
	char ours[16] = "";
	for (int i = 0; i < 6; i++)
		ours[i] = (char)('0' + cpus[i]);
	cr_expect_str_eq(ours, "011001");
	if (!tu_have("blkparse"))
		return;
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "cd '%s' && blkparse -q -i tie -f '%%c\\n' | grep -v '^Input' | tr -d ' \\n'",
			 tu_dir);
	cr_assert_eq(rc, 0);
	cr_expect_str_eq(out, ours, "blkparse order %s, ours %s", out, ours);
	free(out);
	tg_free(&b[0]);
	tg_free(&b[1]);
}

Test(reader, empty_cpu_files_are_skipped_and_lone_member_is_a_stream)
{
	tg_buf b = { 0 };
	br_event ev = tg_io(5, DEV, 2, TG_D_R, 8, 4096, 3);
	tg_append(&b, &ev, false);
	cr_assert_eq(tg_write(&b, tu_path("e.blktrace.2")), 0);
	tg_buf empty = { 0 };
	cr_assert_eq(tg_write(&empty, tu_path("e.blktrace.0")), 0);
	cr_assert_eq(tg_write(&empty, tu_path("e.blktrace.1")), 0);
	const char *p[] = { tu_path("e") };
	cr_expect_eq(read_all(p, 1, NULL, NULL, NULL, 0), 1);

	cr_assert_eq(tg_write(&b, tu_path("lone.blktrace.0")), 0);
	br_reader *r;
	br_error err;
	const char *lone[] = { tu_path("lone.blktrace.0") };
	cr_assert_eq(br_reader_open(&r, lone, 1, NULL, &err), 0);
	cr_expect_eq(br_reader_input(r, 0)->kind, BR_INPUT_STREAM);
	br_reader_close(r);
	tg_free(&b);
}

Test(reader, other_byte_order_reads_the_same)
{
	tg_buf native = { 0 }, swapped = { 0 };
	for (int i = 0; i < 50; i++) {
		br_event ev = tg_io(100 * (uint64_t)i, DEV, 0, i % 2 ? TG_C_R : TG_D_R,
				    (uint64_t)i * 8, 4096, 11);
		tg_append(&native, &ev, false);
		tg_append(&swapped, &ev, true);
	}
	cr_assert_eq(tg_write(&native, tu_path("native.bin")), 0);
	cr_assert_eq(tg_write(&swapped, tu_path("swapped.bin")), 0);
	br_reader *a, *b;
	br_error err;
	const char *pa[] = { tu_path("native.bin") }, *pb[] = { tu_path("swapped.bin") };
	cr_assert_eq(br_reader_open(&a, pa, 1, NULL, &err), 0);
	cr_assert_eq(br_reader_open(&b, pb, 1, NULL, &err), 0, "%s", err.msg);
	br_event ea, eb;
	int n = 0;
	while (br_reader_next(a, &ea, &err) == 1) {
		cr_assert_eq(br_reader_next(b, &eb, &err), 1);
		cr_expect_eq(ea.time, eb.time);
		cr_expect_eq(ea.sector, eb.sector);
		cr_expect_eq(ea.action, eb.action);
		cr_expect_eq(ea.device, eb.device);
		n++;
	}
	cr_expect_eq(n, 50);
	cr_expect_eq(br_reader_next(b, &eb, &err), 0);
	cr_expect(br_reader_input(b, 0)->byteswapped);
	cr_expect_not(br_reader_input(a, 0)->byteswapped);
	br_reader_close(a);
	br_reader_close(b);
	tg_free(&native);
	tg_free(&swapped);
}

Test(reader, process_names_and_start_time)
{
	tg_buf b = { 0 };
	br_event n1 = tg_process(500, 0, 77, "dbench");
	br_event io = tg_io(1000, DEV, 0, TG_Q_W, 64, 4096, 77);
	br_event n2 = tg_process(1500, 0, 78, "kworker/0:1");
	br_event io2 = tg_io(2000, DEV, 0, TG_Q_W, 72, 4096, 78);
	tg_append(&b, &n1, false);
	tg_append(&b, &io, false);
	tg_append(&b, &n2, false);
	tg_append(&b, &io2, false);
	cr_assert_eq(tg_write(&b, tu_path("names.bin")), 0);
	br_reader *r;
	br_error err;
	const char *p[] = { tu_path("names.bin") };
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0);
	cr_expect_eq(br_reader_start_time(r), 1000, "the first real event, not the notify record");
	br_event ev;
	cr_assert_eq(br_reader_next(r, &ev, &err), 1);
	cr_expect(br_event_is_notify(&ev));
	cr_assert_eq(br_reader_next(r, &ev, &err), 1);
	cr_expect_eq(ev.time, 1000);
	cr_assert(ev.comm);
	cr_expect_str_eq(ev.comm, "dbench");
	cr_assert_eq(br_reader_next(r, &ev, &err), 1);
	cr_expect(br_event_is_notify(&ev));
	cr_assert_eq(br_reader_next(r, &ev, &err), 1);
	cr_expect_str_eq(ev.comm, "kworker/0:1");
	cr_expect_str_eq(br_reader_comm(r, 77), "dbench");
	cr_expect_eq(br_reader_next(r, &ev, &err), 0);
	br_reader_close(r);
	tg_free(&b);
}

/* A trace whose only name turns up late: every event before the batch
 * that brings it (blkparse's 512 records) has no name, every event from
 * that batch on has it, also through the event pipe's bulk path. */
static void expect_late_name(const br_event *ev, uint64_t k)
{
	if (k < 1536) {
		cr_assert_null(ev->comm, "event %llu is before the name's batch",
			       (unsigned long long)k);
	} else {
		cr_assert(ev->comm, "event %llu", (unsigned long long)k);
		cr_assert_str_eq(ev->comm, "late");
	}
}

Test(reader, a_name_that_turns_up_late_names_its_batch_on)
{
	tg_buf b = { 0 };
	for (uint64_t i = 0; i < 3000; i++) {
		if (i == 2000) {
			br_event n = tg_process(1000 + i * 10, 0, 9, "late");
			tg_append(&b, &n, false);
		}
		br_event io = tg_io(1000 + i * 10, DEV, 0, TG_Q_W, i * 8, 4096, 9);
		tg_append(&b, &io, false);
	}
	cr_assert_eq(tg_write(&b, tu_path("late.bin")), 0);
	tg_free(&b);
	const char *p[] = { tu_path("late.bin") };
	br_reader *r;
	br_error err;
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	br_event ev;
	uint64_t k = 0;
	while (br_reader_next(r, &ev, &err) == 1)
		if (!br_event_is_notify(&ev))
			expect_late_name(&ev, k++);
	cr_expect_eq(k, 3000);
	br_reader_close(r);
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	br_event_pipe *pipe;
	cr_assert_eq(br_event_pipe_start(&pipe, r, &err), 0);
	const br_event *evs;
	int n;
	k = 0;
	while ((n = br_event_pipe_next(pipe, &evs, &err)) > 0)
		for (int i = 0; i < n; i++)
			if (!br_event_is_notify(&evs[i]))
				expect_late_name(&evs[i], k++);
	cr_expect_eq(n, 0);
	cr_expect_eq(k, 3000);
	br_event_pipe_stop(pipe);
	br_reader_close(r);
}

Test(reader, slightly_unordered_stream_is_sorted)
{
	tg_buf b = { 0 };
	uint64_t t[] = { 10, 30, 20, 40, 35, 50 };
	for (int i = 0; i < 6; i++) {
		br_event ev = tg_io(t[i], DEV, (uint32_t)i % 2, TG_Q_R, (uint64_t)i, 512, 1);
		tg_append(&b, &ev, false);
	}
	cr_assert_eq(tg_write(&b, tu_path("unordered.bin")), 0);
	uint64_t times[6];
	const char *p[] = { tu_path("unordered.bin") };
	cr_assert_eq(read_all(p, 1, NULL, times, NULL, 6), 6);
	for (int i = 1; i < 6; i++)
		cr_expect_leq(times[i - 1], times[i]);
	tg_free(&b);
}

Test(reader, time_window_is_relative_to_trace_start)
{
	tg_buf b = { 0 };
	uint64_t base = 5000000000ull;
	for (int i = 0; i < 10; i++) {
		br_event ev = tg_io(base + (uint64_t)i * 1000000000ull, DEV, 0, TG_C_W,
				    (uint64_t)i, 512, 1);
		tg_append(&b, &ev, false);
	}
	cr_assert_eq(tg_write(&b, tu_path("window.bin")), 0);
	br_reader_opts o = { .has_from = true, .from_ns = 2000000000ull, .has_to = true,
			     .to_ns = 5000000000ull };
	uint64_t times[10];
	const char *p[] = { tu_path("window.bin") };
	cr_assert_eq(read_all(p, 1, &o, times, NULL, 10), 4);
	cr_expect_eq(times[0], base + 2000000000ull);
	cr_expect_eq(times[3], base + 5000000000ull);
	tg_free(&b);
}

Test(reader, multiple_inputs_merge)
{
	tg_buf a = { 0 }, b = { 0 };
	for (int i = 0; i < 4; i++) {
		br_event ea = tg_io((uint64_t)i * 2, BR_MKDEV(8, 0), 0, TG_Q_R, 1, 512, 1);
		br_event eb = tg_io((uint64_t)i * 2 + 1, BR_MKDEV(8, 16), 0, TG_Q_R, 1, 512, 1);
		tg_append(&a, &ea, false);
		tg_append(&b, &eb, false);
	}
	cr_assert_eq(tg_write(&a, tu_path("a.bin")), 0);
	cr_assert_eq(tg_write(&b, tu_path("b.bin")), 0);
	uint64_t times[8];
	const char *p[] = { tu_path("a.bin"), tu_path("b.bin") };
	cr_assert_eq(read_all(p, 2, NULL, times, NULL, 8), 8);
	for (int i = 0; i < 8; i++)
		cr_expect_eq(times[i], (uint64_t)i);
	tg_free(&a);
	tg_free(&b);
}

/* Bad input: one error naming the file and the byte offset, never a crash. */
typedef struct bad_case {
	const char *name;
	int code;
	int64_t offset;
} bad_case;

static void expect_error(const char *path, int code, int64_t offset)
{
	br_reader *r = NULL;
	br_error err;
	br_error_clear(&err);
	const char *p[] = { path };
	int rc = br_reader_open(&r, p, 1, NULL, &err);
	if (rc == 0) {
		br_event ev;
		while ((rc = br_reader_next(r, &ev, &err)) == 1)
			;
		br_reader_close(r);
	}
	cr_expect_eq(rc, code, "%s: got %d (%s)", path, rc, err.msg);
	cr_expect_str_eq(err.file, path);
	cr_expect_eq(err.offset, offset, "%s: offset %lld", path, (long long)err.offset);
	char msg[1400];
	br_error_format(&err, msg, sizeof msg);
	cr_expect(strstr(msg, path) != NULL, "message names the file: %s", msg);
}

Test(reader, bad_input)
{
	tg_buf good = { 0 };
	for (int i = 0; i < 3; i++) {
		br_event ev = tg_io((uint64_t)i, DEV, 0, TG_Q_R, 1, 512, 1);
		tg_append(&good, &ev, false);
	}
	/* empty */
	tg_buf none = { 0 };
	tg_write(&none, tu_path("empty"));
	expect_error(tu_path("empty"), BR_EFORMAT, 0);
	/* truncated: two records and half of a third */
	tg_buf t = good;
	t.len = 2 * BR_RECORD_SIZE + 20;
	tg_write(&t, tu_path("truncated"));
	expect_error(tu_path("truncated"), BR_ETRUNC, 2 * BR_RECORD_SIZE);
	/* wrong magic in the second record */
	tg_buf m = { 0 };
	tg_append(&m, &(br_event){ .time = 1, .action = TG_Q_R }, false);
	tg_append(&m, &(br_event){ .time = 2, .action = TG_Q_R }, false);
	m.data[BR_RECORD_SIZE + 3] ^= 0xff; /* the magic's top byte */
	tg_write(&m, tu_path("magic"));
	expect_error(tu_path("magic"), BR_EFORMAT, BR_RECORD_SIZE);
	/* absurd pdu length */
	tg_buf a = { 0 };
	tg_append(&a, &(br_event){ .time = 1, .action = TG_Q_R }, false);
	uint16_t huge = 60000;
	memcpy(a.data + 46, &huge, 2);
	tg_write(&a, tu_path("pdu"));
	expect_error(tu_path("pdu"), BR_EFORMAT, 0);
	/* pdu longer than the rest of the file */
	uint16_t some = 100;
	memcpy(a.data + 46, &some, 2);
	tg_write(&a, tu_path("pdu-cut"));
	expect_error(tu_path("pdu-cut"), BR_ETRUNC, 0);
	/* version 6 */
	tg_buf v = { 0 };
	tg_append(&v, &(br_event){ .time = 1, .action = TG_Q_R }, false);
	v.data[0] = 6;
	tg_write(&v, tu_path("v6"));
	expect_error(tu_path("v6"), BR_EUNSUP, 0);
	/* not a trace at all */
	const char text[] = "hello, this is not a block trace\n";
	tu_write_file(tu_path("text"), text, sizeof text - 1);
	expect_error(tu_path("text"), BR_EFORMAT, 0);
	/* byte order flips in the middle */
	tg_buf flip = { 0 };
	tg_append(&flip, &(br_event){ .time = 1, .action = TG_Q_R }, false);
	tg_append(&flip, &(br_event){ .time = 2, .action = TG_Q_R }, true);
	tg_write(&flip, tu_path("flip"));
	expect_error(tu_path("flip"), BR_EFORMAT, BR_RECORD_SIZE);
	tg_free(&good);
	tg_free(&m);
	tg_free(&a);
	tg_free(&v);
	tg_free(&flip);
}

Test(reader, missing_file_and_directory)
{
	br_reader *r;
	br_error err;
	const char *missing[] = { tu_path("no-such-trace") };
	cr_expect_eq(br_reader_open(&r, missing, 1, NULL, &err), BR_ESYS);
	cr_expect(strstr(err.file, "no-such-trace"));
	const char *d[] = { tu_dir };
	cr_expect_lt(br_reader_open(&r, d, 1, NULL, &err), 0);
	const char *twice[] = { "-", "-" };
	cr_expect_eq(br_reader_open(&r, twice, 2, NULL, &err), BR_EINVAL);
}

Test(reader, real_trace_with_cpu_mismatch)
{
	const char *path = tu_realtrace("takeoverjp_blktrace_viewer/sample.blktrace.0");
	if (!path)
		cr_skip_test("../shared/realtraces is absent");
	br_reader *r;
	br_error err;
	const char *p[] = { path };
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	br_event ev;
	size_t n = 0, notify = 0, remaps = 0, named = 0;
	uint64_t last = 0;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		n++;
		cr_expect_eq(ev.cpu, 1);
		cr_expect_geq(ev.time, last);
		last = ev.time;
		if (br_event_is_notify(&ev)) {
			notify++;
			continue;
		}
		remaps += br_event_code(&ev) == __BLK_TA_REMAP;
		if (ev.pid == 0) {
			cr_assert(ev.comm, "pid 0 is named by a notify record");
			cr_expect_str_eq(ev.comm, "swapper/1");
			named++;
		}
		if (ev.pid == 21279)
			cr_expect_null(ev.comm, "pid 21279 has no notify record");
	}
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_expect_eq(n, 6743);
	cr_expect_eq(notify, 2);
	cr_expect_eq(remaps, 963);
	cr_expect_eq(named, 959);
	br_reader_close(r);
}

Test(reader, bundled_sample)
{
	const char *p[] = { tu_sample("ext4-loop") };
	uint64_t *times = malloc(7000 * sizeof *times);
	cr_assert_eq(read_all(p, 1, NULL, times, NULL, 7000), 6125);
	for (int i = 1; i < 6125; i++)
		cr_assert_leq(times[i - 1], times[i]);
	free(times);
}

#include "common/record_v8.h"

/* Version-8 records (blk_io_trace2) read from a plain stream and from a
 * plain gzip of it, beside version 7. */
Test(reader, version_8_records_in_stream_and_gzip)
{
	tg_buf b = { 0 };
	for (int i = 0; i < 20; i++) {
		br_event ev = tg_io(1000 + (uint64_t)i, DEV, 0, 0, (uint64_t)i * 8, 4096, 9);
		uint64_t action = (uint64_t)__BLK_TA_ISSUE |
				  ((uint64_t)(i % 2 ? BLK_TC_WRITE : BLK_TC_READ) << BLK_TC_SHIFT);
		uint8_t raw[BR_RECORD_V8_SIZE];
		br_record_v8_encode(&ev, action, raw);
		size_t old = b.len;
		tg_append(&b, &ev, false); /* grow the buffer, then overwrite with v8 */
		b.len = old;
		if (b.cap < old + sizeof raw) {
			b.cap = old + sizeof raw + 256;
			b.data = realloc(b.data, b.cap);
		}
		memcpy(b.data + old, raw, sizeof raw);
		b.len = old + sizeof raw;
	}
	cr_assert_eq(tg_write(&b, tu_path("v8.bin")), 0);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "gzip -c '%s' > '%s'", tu_path("v8.bin"),
			     tu_path("v8.bin.gz")), 0);
	const char *files[] = { tu_path("v8.bin"), tu_path("v8.bin.gz") };
	for (int f = 0; f < 2; f++) {
		br_reader *r;
		br_error err;
		const char *p[] = { files[f] };
		cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
		br_event ev;
		int n = 0, writes = 0;
		while (br_reader_next(r, &ev, &err) == 1) {
			cr_expect_eq(ev.time, 1000 + (uint64_t)n);
			cr_expect_eq(ev.sector, (uint64_t)n * 8);
			cr_expect_eq(br_event_code(&ev), __BLK_TA_ISSUE);
			writes += br_event_is_write(&ev);
			n++;
		}
		cr_expect_eq(n, 20, "%s", files[f]);
		cr_expect_eq(writes, 10);
		br_reader_close(r);
	}
	tg_free(&b);
}

/* Every file of the set empty: the same error as one empty file, on the
 * set's name, at byte 0. */
Test(reader, all_empty_cpu_set_is_empty_input)
{
	tg_buf empty = { 0 };
	cr_assert_eq(tg_write(&empty, tu_path("idle.blktrace.0")), 0);
	cr_assert_eq(tg_write(&empty, tu_path("idle.blktrace.1")), 0);
	expect_error(tu_path("idle"), BR_EFORMAT, 0);
}

/* opts.devices: the trace starts at the kept device's first event, so the
 * window counts from there; notes of other devices before it are dropped,
 * names kept; several streams are filtered alike; more devices than the
 * reader holds is an error. */
Test(reader, device_filter_moves_the_start_and_the_window)
{
	const uint32_t other = BR_MKDEV(7, 4);
	tg_buf b0 = { 0 }, b1 = { 0 };
	br_event msg = { .time = 10, .action = BLK_TN_MESSAGE, .device = other,
			 .pdu = (const uint8_t *)"other", .pdu_len = 5 };
	tg_append(&b0, &msg, false);
	br_event name = tg_process(10, 0, 1, "dd");
	name.device = other;
	tg_append(&b0, &name, false);
	for (int i = 0; i < 10; i++) { /* other at 100..1000, DEV at 5000.. on CPU 1 */
		br_event ev = tg_io(100 + (uint64_t)i * 100, other, 0, TG_Q_W, (uint64_t)i, 512, 1);
		tg_append(&b0, &ev, false);
		ev = tg_io(5000 + (uint64_t)i * 1000, DEV, 1, TG_Q_W, 100 + (uint64_t)i, 512, 1);
		tg_append(&b1, &ev, false);
	}
	cr_assert_eq(tg_write(&b0, tu_path("dev.blktrace.0")), 0);
	cr_assert_eq(tg_write(&b1, tu_path("dev.blktrace.1")), 0);
	const char *p[] = { tu_path("dev") };
	br_reader_opts o = { .ndevices = 1, .devices = { DEV } };
	br_reader *r;
	br_error err;
	cr_assert_eq(br_reader_open(&r, p, 1, &o, &err), 0, "%s", err.msg);
	cr_expect_eq(br_reader_start_time(r), 5000);
	br_event ev;
	cr_assert_eq(br_reader_next(r, &ev, &err), 1);
	cr_expect(br_event_is_notify(&ev) && br_event_code(&ev) == __BLK_TN_PROCESS,
		  "another device's name is kept, its message is not");
	for (int i = 0; i < 10; i++) {
		cr_assert_eq(br_reader_next(r, &ev, &err), 1);
		cr_expect_eq(ev.device, DEV);
		cr_expect_eq(ev.time, 5000 + (uint64_t)i * 1000);
		cr_expect_str_eq(ev.comm ? ev.comm : "", "dd");
	}
	cr_expect_eq(br_reader_next(r, &ev, &err), 0);
	cr_expect_eq(br_reader_device_events(r, 0), 10);
	br_reader_close(r);
	/* from 2 us after DEV's first event: 7000 on (the whole trace's start
	 * would put it at 2100) */
	uint64_t times[16];
	o.has_from = true;
	o.from_ns = 2000;
	cr_assert_eq(read_all(p, 1, &o, times, NULL, 16), 1 + 8);
	cr_expect_eq(times[1], 7000);
	/* both devices: all 20 IOs and both notes */
	br_reader_opts both = { .ndevices = 2, .devices = { DEV, other } };
	cr_expect_eq(read_all(p, 1, &both, times, NULL, 16), 22);
	br_reader_opts too_many = { .ndevices = BR_READER_MAX_DEVICES + 1 };
	cr_expect_eq(br_reader_open(&r, p, 1, &too_many, &err), BR_EINVAL);
	cr_expect(strstr(err.msg, "at most"), "%s", err.msg);
	tg_free(&b0);
	tg_free(&b1);
}
