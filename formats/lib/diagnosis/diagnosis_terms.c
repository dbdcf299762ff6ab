/* From factor to mechanism: each factor of MB/s = U · N_busy · S / R (and
 * each latency phase) taken apart into the causes of blkreel/diagnosis.h,
 * with the sentence of numbers that shows each. */
#include "diagnosis_internal.h"

#include <math.h>
#include <stdio.h>

/* When the stacks differ in a way the events show (a scheduler on one
 * only; read-ahead windows far apart), in-flight and idle time follow from
 * it: say so in the evidence. */
static void other_stack(diag_ctx *c, char *ev, size_t size)
{
	char a1[32], a2[32];
	const br_diag_profile *w = c->p[1], *b = c->p[0];
	double idle_w = 100 * (1 - c->f[1].u), idle_b = 100 * (1 - c->f[0].u);
	if (c->sched)
		dx_say(ev, size,
		    "%s's requests go through an IO scheduler (%lu of %lu inserted, I2D avg %.1f us) and "
		    "%s's do not; with it the device was idle %.1f %% vs %.1f %% of the run and had %.2f "
		    "vs %.2f requests in flight while busy",
		    c->lab[1], (unsigned long)w->phase_n[BR_DP_I2D], (unsigned long)w->n,
		    w->phase_n[BR_DP_I2D] ? w->phase_sum[BR_DP_I2D] / (double)w->phase_n[BR_DP_I2D] / 1e3 : 0,
		    c->lab[0], idle_w, idle_b, c->f[1].nbusy, c->f[0].nbusy);
	else
		dx_say(ev, size,
		    "read-ahead fetched %s per bio for %s against %s for %s, asynchronously: %.2f vs %.2f "
		    "requests in flight while busy, idle %.1f %% vs %.1f %% of the run",
		    dx_size_str(b->q_bios ? (double)b->q_bytes / (double)b->q_bios : 0, a1, sizeof a1), c->lab[0],
		    dx_size_str(w->q_bios ? (double)w->q_bytes / (double)w->q_bios : 0, a2, sizeof a2), c->lab[1],
		    c->f[0].nbusy, c->f[1].nbusy, idle_b, idle_w);
}

/* ---- U: idle time, by what the block layer held ---- */
void dx_idle_terms(diag_ctx *c, double term, bool sig)
{
	char ev[320];
	double part[2][3]; /* held, after a flush, nothing queued; fractions of the span */
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		double idle = 1.0 - c->f[k].u, raw = (double)(p->idle_held_ns + p->idle_flush_ns +
							    p->idle_host_ns);
		/* the split comes from the recorded queue, the total from the
		 * union of completed D→C intervals (IOs never completed are not
		 * in flight): scale one to the other */
		double scale = raw > 0 ? idle / raw : 0;
		part[k][0] = (double)p->idle_held_ns * scale;
		part[k][1] = (double)p->idle_flush_ns * scale;
		part[k][2] = (double)p->idle_host_ns * scale;
		if (raw <= 0)
			part[k][2] = idle;
	}
	double dsum = 0, dpart[3];
	for (int j = 0; j < 3; j++) {
		dpart[j] = part[1][j] - part[0][j];
		dsum += dpart[j];
	}
	const br_diag_profile *w = c->p[1], *b = c->p[0];
	double idle_w = 100 * (1 - c->f[1].u), idle_b = 100 * (1 - c->f[0].u);
	if (fabs(dsum) < 1e-12) {
		dpart[0] = dpart[1] = 0;
		dpart[2] = dsum = 1;
	}
	char who[96] = "";
	if (w->gap_ender_n)
		snprintf(who, sizeof who, "; %s queued first after %.0f %% of them", w->gap_ender,
			 dx_pct((double)w->gap_ender_n, (double)w->idle_gaps));
	dx_say(ev, sizeof ev,
	    "%s's device was idle %.1f %% of the run against %.1f %% (%s) with nothing queued; "
	    "%.0f %% vs %.0f %% of its idle gaps ended by a Q within 100 us of the last completion "
	    "(a dependency chain), the rest host think time%s",
	    c->lab[1], 100 * part[1][2], 100 * part[0][2], c->lab[0],
	    dx_pct((double)w->idle_gaps_chained, (double)w->idle_gaps),
	    dx_pct((double)b->idle_gaps_chained, (double)b->idle_gaps), who);
	if (c->sched || c->ra_window)
		other_stack(c, ev, sizeof ev);
	dx_add_term(c, c->sched ? BR_CAUSE_SCHEDULER : c->ra_window ? BR_CAUSE_READAHEAD : BR_CAUSE_IDLE,
		    BR_FACTOR_U, term * dpart[2] / dsum, sig, ev);
	dx_say(ev, sizeof ev,
	    "%s's device sat idle waiting on flushes (before one was queued, after one completed) for %.1f %% of the run against %.1f "
	    "%% (%s): %lu vs %lu flushes, %.1f vs %.1f requests in flight when one was issued",
	    c->lab[1], 100 * part[1][1], 100 * part[0][1], c->lab[0], (unsigned long)w->n_flush,
	    (unsigned long)b->n_flush, w->n_flush ? w->depth_at_flush_sum / (double)w->n_flush : 0,
	    b->n_flush ? b->depth_at_flush_sum / (double)b->n_flush : 0);
	dx_add_term(c, BR_CAUSE_FLUSH, BR_FACTOR_U, term * dpart[1] / dsum, sig || c->st_flush, ev);
	dx_say(ev, sizeof ev,
	    "requests sat queued but not dispatched while %s's device was idle for %.1f %% of the run "
	    "against %.1f %% (%s): the block layer held them (plugging, scheduler)",
	    c->lab[1], 100 * part[1][0], 100 * part[0][0], c->lab[0]);
	/* a requeued request waits, queued, for its next dispatch */
	double rq[2];
	for (int k = 0; k < 2; k++)
		rq[k] = c->p[k]->n ? (double)c->p[k]->requeues / (double)c->p[k]->n : 0;
	bool requeue = rq[1] >= 0.01 && rq[1] > 2 * rq[0];
	if (requeue)
		dx_say(ev, sizeof ev,
		    "the driver handed %lu of %s's requests back (%.1f %% vs %.1f %% of %s's): they sat "
		    "queued, not dispatched, while the device was idle for %.1f %% of the run against %.1f %%",
		    (unsigned long)w->requeues, c->lab[1], 100 * rq[1], 100 * rq[0], c->lab[0],
		    100 * part[1][0], 100 * part[0][0]);
	dx_add_term(c, requeue ? BR_CAUSE_REQUEUE : BR_CAUSE_SCHEDULER, BR_FACTOR_U, term * dpart[0] / dsum, sig,
		    ev);
	(void)idle_w;
	(void)idle_b;
}

/* ---- N_busy: requests in flight while busy ---- */
void dx_concurrency_term(diag_ctx *c, double term, bool sig)
{
	char ev[320];
	double pend[2];
	for (int k = 0; k < 2; k++)
		pend[k] = c->p[k]->busy_ns ? c->p[k]->pending_busy_area / (double)c->p[k]->busy_ns : 0;
	bool held = term > 0 && pend[1] > pend[0] + 0.5;
	dx_say(ev, sizeof ev,
	    "%.2f vs %.2f requests in flight while the device was busy (%s vs %s); %.2f vs %.2f more "
	    "queued but not dispatched; %lu vs %lu flushes",
	    c->f[1].nbusy, c->f[0].nbusy, c->lab[1], c->lab[0], pend[1], pend[0],
	    (unsigned long)c->p[1]->n_flush, (unsigned long)c->p[0]->n_flush);
	if (c->sched || c->ra_window)
		other_stack(c, ev, sizeof ev);
	dx_add_term(c, held || c->sched ? BR_CAUSE_SCHEDULER : c->ra_window ? BR_CAUSE_READAHEAD : BR_CAUSE_CONCURRENCY,
		    BR_FACTOR_N_BUSY, term, sig, ev);
}

/* ---- S: bytes per request ---- */
/* Per unit of work, a stack that writes more device bytes per byte of
 * work (a journal) also writes them in the journal's requests: when the
 * kernel threads' share of the bytes grows and their requests differ in
 * size from the application's, part of the change in bytes per request
 * is that mix, not a change in anyone's request size. Requests per byte
 * 1/S = Σ_k β_k·m_k over k = application, kernel thread (β: share of the
 * bytes, m: requests per byte), split Kitagawa–Oaxaca into the mix (Δβ)
 * and the rate (Δm); the mix's part of the S term is committed as
 * amplification, and the rest is returned to the factor's mechanisms. */
static double amplified_size_term(diag_ctx *c, double term)
{
	if (c->out->outcome != BR_OUTCOME_WORK || !c->st_amp || !(c->f[1].amp > c->f[0].amp) || term <= 0)
		return 0;
	double beta[2][2], m[2][2]; /* [trace][0 application, 1 kernel thread] */
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		double bytes = (double)p->bytes, kb = (double)p->kern_bytes, kn = (double)p->kern_n;
		double ab = bytes - kb, an = (double)p->n - kn;
		if (bytes <= 0)
			return 0;
		beta[k][0] = ab / bytes;
		beta[k][1] = kb / bytes;
		m[k][0] = ab > 0 ? an / ab : -1;
		m[k][1] = kb > 0 ? kn / kb : -1;
	}
	double mix = 0, rate = 0;
	for (int j = 0; j < 2; j++) {
		if (m[0][j] < 0 && m[1][j] < 0)
			continue;
		double mw = m[1][j] >= 0 ? m[1][j] : m[0][j], mb = m[0][j] >= 0 ? m[0][j] : mw;
		mix += (beta[1][j] - beta[0][j]) * (mw + mb) / 2;
		rate += (mw - mb) * (beta[1][j] + beta[0][j]) / 2;
	}
	double delta = mix + rate; /* = 1/S_worse − 1/S_better */
	if (!(delta > 0) || !(mix > 0))
		return 0;
	double part = term * fmin(1.0, mix / delta);
	char ev[320], a1[32], a2[32], a3[32], a4[32];
	const br_diag_profile *w = c->p[1];
	double kern_s = w->kern_n ? (double)w->kern_bytes / (double)w->kern_n : 0;
	double app_s = w->n > w->kern_n ? (double)(w->bytes - w->kern_bytes) / (double)(w->n - w->kern_n) : 0;
	dx_say(ev, sizeof ev,
	    "kernel threads (journal, writeback) queued %.0f %% of %s's device bytes against %.0f %% (%s), "
	    "in requests of %s against the application's %s: that mix is part of why it moved %s per request "
	    "against %s",
	    100 * beta[1][1], c->lab[1], 100 * beta[0][1], c->lab[0], dx_size_str(kern_s, a1, sizeof a1),
	    dx_size_str(app_s, a2, sizeof a2), dx_size_str(c->f[1].s, a3, sizeof a3),
	    dx_size_str(c->f[0].s, a4, sizeof a4));
	dx_commit_term(c, BR_CAUSE_AMPLIFICATION, BR_FACTOR_S, part, true, ev);
	return part;
}

void dx_size_terms(diag_ctx *c, double term, bool sig)
{
	char ev[320], a1[32], a2[32], a3[32], a4[32];
	double app[2], merge[2], split[2], rest[2], ra[2];
	bool any_q = c->p[0]->q_bios && c->p[1]->q_bios;
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		double q = (double)p->q_bios, m = (double)p->merges, n = (double)p->n;
		app[k] = q > 0 ? (double)p->q_bytes / q : 0;
		merge[k] = q > m && m >= 0 ? q / (q - m) : 1;
		split[k] = n > 0 && q > m ? (q - m) / n : 1;
		rest[k] = p->q_bytes ? (double)p->bytes / (double)p->q_bytes : 1;
		ra[k] = p->q_bytes ? (double)p->ra_bytes / (double)p->q_bytes : 0;
	}
	if (!any_q) {
		dx_say(ev, sizeof ev, "%s per request in %s vs %s in %s (no Q events to say why)",
		    dx_size_str(c->f[1].s, a1, sizeof a1), c->lab[1], dx_size_str(c->f[0].s, a2, sizeof a2),
		    c->lab[0]);
		dx_add_term(c, BR_CAUSE_IO_SIZE, BR_FACTOR_S, term, sig, ev);
		return;
	}
	term -= amplified_size_term(c, term);
	/* S = app size × bios per request × (paired bytes / queued bytes) */
	double t_app = dx_ratio_ln(app[0], app[1]), t_merge = dx_ratio_ln(merge[0], merge[1]);
	double t_split = dx_ratio_ln(split[0], split[1]), t_rest = dx_ratio_ln(rest[0], rest[1]);
	double sum = t_app + t_merge + t_split + t_rest;
	double k = fabs(sum) > 1e-12 ? term / sum : 0; /* = 1 but for rounding */
	/* read-ahead decides the size of read-ahead bios: when most of the
	 * bytes are read ahead, a change in their size is its window */
	bool by_ra = fabs(ra[1] - ra[0]) > 0.10 || (ra[1] > 0.5 && ra[0] > 0.5);
	if (by_ra)
		dx_say(ev, sizeof ev,
		    "read-ahead made %.0f %% of the bytes %s queued against %.0f %% (%s): %s vs %s per bio",
		    100 * ra[1], c->lab[1], 100 * ra[0], c->lab[0], dx_size_str(app[1], a1, sizeof a1),
		    dx_size_str(app[0], a2, sizeof a2));
	else
		dx_say(ev, sizeof ev,
		    "%s queued %s per bio against %s (%s); %s vs %s per request at the device",
		    c->lab[1], dx_size_str(app[1], a1, sizeof a1), dx_size_str(app[0], a2, sizeof a2),
		    c->lab[0], dx_size_str(c->f[1].s, a3, sizeof a3), dx_size_str(c->f[0].s, a4, sizeof a4));
	dx_add_term(c, by_ra ? BR_CAUSE_READAHEAD : BR_CAUSE_IO_SIZE, BR_FACTOR_S, k * (t_app + t_rest),
		    sig || c->st_size, ev);
	dx_say(ev, sizeof ev, "%.2f vs %.2f bios per data request (%s vs %s): %lu vs %lu merges of %lu vs %lu bios",
	    merge[1], merge[0], c->lab[1], c->lab[0], (unsigned long)c->p[1]->merges,
	    (unsigned long)c->p[0]->merges, (unsigned long)c->p[1]->q_bios,
	    (unsigned long)c->p[0]->q_bios);
	dx_add_term(c, BR_CAUSE_MERGE, BR_FACTOR_S, k * t_merge, sig || c->st_merge, ev);
	bool splits = c->p[0]->splits || c->p[1]->splits;
	dx_say(ev, sizeof ev, "%lu vs %lu bios split (%s vs %s): %.2f vs %.2f requests per unmerged bio",
	    (unsigned long)c->p[1]->splits, (unsigned long)c->p[0]->splits, c->lab[1], c->lab[0],
	    split[1] > 0 ? 1 / split[1] : 0, split[0] > 0 ? 1 / split[0] : 0);
	dx_add_term(c, splits ? BR_CAUSE_SPLIT : BR_CAUSE_IO_SIZE, BR_FACTOR_S, k * t_split, sig || c->st_split,
		    ev);
}

/* ---- R: device time per request ---- */
void dx_service_terms(diag_ctx *c, double term, bool sig)
{
	char ev[320], a1[32], a2[32], a3[32], a4[32];
	double rd[2], fl[2];
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		rd[k] = p->n ? p->d2c_data / (double)p->n : 0;
		fl[k] = p->d2c_data > 0 ? p->d2c_flush / p->d2c_data : 0;
	}
	/* R = data D2C per request × (1 + flush D2C / data D2C) */
	double t_flush = dx_ratio_ln(1 + fl[1], 1 + fl[0]), t_data = dx_ratio_ln(rd[1], rd[0]);
	double sum = t_flush + t_data, k = fabs(sum) > 1e-12 ? term / sum : 0;
	const br_diag_profile *w = c->p[1], *b = c->p[0];
	dx_say(ev, sizeof ev,
	    "flushes took %.1f %% of %s's device time against %.1f %% (%s): %lu vs %lu flushes, "
	    "%s vs %s each",
	    dx_pct(w->d2c_flush, w->d2c_flush + w->d2c_data), c->lab[1],
	    dx_pct(b->d2c_flush, b->d2c_flush + b->d2c_data), c->lab[0], (unsigned long)w->n_flush,
	    (unsigned long)b->n_flush, dx_time_str(w->n_flush ? w->d2c_flush / (double)w->n_flush : 0, a1, sizeof a1),
	    dx_time_str(b->n_flush ? b->d2c_flush / (double)b->n_flush : 0, a2, sizeof a2));
	dx_add_term(c, BR_CAUSE_FLUSH, BR_FACTOR_R, k * t_flush, sig || c->st_flush, ev);
	diag_ko_out ko = { .mix = c->out->ko_mix, .rate = c->out->ko_rate,
			   .mix_seek = c->out->ko_mix_seek, .mix_size = c->out->ko_mix_size };
	double delta = ko.mix + ko.rate, td = k * t_data;
	if (fabs(delta) < 1e-9)
		return;
	dx_say(ev, sizeof ev,
	    "the same IO classes took %s vs %s at the device (%s vs %s): the rate effect is %s of "
	    "the %s difference in mean D2C",
	    dx_time_str(rd[1] - ko.mix / 2, a1, sizeof a1), dx_time_str(rd[0] + ko.mix / 2, a2, sizeof a2),
	    c->lab[1], c->lab[0], dx_time_str(ko.rate, a3, sizeof a3), dx_time_str(delta, a4, sizeof a4));
	/* only one of the two stacks inserts requests into an IO scheduler
	 * (I events): the same IO served slower is its doing first */
	double ins[2];
	for (int j = 0; j < 2; j++)
		ins[j] = c->p[j]->n ? (double)c->p[j]->phase_n[BR_DP_I2D] / (double)c->p[j]->n : 0;
	if (c->flush_each && !c->sched) {
		dx_say(ev, sizeof ev,
		    "%s issued %.2f flushes per write against %.2f (%s): a flush empties the device's "
		    "write cache, and the same IO classes took %s vs %s at the device",
		    c->lab[1], (double)w->n_flush / (double)(w->n ? w->n : 1),
		    (double)b->n_flush / (double)(b->n ? b->n : 1), c->lab[0],
		    dx_time_str(rd[1] - ko.mix / 2, a1, sizeof a1), dx_time_str(rd[0] + ko.mix / 2, a2, sizeof a2));
		dx_add_term(c, BR_CAUSE_FLUSH, BR_FACTOR_R, td * ko.rate / delta, sig || c->st_flush, ev);
	} else if (ins[1] >= 0.5 && ins[0] < 0.05) {
		dx_say(ev, sizeof ev,
		    "%s's requests went through an IO scheduler (%.0f %% inserted, I2D avg %s) and %s's "
		    "did not; the same IO classes took %s vs %s at the device",
		    c->lab[1], 100 * ins[1],
		    dx_time_str(w->phase_n[BR_DP_I2D] ? w->phase_sum[BR_DP_I2D] / (double)w->phase_n[BR_DP_I2D] : 0,
			     a3, sizeof a3),
		    c->lab[0], dx_time_str(rd[1] - ko.mix / 2, a1, sizeof a1),
		    dx_time_str(rd[0] + ko.mix / 2, a2, sizeof a2));
		dx_add_term(c, BR_CAUSE_SCHEDULER, BR_FACTOR_R, td * ko.rate / delta, sig, ev);
	} else {
		dx_add_term(c, BR_CAUSE_SERVICE_TIME, BR_FACTOR_R, td * ko.rate / delta, sig, ev);
	}
	double ms = fabs(ko.mix_seek), mz = fabs(ko.mix_size);
	double far[2];
	for (int j = 0; j < 2; j++) {
		double n = 0, f = 0;
		for (unsigned x = 0; x < BR_DIAG_CLASSES; x++) {
			n += (double)c->p[j]->cls[x].n;
			if (x % BR_DIAG_SEEKS == 2)
				f += (double)c->p[j]->cls[x].n;
		}
		far[j] = dx_pct(f, n);
	}
	double mix_term = td * ko.mix / delta;
	if (ms + mz <= 0) {
		ms = 0;
		mz = 1;
	}
	dx_say(ev, sizeof ev,
	    "%.0f %% of %s's requests started more than 1 MiB from the previous one against %.0f %% "
	    "(%s): the mix of seek distances adds %s to its mean D2C",
	    far[1], c->lab[1], far[0], c->lab[0], dx_time_str(ko.mix_seek, a1, sizeof a1));
	dx_add_term(c, BR_CAUSE_SEEK, BR_FACTOR_R, mix_term * ms / (ms + mz), sig, ev);
	dx_say(ev, sizeof ev,
	    "a different mix of sizes and directions (%s vs %s per request, %.0f %% vs %.0f %% "
	    "writes by bytes) adds %s to %s's mean D2C",
	    dx_size_str(c->f[1].s, a1, sizeof a1), dx_size_str(c->f[0].s, a2, sizeof a2),
	    dx_pct((double)w->write_bytes, (double)(w->read_bytes + w->write_bytes)),
	    dx_pct((double)b->write_bytes, (double)(b->read_bytes + b->write_bytes)),
	    dx_time_str(ko.mix_size, a3, sizeof a3), c->lab[1]);
	dx_add_term(c, BR_CAUSE_IO_SIZE, BR_FACTOR_R, mix_term * mz / (ms + mz), sig, ev);
}

/* ---- latency: the change in mean Q2C by phase ---- */
static const enum br_diag_cause_id phase_causes[BR_DP_COUNT] = {
	[BR_DP_Q2G] = BR_CAUSE_SCHEDULER, [BR_DP_G2I] = BR_CAUSE_SCHEDULER, [BR_DP_Q2M] = BR_CAUSE_MERGE,
	[BR_DP_I2D] = BR_CAUSE_SCHEDULER, [BR_DP_M2D] = BR_CAUSE_MERGE,     [BR_DP_D2C] = BR_CAUSE_SERVICE_TIME,
};

void dx_latency_split(diag_ctx *c)
{
	br_diagnosis *d = c->out;
	double sum = 0;
	for (int k = 0; k < 2; k++)
		d->q2c_mean[k] = c->f[k].q2c;
	for (int p = 0; p < BR_DP_COUNT; p++) {
		double v[2];
		for (int k = 0; k < 2; k++)
			v[k] = c->p[k]->q2c_bios ? c->p[k]->phase_sum[p] / (double)c->p[k]->q2c_bios : 0;
		d->phase_delta[p] = v[1] - v[0];
		sum += d->phase_delta[p];
	}
	d->q2c_residual = (d->q2c_mean[1] - d->q2c_mean[0]) - sum;
}

void dx_latency_terms(diag_ctx *c, bool sig)
{
	char ev[320], a1[32], a2[32], a3[32];
	for (int p = 0; p < BR_DP_COUNT; p++) {
		double v[2];
		for (int k = 0; k < 2; k++)
			v[k] = c->p[k]->phase_n[p] ? c->p[k]->phase_sum[p] / (double)c->p[k]->phase_n[p] : 0;
		const char *name = br_diag_phase_name((enum br_diag_phase)p);
		dx_say(ev, sizeof ev, "%s adds %s to %s's mean Q2C (%s avg %s vs %s)", name,
		    dx_time_str(c->out->phase_delta[p], a1, sizeof a1), c->lab[1], name,
		    dx_time_str(v[1], a2, sizeof a2), dx_time_str(v[0], a3, sizeof a3));
		dx_add_term(c, phase_causes[p], BR_FACTOR_PHASE(p), c->out->phase_delta[p], sig, ev);
		dx_flush_stage(c);
	}
}
