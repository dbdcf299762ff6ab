/* test_flight_watch.c — the flight recorder's trigger rules on made-up
 * event streams: each fires when, and only when, its condition holds, at
 * the time it became true, and says what it saw. */
#include <criterion/criterion.h>
#include <string.h>

#include "flight/watch.h"

#define MS (1000ull * 1000)
#define DEV BR_MKDEV(8, 16)

static br_event io(uint64_t time, unsigned action, uint64_t sector)
{
	br_event e = { 0 };
	e.time = time;
	e.action = BLK_TC_ACT(BLK_TC_READ) | action;
	e.device = DEV;
	e.sector = sector;
	e.bytes = 4096;
	return e;
}

static watch *one_rule(const char *text)
{
	watch_rule r;
	cr_assert_eq(watch_rule_parse(text, &r), 0, "'%s' does not parse", text);
	watch *w = watch_new(&r, 1);
	cr_assert(w);
	return w;
}

Test(flight_watch, rules_parse_and_nonsense_does_not)
{
	watch_rule r;
	cr_expect_eq(watch_rule_parse("d2c>50ms", &r), 0);
	cr_expect_eq(r.kind, WATCH_D2C);
	cr_expect_eq(r.limit, 50 * MS);
	cr_expect_str_eq(r.text, "d2c>50ms");
	cr_expect_eq(watch_rule_parse("q2c>1s", &r), 0);
	cr_expect_eq(r.limit, 1000 * MS);
	cr_expect_eq(watch_rule_parse("inflight>128", &r), 0);
	cr_expect_eq(r.limit, 128);
	cr_expect_eq(watch_rule_parse("idle>2s", &r), 0);
	cr_expect_eq(r.kind, WATCH_IDLE);
	const char *bad[] = { "d2c", "d2c>", "d2c>fast", "latency>5ms", "d2c<5ms", "inflight>0", "inflight>1.5",
			      "idle>0", ">5ms", "" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(watch_rule_parse(bad[i], &r), -1, "'%s' parsed", bad[i]);
}

Test(flight_watch, d2c_fires_on_the_slow_completion_only)
{
	watch *w = one_rule("d2c>50ms");
	watch_hit hit;
	br_event e = io(1000 * MS, __BLK_TA_ISSUE, 100);
	cr_expect_not(watch_event(w, &e, &hit));
	e = io(1040 * MS, __BLK_TA_COMPLETE, 100); /* 40 ms */
	cr_expect_not(watch_event(w, &e, &hit), "40 ms fired a 50 ms rule");
	e = io(2000 * MS, __BLK_TA_ISSUE, 200);
	cr_expect_not(watch_event(w, &e, &hit));
	e = io(2000 * MS + 10, __BLK_TA_ISSUE, 300);
	cr_expect_not(watch_event(w, &e, &hit));
	e = io(2010 * MS, __BLK_TA_COMPLETE, 300); /* 10 ms */
	cr_expect_not(watch_event(w, &e, &hit));
	e = io(2073 * MS, __BLK_TA_COMPLETE, 200); /* 73 ms */
	cr_assert(watch_event(w, &e, &hit), "73 ms did not fire a 50 ms rule");
	cr_expect_eq(hit.time, 2073 * MS);
	cr_expect_eq(hit.value, 73 * MS);
	cr_expect_eq(hit.sector, 200);
	char text[128];
	watch_hit_text(&hit, text, sizeof text);
	cr_expect_str_eq(text, "d2c 73.000 ms on 8,16 sector 200");
	/* a completion never issued (its D before the capture) fires nothing */
	e = io(3000 * MS, __BLK_TA_COMPLETE, 999);
	cr_expect_not(watch_event(w, &e, &hit));
	watch_free(w);
}

Test(flight_watch, q2c_counts_from_the_queue_event)
{
	watch *w = one_rule("q2c>20ms");
	watch_hit hit;
	br_event e = io(0, __BLK_TA_QUEUE, 8);
	cr_expect_not(watch_event(w, &e, &hit));
	e = io(15 * MS, __BLK_TA_ISSUE, 8);
	cr_expect_not(watch_event(w, &e, &hit));
	e = io(25 * MS, __BLK_TA_COMPLETE, 8); /* d2c 10 ms, q2c 25 ms */
	cr_assert(watch_event(w, &e, &hit));
	cr_expect_eq(hit.value, 25 * MS);
	watch_free(w);
}

Test(flight_watch, inflight_fires_when_one_more_than_the_limit_is_issued)
{
	watch *w = one_rule("inflight>3");
	watch_hit hit;
	for (uint64_t i = 0; i < 3; i++) {
		br_event e = io(i * MS, __BLK_TA_ISSUE, 8 * i);
		cr_expect_not(watch_event(w, &e, &hit), "fired at %llu in flight", (unsigned long long)i + 1);
	}
	br_event c = io(3 * MS, __BLK_TA_COMPLETE, 0);
	cr_expect_not(watch_event(w, &c, &hit));
	br_event e = io(4 * MS, __BLK_TA_ISSUE, 800);
	cr_expect_not(watch_event(w, &e, &hit), "3 in flight after a completion fired inflight>3");
	e = io(5 * MS, __BLK_TA_ISSUE, 900);
	cr_assert(watch_event(w, &e, &hit));
	cr_expect_eq(hit.value, 4);
	cr_expect_eq(watch_inflight(w), 4);
	watch_free(w);
}

Test(flight_watch, idle_fires_when_io_resumes_at_the_moment_the_gap_reached_the_limit)
{
	watch *w = one_rule("idle>2s");
	watch_hit hit;
	br_event e = io(10000 * MS, __BLK_TA_ISSUE, 8);
	cr_expect_not(watch_event(w, &e, &hit), "the first event is no gap");
	e = io(11900 * MS, __BLK_TA_COMPLETE, 8);
	cr_expect_not(watch_event(w, &e, &hit), "a 1.9 s gap fired idle>2s");
	e = io(15000 * MS, __BLK_TA_QUEUE, 16);
	cr_assert(watch_event(w, &e, &hit));
	cr_expect_eq(hit.value, 3100 * MS);
	cr_expect_eq(hit.time, 13900 * MS, "fired at %llu, want when the gap reached 2 s",
		     (unsigned long long)hit.time);
	/* notes are not IO */
	br_event note = { .time = 30000 * MS, .action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE };
	cr_expect_not(watch_event(w, &note, &hit));
	watch_free(w);
}

Test(flight_watch, requests_whose_completion_never_comes_stop_counting_and_the_table_grows)
{
	watch *w = one_rule("inflight>20000");
	watch_hit hit;
	for (uint64_t i = 0; i < 10000; i++) { /* lost completions: issued, never completed */
		br_event e = io(i * 1000, __BLK_TA_ISSUE, 8 * i);
		cr_expect_not(watch_event(w, &e, &hit));
	}
	cr_expect_eq(watch_inflight(w), 10000);
	for (uint64_t i = 0; i < 10000; i++) { /* more, completed, a minute later */
		br_event e = io(70000 * MS + i * 1000, __BLK_TA_ISSUE, 1000000 + 8 * i);
		watch_event(w, &e, &hit);
	}
	cr_expect_eq(watch_inflight(w), 10000, "%zu in flight: the stale ones still count", watch_inflight(w));
	for (uint64_t i = 0; i < 10000; i++) {
		br_event e = io(71000 * MS + i * 1000, __BLK_TA_COMPLETE, 1000000 + 8 * i);
		watch_event(w, &e, &hit);
	}
	cr_expect_eq(watch_inflight(w), 0);
	watch_free(w);
}

Test(flight_watch, the_first_rule_that_holds_is_named)
{
	watch_rule r[2];
	cr_assert_eq(watch_rule_parse("inflight>1", &r[0]), 0);
	cr_assert_eq(watch_rule_parse("d2c>1ms", &r[1]), 0);
	watch *w = watch_new(r, 2);
	watch_hit hit;
	br_event e = io(0, __BLK_TA_ISSUE, 8);
	cr_expect_not(watch_event(w, &e, &hit));
	e = io(1, __BLK_TA_ISSUE, 16);
	cr_assert(watch_event(w, &e, &hit));
	cr_expect_str_eq(hit.rule->text, "inflight>1");
	e = io(5 * MS, __BLK_TA_COMPLETE, 8);
	cr_assert(watch_event(w, &e, &hit));
	cr_expect_str_eq(hit.rule->text, "d2c>1ms");
	watch_free(w);
}

/* A bpf ring's records come as read: another CPU's completion can come
 * before the issue it ends. It waits for the issue: the latency is the
 * same, nothing counts in flight, and a later request to that sector is
 * matched afresh. */
Test(flight_watch, a_completion_seen_before_its_issue_or_queueing_is_matched_when_that_comes)
{
	watch_rule r[2];
	cr_assert_eq(watch_rule_parse("d2c>50ms", &r[0]), 0);
	cr_assert_eq(watch_rule_parse("q2c>70ms", &r[1]), 0);
	watch *w = watch_new(r, 2);
	cr_assert(w);
	watch_hit hit;
	br_event c = io(1100 * MS, __BLK_TA_COMPLETE, 64), d = io(1040 * MS, __BLK_TA_ISSUE, 64),
		 q = io(1000 * MS, __BLK_TA_QUEUE, 64);
	cr_expect_not(watch_event(w, &c, &hit), "a completion alone fired");
	cr_expect_eq(watch_inflight(w), 0);
	cr_expect(watch_event(w, &d, &hit), "d2c 60 ms with the completion first did not fire");
	cr_expect_eq(hit.rule->kind, WATCH_D2C);
	cr_expect_eq(hit.value, 60 * MS);
	cr_expect_eq(hit.time, 1100 * MS, "fired at %llu, want the completion's time", (unsigned long long)hit.time);
	cr_expect_eq(watch_inflight(w), 0, "the issue matched counts in flight");
	cr_expect(watch_event(w, &q, &hit), "q2c 100 ms with the completion first did not fire");
	cr_expect_eq(hit.rule->kind, WATCH_Q2C);
	cr_expect_eq(hit.value, 100 * MS);
	/* the same sector again, in order and quick: no stale match */
	br_event d2 = io(2000 * MS, __BLK_TA_ISSUE, 64), c2 = io(2001 * MS, __BLK_TA_COMPLETE, 64);
	cr_expect_not(watch_event(w, &d2, &hit));
	cr_expect_eq(watch_inflight(w), 1);
	cr_expect_not(watch_event(w, &c2, &hit), "a 1 ms request fired");
	cr_expect_eq(watch_inflight(w), 0);
	/* a completion left from before (its issue not traced) does not pair
	 * with a later issue of that sector */
	br_event old_c = io(3000 * MS, __BLK_TA_COMPLETE, 128), late_d = io(3500 * MS, __BLK_TA_ISSUE, 128);
	cr_expect_not(watch_event(w, &old_c, &hit));
	cr_expect_not(watch_event(w, &late_d, &hit), "an issue after an unmatched completion fired");
	cr_expect_eq(watch_inflight(w), 1);
	watch_free(w);
}
