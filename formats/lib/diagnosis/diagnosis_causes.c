/* br_diagnose: fairness, the identity, what was counted differently, then
 * the factors' mechanisms (diagnosis_terms.c) ranked by their share of
 * the difference, noise left out (rules in blkreel/diagnosis.h). */
#include "diagnosis_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A timed difference (t over the slices) smaller than this is no
 * difference: the same job captured twice here came out up to 1.25x apart
 * (the A/A pairs' tolerance; CI saw service_time named on a 1.09x A/A at
 * t > 3), a shift between captures the slices within each cannot see.
 * Counted differences (STRUCTURAL_RATIO) still count from 1.10x. */
#define MIN_RATIO 1.25
#define WORK_DIFF 0.10        /* work that differs by more is said first */
#define STRUCTURAL_RATIO 1.10 /* see br_diagnose */
/* Same throughput, slower per IO: the same job captured twice on a shared
 * host came out up to 1.25x apart (the A/A pairs' own tolerance), a shift
 * between captures that the time slices within each cannot see (an A/A of
 * buffered reads: D2C 21.6 vs 19.5 us at t > 3). */
#define LATENCY_MIN_RATIO 1.25
#define STRUCTURAL_FACTOR 1.5
#define DIAG_MIN_RATE_REQUESTS 200

/* ---- fairness: did both traces do the same work? ---- */
static void fairness(diag_ctx *c)
{
	br_diagnosis *d = c->out;
	const br_diag_profile *w = c->p[1], *b = c->p[0];
	if (w->devices != b->devices)
		dx_note(d, "different devices: %s saw %u, %s %u; the decomposition is over all of each "
			"trace's devices (-d MAJ,MIN diagnoses one)",
		     c->lab[1], w->devices, c->lab[0], b->devices);
	else if (w->devices > 1)
		dx_note(d, "%u devices in each trace (a stack, or several disks): the decomposition is "
			"over all of them, a remapped IO counted where it completes (-d MAJ,MIN diagnoses "
			"one)",
		     w->devices);
	double app[2], wr[2];
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		app[k] = (double)(p->q_bytes > p->q_bytes_kernel ? p->q_bytes - p->q_bytes_kernel : 0);
		wr[k] = dx_pct((double)p->write_bytes, (double)(p->read_bytes + p->write_bytes));
	}
	double span_r = b->span_ns ? (double)w->span_ns / (double)b->span_ns : 0;
	if (span_r > 1 + WORK_DIFF || span_r < 1 / (1 + WORK_DIFF))
		dx_note(d, "different spans: %s ran %.2f s, %s %.2f s; rates are compared, not totals",
		     c->lab[1], (double)w->span_ns / 1e9, c->lab[0], (double)b->span_ns / 1e9);
	if (fabs(wr[1] - wr[0]) > 100 * WORK_DIFF)
		dx_note(d, "different work: %s wrote %.0f %% of its bytes, %s %.0f %%", c->lab[1], wr[1],
		     c->lab[0], wr[0]);
	if (c->f[0].w > 0 && c->f[1].w > 0) {
		if (fabs(log(c->f[0].w / c->f[1].w)) > log(1 + WORK_DIFF))
			dx_note(d, "different work: applications queued %.3g MB/s in %s against %.3g MB/s "
				   "in %s; compared per byte of that work",
				c->f[1].w, c->lab[1], c->f[0].w, c->lab[0]);
	} else {
		dx_note(d, "the work cannot be told apart from journal and writeback (applications queued "
			"%.0f %% and %.0f %% of the bytes): device MB/s is compared",
		     dx_pct(app[1], (double)w->x_bytes), dx_pct(app[0], (double)b->x_bytes));
	}
	for (int k = 0; k < 2; k++)
		if (c->p[k]->refused_bios)
			dx_note(d, "%s: %lu bios (%.1f MiB) were refused before issue (queued, then "
				"completed with an error and never issued: a non-blocking submission that "
				"found the queue full or needed a split); they are left out of the bytes "
				"served, the work queued and U, N_busy, S and R",
			     c->lab[k], (unsigned long)c->p[k]->refused_bios,
			     (double)c->p[k]->refused_bytes / 1048576.0);
	for (int k = 0; k < 2; k++)
		if (c->p[k]->lost_ios)
			dx_note(d, "%s: %lu IOs were issued and never completed (trace cut short, events "
				"lost, or a partial per-CPU set); they are not counted in flight, busy or "
				"served",
			     c->lab[k], (unsigned long)c->p[k]->lost_ios);
	for (int k = 0; k < 2; k++)
		if (c->p[k]->completed_untimed)
			dx_note(d, "%s: %lu IOs completed at an unknown time (the capture counted completions "
				"the kernel did not hand over); they have no latency and are not counted in "
				"flight, busy or served",
			     c->lab[k], (unsigned long)c->p[k]->completed_untimed);
}

static bool apart(double a, double b, double factor)
{
	double lo = fmin(a, b), hi = fmax(a, b);
	return hi > 0 && (lo <= 0 || hi / lo >= factor);
}

static void structure(diag_ctx *c)
{
	double fl[2], bio[2], per_rq[2], sp[2];
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		double n = (double)p->n, q = (double)p->q_bios;
		fl[k] = n > 0 ? (double)p->n_flush / n : 0;
		bio[k] = q > 0 ? (double)p->q_bytes / q : 0;
		per_rq[k] = n > 0 ? q / n : 0;
		sp[k] = q > 0 ? (double)p->splits / q : 0;
	}
	c->st_flush = fabs(fl[1] - fl[0]) >= 0.05 && apart(fl[0], fl[1], STRUCTURAL_FACTOR);
	c->st_size = apart(bio[0], bio[1], STRUCTURAL_FACTOR) ||
		     apart(c->f[0].s, c->f[1].s, STRUCTURAL_FACTOR);
	c->st_merge = apart(per_rq[0], per_rq[1], STRUCTURAL_FACTOR);
	c->st_split = fabs(sp[1] - sp[0]) >= 0.05;
	c->st_amp = c->f[0].amp > 0 && c->f[1].amp > 0 && apart(c->f[0].amp, c->f[1].amp, 1.2);
	double ins[2], ra[2];
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		ins[k] = p->n ? (double)p->phase_n[BR_DP_I2D] / (double)p->n : 0;
		ra[k] = p->q_bytes ? (double)p->ra_bytes / (double)p->q_bytes : 0;
	}
	c->sched = ins[1] >= 0.5 && ins[0] < 0.05;
	c->ra_window = ra[0] > 0.5 && ra[1] > 0.5 && apart(bio[0], bio[1], 4.0);
	/* the slower one flushes more, at least every other write (a flush
	 * count that differs the other way says nothing of its service time) */
	c->flush_each = c->st_flush && fl[1] >= 0.5 && fl[1] > fl[0];
}

static int by_share(const void *x, const void *y)
{
	const br_diag_cause *a = x, *b = y;
	/* equal shares: by id, which is by name (blkreel/diagnosis.h) */
	return a->share < b->share ? 1 : a->share > b->share ? -1 : (int)a->cause - (int)b->cause;
}

/* Shares of the gross difference; drop what is small or noise. */
static void rank(br_diagnosis *d)
{
	double gross = 0;
	for (size_t k = 0; k < d->ncauses; k++)
		gross += d->causes[k].term;
	for (int pass = 0; pass < 2; pass++) {
		br_diag_cause *list = pass ? d->against : d->causes;
		size_t *n = pass ? &d->nagainst : &d->ncauses, m = 0;
		for (size_t k = 0; k < *n; k++) {
			br_diag_cause x = list[k];
			x.share = gross > 0 ? fabs(x.term) / gross : 0;
			if (x.share < BR_DIAG_MIN_SHARE || !x.significant)
				continue;
			list[m++] = x;
		}
		*n = m;
		qsort(list, m, sizeof *list, by_share);
	}
}

/* A cause resting only on a timing shift: nothing counted differs behind
 * it (blkreel/diagnosis.h, BR_DIAG_RERUN_RATIO). */
static bool timed_only(const diag_ctx *c, const br_diag_cause *x, bool latency)
{
	switch (x->cause) {
	case BR_CAUSE_SERVICE_TIME:
	case BR_CAUSE_IDLE:
		return true;
	case BR_CAUSE_FLUSH:
		return !c->st_flush;
	case BR_CAUSE_SCHEDULER:
		return !c->sched;
	case BR_CAUSE_MERGE:
		return latency && !c->st_merge; /* in S, merges are counted */
	default:
		return false;
	}
}

/* How far the cause's factor moved, worse over better: in the throughput
 * identity its term is its part of ln(X_better/X_worse); in the latency
 * outcome, the ratio of its phase's mean time per bio. */
static double shift_of(const diag_ctx *c, const br_diag_cause *x, bool latency)
{
	if (!latency)
		return exp(fabs(x->term));
	for (int p = 0; p < BR_DP_COUNT; p++) {
		if (x->factor != BR_FACTOR_PHASE(p))
			continue;
		double v[2];
		for (int k = 0; k < 2; k++)
			v[k] = c->p[k]->phase_n[p] ? c->p[k]->phase_sum[p] / (double)c->p[k]->phase_n[p] : 0;
		if (v[0] <= 0 || v[1] <= 0)
			return v[0] == v[1] ? 1.0 : INFINITY;
		return v[0] > v[1] ? v[0] / v[1] : v[1] / v[0];
	}
	return exp(fabs(x->term));
}

/* One run per side: timed causes within the host's run-to-run drift move
 * from the ranking to the unconfirmed list (order by share kept). */
static void confirm(diag_ctx *c, bool latency)
{
	br_diagnosis *d = c->out;
	/* repeated runs on each side (br_diag_pool_runs): their own spread
	 * already judged the shift, so every significant cause stands */
	bool runs = c->p[0]->runs && c->p[1]->runs;
	for (size_t k = 0; k < d->nagainst; k++) {
		br_diag_cause *x = &d->against[k];
		bool timed = timed_only(c, x, latency);
		x->shift = timed ? shift_of(c, x, latency) : 0;
		x->confirmed = runs || !timed || x->shift >= BR_DIAG_RERUN_RATIO;
	}
	size_t kept = 0;
	d->nunconfirmed = 0;
	for (size_t k = 0; k < d->ncauses; k++) {
		br_diag_cause x = d->causes[k];
		bool timed = timed_only(c, &x, latency);
		x.shift = timed ? shift_of(c, &x, latency) : 0;
		x.confirmed = runs || !timed || x.shift >= BR_DIAG_RERUN_RATIO;
		if (x.confirmed)
			d->causes[kept++] = x;
		else
			d->unconfirmed[d->nunconfirmed++] = x;
	}
	d->ncauses = kept;
}

int br_diagnose(const br_diag_profile *a, const br_diag_profile *b, const char *label_a,
		const char *label_b, br_diagnosis *out, br_error *err)
{
	(void)err;
	memset(out, 0, sizeof *out);
	diag_ctx c = { .out = out };
	diag_fac fa, fb;
	diag_factors(a, &fa);
	diag_factors(b, &fb);
	if (!a->n || !b->n) {
		/* issue-only formats, or no completions captured: no D→C */
		out->outcome = BR_OUTCOME_NONE;
		dx_note(out, "%s has no data request both issued (D) and completed (C): the diagnosis needs "
			  "both",
		     !a->n ? label_a : label_b);
		return 0;
	}
	bool work = fa.w > 0 && fb.w > 0;
	bool a_better = work ? fa.w >= fb.w : fa.x >= fb.x;
	out->outcome = work ? BR_OUTCOME_WORK : BR_OUTCOME_THROUGHPUT;
	out->better = a_better ? 0 : 1;
	out->worse = a_better ? 1 : 0;
	c.p[0] = a_better ? a : b;
	c.p[1] = a_better ? b : a;
	c.lab[0] = a_better ? label_a : label_b;
	c.lab[1] = a_better ? label_b : label_a;
	c.f[0] = a_better ? fa : fb;
	c.f[1] = a_better ? fb : fa;
	for (int k = 0; k < 2; k++) {
		out->x[k] = c.f[k].x;
		out->u[k] = c.f[k].u;
		out->nbusy[k] = c.f[k].nbusy;
		out->s[k] = c.f[k].s;
		out->r[k] = c.f[k].r;
		out->residual[k] = c.f[k].residual;
		out->w[k] = c.f[k].w;
		out->amp[k] = c.f[k].amp;
	}
	out->terms[0] = dx_ratio_ln(c.f[0].u, c.f[1].u);
	out->terms[1] = dx_ratio_ln(c.f[0].nbusy, c.f[1].nbusy);
	out->terms[2] = dx_ratio_ln(c.f[0].s, c.f[1].s);
	out->terms[3] = -dx_ratio_ln(c.f[0].r, c.f[1].r);
	out->mbps_total = dx_ratio_ln(c.f[0].x, c.f[1].x);
	out->amp_term = work ? dx_ratio_ln(c.f[1].amp, c.f[0].amp) : 0;
	out->ratio = work ? c.f[0].w / c.f[1].w : c.f[1].x > 0 ? c.f[0].x / c.f[1].x : 0;
	static const int metric[4] = { DIAG_M_U, DIAG_M_N, DIAG_M_S, DIAG_M_R };
	for (int k = 0; k < 4; k++) {
		out->t_factor[k] = diag_welch(c.p[0], c.p[1], metric[k]);
		out->t_need_factor[k] = diag_t_need(c.p[0], c.p[1], metric[k], BR_DIAG_RUNS_CAUSE_ALPHA);
	}
	out->t_outcome = diag_welch(c.p[0], c.p[1], work ? DIAG_M_W : DIAG_M_X);
	out->t_need_outcome = diag_t_need(c.p[0], c.p[1], work ? DIAG_M_W : DIAG_M_X, BR_DIAG_RUNS_ALPHA);
	dx_latency_split(&c);
	diag_ko_out ko;
	diag_ko(c.p[1], c.p[0], &ko);
	out->ko_mix = ko.mix;
	out->ko_rate = ko.rate;
	out->ko_mix_seek = ko.mix_seek;
	out->ko_mix_size = ko.mix_size;
	out->ko_q2c_mix = ko.q2c_mix;
	out->ko_q2c_rate = ko.q2c_rate;
	fairness(&c);
	for (int k = 0; k < 2; k++)
		if (fabs(c.f[k].residual) > 0.01)
			dx_note(out, "%s: the identity misses by %.1f %%: %.1f %% of its completed bytes "
				  "belong to requests whose issue (D) the trace does not hold (it started "
				  "while they were in flight, or their D was lost)",
			     c.lab[k], 100 * (exp(c.f[k].residual) - 1), 100 * (1 - exp(-c.f[k].residual)));
	/* runs on each side measure the shift between runs themselves */
	bool runs = a->runs && b->runs;
	out->significant = out->ratio >= (runs ? BR_DIAG_RUNS_MIN_RATIO : MIN_RATIO) &&
			   fabs(out->t_outcome) >= out->t_need_outcome;
	structure(&c);
	if (!out->significant && out->ratio >= STRUCTURAL_RATIO &&
	    (c.st_flush || c.st_size || c.st_merge || c.st_split || c.st_amp || c.sched))
		out->significant = true;
	if (!out->significant && out->ratio >= STRUCTURAL_RATIO) {
		/* bursty work hides a steady difference in the slices' rates: a
		 * factor that differs by half or more, beyond its own noise,
		 * pointing the way of the outcome, is a difference in how the
		 * work was done, not noise */
		double fr[4] = { c.f[0].u / c.f[1].u, c.f[0].nbusy / c.f[1].nbusy, c.f[0].s / c.f[1].s,
				 c.f[1].r / c.f[0].r };
		for (int k = 0; k < 4; k++) {
			/* here the factor shows that the sides differ at all: the outcome's bar */
			double need = diag_t_need(c.p[0], c.p[1], metric[k], BR_DIAG_RUNS_ALPHA);
			if (fr[k] >= STRUCTURAL_FACTOR && fabs(out->t_factor[k]) >= need &&
			    (k != 3 || (c.p[0]->n >= DIAG_MIN_RATE_REQUESTS &&
					c.p[1]->n >= DIAG_MIN_RATE_REQUESTS)))
				out->significant = true;
		}
	}
	if (out->significant) {
		if (work) {
			char ev[320];
			const br_diag_profile *w = c.p[1], *bb = c.p[0];
			dx_say(ev, sizeof ev,
			    "%s moved %.2f device bytes per byte applications queued against %.2f (%s): "
			    "kernel threads (journal, writeback) queued %.0f %% vs %.0f %% of its bytes",
			    c.lab[1], c.f[1].amp, c.f[0].amp, c.lab[0],
			    dx_pct((double)w->q_bytes_kernel, (double)w->q_bytes),
			    dx_pct((double)bb->q_bytes_kernel, (double)bb->q_bytes));
			dx_add_term(&c, BR_CAUSE_AMPLIFICATION, BR_FACTOR_BYTES_PER_WORK, out->amp_term,
				 c.st_amp || fabs(diag_welch(c.p[0], c.p[1], DIAG_M_AMP)) >=
						    diag_t_need(c.p[0], c.p[1], DIAG_M_AMP, BR_DIAG_RUNS_CAUSE_ALPHA),
				 ev);
		}
		dx_flush_stage(&c);
		dx_idle_terms(&c, out->terms[0], fabs(out->t_factor[0]) >= out->t_need_factor[0]);
		dx_flush_stage(&c);
		dx_concurrency_term(&c, out->terms[1], fabs(out->t_factor[1]) >= out->t_need_factor[1]);
		dx_flush_stage(&c);
		/* bigger requests served proportionally slower (a device bound
		 * by bandwidth): when S and R point different ways, only their
		 * net is the effect of request size, given to the larger one */
		double ts = out->terms[2], tr = out->terms[3];
		bool net_sr = ts * tr < 0, s_side = fabs(ts) >= fabs(tr);
		if (!net_sr || s_side)
			dx_size_terms(&c, net_sr ? ts + tr : ts, fabs(out->t_factor[2]) >= out->t_need_factor[2]);
		dx_flush_stage(&c);
		/* a device's speed drifts from run to run: with few requests a
		 * slower device cannot be told from a slower run */
		bool enough = c.p[0]->n >= DIAG_MIN_RATE_REQUESTS && c.p[1]->n >= DIAG_MIN_RATE_REQUESTS;
		if (!net_sr || !s_side)
			dx_service_terms(&c, net_sr ? ts + tr : tr, enough && fabs(out->t_factor[3]) >= out->t_need_factor[3]);
		dx_flush_stage(&c);
		rank(out);
		confirm(&c, false);
		return 0;
	}
	/* same throughput: is one slower per IO? */
	double qa = fa.q2c, qb = fb.q2c;
	if (qa > 0 && qb > 0 && fmax(qa, qb) / fmin(qa, qb) >= (runs ? BR_DIAG_RUNS_MIN_RATIO : LATENCY_MIN_RATIO)) {
		double t = diag_welch(a, b, DIAG_M_Q2C), need = diag_t_need(a, b, DIAG_M_Q2C, BR_DIAG_RUNS_ALPHA);
		if (fabs(t) >= need) {
			bool a_faster = qa <= qb;
			c.p[0] = a_faster ? a : b;
			c.p[1] = a_faster ? b : a;
			c.lab[0] = a_faster ? label_a : label_b;
			c.lab[1] = a_faster ? label_b : label_a;
			c.f[0] = a_faster ? fa : fb;
			c.f[1] = a_faster ? fb : fa;
			out->better = a_faster ? 0 : 1;
			out->worse = a_faster ? 1 : 0;
			out->outcome = BR_OUTCOME_LATENCY;
			out->significant = true;
			out->ratio = c.f[1].q2c / c.f[0].q2c;
			out->t_outcome = fabs(t);
			out->t_need_outcome = need;
			diag_ko(c.p[1], c.p[0], &ko);
			out->ko_mix = ko.mix;
			out->ko_rate = ko.rate;
			out->ko_q2c_mix = ko.q2c_mix;
			out->ko_q2c_rate = ko.q2c_rate;
			dx_latency_split(&c);
			dx_latency_terms(&c, true);
			rank(out);
			confirm(&c, true);
			return 0;
		}
	}
	out->ncauses = out->nagainst = out->nunconfirmed = 0;
	return 0;
}
