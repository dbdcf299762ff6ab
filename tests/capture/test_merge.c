/* test_merge.c — the reorder buffer: per-stream FIFOs merged by time, held
 * back while a stream is empty unless older than the horizon, pdus carried;
 * and the sink's bound on how many it holds. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* capture/'s modules come from its internal archive, through its headers */
#include "../../capture/spool/merge.h"
#include "../../capture/spool/sink.h"

static void push(cap_merge *m, unsigned s, uint64_t t, const char *pdu)
{
	br_event ev = { 0 };
	ev.time = t;
	ev.cpu = s;
	if (pdu) {
		ev.pdu = (const uint8_t *)pdu;
		ev.pdu_len = (uint16_t)strlen(pdu);
	}
	cr_assert_eq(cap_merge_push(m, s, &ev), 0);
}

Test(merge, merges_streams_in_time_order_and_waits_for_empty_streams)
{
	cap_merge *m = cap_merge_new(3);
	push(m, 0, 10, NULL);
	push(m, 0, 30, NULL);
	push(m, 1, 20, NULL);
	const br_event *ev;
	/* stream 2 is empty: nothing may go before the horizon */
	cr_expect_not(cap_merge_pop(m, 5, false, &ev));
	cr_assert(cap_merge_pop(m, 15, false, &ev));
	cr_expect_eq(ev->time, 10);
	cr_expect_not(cap_merge_pop(m, 15, false, &ev));
	push(m, 2, 25, NULL);
	cr_assert(cap_merge_pop(m, 0, false, &ev)); /* every stream has one: 20 is safe */
	cr_expect_eq(ev->time, 20);
	cr_expect_not(cap_merge_pop(m, 0, false, &ev)); /* stream 1 is empty now */
	uint64_t want[] = { 25, 30 };
	for (int i = 0; i < 2; i++) {
		cr_assert(cap_merge_pop(m, 0, true, &ev));
		cr_expect_eq(ev->time, want[i]);
	}
	cr_expect_not(cap_merge_pop(m, 0, true, &ev));
	cr_expect_eq(cap_merge_queued(m), 0);
	cr_expect_eq(cap_merge_peak(m), 3);
	cap_merge_free(m);
}

Test(merge, carries_pdus_short_and_long_across_growth)
{
	cap_merge *m = cap_merge_new(1);
	char longpdu[200];
	memset(longpdu, 'x', sizeof longpdu - 1);
	longpdu[sizeof longpdu - 1] = 0;
	for (uint64_t t = 0; t < 5000; t++) /* past the first growth of the FIFO */
		push(m, 0, t, t % 2 ? "abcdefgh" : longpdu);
	const br_event *ev;
	for (uint64_t t = 0; t < 5000; t++) {
		cr_assert(cap_merge_pop(m, 0, true, &ev));
		cr_assert_eq(ev->time, t);
		const char *want = t % 2 ? "abcdefgh" : longpdu;
		cr_assert_eq(ev->pdu_len, strlen(want));
		cr_assert(memcmp(ev->pdu, want, ev->pdu_len) == 0, "pdu of event %llu", (unsigned long long)t);
	}
	cap_merge_free(m);
}

Test(merge, rejects_unknown_stream)
{
	cap_merge *m = cap_merge_new(2);
	br_event ev = { 0 };
	cr_expect_eq(cap_merge_push(m, 2, &ev), BR_EINVAL);
	cap_merge_free(m);
}

/* The sink's reorder buffer is bounded in events, not only in time: past
 * max_queued the earliest go out (and are counted), so a stream that stays
 * quiet while the others pour in cannot make the capture grow without end. */
Test(merge, the_sink_writes_the_earliest_early_rather_than_queue_past_its_bound)
{
	cap_config cfg = { .ndevices = 0, .ncpu = 2, .act_mask = 0xffff };
	char path[] = "/tmp/blkreel-test-sink-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	br_error err;
	cap_spool *sp;
	cr_assert_eq(cap_spool_open(&sp, path, false, &err), 0, "%s", err.msg);
	cap_sink_opts so = { .cfg = &cfg, .spool = sp, .window_ns = CAP_REORDER_WINDOW_NS, .max_queued = 4 };
	cap_sink *sink;
	cr_assert_eq(cap_sink_new(&sink, &so, &err), 0);
	for (uint64_t t = 1; t <= 10; t++) { /* cpu 1 stays quiet: nothing is safe to write */
		br_event ev = { .time = t, .cpu = 0, .action = BLK_TC_ACT(BLK_TC_READ) | __BLK_TA_QUEUE, .sector = t };
		cr_assert_eq(cap_sink_push(sink, &ev, NULL, &err), 0);
	}
	cap_sink_stats st;
	cap_sink_stats_get(sink, &st);
	cr_expect_eq(st.early, 6, "%llu written early, want 6 (10 pushed, 4 may wait)", (unsigned long long)st.early);
	cr_expect_eq(st.written, 6);
	cr_expect_eq(st.last_time, 6, "the earliest must go first");
	br_event late = { .time = 3, .cpu = 1, .action = BLK_TC_ACT(BLK_TC_READ) | __BLK_TA_QUEUE, .sector = 99 };
	cr_assert_eq(cap_sink_push(sink, &late, NULL, &err), 0);
	cr_assert_eq(cap_sink_drain(sink, true, &err), 0);
	cap_sink_stats_get(sink, &st);
	cr_expect_eq(st.written, 11, "every event is written");
	cr_expect_eq(st.late, 1, "the one older than what went early is counted late");
	cap_sink_free(sink);
	cr_assert_eq(cap_spool_close(sp, &err), 0);
	unlink(path);
}
