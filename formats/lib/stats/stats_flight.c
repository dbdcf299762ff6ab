/* The in-flight log: IOs in flight over time without counting an IO that
 * never completes (issue 14's fake queue of a trace cut short, of dropped
 * events, of a partial per-CPU set). An issue enters the in-flight sweep
 * only when its completion (or requeue) has come, or, when none has come
 * within the lost limit — STATS_LOST_MARGIN times the worst D2C completed
 * so far, at least STATS_LOST_MIN_NS, at most STATS_LOST_MAX_NS — it is
 * lost: counted in br_stats_totals.lost_ios and never in flight. At the end
 * every issue still open is lost. The sweep runs only at events at or past
 * sweep_due (the older log tail plus the limit), which finds what a sweep
 * after every event would: both loops stop at the first tail not due, and
 * the limit only grows. The queue log is kept only for consumers with
 * hooks (stats_set_hooks). */
#include "stats_internal.h"

#include <stdlib.h>

static int push_to(flight_log *l, uint64_t t, uint32_t req, int delta, uint64_t *pos)
{
	if (l->head - l->tail == l->cap) {
		uint64_t nc = l->cap ? l->cap * 2 : 4096;
		flight_ev *n = malloc(nc * sizeof *n);
		if (!n)
			return BR_ENOMEM;
		for (uint64_t p = l->tail; p < l->head; p++)
			n[p & (nc - 1)] = l->e[p & (l->cap - 1)];
		free(l->e);
		l->e = n;
		l->cap = nc;
	}
	uint64_t p = l->head++;
	l->e[p & (l->cap - 1)] = (flight_ev){ .t = t, .req = req, .delta = (int8_t)delta, .done = 0 };
	if (pos)
		*pos = p;
	return 0;
}

static uint64_t lost_limit(const br_stats *s);

/* When an entry at t is due with limit lim. Near the end of the clock,
 * where t + a later, larger limit could wrap (and the sweep's own
 * comparison with it), always. */
static uint64_t due_at(uint64_t t, uint64_t lim)
{
	return t > UINT64_MAX - STATS_LOST_MAX_NS ? 0 : t + lim;
}

/* An entry into an empty log is its new tail: it can be due sooner than
 * s->sweep_due said. (The limit only grows, so a due time computed with
 * today's limit is never late.) */
static void note_tail(br_stats *s, const flight_log *l, uint64_t t)
{
	if (l->head == l->tail) {
		uint64_t due = due_at(t, lost_limit(s));
		if (due < s->sweep_due)
			s->sweep_due = due;
	}
}

static int push(br_stats *s, uint64_t t, uint32_t req, int delta, uint64_t *pos)
{
	note_tail(s, &s->flog, t);
	if (t < s->flog_last_t)
		s->flog_unordered = true;
	s->flog_last_t = t;
	return push_to(&s->flog, t, req, delta, pos);
}

/* What the sweep does with an entry whose fate is known: a completion or
 * requeue, or an issue whose completion came. */
static void count_settled(br_stats *s, const flight_ev *e)
{
	if (e->delta < 0) {
		stats_inflight_change(s, e->t, -1);
		return;
	}
	stats_inflight_change(s, e->t, +1);
	size_t k = stats_bucket_at(s, STATS_HIT_SWEEP, e->t);
	if (k != SIZE_MAX && s->b[k].inflight_max < s->cur_inflight)
		s->b[k].inflight_max = s->cur_inflight;
	if (s->t.inflight_max < s->cur_inflight)
		s->t.inflight_max = s->cur_inflight;
}

/* Count the log's tail now, while it is in the caches, as far as the fate
 * of its entries is known: the sweep would count them the same way when
 * due, in the same order, and it stops at the first issue still open,
 * which it judges when due as before. That holds while the log is in time
 * order (every entry before an open issue is due when it is); a log out
 * of order keeps its entries for the sweep. */
static void settle(br_stats *s)
{
	flight_log *l = &s->flog;
	if (s->flog_unordered)
		return;
	while (l->tail < l->head) {
		const flight_ev *e = &l->e[l->tail & (l->cap - 1)];
		if (e->delta > 0 && !e->done)
			break;
		l->tail++;
		count_settled(s, e);
	}
}

int stats_queue_add(br_stats *s, uint32_t i, uint64_t t)
{
	if (!s->keep_qlog)
		return 0;
	note_tail(s, &s->qlog, t);
	return push_to(&s->qlog, t, i, +1, &s->pt.r[i].qpos);
}

void stats_queue_done(br_stats *s, uint32_t i)
{
	if (!s->keep_qlog)
		return;
	pair_req *r = &s->pt.r[i];
	if (r->flags & RQ_STALE) {
		r->flags &= ~(uint32_t)RQ_STALE;
		if (s->stale_pending)
			s->stale_pending--;
		return;
	}
	flight_log *l = &s->qlog;
	if ((r->flags & RQ_Q) && r->qpos >= l->tail && r->qpos < l->head &&
	    l->e[r->qpos & (l->cap - 1)].req == i)
		l->e[r->qpos & (l->cap - 1)].done = 1;
}

int stats_flight_issue(br_stats *s, uint32_t i, uint64_t t)
{
	s->raw_inflight++;
	return push(s, t, i, +1, &s->pt.r[i].dpos);
}

int stats_flight_end(br_stats *s, uint32_t i, uint64_t t)
{
	pair_req *r = &s->pt.r[i];
	if (s->raw_inflight)
		s->raw_inflight--;
	if (r->flags & RQ_LOST) { /* it came after all: still not in flight */
		if (s->lost_open)
			s->lost_open--;
		s->t.late_completions++;
		r->flags &= ~(uint32_t)RQ_LOST;
		return 0;
	}
	uint64_t d2c = t > r->d ? t - r->d : 0;
	if (d2c > s->worst_d2c)
		s->worst_d2c = d2c;
	flight_log *l = &s->flog;
	if (r->dpos >= l->tail && r->dpos < l->head)
		l->e[r->dpos & (l->cap - 1)].done = 1;
	if (push(s, t, i, -1, NULL))
		return BR_ENOMEM;
	settle(s);
	return 0;
}

static uint64_t lost_limit(const br_stats *s)
{
	uint64_t lim = s->worst_d2c * STATS_LOST_MARGIN;
	return lim < STATS_LOST_MIN_NS ? STATS_LOST_MIN_NS : lim > STATS_LOST_MAX_NS ? STATS_LOST_MAX_NS : lim;
}

/* Requests queued longer than the limit without an issue are not waiting
 * for the block layer: their D is missing from the trace. */
static void queue_sweep(br_stats *s, uint64_t now, uint64_t lim)
{
	flight_log *l = &s->qlog;
	while (l->tail < l->head) {
		flight_ev *e = &l->e[l->tail & (l->cap - 1)];
		if (e->t + lim > now)
			break;
		l->tail++;
		if (e->done)
			continue;
		pair_req *r = &s->pt.r[e->req];
		if (!(r->flags & (RQ_FREE | RQ_D | RQ_STALE)) && r->qpos == l->tail - 1) {
			r->flags |= RQ_STALE;
			s->stale_pending++;
		}
	}
}

void stats_flight_sweep(br_stats *s, uint64_t now, bool final)
{
	flight_log *l = &s->flog;
	uint64_t lim = lost_limit(s);
	if (!final && s->keep_qlog) /* without it the queue log stays empty */
		queue_sweep(s, now, lim);
	while (l->tail < l->head) {
		flight_ev *e = &l->e[l->tail & (l->cap - 1)];
		if (!final && e->t + lim > now)
			break;
		l->tail++;
		if (e->delta > 0 && !e->done) {
			/* open past the limit (or at the end): lost */
			pair_req *r = &s->pt.r[e->req];
			s->t.lost_ios++;
			if (!(r->flags & RQ_FREE) && (r->flags & RQ_D) && r->dpos == l->tail - 1) {
				r->flags |= RQ_LOST;
				s->lost_open++;
			}
			continue;
		}
		count_settled(s, e);
	}
	/* Nothing is due before the older tail plus the limit: the events
	 * before that skip the sweep (stats_flight_sweep_due). Only the tails
	 * matter, as both loops stop at the first tail not due. */
	s->sweep_due = UINT64_MAX;
	const flight_log *logs[2] = { &s->flog, &s->qlog };
	for (int n = 0; n < (s->keep_qlog ? 2 : 1); n++)
		if (logs[n]->tail < logs[n]->head) {
			uint64_t t = logs[n]->e[logs[n]->tail & (logs[n]->cap - 1)].t;
			uint64_t due = due_at(t, lim);
			if (due < s->sweep_due)
				s->sweep_due = due;
		}
}
