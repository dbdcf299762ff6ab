/* The life of an IO, btt style: pair Q, G, I, M/F, D, C per request (with
 * splits, remaps and requeues) and record Q2G, G2I, Q2M, I2D, M2D, D2C and
 * Q2C when the request completes (definitions in blkreel/analysis.h). */
#include "analysis_internal.h"

#include <endian.h>
#include <string.h>

static inline uint64_t delta(uint64_t to, uint64_t from)
{
	return to > from ? to - from : 0;
}

static int report_bio(br_analysis *a, const an_req *r, const an_bio *b, bool own, uint64_t c)
{
	br_analysis_bio out = {
		.device = r->dev, .pid = b->pid, .sector = r->start, .sectors = r->end - r->start,
		.q_ns = b->q, .m_ns = (b->flags & BIO_M) ? b->m : 0,
		.g_ns = own && (r->flags & RQ_G) ? r->g : 0, .i_ns = own && (r->flags & RQ_I) ? r->i : 0,
		.d_ns = (r->flags & RQ_D) ? r->d : 0, .c_ns = c,
	};
	return a->opts.on_bio(a->opts.on_bio_arg, &out);
}

static int record_completion(br_analysis *a, uint32_t i, uint64_t c)
{
	an_table *t = &a->t;
	an_req *r = &t->r[i];
	bool has_d = r->flags & RQ_D;
	if ((r->flags & (RQ_Q | RQ_G | RQ_TAIL)) == (RQ_Q | RQ_G))
		br_hist_add(&a->phase[BR_PHASE_Q2G], delta(r->g, r->q));
	if ((r->flags & (RQ_G | RQ_I)) == (RQ_G | RQ_I))
		br_hist_add(&a->phase[BR_PHASE_G2I], delta(r->i, r->g));
	if ((r->flags & (RQ_I | RQ_D)) == (RQ_I | RQ_D))
		br_hist_add(&a->phase[BR_PHASE_I2D], delta(r->d, r->i));
	uint64_t d2c = has_d ? delta(c, r->d) : 0;
	if (r->bios == AN_NIL) {
		if (has_d) {
			br_hist_add(&a->phase[BR_PHASE_D2C], d2c);
			an_lat l = { .d2c_sum = (double)d2c, .d2c_n = 1 };
			an_group_latency(&a->devs, r->dev, &l);
		}
		return 0;
	}
	/* sums for the device, and for each run of bios of one process */
	an_lat dev = { 0 }, proc = { 0 };
	uint32_t pid = t->b[r->bios].pid;
	for (uint32_t k = r->bios; k != AN_NIL; k = t->b[k].next) {
		const an_bio *b = &t->b[k];
		if (b->pid != pid) {
			an_group_latency(&a->procs, pid, &proc);
			memset(&proc, 0, sizeof proc);
			pid = b->pid;
		}
		if (b->flags & BIO_Q) {
			uint64_t q2c = delta(c, b->q);
			br_hist_add(&a->phase[BR_PHASE_Q2C], q2c);
			proc.q2c_sum += (double)q2c;
			proc.q2c_n++;
			dev.q2c_sum += (double)q2c;
			dev.q2c_n++;
		}
		if (has_d) {
			br_hist_add(&a->phase[BR_PHASE_D2C], d2c);
			proc.d2c_sum += (double)d2c;
			proc.d2c_n++;
			dev.d2c_sum += (double)d2c;
			dev.d2c_n++;
		}
		if ((b->flags & (BIO_Q | BIO_M)) == (BIO_Q | BIO_M))
			br_hist_add(&a->phase[BR_PHASE_Q2M], delta(b->m, b->q));
		if ((b->flags & BIO_M) && has_d)
			br_hist_add(&a->phase[BR_PHASE_M2D], delta(r->d, b->m));
		if (a->opts.on_bio && (b->flags & BIO_Q)) {
			int rc = report_bio(a, r, b, k == r->bios && !(b->flags & BIO_M), c);
			if (rc)
				return rc;
		}
	}
	an_group_latency(&a->procs, pid, &proc);
	an_group_latency(&a->devs, r->dev, &dev);
	return 0;
}

static int on_merge(br_analysis *a, const br_event *ev, bool back)
{
	an_table *t = &a->t;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	uint32_t bio = an_find_start(t, ev->device, sec, RQ_D | RQ_G | RQ_I, 0, AN_NIL);
	if (bio == AN_NIL)
		return 0;
	uint32_t into = back ? an_find_end(t, ev->device, sec, RQ_D, 0, bio)
			     : an_find_start(t, ev->device, sec + len, RQ_D, 0, bio);
	if (into == AN_NIL) { /* joined a request we never saw */
		an_req_free(t, bio);
		return 0;
	}
	for (uint32_t k = t->r[bio].bios; k != AN_NIL; k = t->b[k].next) {
		t->b[k].flags |= BIO_M;
		t->b[k].m = ev->time;
	}
	an_bio_move(t, bio, into);
	an_req *r = &t->r[into];
	if (back)
		an_req_rekey(t, into, r->dev, r->start, sec + len);
	else
		an_req_rekey(t, into, r->dev, sec, r->end);
	an_req_free(t, bio);
	return 0;
}

static int on_split(br_analysis *a, const br_event *ev)
{
	an_table *t = &a->t;
	if (!ev->pdu || ev->pdu_len < 8)
		return 0;
	uint64_t at;
	memcpy(&at, ev->pdu, 8);
	at = be64toh(at);
	uint32_t i = an_find_start(t, ev->device, ev->sector, RQ_D, 0, AN_NIL);
	if (i == AN_NIL || at <= ev->sector || at >= t->r[i].end)
		return 0;
	uint32_t j = an_req_new(t, ev->device, at, t->r[i].end);
	if (j == AN_NIL)
		return BR_ENOMEM;
	an_req *src = &t->r[i], *dst = &t->r[j];
	dst->flags = (src->flags & (RQ_Q | RQ_G | RQ_I)) | RQ_TAIL;
	dst->q = src->q;
	dst->g = src->g;
	dst->i = src->i;
	an_req_rekey(t, i, ev->device, ev->sector, at);
	return 0;
}

static int on_remap(br_analysis *a, const br_event *ev)
{
	an_table *t = &a->t;
	uint32_t from_dev;
	uint64_t from_sec;
	if (!br_event_remap(ev, &from_dev, &from_sec))
		return 0;
	uint32_t i = an_find_start(t, from_dev, from_sec, RQ_D, 0, AN_NIL);
	if (i == AN_NIL)
		return 0;
	an_req_rekey(t, i, br_event_display_device(ev), ev->sector, ev->sector + (ev->bytes >> 9));
	t->r[i].flags |= RQ_REMAPPED;
	return 0;
}

/* A flush request of the flush machinery ("FN": flush, no data), as
 * opposed to an empty bio's own request ("FWS"). */
static bool flush_request(const br_event *ev)
{
	return !ev->bytes && br_event_is_flush(ev) && !br_event_is_write(ev);
}

static int on_issue(br_analysis *a, const br_event *ev)
{
	an_table *t = &a->t;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	bool fn = flush_request(ev);
	/* a flush request is its own request: the preflush bios waiting for
	 * it end later with their own empty completions */
	uint32_t i = fn ? AN_NIL : an_find_start(t, ev->device, sec, RQ_D, 0, AN_NIL);
	if (i == AN_NIL) {
		/* issued twice without a requeue; not for empty requests,
		 * several of which can be in flight at one sector */
		i = len ? an_find_start(t, ev->device, sec, RQ_D, RQ_D, AN_NIL) : AN_NIL;
		if (i != AN_NIL) {
			t->r[i].d = ev->time;
			return 0;
		}
		i = an_req_new(t, ev->device, sec, sec + len);
		if (i == AN_NIL)
			return BR_ENOMEM;
	} else if (len && t->r[i].end != sec + len) {
		an_req_rekey(t, i, ev->device, sec, sec + len);
	}
	t->r[i].flags |= RQ_D | (fn ? RQ_FLUSH : 0);
	t->r[i].d = ev->time;
	an_depth_change(a, ev->time, +1);
	return 0;
}

/* Which open request an empty completion ends (AN_NIL: none).
 *  - A flush request's completion ("C FN") ends an issued flush request at
 *    its sector, or at 0: it is issued at 0 and, on newer kernels,
 *    completed at sector ~0.
 *  - Any other empty C ends an issued empty request at its sector, else the
 *    oldest empty bio waiting there (a preflush bio a flush request
 *    served); else it is the end record of a bio whose request completed
 *    before (FUA and preflush writes log one after their sized C). */
static uint32_t empty_target(const an_table *t, const br_event *ev)
{
	uint64_t sec = ev->sector;
	if (flush_request(ev)) {
		uint32_t i = an_find_empty(t, ev->device, sec, RQ_D | RQ_FLUSH, RQ_D | RQ_FLUSH);
		if (i == AN_NIL && sec)
			i = an_find_empty(t, ev->device, 0, RQ_D | RQ_FLUSH, RQ_D | RQ_FLUSH);
		return i;
	}
	uint32_t i = an_find_empty(t, ev->device, sec, RQ_D | RQ_FLUSH, RQ_D);
	return i != AN_NIL ? i : an_find_empty_oldest(t, ev->device, sec, RQ_D, 0);
}

static int on_complete(br_analysis *a, const br_event *ev)
{
	an_table *t = &a->t;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	uint32_t i;
	if (!len) {
		i = empty_target(t, ev);
		if (i == AN_NIL) {
			a->empty_c++;
			return 0;
		}
	} else {
		i = an_find_start(t, ev->device, sec, RQ_D, RQ_D, AN_NIL);
		if (i == AN_NIL)
			i = an_find_start(t, ev->device, sec, 0, 0, AN_NIL);
		if (i == AN_NIL) {
			a->orphan_c++;
			return 0;
		}
	}
	an_req *r = &t->r[i];
	if (len && sec + len < r->end) { /* partial: the rest stays open */
		an_req_rekey(t, i, ev->device, sec + len, r->end);
		return 0;
	}
	int rc = record_completion(a, i, ev->time);
	if (t->r[i].flags & RQ_D)
		an_depth_change(a, ev->time, -1);
	an_req_free(t, i);
	return rc;
}

int an_life_event(br_analysis *a, const br_event *ev)
{
	an_table *t = &a->t;
	uint64_t sec = ev->sector, len = ev->bytes >> 9;
	uint32_t i;
	switch (br_event_code(ev)) {
	case __BLK_TA_QUEUE:
		i = an_find_start(t, ev->device, sec, RQ_D | RQ_REMAPPED, RQ_REMAPPED, AN_NIL);
		if (i != AN_NIL) { /* the same bio, arriving on the device it was remapped to */
			t->r[i].flags &= ~(uint32_t)RQ_REMAPPED;
			return 0;
		}
		i = an_req_new(t, ev->device, sec, sec + len);
		if (i == AN_NIL)
			return BR_ENOMEM;
		t->r[i].flags = RQ_Q;
		t->r[i].q = ev->time;
		return an_bio_add(t, i, ev->time, ev->pid, BIO_Q);
	case __BLK_TA_GETRQ:
		i = an_find_start(t, ev->device, sec, RQ_D | RQ_G, 0, AN_NIL);
		if (i == AN_NIL) {
			i = an_req_new(t, ev->device, sec, sec + len);
			if (i == AN_NIL)
				return BR_ENOMEM;
		}
		t->r[i].flags |= RQ_G;
		t->r[i].g = ev->time;
		return 0;
	case __BLK_TA_INSERT:
		i = an_find_start(t, ev->device, sec, RQ_D | RQ_I, 0, AN_NIL);
		if (i != AN_NIL) {
			t->r[i].flags |= RQ_I;
			t->r[i].i = ev->time;
		}
		return 0;
	case __BLK_TA_BACKMERGE:
		return on_merge(a, ev, true);
	case __BLK_TA_FRONTMERGE:
		return on_merge(a, ev, false);
	case __BLK_TA_SPLIT:
		return on_split(a, ev);
	case __BLK_TA_REMAP:
		return on_remap(a, ev);
	case __BLK_TA_REQUEUE:
		i = an_find_start(t, ev->device, sec, RQ_D, RQ_D, AN_NIL);
		if (i != AN_NIL) {
			t->r[i].flags &= ~(uint32_t)(RQ_D | RQ_I);
			an_depth_change(a, ev->time, -1);
		}
		return 0;
	case __BLK_TA_ISSUE:
		return on_issue(a, ev);
	case __BLK_TA_COMPLETE:
		return on_complete(a, ev);
	default:
		(void)len;
		return 0;
	}
}
