/* The life of an IO, btt style: when the shared pairing (stats_io.c)
 * completes a request, record its Q2G, G2I, Q2M, I2D, M2D, D2C and Q2C
 * (definitions in blkreel/analysis.h) and hand its bios to on_bio. */
#include "analysis_internal.h"

#include <string.h>

static inline uint64_t delta(uint64_t to, uint64_t from)
{
	return to > from ? to - from : 0;
}

static int report_bio(br_analysis *a, const pair_req *r, const pair_bio *b, bool own, uint64_t c)
{
	br_analysis_bio out = {
		.device = r->dev, .pid = b->pid, .sector = r->start, .sectors = r->end - r->start,
		.q_ns = b->q, .m_ns = (b->flags & BIO_M) ? b->m : 0,
		.g_ns = own && (r->flags & RQ_G) ? r->g : 0, .i_ns = own && (r->flags & RQ_I) ? r->i : 0,
		.d_ns = (r->flags & RQ_D) ? r->d : 0, .c_ns = c,
	};
	return a->opts.on_bio(a->opts.on_bio_arg, &out);
}

static int record_completion(br_analysis *a, const pair_table *t, uint32_t i, uint64_t c)
{
	const pair_req *r = &t->r[i];
	bool has_d = r->flags & RQ_D;
	if ((r->flags & (RQ_Q | RQ_G | RQ_TAIL)) == (RQ_Q | RQ_G))
		br_hist_add(&a->phase[BR_PHASE_Q2G], delta(r->g, r->q));
	if ((r->flags & (RQ_G | RQ_I)) == (RQ_G | RQ_I))
		br_hist_add(&a->phase[BR_PHASE_G2I], delta(r->i, r->g));
	if ((r->flags & (RQ_I | RQ_D)) == (RQ_I | RQ_D))
		br_hist_add(&a->phase[BR_PHASE_I2D], delta(r->d, r->i));
	uint64_t d2c = has_d ? delta(c, r->d) : 0;
	if (r->bios == PAIR_NIL) {
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
	for (uint32_t k = r->bios; k != PAIR_NIL; k = t->b[k].next) {
		const pair_bio *b = &t->b[k];
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

void an_life_refused(void *arg, const pair_table *t, uint32_t i, const br_event *ev)
{
	br_analysis *a = arg;
	diag_refused(&a->diag, t, i, ev);
}

int an_life_complete(void *arg, const pair_table *t, uint32_t i, const br_event *ev)
{
	br_analysis *a = arg;
	diag_complete(&a->diag, a->stats, t, i, ev);
	int rc = record_completion(a, t, i, ev->time);
	if (rc)
		a->bio_rc = rc;
	return rc;
}
