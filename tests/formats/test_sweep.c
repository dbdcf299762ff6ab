/* The sweep (blkreel/sweep.h) on synthetic sweeps whose limit is known:
 * K closed-loop clients (1, 2, 4, 8, 16), each queueing a 4 KiB IO,
 * waiting for it, thinking, queueing the next, against a simulated device
 * with a FIFO queue and a number of tags (requests it takes at once).
 *  - device_saturated: unlimited tags, but the device serves only 4 at full
 *    speed: with K > 4 each request takes K/4 times as long;
 *  - host_bound: the clients' think time grows past 2 clients (two CPUs
 *    shared), the device idles;
 *  - serialised: one tag: one request at a time;
 *  - concurrency_capped: two tags, each request served at the same speed;
 *  - shrinking_requests: requests carry less past 2 clients;
 *  - service_time: clients in step, each request slower than in proportion.
 * The knee must be where throughput per client stops growing, the limit
 * the one built in. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/analysis.h"
#include "blkreel/sweep.h"
#include "tracegen.h"

#define DEV BR_MKDEV(8, 0)
#define US 1000ull
#define NOPS 3000
#define NEVER UINT64_MAX

typedef struct sim {
	unsigned clients;
	unsigned tags;          /* 0: no limit */
	uint64_t service_ns;
	uint64_t think_ns;
	unsigned jitter_pct;    /* think varies by up to this much */
	uint32_t seed;
	uint32_t bytes;         /* per IO; 0: 4 KiB */
} sim;

typedef tg_run trace;

static void put(trace *t, uint64_t time, uint32_t action, uint64_t sec, uint32_t bytes, uint32_t pid)
{
	br_event *ev = tg_run_put(t, tg_io(time, DEV, 0, action, sec, bytes, pid));
	cr_assert(ev, "out of memory");
	ev->comm = pid ? "fio" : NULL;
}

static uint64_t think(const sim *s, uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	double f = 1.0 + ((double)((*seed >> 8) % 2001) / 1000.0 - 1.0) * s->jitter_pct / 100.0;
	return (uint64_t)((double)s->think_ns * f);
}

/* Discrete events: a client's Q, a completion, a dispatch whenever a tag
 * is free and the FIFO holds a request. */
static void simulate(const sim *s, trace *t)
{
	memset(t, 0, sizeof *t);
	unsigned k = s->clients;
	uint64_t next_q[64], sec[64], done_at[64];
	unsigned fifo[64], fhead = 0, flen = 0, inflight = 0, issued = 0, completed = 0;
	uint32_t seed = s->seed ? s->seed : 1;
	cr_assert(k <= 64);
	for (unsigned c = 0; c < k; c++) {
		next_q[c] = c * 1000; /* clients start 1 us apart */
		sec[c] = 1000000ull * (c + 1);
		done_at[c] = NEVER;
	}
	uint64_t now = 0;
	uint32_t w = BLK_TC_ACT(BLK_TC_WRITE);
	uint32_t bytes = s->bytes ? s->bytes : 4096;
	while (completed < NOPS) {
		if (flen && (!s->tags || inflight < s->tags)) {
			unsigned c = fifo[fhead];
			fhead = (fhead + 1) % 64;
			flen--;
			put(t, now + 100, BLK_TA_ISSUE | w, sec[c], bytes, 100 + c);
			done_at[c] = now + 100 + s->service_ns;
			inflight++;
			continue;
		}
		unsigned qc = k, cc = k;
		for (unsigned c = 0; c < k; c++) {
			if (next_q[c] != NEVER && (qc == k || next_q[c] < next_q[qc]))
				qc = c;
			if (done_at[c] != NEVER && (cc == k || done_at[c] < done_at[cc]))
				cc = c;
		}
		if (cc < k && (qc == k || done_at[cc] <= next_q[qc])) {
			now = done_at[cc];
			put(t, now, BLK_TA_COMPLETE | w, sec[cc], bytes, 0);
			done_at[cc] = NEVER;
			inflight--;
			completed++;
			sec[cc] += bytes >> 9;
			next_q[cc] = issued < NOPS ? now + think(s, &seed) : NEVER;
		} else {
			cr_assert(qc < k, "no event left");
			now = next_q[qc];
			put(t, now, BLK_TA_QUEUE | w, sec[qc], bytes, 100 + qc);
			next_q[qc] = NEVER;
			fifo[(fhead + flen++) % 64] = qc;
			issued++;
		}
	}
	tg_run_sort(t);
}

static br_analysis *analyse(const sim *s)
{
	trace t;
	simulate(s, &t);
	br_error err;
	br_analysis *a = tg_run_analyse(&t, &err);
	cr_assert(a, "%s", err.msg);
	tg_run_free(&t);
	return a;
}

static const unsigned clients[] = { 1, 2, 4, 8, 16 };
#define NPOINTS (sizeof clients / sizeof clients[0])

typedef void (*shape_fn)(unsigned k, sim *s);

/* One stack's sweep over clients[], each point shaped by fn. */
static void sweep_of(const char *name, shape_fn fn, uint32_t seed, br_sweep *out, br_analysis **keep)
{
	br_sweep_input in[NPOINTS];
	for (size_t i = 0; i < NPOINTS; i++) {
		/* given out of order: the sweep sorts by value */
		size_t p = (i * 3) % NPOINTS;
		sim s = { .clients = clients[p], .jitter_pct = 30, .seed = seed + (uint32_t)p };
		fn(clients[p], &s);
		keep[i] = analyse(&s);
		in[i] = (br_sweep_input){ name, clients[p], br_analysis_get(keep[i])->profile };
	}
	br_error err;
	cr_assert_eq(br_sweep_build(in, NPOINTS, "clients", out, &err), 0, "%s", err.msg);
}

static void release(br_sweep *s, br_analysis **keep)
{
	br_sweep_free(s);
	for (size_t i = 0; i < NPOINTS; i++)
		br_analysis_free(keep[i]);
}

static void saturating(unsigned k, sim *s)
{
	s->service_ns = 100 * US * (k > 4 ? k : 4) / 4;
	s->think_ns = 2 * US;
}

static void host(unsigned k, sim *s)
{
	s->service_ns = 30 * US;
	s->think_ns = 200 * US * (k > 2 ? k : 2) / 2;
}

static void one_tag(unsigned k, sim *s)
{
	(void)k;
	s->tags = 1;
	s->service_ns = 100 * US;
	s->think_ns = 300 * US;
}

static void two_tags(unsigned k, sim *s)
{
	(void)k;
	s->tags = 2;
	s->service_ns = 100 * US;
	s->think_ns = 100 * US;
}

static void expect_sweep(const br_sweep *sw, const char *limit, double knee_clients)
{
	cr_assert_eq(sw->nstacks, 1);
	const br_sweep_stack *st = &sw->stacks[0];
	cr_assert_eq(st->npoints, NPOINTS);
	for (size_t i = 0; i < NPOINTS; i++)
		cr_expect_eq(st->points[i].value, clients[i], "sorted by value");
	cr_expect(st->work, "fio queued every byte: the outcome is the work rate");
	cr_assert_geq(st->knee, 0, "no knee: %s", st->evidence);
	cr_expect_eq(st->points[st->knee].value, knee_clients, "knee at %g, not %g: %s",
		     st->points[st->knee].value, knee_clients, st->evidence);
	cr_expect_str_eq(st->limit, limit, "%s", st->evidence);
	/* every step's terms add up to its growth */
	for (size_t i = 0; i + 1 < NPOINTS; i++) {
		const br_sweep_step *sp = &st->steps[i];
		double sum = sp->residual;
		for (int t = 0; t < BR_SWEEP_TERMS; t++)
			sum += sp->term[t];
		cr_expect(fabs(sum - sp->dlnx) < 1e-9, "step %zu: terms %.6f, growth %.6f", i, sum, sp->dlnx);
		cr_expect(fabs(sp->residual) < 0.05, "step %zu: residual %.3f", i, sp->residual);
	}
}

/* Up to 4 clients the device takes them all (N_busy grows, U near 1);
 * past 4 each request takes longer in proportion: R grows with N_busy. */
Test(sweep, device_saturated)
{
	br_sweep sw;
	br_analysis *keep[NPOINTS];
	sweep_of("disk", saturating, 11, &sw, keep);
	expect_sweep(&sw, "device_saturated", 4);
	const br_sweep_stack *st = &sw.stacks[0];
	/* the growth from 1 to 4 clients is carried by requests in flight */
	cr_expect_eq(st->steps[0].carrier, BR_SWEEP_T_N, "carrier %s", br_sweep_term_name(st->steps[0].carrier));
	cr_expect_gt(st->points[NPOINTS - 1].f.u, 0.95);
	release(&sw, keep);
}

/* The host's think time grows past two clients: throughput flat past 2,
 * the device idle most of the time. */
Test(sweep, host_bound)
{
	br_sweep sw;
	br_analysis *keep[NPOINTS];
	sweep_of("ram", host, 21, &sw, keep);
	expect_sweep(&sw, "host_bound", 2);
	cr_expect_lt(sw.stacks[0].points[NPOINTS - 1].f.u, BR_SWEEP_U_HOST);
	release(&sw, keep);
}

/* One request at a time: U grows to 1 by 4 clients (100 us of service
 * per 400 us of a client's cycle), N_busy is 1 throughout. */
Test(sweep, serialised)
{
	br_sweep sw;
	br_analysis *keep[NPOINTS];
	sweep_of("fsync", one_tag, 31, &sw, keep);
	expect_sweep(&sw, "serialised", 4);
	const br_sweep_stack *st = &sw.stacks[0];
	for (size_t i = 0; i < NPOINTS; i++)
		cr_expect_lt(st->points[i].f.nbusy, 1.01);
	/* the growth up to the knee is the device getting busier */
	cr_expect_eq(st->steps[0].carrier, BR_SWEEP_T_U, "carrier %s", br_sweep_term_name(st->steps[0].carrier));
	release(&sw, keep);
}

/* Two tags: N_busy stops at 2, service time unchanged. */
Test(sweep, concurrency_capped)
{
	br_sweep sw;
	br_analysis *keep[NPOINTS];
	sweep_of("nr2", two_tags, 41, &sw, keep);
	expect_sweep(&sw, "concurrency_capped", 4);
	cr_expect(fabs(sw.stacks[0].points[NPOINTS - 1].f.nbusy - 2.0) < 0.05, "N_busy %.3f",
		  sw.stacks[0].points[NPOINTS - 1].f.nbusy);
	release(&sw, keep);
}

/* Four tags at a device that slows as requests share it (100 us each up to
 * 2 clients, 250 us past): the knee comes at 2, before N_busy reaches the
 * cap, and R grows past it; N_busy stops at 4 over the last step, which
 * queueing at a busy device would not do (tests/report/pairs'
 * sweep_nr_requests on a disk-backed loop looks like this). */
static void four_tags_slowing(unsigned k, sim *s)
{
	s->tags = 4;
	s->service_ns = (k > 2 ? 250 : 100) * US;
	s->think_ns = 100 * US;
}

Test(sweep, concurrency_capped_past_the_knee)
{
	br_sweep sw;
	br_analysis *keep[NPOINTS];
	sweep_of("nr4", four_tags_slowing, 43, &sw, keep);
	expect_sweep(&sw, "concurrency_capped", 2);
	const br_sweep_stack *st = &sw.stacks[0];
	cr_expect(fabs(st->points[NPOINTS - 1].f.nbusy - 4.0) < 0.1, "N_busy %.3f", st->points[NPOINTS - 1].f.nbusy);
	cr_expect_gt(st->points[NPOINTS - 1].f.r / st->points[st->knee].f.r, 1.5, "R grew past the knee");
	release(&sw, keep);
}

/* Past 2 clients each request carries less (64 KiB at 1 and 2 clients,
 * 128 KiB / K past that: splits, less merging): MB/s flat, N_busy grows, S
 * falls. */
static void splitting(unsigned k, sim *s)
{
	s->service_ns = 100 * US;
	s->think_ns = 2 * US;
	s->bytes = k > 2 ? 131072 / k : 65536;
}

Test(sweep, shrinking_requests)
{
	br_sweep sw;
	br_analysis *keep[NPOINTS];
	sweep_of("split", splitting, 51, &sw, keep);
	expect_sweep(&sw, "shrinking_requests", 2);
	release(&sw, keep);
}

/* Clients in step (no jitter: all in flight together, N_busy = K), each
 * request slower than in proportion to them (R ~ K^1.5: a seek storm), the
 * device busy 60 % of the time: throughput falls from the first step, and
 * R, not queueing on a busy device, is why. */
static void slower(unsigned k, sim *s)
{
	s->jitter_pct = 0;
	s->service_ns = (uint64_t)(100.0 * US * pow(k, 1.5));
	s->think_ns = s->service_ns * 2 / 3;
}

Test(sweep, service_time)
{
	br_sweep sw;
	br_analysis *keep[NPOINTS];
	sweep_of("seeky", slower, 61, &sw, keep);
	expect_sweep(&sw, "service_time", 1);
	const br_sweep_stack *st = &sw.stacks[0];
	cr_expect_lt(st->points[NPOINTS - 1].f.u, BR_SWEEP_U_SATURATED);
	cr_expect_eq(st->steps[0].carrier, BR_SWEEP_T_R, "carrier %s", br_sweep_term_name(st->steps[0].carrier));
	release(&sw, keep);
}

/* The same sweep with other noise: the same knee and limit. */
Test(sweep, same_sweep_twice)
{
	br_sweep a, b;
	br_analysis *ka[NPOINTS], *kb[NPOINTS];
	sweep_of("disk", saturating, 101, &a, ka);
	sweep_of("disk", saturating, 202, &b, kb);
	cr_expect_eq(a.stacks[0].knee, b.stacks[0].knee);
	cr_expect_str_eq(a.stacks[0].limit, b.stacks[0].limit);
	release(&a, ka);
	release(&b, kb);
}

/* A stack that scales over the whole range has no knee; stacks are kept
 * apart; two traces at one value of one stack are refused. */
Test(sweep, stacks_no_knee_and_duplicates)
{
	br_analysis *keep[NPOINTS];
	br_sweep_input in[NPOINTS + 1];
	for (size_t i = 0; i < NPOINTS; i++) {
		/* a device that takes everyone at full speed, clients that think a lot */
		sim s = { .clients = clients[i], .service_ns = 20 * US, .think_ns = 2000 * US, .jitter_pct = 30,
			  .seed = 5 + (uint32_t)i };
		keep[i] = analyse(&s);
		in[i] = (br_sweep_input){ i < 3 ? "a" : "b", clients[i], br_analysis_get(keep[i])->profile };
	}
	br_sweep sw;
	br_error err;
	cr_assert_eq(br_sweep_build(in, 3, "clients", &sw, &err), 0, "%s", err.msg);
	cr_expect_eq(sw.nstacks, 1);
	cr_expect_eq(sw.stacks[0].knee, -1, "%s", sw.stacks[0].evidence);
	cr_expect_str_eq(sw.stacks[0].limit, "none");
	for (size_t i = 0; i < 2; i++)
		cr_expect_gt(sw.stacks[0].steps[i].elasticity, 0.9, "step %zu: %.2f", i, sw.stacks[0].steps[i].elasticity);
	br_sweep_free(&sw);
	cr_assert_eq(br_sweep_build(in, NPOINTS, "clients", &sw, &err), 0, "%s", err.msg);
	cr_expect_eq(sw.nstacks, 2);
	cr_expect_eq(sw.stacks[1].npoints, 2);
	cr_expect_str_eq(sw.stacks[1].stack, "b");
	br_sweep_free(&sw);
	in[NPOINTS] = in[1];
	cr_expect_eq(br_sweep_build(in, NPOINTS + 1, "clients", &sw, &err), BR_EINVAL);
	cr_expect(strstr(err.msg, "two traces of a at clients=2"), "%s", err.msg);
	for (size_t i = 0; i < NPOINTS; i++)
		br_analysis_free(keep[i]);
}
