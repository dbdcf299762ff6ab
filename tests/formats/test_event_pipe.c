/* The event pipe: the same events as the reader, in the same order, with
 * their payloads intact across batches; the reader's errors come through
 * with file and offset after the events before them; stopping at any point
 * neither hangs nor leaks (run under ASan). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/event_pipe.h"
#include "blkreel/reader.h"
#include "blkreel/writer.h"
#include "testutil.h"
#include "tracegen.h"

#define DEV BR_MKDEV(8, 16)

static char path[1024];

static void setup(void)
{
	tu_dir_setup();
	snprintf(path, sizeof path, "%s/t.blktrace.0", tu_dir);
}

/* n events; every third one a message whose payload length and bytes depend
 * on its index (some near BR_PDU_MAX, so batches close early on payload
 * room), the rest IOs. Returns the file size. */
static size_t write_trace(int n)
{
	tg_buf b = { 0 };
	static uint8_t pdu[BR_PDU_MAX];
	for (int i = 0; i < n; i++) {
		br_event ev;
		if (i % 3 == 1) {
			memset(&ev, 0, sizeof ev);
			ev.time = 1000 + (uint64_t)i * 10;
			ev.action = BLK_TN_MESSAGE;
			ev.pid = 7;
			ev.device = DEV;
			ev.pdu_len = (uint16_t)(i % 97 == 1 ? BR_PDU_MAX - 8 : 1 + i % 250);
			for (unsigned j = 0; j < ev.pdu_len; j++)
				pdu[j] = (uint8_t)(i * 31 + j);
			ev.pdu = pdu;
		} else {
			ev = tg_io(1000 + (uint64_t)i * 10, DEV, 0, i % 2 ? TG_C_W : TG_Q_R,
				   (uint64_t)i * 8, 4096, 7);
		}
		ev.sequence = (uint32_t)i;
		tg_append(&b, &ev, false);
	}
	cr_assert_eq(tg_write(&b, path), 0);
	size_t len = b.len;
	tg_free(&b);
	return len;
}

static const br_reader_opts *ropts; /* NULL: the defaults */

static br_reader *open_trace(void)
{
	br_reader *r;
	br_error err;
	const char *p[] = { path };
	cr_assert_eq(br_reader_open(&r, p, 1, ropts, &err), 0, "open: %s", err.msg);
	return r;
}

static void expect_same(const br_event *a, const br_event *b, uint64_t k)
{
	cr_assert_eq(a->time, b->time, "event %llu", (unsigned long long)k);
	cr_assert_eq(a->sequence, b->sequence, "event %llu", (unsigned long long)k);
	cr_assert_eq(a->action, b->action);
	cr_assert_eq(a->sector, b->sector);
	cr_assert_eq(a->bytes, b->bytes);
	cr_assert_eq(a->pid, b->pid);
	cr_assert_eq(!a->comm, !b->comm, "comm of event %llu", (unsigned long long)k);
	if (a->comm)
		cr_assert_str_eq(a->comm, b->comm, "event %llu", (unsigned long long)k);
	cr_assert_eq(a->pdu_len, b->pdu_len, "event %llu", (unsigned long long)k);
	if (a->pdu_len)
		cr_assert(!memcmp(a->pdu, b->pdu, a->pdu_len), "payload of event %llu",
			  (unsigned long long)k);
}

/* Walk the pipe beside a second reader of the same file; returns the
 * pipe's final code and fills *count and err. */
static int compare_with_reader(uint64_t *count, br_error *err)
{
	br_reader *direct = open_trace(), *piped = open_trace();
	br_event_pipe *p;
	cr_assert_eq(br_event_pipe_start(&p, piped, err), 0);
	const br_event *evs;
	br_event ev;
	br_error derr;
	int n, drc = 1;
	*count = 0;
	while ((n = br_event_pipe_next(p, &evs, err)) > 0) {
		cr_assert_leq(n, 1024);
		for (int i = 0; i < n; i++) {
			drc = br_reader_next(direct, &ev, &derr);
			cr_assert_eq(drc, 1, "the pipe has more events than the reader");
			expect_same(&evs[i], &ev, *count);
			(*count)++;
		}
	}
	drc = br_reader_next(direct, &ev, &derr);
	cr_assert_eq(n, drc, "pipe ended with %d, reader with %d", n, drc);
	if (n < 0) {
		cr_expect_str_eq(err->file, derr.file);
		cr_expect_eq(err->offset, derr.offset);
		cr_expect_str_eq(err->msg, derr.msg);
		/* and it stays ended */
		br_error again;
		cr_expect_eq(br_event_pipe_next(p, &evs, &again), n);
		cr_expect_eq(again.offset, derr.offset);
	} else {
		cr_expect_eq(br_event_pipe_next(p, &evs, err), 0);
	}
	br_event_pipe_stop(p);
	br_reader_close(piped);
	br_reader_close(direct);
	return n;
}

TestSuite(event_pipe, .init = setup, .fini = tu_dir_teardown, .timeout = 60);

Test(event_pipe, same_events_and_payloads_in_order)
{
	write_trace(50000);
	uint64_t count;
	br_error err;
	cr_assert_eq(compare_with_reader(&count, &err), 0, "%s", err.msg);
	cr_expect_eq(count, 50000);
}

/* Write the raw stream at raw as our compressed file at gz. */
static void convert_to_compressed(const char *raw, const char *gz)
{
	br_reader *r;
	br_writer *w;
	br_error err;
	const char *p[] = { raw };
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(br_writer_open(&w, BR_OUT_COMPRESSED, gz, NULL, &err), 0, "%s", err.msg);
	br_event ev;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1)
		cr_assert_eq(br_writer_write(w, &ev, &err), 0, "%s", err.msg);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(br_writer_close(w, &err), 0, "%s", err.msg);
	br_reader_close(r);
}

/* A compressed file (its source hands out a member's events at once) with
 * process names that turn up while IOs of several pids interleave. */
static void write_compressed_trace(int n)
{
	char raw[1100];
	snprintf(raw, sizeof raw, "%s/raw.blktrace.0", tu_dir);
	tg_buf b = { 0 };
	static const char *names[] = { "fio", "kworker/1:2", "jbd2/loop0-8", "dbench" };
	for (int i = 0; i < n; i++) {
		uint64_t t = 1000 + (uint64_t)i * 10;
		uint32_t pid = 100 + (uint32_t)(i / 7 % 5);
		if (i % 5000 == 17 && i / 5000 < 4) {
			br_event pe = tg_process(t, 0, 100 + (uint32_t)(i / 5000), names[i / 5000]);
			tg_append(&b, &pe, false);
		}
		br_event ev = tg_io(t, DEV, 0, i % 3 == 2 ? TG_C_W : i % 3 ? TG_D_R : TG_Q_R,
				    (uint64_t)i * 8, 4096, pid);
		ev.sequence = (uint32_t)i;
		tg_append(&b, &ev, false);
	}
	cr_assert_eq(tg_write(&b, raw), 0);
	tg_free(&b);
	snprintf(path, sizeof path, "%s/t.blktrace.gz", tu_dir);
	convert_to_compressed(raw, path);
}

Test(event_pipe, compressed_file_with_names_and_a_window)
{
	write_compressed_trace(120000);
	uint64_t count;
	br_error err;
	cr_assert_eq(compare_with_reader(&count, &err), 0, "%s", err.msg);
	cr_expect_gt(count, 120000);
	/* a window that starts and ends inside members */
	br_reader_opts o = { .has_from = true, .from_ns = 333335, .has_to = true, .to_ns = 987651 };
	ropts = &o;
	cr_assert_eq(compare_with_reader(&count, &err), 0, "%s", err.msg);
	cr_expect_gt(count, 60000);
	cr_expect_lt(count, 70000);
	ropts = NULL;
}

/* The compressed file's events are handed out in place, from the member
 * they were inflated into, until a batch of the reader spans two members
 * (reader.c): against the raw stream the file was written from (read
 * through copies), every field, payload and name must be the same, read
 * directly and through the pipe, with payloads in every third event and
 * names that turn up late. */

Test(event_pipe, compressed_in_place_matches_the_raw_stream)
{
	tg_buf b = { 0 };
	static uint8_t pdu[64];
	for (int i = 0; i < 40000; i++) {
		uint64_t t = 1000 + (uint64_t)i * 10;
		br_event ev;
		if (i % 3 == 1) {
			memset(&ev, 0, sizeof ev);
			ev.time = t;
			ev.action = BLK_TN_MESSAGE;
			ev.pid = 7;
			ev.device = DEV;
			ev.pdu_len = (uint16_t)(1 + i % 60);
			for (unsigned j = 0; j < ev.pdu_len; j++)
				pdu[j] = (uint8_t)(i * 31 + j);
			ev.pdu = pdu;
		} else {
			ev = tg_io(t, DEV, 0, i % 3 ? TG_C_W : TG_Q_R, (uint64_t)i * 8, 4096,
				   100 + (uint32_t)(i / 11 % 3));
		}
		ev.sequence = (uint32_t)i;
		tg_append(&b, &ev, false);
		if (i % 9000 == 5) {
			static const char *names[] = { "fio", "kworker/1:2", "dbench", "jbd2", "x" };
			br_event pe = tg_process(t, 0, 100 + (uint32_t)(i / 9000 % 3), names[i / 9000]);
			tg_append(&b, &pe, false);
		}
	}
	char raw[1100], gz[1100];
	snprintf(raw, sizeof raw, "%s/raw.blktrace.0", tu_dir);
	snprintf(gz, sizeof gz, "%s/raw.blktrace.gz", tu_dir);
	cr_assert_eq(tg_write(&b, raw), 0);
	tg_free(&b);
	convert_to_compressed(raw, gz);
	for (int piped = 0; piped < 2; piped++) {
		br_reader *want, *got;
		br_error err, werr;
		const char *pr[] = { raw }, *pg[] = { gz };
		cr_assert_eq(br_reader_open(&want, pr, 1, NULL, &err), 0, "%s", err.msg);
		cr_assert_eq(br_reader_open(&got, pg, 1, NULL, &err), 0, "%s", err.msg);
		br_event_pipe *p = NULL;
		if (piped)
			cr_assert_eq(br_event_pipe_start(&p, got, &err), 0);
		uint64_t k = 0;
		br_event w, g;
		const br_event *evs = NULL;
		int n = 0, i = 0;
		for (;;) {
			int grc;
			if (piped) {
				if (i == n) {
					n = br_event_pipe_next(p, &evs, &err);
					i = 0;
				}
				grc = n > 0;
				if (grc)
					g = evs[i++];
			} else {
				grc = br_reader_next(got, &g, &err);
			}
			int wrc = br_reader_next(want, &w, &werr);
			cr_assert_eq(grc, wrc, "event %llu: %d against %d", (unsigned long long)k, grc, wrc);
			if (wrc != 1)
				break;
			expect_same(&g, &w, k);
			k++;
		}
		cr_expect_eq(k, 40000 + 5, "every event and name record");
		br_event_pipe_stop(p);
		br_reader_close(got);
		br_reader_close(want);
	}
}

Test(event_pipe, one_event_then_the_end)
{
	write_trace(1);
	br_reader *r = open_trace();
	br_event_pipe *p;
	br_error err;
	cr_assert_eq(br_event_pipe_start(&p, r, &err), 0);
	const br_event *evs;
	cr_expect_eq(br_event_pipe_next(p, &evs, &err), 1);
	cr_expect_eq(br_event_pipe_next(p, &evs, &err), 0);
	br_event_pipe_stop(p);
	br_reader_close(r);
}

Test(event_pipe, error_comes_after_the_events_before_it)
{
	size_t len = write_trace(30000);
	/* cut the last record short, far past the first batches */
	cr_assert_eq(truncate(path, (off_t)len - 20), 0);
	uint64_t count;
	br_error err;
	int rc = compare_with_reader(&count, &err);
	cr_expect_lt(rc, 0);
	/* as many as the reader hands out before it sees the cut (it reads
	 * ahead, so not all 29999): several batches' worth */
	cr_expect_gt(count, 4 * 1024, "%llu events before the error", (unsigned long long)count);
	cr_expect(strstr(err.file, "t.blktrace.0"), "file: %s", err.file);
	cr_expect_gt(err.offset, 0);
}

Test(event_pipe, stop_at_any_point)
{
	write_trace(200000);
	br_error err;
	const br_event *evs;
	/* before reading anything, while the reader runs ahead or is blocked
	 * on a full ring, and mid-way */
	for (int take = 0; take < 40; take += 13) {
		br_reader *r = open_trace();
		br_event_pipe *p;
		cr_assert_eq(br_event_pipe_start(&p, r, &err), 0);
		if (take == 13)
			usleep(20000); /* let the ring fill */
		for (int i = 0; i < take; i++)
			cr_assert_gt(br_event_pipe_next(p, &evs, &err), 0);
		br_event_pipe_stop(p);
		br_reader_close(r);
	}
	br_event_pipe_stop(NULL);
}

Test(event_pipe, bad_arguments)
{
	br_event_pipe *p = (br_event_pipe *)&p;
	br_error err;
	cr_expect_eq(br_event_pipe_start(&p, NULL, &err), BR_EINVAL);
	cr_expect_null(p);
}

/* Two consumers on two threads: each sees every event, in order, and the
 * ring is reused only once both have passed a batch. */
typedef struct second {
	br_event_pipe *p;
	uint64_t count, sum;
	int rc;
	int stop_after; /* batches; 0 = all */
} second;

static void *second_main(void *arg)
{
	second *s = arg;
	const br_event *evs;
	br_error err;
	int n, batches = 0;
	while ((n = br_event_pipe_next_for(s->p, 1, &evs, &err)) > 0) {
		for (int i = 0; i < n; i++) {
			s->sum += evs[i].time ^ evs[i].sequence;
			s->count++;
		}
		if (s->stop_after && ++batches == s->stop_after) {
			br_event_pipe_cancel(s->p);
			break;
		}
		if (batches % 7 == 3)
			usleep(500); /* fall behind now and then */
	}
	s->rc = n;
	return NULL;
}

Test(event_pipe, two_consumers_see_every_event)
{
	write_trace(200000);
	br_reader *r = open_trace(), *direct = open_trace();
	br_event_pipe *p;
	br_error err;
	cr_assert_eq(br_event_pipe_start_shared(&p, r, 2, &err), 0);
	second s = { .p = p };
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, second_main, &s), 0);
	const br_event *evs;
	br_event ev;
	uint64_t count = 0, sum = 0;
	int n;
	while ((n = br_event_pipe_next_for(p, 0, &evs, &err)) > 0)
		for (int i = 0; i < n; i++) {
			cr_assert_eq(br_reader_next(direct, &ev, &err), 1);
			expect_same(&evs[i], &ev, count);
			sum += ev.time ^ ev.sequence;
			count++;
		}
	cr_expect_eq(n, 0);
	pthread_join(th, NULL);
	cr_expect_eq(s.rc, 0);
	cr_expect_eq(count, 200000);
	cr_expect_eq(s.count, count);
	cr_expect_eq(s.sum, sum);
	cr_expect_eq(br_event_pipe_next_for(p, 2, &evs, &err), BR_EINVAL, "no third consumer");
	br_event_pipe_stop(p);
	br_reader_close(r);
	br_reader_close(direct);
	cr_expect_eq(br_event_pipe_start_shared(&p, direct, 0, &err), BR_EINVAL);
}

Test(event_pipe, a_consumer_that_cancels_releases_the_other)
{
	write_trace(200000);
	br_reader *r = open_trace();
	br_event_pipe *p;
	br_error err;
	cr_assert_eq(br_event_pipe_start_shared(&p, r, 2, &err), 0);
	second s = { .p = p, .stop_after = 3 };
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, second_main, &s), 0);
	const br_event *evs;
	uint64_t count = 0;
	int n;
	/* without the cancel this would wait for the second consumer forever
	 * once the ring is full (the suite's timeout says so) */
	while ((n = br_event_pipe_next_for(p, 0, &evs, &err)) > 0)
		count += (uint64_t)n;
	cr_expect_eq(n, 0);
	cr_expect_lt(count, 200000, "cancelled: not the whole trace");
	pthread_join(th, NULL);
	br_event_pipe_stop(p);
	br_reader_close(r);
}

/* A hook on the reader thread: it sees each batch whole, in order, before
 * the consumer gets it; a negative return ends the reading with its error
 * after that batch. */
typedef struct hook_log {
	uint64_t seen;            /* events the hook saw */
	uint64_t sum;             /* of time ^ sequence, in order */
	uint64_t fail_after;      /* fail once this many were seen (0: never) */
} hook_log;

static int hook_fn(void *arg, const br_event *evs, int n, br_error *err)
{
	hook_log *h = arg;
	for (int i = 0; i < n; i++)
		h->sum = h->sum * 31 + (evs[i].time ^ evs[i].sequence);
	__atomic_store_n(&h->seen, h->seen + (uint64_t)n, __ATOMIC_RELEASE);
	if (h->fail_after && h->seen >= h->fail_after)
		return br_error_set(err, BR_ENOMEM, 0, "hooked", 77, "the hook gave up");
	return 0;
}

Test(event_pipe, a_hook_sees_every_batch_before_the_consumer)
{
	write_trace(200000);
	br_reader *r = open_trace();
	br_event_pipe *p;
	br_error err;
	hook_log h = { 0 };
	br_event_pipe_hook hook = { hook_fn, &h };
	cr_assert_eq(br_event_pipe_start_hooked(&p, r, 1, &hook, &err), 0);
	const br_event *evs;
	uint64_t count = 0, sum = 0;
	int n;
	while ((n = br_event_pipe_next(p, &evs, &err)) > 0) {
		for (int i = 0; i < n; i++)
			sum = sum * 31 + (evs[i].time ^ evs[i].sequence);
		count += (uint64_t)n;
		/* the hook ran on this batch already (it may be further on) */
		cr_assert_geq(__atomic_load_n(&h.seen, __ATOMIC_ACQUIRE), count);
	}
	cr_expect_eq(n, 0);
	br_event_pipe_stop(p);
	cr_expect_eq(count, 200000);
	cr_expect_eq(h.seen, count);
	cr_expect_eq(h.sum, sum, "the hook saw the same events in the same order");
	br_reader_close(r);
}

Test(event_pipe, a_hook_that_fails_ends_the_reading_with_its_error)
{
	write_trace(200000);
	br_reader *r = open_trace();
	br_event_pipe *p;
	br_error err;
	hook_log h = { .fail_after = 50000 };
	br_event_pipe_hook hook = { hook_fn, &h };
	cr_assert_eq(br_event_pipe_start_hooked(&p, r, 1, &hook, &err), 0);
	const br_event *evs;
	uint64_t count = 0;
	int n;
	while ((n = br_event_pipe_next(p, &evs, &err)) > 0)
		count += (uint64_t)n;
	cr_expect_eq(n, BR_ENOMEM);
	cr_expect_str_eq(err.file, "hooked");
	cr_expect_eq(err.offset, 77);
	cr_expect_eq(count, h.seen, "the failing batch still went out, nothing after it");
	cr_expect_lt(count, 200000);
	cr_expect_eq(br_event_pipe_next(p, &evs, &err), BR_ENOMEM, "and it stays ended");
	br_event_pipe_stop(p);
	br_reader_close(r);
}

#define DEV2 BR_MKDEV(7, 4)

/* n IOs, every third on DEV2, the rest on DEV; process names on DEV only
 * (blkreel-capture's way: once, on the device of the pid's first IO). At
 * raw (a single stream), and at path compressed when gz. */
static void write_two_device_trace(int n, bool gz)
{
	char raw[1100];
	snprintf(raw, sizeof raw, "%s/two.blktrace.0", tu_dir);
	tg_buf b = { 0 };
	for (int i = 0; i < n; i++) {
		uint64_t t = 1000 + (uint64_t)i * 10;
		uint32_t pid = 100 + (uint32_t)(i / 7 % 5);
		if (i < 35 && i % 7 == 0) {
			br_event pe = tg_process(t, 0, pid, "worker");
			pe.device = DEV;
			tg_append(&b, &pe, false);
		}
		br_event ev = tg_io(t, i % 3 ? DEV : DEV2, 0, i % 2 ? TG_C_W : TG_Q_W, (uint64_t)i * 8,
				    4096, pid);
		ev.sequence = (uint32_t)i;
		tg_append(&b, &ev, false);
	}
	cr_assert_eq(tg_write(&b, raw), 0);
	tg_free(&b);
	snprintf(path, sizeof path, "%s/%s", tu_dir, gz ? "two.blktrace.gz" : "two.blktrace.0");
	if (gz)
		convert_to_compressed(raw, path);
}

/* The reader's device filter on the pipe's bulk path (one stream, events
 * copied out of the read-ahead batch) hands out what br_reader_next does:
 * DEV2's IOs, every name, each IO with its pid's name; and counts them. */
Test(event_pipe, device_filter_on_the_bulk_path)
{
	for (int gz = 0; gz < 2; gz++) {
		write_two_device_trace(60000, gz);
		br_reader_opts o = { .ndevices = 1, .devices = { DEV2 } };
		ropts = &o;
		uint64_t count;
		br_error err;
		cr_assert_eq(compare_with_reader(&count, &err), 0, "%s", err.msg);
		cr_expect_eq(count, 20000 + 5, "gz %d: DEV2's IOs and the 5 names", gz);
		br_reader *r = open_trace();
		br_event_pipe *p;
		cr_assert_eq(br_event_pipe_start(&p, r, &err), 0);
		const br_event *evs;
		int n;
		uint64_t ios = 0, names = 0, unnamed = 0;
		while ((n = br_event_pipe_next(p, &evs, &err)) > 0)
			for (int i = 0; i < n; i++) {
				if (br_event_is_notify(&evs[i])) {
					names++;
					continue;
				}
				cr_assert_eq(evs[i].device, DEV2, "event %llu", (unsigned long long)ios);
				cr_assert_eq(evs[i].sector % 24, 0, "every third IO");
				ios++;
				unnamed += !evs[i].comm;
			}
		cr_assert_eq(n, 0, "%s", err.msg);
		br_event_pipe_stop(p);
		cr_expect_eq(ios, 20000);
		cr_expect_eq(names, 5);
		cr_expect_eq(unnamed, 0);
		cr_expect_eq(br_reader_device_events(r, 0), 20000);
		cr_expect_eq(br_reader_device_events(r, 1), 0);
		br_reader_close(r);
		ropts = NULL;
	}
}
