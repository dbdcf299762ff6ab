/* The one pairing engine: Q, G, I, M/F, X, A, R, D and C per request, with
 * merges, splits, remaps and requeues (rules in blkreel/stats.h). It keeps
 * the in-flight count and the per-request latencies of br_stats, and tells
 * a consumer (the report's analysis) of every completed request through
 * stats_hooks, so plot, replay and report agree by construction. */
#include "stats_internal.h"

#include <endian.h>
#include <string.h>

void stats_set_hooks(br_stats *s, const stats_hooks *h)
{
	s->hooks = *h;
	s->keep_qlog = true;
}

/* A flush request of the flush machinery ("FN": flush, no write, no
 * data), as opposed to an empty bio's own request (Q "FWS"). The block
 * layer issues it at sector 0 with no Q, before (preflush) or after (FUA
 * emulation) a write; one can serve several waiting bios. */
static bool flush_request(const br_event *ev)
{
	return !ev->bytes && br_event_is_flush(ev) && !br_event_is_write(ev);
}

static inline uint64_t delta(uint64_t to, uint64_t from)
{
	return to > from ? to - from : 0;
}

/* Which open request an empty completion ends (PAIR_NIL: none). Never one
 * with sectors: an empty C at a sector where a data request starts is the
 * end record of some other bio, and ending the data request with it would
 * cut its D2C short and drop it from the in-flight count.
 *  - "C FN" ends an issued flush request at its sector, or at 0: flushes
 *    are issued at 0 and, on newer kernels, completed at sector ~0.
 *  - Any other empty C ends an issued empty request at its sector, else
 *    the oldest empty bio waiting there (a preflush bio, "Q FWS", that a
 *    flush request served: it was never issued itself). */
static uint32_t empty_target(const pair_table *t, const br_event *ev)
{
	uint32_t dev = ev->device;
	uint64_t sec = ev->sector;
	/* the newest issued: the flush machinery runs one flush at a time, so
	 * an older flush still open lost its completion (a C FN missing from
	 * the trace); taking the oldest would shift every later pairing */
	if (flush_request(ev)) {
		uint32_t i = pair_find_empty(t, dev, sec, RQ_D | RQ_FLUSH, RQ_D | RQ_FLUSH);
		if (i == PAIR_NIL && sec)
			i = pair_find_empty(t, dev, 0, RQ_D | RQ_FLUSH, RQ_D | RQ_FLUSH);
		return i;
	}
	uint32_t i = pair_find_empty(t, dev, sec, RQ_D | RQ_FLUSH, RQ_D);
	return i != PAIR_NIL ? i : pair_find_empty_oldest(t, dev, sec, RQ_D, 0);
}

uint32_t stats_data_target(const pair_table *t, const br_event *ev)
{
	uint32_t i = pair_find_start(t, ev->device, ev->sector, RQ_D, RQ_D, PAIR_NIL);
	return i != PAIR_NIL ? i : pair_find_start(t, ev->device, ev->sector, 0, 0, PAIR_NIL);
}

/* A bio the block layer completed with an error before it was ever issued:
 * a non-blocking submission (RWF_NOWAIT, io_uring's first try) that found
 * no free request, or that would have needed a split; the submitter may
 * send it again, which the trace then holds as another Q. */
bool stats_is_refused(const br_stats *s, const br_event *ev)
{
	if (!ev->error || !ev->bytes || br_event_code(ev) != __BLK_TA_COMPLETE)
		return false;
	uint32_t i = stats_data_target(&s->pt, ev);
	return i != PAIR_NIL && !(s->pt.r[i].flags & RQ_D);
}

static int on_complete(br_stats *s, const br_event *ev)
{
	pair_table *t = &s->pt;
	uint32_t dev = ev->device;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	uint32_t i;
	s->t.completed++;
	if (!len) {
		i = empty_target(t, ev);
		if (i == PAIR_NIL) {
			/* the second, empty C of a bio whose request completed
			 * with its data before (preflush and FUA writes log
			 * one): nothing is missing, so not an orphan */
			s->t.empty_completions++;
			return 0;
		}
	} else {
		i = stats_data_target(t, ev);
		if (i == PAIR_NIL) {
			s->t.orphan_completions++;
			return 0;
		}
	}
	pair_req *r = &t->r[i];
	if (len && sec + len < r->end) { /* partial completion: the rest stays open */
		pair_rekey(t, i, dev, sec + len, r->end);
		return 0;
	}
	bool has_d = r->flags & RQ_D, has_q = r->flags & RQ_Q;
	if (len && ev->error && !has_d) {
		/* refused before issue: not a served IO, no latency */
		s->t.completed--;
		s->t.queued--; /* counted at its Q, before anyone knew */
		s->t.refused_bios++;
		s->t.refused_bytes += ev->bytes;
		if (s->hooks.refused)
			s->hooks.refused(s->hooks.arg, t, i, ev);
		stats_queue_done(s, i);
		pair_free(t, i);
		return 0;
	}
	uint64_t c = ev->time;
	uint64_t d2c = has_d ? delta(c, r->d) : 0;
	/* Q2C per request from the earliest Q it holds (its own bio's, a
	 * merged bio's, or a split head's); per bio, btt style, from each */
	uint64_t q = has_q ? r->q : UINT64_MAX;
	double q2c_sum = 0; /* in locals: stores into s would reload t->b each bio */
	uint64_t q2c_n = 0;
	for (uint32_t k = r->bios; k != PAIR_NIL; k = t->b[k].next) {
		const pair_bio *b = &t->b[k];
		if (!(b->flags & BIO_Q))
			continue;
		if (b->q < q)
			q = b->q;
		q2c_sum += (double)delta(c, b->q);
		q2c_n++;
	}
	s->done_q2c_sum = q2c_sum;
	s->done_q2c_n = q2c_n;
	s->t.q2c_bio_sum_ns += q2c_sum;
	s->t.q2c_bios += q2c_n;
	has_q = q != UINT64_MAX;
	uint64_t q2c = has_q ? delta(c, q) : 0;
	if (s->opts.on_request) {
		br_stats_request req = { .device = r->dev, .has_q = has_q, .has_d = has_d,
					 .q_ns = has_q ? q : 0, .d_ns = has_d ? r->d : 0, .c_ns = c };
		s->opts.on_request(s->opts.on_request_arg, &req);
	}
	int rc = 0;
	if (s->hooks.complete)
		rc = s->hooks.complete(s->hooks.arg, t, i, ev);
	if (has_d && stats_flight_end(s, i, c))
		rc = BR_ENOMEM;
	if (!has_d)
		stats_queue_done(s, i);
	pair_free(t, i);
	if (rc) {
		if (rc != BR_ENOMEM)
			s->hook_rc = rc;
		return rc;
	}
	return stats_record_latency(s, c, has_d, d2c, has_q, q2c);
}

static void on_merge(br_stats *s, const br_event *ev, bool back)
{
	pair_table *t = &s->pt;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	s->t.merged++;
	uint32_t bio = pair_find_start(t, ev->device, sec, RQ_D | RQ_G | RQ_I, 0, PAIR_NIL);
	if (bio == PAIR_NIL)
		return;
	uint32_t into = back ? pair_find_end(t, ev->device, sec, RQ_D, 0, bio)
			     : pair_find_start(t, ev->device, sec + len, RQ_D, 0, bio);
	stats_queue_done(s, bio);
	if (into == PAIR_NIL) { /* joined a request we never saw */
		pair_free(t, bio);
		return;
	}
	for (uint32_t k = t->r[bio].bios; k != PAIR_NIL; k = t->b[k].next) {
		t->b[k].flags |= BIO_M;
		t->b[k].m = ev->time;
	}
	pair_bio_move(t, bio, into);
	pair_req *r = &t->r[into];
	if (back)
		pair_rekey(t, into, r->dev, r->start, sec + len);
	else
		pair_rekey(t, into, r->dev, sec, r->end);
	pair_free(t, bio);
}

static int on_split(br_stats *s, const br_event *ev)
{
	pair_table *t = &s->pt;
	s->t.splits++;
	if (!ev->pdu || ev->pdu_len < 8)
		return 0;
	uint64_t at;
	memcpy(&at, ev->pdu, 8);
	at = be64toh(at);
	uint32_t i = pair_find_start(t, ev->device, ev->sector, RQ_D, 0, PAIR_NIL);
	if (i == PAIR_NIL || at <= ev->sector || at >= t->r[i].end)
		return 0;
	uint32_t j = pair_new(t, ev->device, at, t->r[i].end);
	if (j == PAIR_NIL)
		return BR_ENOMEM;
	/* the tail keeps the Q time (its Q2C runs from the bio's Q) but no
	 * bio of its own: btt counts the split bio once */
	pair_req *src = &t->r[i], *dst = &t->r[j];
	dst->flags = (src->flags & (RQ_Q | RQ_G | RQ_I)) | RQ_TAIL;
	dst->q = src->q;
	dst->g = src->g;
	dst->i = src->i;
	pair_rekey(t, i, ev->device, ev->sector, at);
	return 0;
}

static void on_remap(br_stats *s, const br_event *ev)
{
	pair_table *t = &s->pt;
	uint32_t from_dev;
	uint64_t from_sec;
	if (!br_event_remap(ev, &from_dev, &from_sec))
		return;
	s->t.remaps++;
	uint32_t i = pair_find_start(t, from_dev, from_sec, RQ_D, 0, PAIR_NIL);
	if (i == PAIR_NIL)
		return;
	pair_rekey(t, i, br_event_display_device(ev), ev->sector, ev->sector + (ev->bytes >> 9));
	t->r[i].flags |= RQ_REMAPPED;
}

static int on_issue(br_stats *s, const br_event *ev)
{
	pair_table *t = &s->pt;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	s->t.issued++;
	/* A flush request is a request of its own: it has no Q, and the empty
	 * preflush bios waiting at sector 0 end later with their own empty
	 * completions, so it must not take them. */
	bool fn = flush_request(ev);
	uint32_t i = fn ? PAIR_NIL : pair_find_start(t, ev->device, sec, RQ_D, 0, PAIR_NIL);
	if (i == PAIR_NIL) {
		/* issued twice without a requeue; not for empty requests,
		 * several of which can be in flight at one sector (every
		 * flush is issued at 0): each is new */
		i = len ? pair_find_start(t, ev->device, sec, RQ_D, RQ_D, PAIR_NIL) : PAIR_NIL;
		if (i != PAIR_NIL) {
			t->r[i].d = ev->time;
			s->last_issued = i;
			return 0;
		}
		i = pair_new(t, ev->device, sec, sec + len);
		if (i == PAIR_NIL)
			return BR_ENOMEM;
	} else if (len && t->r[i].end != sec + len) {
		pair_rekey(t, i, ev->device, sec, sec + len);
	}
	/* no Q behind it (flush requests, a trace started mid-flight): reports
	 * explain D2C counts with this number */
	if (!(t->r[i].flags & RQ_Q))
		s->t.orphan_issues++;
	else
		stats_queue_done(s, i);
	t->r[i].flags |= RQ_D | (fn ? RQ_FLUSH : 0);
	t->r[i].d = ev->time;
	s->last_issued = i;
	return stats_flight_issue(s, i, ev->time);
}

static int on_event(br_stats *s, const br_event *ev)
{
	pair_table *t = &s->pt;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	uint32_t i;
	switch (br_event_code(ev)) {
	case __BLK_TA_QUEUE:
		/* a bio remapped here from above keeps its first Q */
		i = pair_find_start(t, ev->device, sec, RQ_D | RQ_REMAPPED, RQ_REMAPPED, PAIR_NIL);
		if (i != PAIR_NIL) {
			t->r[i].flags &= ~(uint32_t)RQ_REMAPPED;
			return 0;
		}
		s->t.queued++;
		i = pair_new(t, ev->device, sec, sec + len);
		if (i == PAIR_NIL)
			return BR_ENOMEM;
		t->r[i].flags = RQ_Q;
		t->r[i].q = ev->time;
		if (stats_queue_add(s, i, ev->time))
			return BR_ENOMEM;
		return pair_bio_add(t, i, ev->time, ev->pid, BIO_Q);
	case __BLK_TA_GETRQ:
		i = pair_find_start(t, ev->device, sec, RQ_D | RQ_G, 0, PAIR_NIL);
		if (i == PAIR_NIL) {
			i = pair_new(t, ev->device, sec, sec + len);
			if (i == PAIR_NIL)
				return BR_ENOMEM;
		}
		t->r[i].flags |= RQ_G;
		t->r[i].g = ev->time;
		return 0;
	case __BLK_TA_INSERT:
		i = pair_find_start(t, ev->device, sec, RQ_D | RQ_I, 0, PAIR_NIL);
		if (i != PAIR_NIL) {
			t->r[i].flags |= RQ_I;
			t->r[i].i = ev->time;
		}
		return 0;
	case __BLK_TA_BACKMERGE:
		on_merge(s, ev, true);
		return 0;
	case __BLK_TA_FRONTMERGE:
		on_merge(s, ev, false);
		return 0;
	case __BLK_TA_SPLIT:
		return on_split(s, ev);
	case __BLK_TA_REMAP:
		on_remap(s, ev);
		return 0;
	case __BLK_TA_REQUEUE:
		s->t.requeues++;
		i = pair_find_start(t, ev->device, sec, RQ_D, RQ_D, PAIR_NIL);
		if (i != PAIR_NIL) {
			int rc = stats_flight_end(s, i, ev->time);
			t->r[i].flags &= ~(uint32_t)(RQ_D | RQ_I);
			return rc;
		}
		return 0;
	case __BLK_TA_ISSUE:
		return on_issue(s, ev);
	case __BLK_TA_COMPLETE:
		return on_complete(s, ev);
	default:
		return 0;
	}
}

int stats_pair_event(br_stats *s, const br_event *ev, br_error *err)
{
	int rc = on_event(s, ev);
	if (!rc) {
		stats_flight_sweep_due(s, ev->time);
		return 0;
	}
	if (rc == s->hook_rc) {
		s->hook_rc = 0;
		return rc; /* the consumer set its own error */
	}
	return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "statistics: out of memory (%u IOs open)",
			    s->pt.live);
}
