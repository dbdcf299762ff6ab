/* test_raw_window.c — a blk_io_trace stream's reorder window: runs handed
 * out in place (next_batch, of any length, across the ring's end) give the
 * order of the one-at-a-time window (a record goes out once 1023 records
 * after it were read; a late one sorts back, never before a record already
 * out), payloads stay with their records, and an error comes after the
 * records one-at-a-time reading gave before it; the same through the
 * reader and the event pipe. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/event_pipe.h"
#include "blkreel/reader.h"
#include "common/input.h"
#include "common/source.h"
#include "testutil.h"
#include "tracegen.h"

#define WINDOW 1024
#define NREC 9000
#define DEV BR_MKDEV(8, 16)
#define MSG (BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE)

/* Record i (arrival order) carries i in its sector, and messages "m<i>". */
typedef struct rec {
	uint64_t time;
	uint32_t device, sequence;
	bool msg;
} rec;

static rec recs[NREC];
static char texts[NREC][24];
static size_t expect[NREC]; /* arrival index of the k-th record out */

static bool before(const rec *a, const rec *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->device != b->device)
		return a->device < b->device;
	return a->sequence < b->sequence;
}

/* The one-at-a-time window: fill to WINDOW, insertion-sort the newest from
 * the tail, hand out the first. */
static size_t model(size_t nrec, size_t *out)
{
	size_t *win = malloc(nrec * sizeof *win), head = 0, count = 0, next = 0, k = 0;
	for (;;) {
		while (count < WINDOW && next < nrec) {
			win[head + count] = next++;
			count++;
			for (size_t i = head + count - 1; i > head; i--) {
				if (!before(&recs[win[i]], &recs[win[i - 1]]))
					break;
				size_t t = win[i];
				win[i] = win[i - 1];
				win[i - 1] = t;
			}
		}
		if (!count)
			break;
		out[k++] = win[head++];
		count--;
	}
	free(win);
	return k;
}

/* Mostly in order; every 97th record late by up to 3000 places (beyond the
 * window too), every 13th tied with the one before it on time, every 7th
 * a message with a payload. */
static void make_trace(const char *path, size_t nrec, bool cut)
{
	uint32_t seed = 12345;
	tg_buf b = { 0 };
	for (size_t i = 0; i < nrec; i++) {
		seed = seed * 1103515245u + 12345u;
		rec *r = &recs[i];
		r->time = 1000 + 10 * (uint64_t)i;
		if (i % 97 == 50)
			r->time -= 10 * (uint64_t)((seed >> 8) % 3000 < i ? (seed >> 8) % 3000 : i);
		if (i % 13 == 5 && i)
			r->time = recs[i - 1].time;
		r->device = i % 13 == 5 ? DEV - (seed >> 20) % 2 : DEV;
		r->sequence = (uint32_t)(i % 11);
		r->msg = i % 7 == 3;
		br_event ev;
		if (r->msg) {
			snprintf(texts[i], sizeof texts[i], "m%zu", i);
			ev = (br_event){ .time = r->time, .sector = i, .action = MSG, .device = r->device,
					 .sequence = r->sequence, .pdu_len = (uint16_t)strlen(texts[i]),
					 .pdu = (const uint8_t *)texts[i] };
		} else {
			ev = tg_io(r->time, r->device, 0, TG_Q_R, i, 4096, 1);
			ev.sequence = r->sequence;
		}
		tg_append(&b, &ev, false);
	}
	if (cut) { /* and 20 bytes of one more record */
		br_event ev = tg_io(recs[nrec - 1].time + 10, DEV, 0, TG_Q_R, nrec, 4096, 1);
		tg_append(&b, &ev, false);
		b.len -= BR_RECORD_SIZE - 20;
	}
	cr_assert_eq(tg_write(&b, path), 0);
	tg_free(&b);
}

static void check_event(const br_event *ev, size_t k)
{
	size_t i = expect[k];
	cr_assert_eq(ev->sector, i, "event %zu: record %llu, expected %zu", k,
		     (unsigned long long)ev->sector, i);
	cr_assert_eq(ev->time, recs[i].time);
	if (recs[i].msg) {
		cr_assert_eq(ev->pdu_len, strlen(texts[i]));
		cr_assert(ev->pdu && !memcmp(ev->pdu, texts[i], ev->pdu_len), "record %zu's payload", i);
	} else {
		cr_assert_eq(ev->pdu_len, 0);
	}
}

static br_source *open_source(const char *path)
{
	br_input in;
	br_error err;
	cr_assert_eq(br_input_open(&in, path, &err), 0, "%s", err.msg);
	br_source *src;
	cr_assert_eq(br_raw_source_open(&src, &in, &err), 0, "%s", err.msg);
	return src;
}

TestSuite(raw_window, .init = tu_dir_setup, .fini = tu_dir_teardown);

Test(raw_window, runs_of_any_length_keep_the_one_at_a_time_order)
{
	make_trace(tu_path("t.bin"), NREC, false);
	cr_assert_eq(model(NREC, expect), NREC);
	size_t nlate = 0;
	for (size_t k = 1; k < NREC; k++)
		nlate += recs[expect[k]].time < recs[expect[k - 1]].time;
	cr_assert_gt(nlate, 10, "the trace has records later than the window (%zu)", nlate);
	const size_t maxes[] = { 1, 7, 512, 1000, 5000 };
	for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
		br_source *src = open_source(tu_path("t.bin"));
		br_error err;
		size_t k = 0;
		const br_event *evs;
		int n;
		/* runs and single events mixed: 500 of each in turn */
		while (k < NREC) {
			if (k / 500 % 2) {
				br_event one;
				cr_assert_eq(src->ops->next(src, &one, &err), 1, "%s", err.msg);
				check_event(&one, k++);
				continue;
			}
			n = src->ops->next_batch(src, &evs, maxes[m], &err);
			cr_assert_gt(n, 0, "max %zu, at %zu: %d %s", maxes[m], k, n, err.msg);
			cr_assert_leq((size_t)n, maxes[m]);
			for (int i = 0; i < n; i++)
				check_event(&evs[i], k++);
		}
		cr_assert_eq(src->ops->next_batch(src, &evs, maxes[m], &err), 0, "%s", err.msg);
		cr_assert_eq(k, NREC, "max %zu: %zu events", maxes[m], k);
		src->ops->close(src);
	}
}

Test(raw_window, reader_and_event_pipe_give_the_same_order)
{
	make_trace(tu_path("t.bin"), NREC, false);
	model(NREC, expect);
	const char *p[] = { tu_path("t.bin") };
	br_reader *r;
	br_error err;
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	br_event ev;
	size_t k = 0;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1)
		check_event(&ev, k++);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(k, NREC);
	br_reader_close(r);

	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	br_event_pipe *pipe;
	cr_assert_eq(br_event_pipe_start(&pipe, r, &err), 0);
	const br_event *evs;
	int n;
	k = 0;
	while ((n = br_event_pipe_next(pipe, &evs, &err)) > 0)
		for (int i = 0; i < n; i++)
			check_event(&evs[i], k++);
	cr_assert_eq(n, 0, "%s", err.msg);
	cr_assert_eq(k, NREC);
	br_event_pipe_stop(pipe);
	br_reader_close(r);
}

Test(raw_window, a_cut_record_comes_after_what_one_at_a_time_gave)
{
	const size_t nrec = 3000;
	make_trace(tu_path("cut.bin"), nrec, true);
	model(nrec, expect);
	br_source *src = open_source(tu_path("cut.bin"));
	br_error err;
	const br_event *evs;
	int n;
	size_t k = 0;
	while ((n = src->ops->next_batch(src, &evs, 700, &err)) > 0)
		for (int i = 0; i < n; i++)
			check_event(&evs[i], k++);
	/* one at a time, the cut record is read when 3000 - 1023 are out */
	cr_assert_eq(k, nrec - (WINDOW - 1));
	cr_assert_eq(n, BR_ETRUNC, "%d: %s", n, err.msg);
	int64_t end = 0;
	for (size_t i = 0; i < nrec; i++)
		end += BR_RECORD_SIZE + (recs[i].msg ? (int64_t)strlen(texts[i]) : 0);
	cr_assert_eq(err.offset, end);
	cr_assert(strstr(err.file, "cut.bin"));
	src->ops->close(src);
}
