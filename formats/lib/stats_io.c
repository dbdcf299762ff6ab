/* Pairing Q→D→C per request, with merges, splits, remaps and requeues
 * (rules in blkreel/stats.h). */
#include "stats_internal.h"

#include <endian.h>
#include <string.h>

static void add_q(pair_table *t, open_io *o, uint64_t q)
{
	if (!(o->flags & IO_HAS_Q) || q < o->q)
		o->q = q;
	o->flags |= IO_HAS_Q;
	o->qsum += q - t->qbase;
	o->nbios++;
}

/* Fold bio b into request r (merge): r keeps the earliest Q and the sum. */
static void absorb(pair_table *t, uint32_t r, uint32_t b)
{
	open_io *ro = &t->io[r], *bo = &t->io[b];
	if (bo->flags & IO_HAS_Q) {
		if (!(ro->flags & IO_HAS_Q) || bo->q < ro->q)
			ro->q = bo->q;
		ro->flags |= IO_HAS_Q;
		ro->qsum += bo->qsum;
		ro->nbios += bo->nbios;
	}
	pair_free(t, b);
}

/* A flush request of the flush machinery ("FN": flush, no write, no
 * data), as opposed to an empty bio's own request (Q "FWS"). The block
 * layer issues it at sector 0 with no Q, before (preflush) or after (FUA
 * emulation) a write; one can serve several waiting bios. */
static bool flush_request(const br_event *ev)
{
	return !ev->bytes && br_event_is_flush(ev) && !br_event_is_write(ev);
}

/* Which open IO an empty completion ends (PAIR_NIL: none). Never one with
 * sectors: an empty C at a sector where a data request starts is the end
 * record of some other bio, and ending the data request with it would cut
 * its D2C short and drop it from the in-flight count.
 *  - "C FN" ends an issued flush request at its sector, or at 0: flushes
 *    are issued at 0 and, on newer kernels, completed at sector ~0.
 *  - Any other empty C ends an issued empty request at its sector, else
 *    the oldest empty bio waiting there (a preflush bio, "Q FWS", that a
 *    flush request served: it was never issued itself). */
static uint32_t empty_target(const pair_table *t, const br_event *ev)
{
	uint32_t dev = ev->device;
	uint64_t sec = ev->sector;
	if (flush_request(ev)) {
		uint32_t i = pair_find_empty(t, dev, sec, IO_HAS_D | IO_FLUSH, IO_HAS_D | IO_FLUSH);
		if (i == PAIR_NIL && sec)
			i = pair_find_empty(t, dev, 0, IO_HAS_D | IO_FLUSH, IO_HAS_D | IO_FLUSH);
		return i;
	}
	uint32_t i = pair_find_empty(t, dev, sec, IO_HAS_D | IO_FLUSH, IO_HAS_D);
	return i != PAIR_NIL ? i : pair_find_empty_oldest(t, dev, sec, IO_HAS_D, 0);
}

static int on_complete(br_stats *s, const br_event *ev, uint32_t dev, uint64_t sec, uint64_t len)
{
	pair_table *t = &s->pt;
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
		i = pair_find_start(t, dev, sec, IO_HAS_D, IO_HAS_D, PAIR_NIL);
		if (i == PAIR_NIL)
			i = pair_find_start(t, dev, sec, 0, 0, PAIR_NIL);
		if (i == PAIR_NIL) {
			s->t.orphan_completions++;
			return 0;
		}
	}
	open_io *o = &t->io[i];
	if (len && sec + len < o->end) { /* partial completion: the rest stays open */
		pair_rekey(t, i, dev, sec + len, o->end);
		return 0;
	}
	bool has_d = o->flags & IO_HAS_D, has_q = o->flags & IO_HAS_Q;
	uint64_t d2c = has_d && ev->time > o->d ? ev->time - o->d : 0;
	uint64_t q2c = has_q && ev->time > o->q ? ev->time - o->q : 0;
	if (has_q) {
		/* per bio: sum of (C - Q_i) = n*C - sum Q_i */
		double c_rel = (double)(ev->time - t->qbase);
		s->t.q2c_bio_sum_ns += c_rel * o->nbios - (double)o->qsum;
		s->t.q2c_bios += o->nbios;
	}
	if (has_d) {
		stats_inflight_advance(s, ev->time);
		if (s->cur_inflight)
			s->cur_inflight--;
	}
	if (s->opts.on_request) {
		br_stats_request req = { .device = o->dev, .has_q = has_q, .has_d = has_d,
					 .q_ns = has_q ? o->q : 0, .d_ns = has_d ? o->d : 0, .c_ns = ev->time };
		s->opts.on_request(s->opts.on_request_arg, &req);
	}
	pair_free(t, i);
	return stats_record_latency(s, ev->time, has_d, d2c, has_q, q2c);
}

int stats_pair_event(br_stats *s, const br_event *ev, br_error *err)
{
	pair_table *t = &s->pt;
	unsigned code = br_event_code(ev);
	uint32_t dev = ev->device;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	uint32_t i, j;

	switch (code) {
	case __BLK_TA_QUEUE:
		/* a bio remapped here from above keeps its first Q */
		i = pair_find_start(t, dev, sec, IO_HAS_D | IO_REMAPPED, IO_REMAPPED, PAIR_NIL);
		if (i != PAIR_NIL) {
			t->io[i].flags &= ~(uint32_t)IO_REMAPPED;
			return 0;
		}
		s->t.queued++;
		i = pair_new(t, dev, sec, sec + len);
		if (i == PAIR_NIL)
			goto nomem;
		add_q(t, &t->io[i], ev->time);
		return 0;
	case __BLK_TA_BACKMERGE:
	case __BLK_TA_FRONTMERGE:
		s->t.merged++;
		i = pair_find_start(t, dev, sec, IO_HAS_D, 0, PAIR_NIL);
		if (i == PAIR_NIL)
			return 0;
		if (code == __BLK_TA_BACKMERGE) {
			j = pair_find_end(t, dev, sec, IO_HAS_D, 0, i);
			if (j != PAIR_NIL)
				pair_rekey(t, j, dev, t->io[j].start, sec + len);
		} else {
			j = pair_find_start(t, dev, sec + len, IO_HAS_D, 0, i);
			if (j != PAIR_NIL)
				pair_rekey(t, j, dev, sec, t->io[j].end);
		}
		if (j != PAIR_NIL)
			absorb(t, j, i);
		else
			pair_free(t, i); /* merged into something we never saw */
		return 0;
	case __BLK_TA_SPLIT: {
		s->t.splits++;
		if (!ev->pdu || ev->pdu_len < 8)
			return 0;
		uint64_t at;
		memcpy(&at, ev->pdu, 8);
		at = be64toh(at);
		i = pair_find_start(t, dev, sec, IO_HAS_D, 0, PAIR_NIL);
		if (i == PAIR_NIL || at <= sec || at >= t->io[i].end)
			return 0;
		uint64_t end = t->io[i].end;
		j = pair_new(t, dev, at, end);
		if (j == PAIR_NIL)
			goto nomem;
		open_io *src = &t->io[i], *dst = &t->io[j];
		dst->flags = src->flags;
		dst->q = src->q;
		dst->qsum = src->qsum;
		dst->nbios = src->nbios;
		pair_rekey(t, i, dev, sec, at);
		return 0;
	}
	case __BLK_TA_REMAP: {
		uint32_t from_dev;
		uint64_t from_sec;
		if (!br_event_remap(ev, &from_dev, &from_sec))
			return 0;
		s->t.remaps++;
		i = pair_find_start(t, from_dev, from_sec, IO_HAS_D, 0, PAIR_NIL);
		if (i == PAIR_NIL)
			return 0;
		uint32_t to_dev = br_event_display_device(ev);
		pair_rekey(t, i, to_dev, sec, sec + len);
		t->io[i].flags |= IO_REMAPPED;
		return 0;
	}
	case __BLK_TA_REQUEUE:
		s->t.requeues++;
		i = pair_find_start(t, dev, sec, IO_HAS_D, IO_HAS_D, PAIR_NIL);
		if (i == PAIR_NIL)
			return 0;
		t->io[i].flags &= ~(uint32_t)IO_HAS_D;
		stats_inflight_advance(s, ev->time);
		if (s->cur_inflight)
			s->cur_inflight--;
		return 0;
	case __BLK_TA_ISSUE: {
		s->t.issued++;
		/* A flush request is a request of its own: it has no Q, and
		 * the empty preflush bios waiting at sector 0 end later with
		 * their own empty completions, so it must not take them. */
		bool fn = flush_request(ev);
		i = fn ? PAIR_NIL : pair_find_start(t, dev, sec, IO_HAS_D, 0, PAIR_NIL);
		if (i == PAIR_NIL) {
			/* issued twice without a requeue; not for empty
			 * requests, several of which can be in flight at one
			 * sector (every flush is issued at 0): each is new */
			i = len ? pair_find_start(t, dev, sec, IO_HAS_D, IO_HAS_D, PAIR_NIL) : PAIR_NIL;
			if (i != PAIR_NIL) {
				t->io[i].d = ev->time;
				return 0;
			}
			/* flush requests count here too: they never have a
			 * Q (reports explain D2C counts with this number) */
			s->t.orphan_issues++;
			i = pair_new(t, dev, sec, sec + len);
			if (i == PAIR_NIL)
				goto nomem;
		} else if (len && t->io[i].end != sec + len) {
			pair_rekey(t, i, dev, sec, sec + len);
		}
		t->io[i].flags |= IO_HAS_D | (fn ? IO_FLUSH : 0);
		t->io[i].d = ev->time;
		stats_inflight_advance(s, ev->time);
		s->cur_inflight++;
		{
			size_t k = stats_bucket_at(s, ev->time);
			if (k == SIZE_MAX)
				goto nomem;
			if (s->b[k].inflight_max < s->cur_inflight)
				s->b[k].inflight_max = s->cur_inflight;
			if (s->t.inflight_max < s->cur_inflight)
				s->t.inflight_max = s->cur_inflight;
		}
		return 0;
	}
	case __BLK_TA_COMPLETE:
		if (on_complete(s, ev, dev, sec, len))
			goto nomem;
		return 0;
	default:
		return 0;
	}
nomem:
	return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "statistics: out of memory (%u IOs open)",
			    t->live);
}
