/* br_diagnose: from the factors of two traces to ranked causes with their
 * share of the difference and the events that show them (rules in
 * blkreel/diagnosis.h). */
#include "diagnosis_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_RATIO 1.03        /* a smaller outcome difference is no difference */
#define WORK_DIFF 0.10        /* work that differs by more is said first */
#define STRUCTURAL_RATIO 1.10 /* see br_diagnose */
#define STRUCTURAL_FACTOR 1.5
#define DIAG_MIN_RATE_REQUESTS 200

typedef struct staged {
	const char *cause, *factor;
	double term;
	bool sig;
	char evidence[320];
} staged;

typedef struct ctx {
	const br_diag_profile *p[2];  /* [0] better, [1] worse */
	const char *lab[2];
	diag_fac f[2];
	br_diagnosis *out;
	/* differences in what the stacks did, counted, not timed: no run-to-run
	 * noise makes a flush per write out of none */
	bool st_flush, st_size, st_merge, st_split, st_amp;
	bool sched;                   /* only the slower stack runs an IO scheduler (I events) */
	bool ra_window;               /* both read ahead, with windows far apart */
	bool flush_each;              /* the slower one flushes at least every other write */
	staged stage[8];              /* the mechanisms of one factor */
	size_t nstage;
} ctx;

static double ratio_ln(double a, double b)
{
	return a > 0 && b > 0 ? log(a / b) : 0;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static void say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static void note(br_diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(br_diagnosis *d, const char *fmt, ...)
{
	if (d->nnotes == BR_DIAG_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->notes[d->nnotes++], sizeof d->notes[0], fmt, ap);
	va_end(ap);
}

/* A term toward (term > 0) or against the difference; same ids merge. */
static void commit_term(ctx *c, const char *cause, const char *factor, double term, bool sig,
		     const char *evidence)
{
	br_diagnosis *d = c->out;
	br_diag_cause *list = term >= 0 ? d->causes : d->against;
	size_t *n = term >= 0 ? &d->ncauses : &d->nagainst;
	for (size_t k = 0; k < *n; k++)
		if (!strcmp(list[k].cause, cause)) {
			br_diag_cause *x = &list[k];
			if (fabs(term) > fabs(x->term)) {
				x->factor = factor;
				snprintf(x->evidence, sizeof x->evidence, "%s", evidence);
			}
			x->term += term;
			x->significant |= sig;
			return;
		}
	if (*n == BR_DIAG_MAX_CAUSES)
		return;
	br_diag_cause *x = &list[(*n)++];
	memset(x, 0, sizeof *x);
	x->cause = cause;
	x->factor = factor;
	x->term = term;
	x->significant = sig;
	snprintf(x->evidence, sizeof x->evidence, "%s", evidence);
}

static void add_term(ctx *c, const char *cause, const char *factor, double term, bool sig,
		     const char *evidence)
{
	if (c->nstage == sizeof c->stage / sizeof c->stage[0])
		return;
	staged *x = &c->stage[c->nstage++];
	x->cause = cause;
	x->factor = factor;
	x->term = term;
	x->sig = sig;
	snprintf(x->evidence, sizeof x->evidence, "%s", evidence);
}

/* The mechanisms of one factor: when they point different ways (small
 * bios merged into large requests), their gross sizes would overstate
 * both; the factor's net term then goes to the largest mechanism that
 * points its way. */
static void flush_stage(ctx *c)
{
	double net = 0;
	bool mixed = false;
	for (size_t k = 0; k < c->nstage; k++)
		net += c->stage[k].term;
	for (size_t k = 0; k < c->nstage; k++)
		if (fabs(c->stage[k].term) > 1e-12 && (c->stage[k].term > 0) != (net > 0))
			mixed = true;
	if (!mixed) {
		for (size_t k = 0; k < c->nstage; k++)
			commit_term(c, c->stage[k].cause, c->stage[k].factor, c->stage[k].term,
				    c->stage[k].sig, c->stage[k].evidence);
	} else {
		size_t best = 0;
		for (size_t k = 1; k < c->nstage; k++)
			if (c->stage[k].term * (net > 0 ? 1 : -1) > c->stage[best].term * (net > 0 ? 1 : -1))
				best = k;
		commit_term(c, c->stage[best].cause, c->stage[best].factor, net, c->stage[best].sig,
			    c->stage[best].evidence);
	}
	c->nstage = 0;
}

static char *size_str(double bytes, char *buf, size_t n)
{
	if (bytes >= 1048576)
		snprintf(buf, n, "%.2f MiB", bytes / 1048576);
	else if (bytes >= 1024)
		snprintf(buf, n, "%.1f KiB", bytes / 1024);
	else
		snprintf(buf, n, "%.0f B", bytes);
	return buf;
}

static char *time_str(double ns, char *buf, size_t n)
{
	if (ns >= 1e9)
		snprintf(buf, n, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.1f us", ns / 1e3);
	return buf;
}

/* When the stacks differ in a way the events show (a scheduler on one
 * only; read-ahead windows far apart), in-flight and idle time follow from
 * it: say so in the evidence. */
static void other_stack(ctx *c, char *ev, size_t size)
{
	char a1[32], a2[32];
	const br_diag_profile *w = c->p[1], *b = c->p[0];
	double idle_w = 100 * (1 - c->f[1].u), idle_b = 100 * (1 - c->f[0].u);
	if (c->sched)
		say(ev, size,
		    "%s's requests go through an IO scheduler (%lu of %lu inserted, I2D avg %.1f us) and "
		    "%s's do not; with it the device was idle %.1f %% vs %.1f %% of the run and had %.2f "
		    "vs %.2f requests in flight while busy",
		    c->lab[1], (unsigned long)w->phase_n[BR_DP_I2D], (unsigned long)w->n,
		    w->phase_n[BR_DP_I2D] ? w->phase_sum[BR_DP_I2D] / (double)w->phase_n[BR_DP_I2D] / 1e3 : 0,
		    c->lab[0], idle_w, idle_b, c->f[1].nbusy, c->f[0].nbusy);
	else
		say(ev, size,
		    "read-ahead fetched %s per bio for %s against %s for %s, asynchronously: %.2f vs %.2f "
		    "requests in flight while busy, idle %.1f %% vs %.1f %% of the run",
		    size_str(b->q_bios ? (double)b->q_bytes / (double)b->q_bios : 0, a1, sizeof a1), c->lab[0],
		    size_str(w->q_bios ? (double)w->q_bytes / (double)w->q_bios : 0, a2, sizeof a2), c->lab[1],
		    c->f[0].nbusy, c->f[1].nbusy, idle_b, idle_w);
}

/* ---- U: idle time, by what the block layer held ---- */
static void idle_terms(ctx *c, double term, bool sig)
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
			 pct((double)w->gap_ender_n, (double)w->idle_gaps));
	say(ev, sizeof ev,
	    "%s's device was idle %.1f %% of the run against %.1f %% (%s) with nothing queued; "
	    "%.0f %% vs %.0f %% of its idle gaps ended by a Q within 100 us of the last completion "
	    "(a dependency chain), the rest host think time%s",
	    c->lab[1], 100 * part[1][2], 100 * part[0][2], c->lab[0],
	    pct((double)w->idle_gaps_chained, (double)w->idle_gaps),
	    pct((double)b->idle_gaps_chained, (double)b->idle_gaps), who);
	if (c->sched || c->ra_window)
		other_stack(c, ev, sizeof ev);
	add_term(c, c->sched ? "scheduler" : c->ra_window ? "readahead" : "idle", "U",
		 term * dpart[2] / dsum, sig, ev);
	say(ev, sizeof ev,
	    "%s's device sat idle right after a flush completed for %.1f %% of the run against %.1f "
	    "%% (%s): %lu vs %lu flushes, %.1f vs %.1f requests in flight when one was issued",
	    c->lab[1], 100 * part[1][1], 100 * part[0][1], c->lab[0], (unsigned long)w->n_flush,
	    (unsigned long)b->n_flush, w->n_flush ? w->depth_at_flush_sum / (double)w->n_flush : 0,
	    b->n_flush ? b->depth_at_flush_sum / (double)b->n_flush : 0);
	add_term(c, "flush", "U", term * dpart[1] / dsum, sig || c->st_flush, ev);
	say(ev, sizeof ev,
	    "requests sat queued but not dispatched while %s's device was idle for %.1f %% of the run "
	    "against %.1f %% (%s): the block layer held them (plugging, scheduler)",
	    c->lab[1], 100 * part[1][0], 100 * part[0][0], c->lab[0]);
	/* a requeued request waits, queued, for its next dispatch */
	double rq[2];
	for (int k = 0; k < 2; k++)
		rq[k] = c->p[k]->n ? (double)c->p[k]->requeues / (double)c->p[k]->n : 0;
	bool requeue = rq[1] >= 0.01 && rq[1] > 2 * rq[0];
	if (requeue)
		say(ev, sizeof ev,
		    "the driver handed %lu of %s's requests back (%.1f %% vs %.1f %% of %s's): they sat "
		    "queued, not dispatched, while the device was idle for %.1f %% of the run against %.1f %%",
		    (unsigned long)w->requeues, c->lab[1], 100 * rq[1], 100 * rq[0], c->lab[0],
		    100 * part[1][0], 100 * part[0][0]);
	add_term(c, requeue ? "requeue" : "scheduler", "U", term * dpart[0] / dsum, sig, ev);
	(void)idle_w;
	(void)idle_b;
}

/* ---- N_busy: requests in flight while busy ---- */
static void concurrency_term(ctx *c, double term, bool sig)
{
	char ev[320];
	double pend[2];
	for (int k = 0; k < 2; k++)
		pend[k] = c->p[k]->busy_ns ? c->p[k]->pending_busy_area / (double)c->p[k]->busy_ns : 0;
	bool held = term > 0 && pend[1] > pend[0] + 0.5;
	say(ev, sizeof ev,
	    "%.2f vs %.2f requests in flight while the device was busy (%s vs %s); %.2f vs %.2f more "
	    "queued but not dispatched; %lu vs %lu flushes",
	    c->f[1].nbusy, c->f[0].nbusy, c->lab[1], c->lab[0], pend[1], pend[0],
	    (unsigned long)c->p[1]->n_flush, (unsigned long)c->p[0]->n_flush);
	if (c->sched || c->ra_window)
		other_stack(c, ev, sizeof ev);
	add_term(c, held || c->sched ? "scheduler" : c->ra_window ? "readahead" : "concurrency", "N_busy",
		 term, sig, ev);
}

/* ---- S: bytes per request ---- */
static void size_terms(ctx *c, double term, bool sig)
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
		say(ev, sizeof ev, "%s per request in %s vs %s in %s (no Q events to say why)",
		    size_str(c->f[1].s, a1, sizeof a1), c->lab[1], size_str(c->f[0].s, a2, sizeof a2),
		    c->lab[0]);
		add_term(c, "io_size", "S", term, sig, ev);
		return;
	}
	/* S = app size × bios per request × (paired bytes / queued bytes) */
	double t_app = ratio_ln(app[0], app[1]), t_merge = ratio_ln(merge[0], merge[1]);
	double t_split = ratio_ln(split[0], split[1]), t_rest = ratio_ln(rest[0], rest[1]);
	double sum = t_app + t_merge + t_split + t_rest;
	double k = fabs(sum) > 1e-12 ? term / sum : 0; /* = 1 but for rounding */
	/* read-ahead decides the size of read-ahead bios: when most of the
	 * bytes are read ahead, a change in their size is its window */
	bool by_ra = fabs(ra[1] - ra[0]) > 0.10 || (ra[1] > 0.5 && ra[0] > 0.5);
	if (by_ra)
		say(ev, sizeof ev,
		    "read-ahead made %.0f %% of the bytes %s queued against %.0f %% (%s): %s vs %s per bio",
		    100 * ra[1], c->lab[1], 100 * ra[0], c->lab[0], size_str(app[1], a1, sizeof a1),
		    size_str(app[0], a2, sizeof a2));
	else
		say(ev, sizeof ev,
		    "%s queued %s per bio against %s (%s); %s vs %s per request at the device",
		    c->lab[1], size_str(app[1], a1, sizeof a1), size_str(app[0], a2, sizeof a2),
		    c->lab[0], size_str(c->f[1].s, a3, sizeof a3), size_str(c->f[0].s, a4, sizeof a4));
	add_term(c, by_ra ? "readahead" : "io_size", "S", k * (t_app + t_rest), sig || c->st_size, ev);
	say(ev, sizeof ev, "%.2f vs %.2f bios per data request (%s vs %s): %lu vs %lu merges of %lu vs %lu bios",
	    merge[1], merge[0], c->lab[1], c->lab[0], (unsigned long)c->p[1]->merges,
	    (unsigned long)c->p[0]->merges, (unsigned long)c->p[1]->q_bios,
	    (unsigned long)c->p[0]->q_bios);
	add_term(c, "merge", "S", k * t_merge, sig || c->st_merge, ev);
	bool splits = c->p[0]->splits || c->p[1]->splits;
	say(ev, sizeof ev, "%lu vs %lu bios split (%s vs %s): %.2f vs %.2f requests per unmerged bio",
	    (unsigned long)c->p[1]->splits, (unsigned long)c->p[0]->splits, c->lab[1], c->lab[0],
	    split[1] > 0 ? 1 / split[1] : 0, split[0] > 0 ? 1 / split[0] : 0);
	add_term(c, splits ? "split" : "io_size", "S", k * t_split, sig || c->st_split, ev);
}

/* ---- R: device time per request ---- */
static void service_terms(ctx *c, double term, bool sig)
{
	char ev[320], a1[32], a2[32], a3[32], a4[32];
	double rd[2], fl[2];
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		rd[k] = p->n ? p->d2c_data / (double)p->n : 0;
		fl[k] = p->d2c_data > 0 ? p->d2c_flush / p->d2c_data : 0;
	}
	/* R = data D2C per request × (1 + flush D2C / data D2C) */
	double t_flush = ratio_ln(1 + fl[1], 1 + fl[0]), t_data = ratio_ln(rd[1], rd[0]);
	double sum = t_flush + t_data, k = fabs(sum) > 1e-12 ? term / sum : 0;
	const br_diag_profile *w = c->p[1], *b = c->p[0];
	say(ev, sizeof ev,
	    "flushes took %.1f %% of %s's device time against %.1f %% (%s): %lu vs %lu flushes, "
	    "%s vs %s each",
	    pct(w->d2c_flush, w->d2c_flush + w->d2c_data), c->lab[1],
	    pct(b->d2c_flush, b->d2c_flush + b->d2c_data), c->lab[0], (unsigned long)w->n_flush,
	    (unsigned long)b->n_flush, time_str(w->n_flush ? w->d2c_flush / (double)w->n_flush : 0, a1, sizeof a1),
	    time_str(b->n_flush ? b->d2c_flush / (double)b->n_flush : 0, a2, sizeof a2));
	add_term(c, "flush", "R", k * t_flush, sig || c->st_flush, ev);
	diag_ko_out ko = { .mix = c->out->ko_mix, .rate = c->out->ko_rate,
			   .mix_seek = c->out->ko_mix_seek, .mix_size = c->out->ko_mix_size };
	double delta = ko.mix + ko.rate, td = k * t_data;
	if (fabs(delta) < 1e-9)
		return;
	say(ev, sizeof ev,
	    "the same IO classes took %s vs %s at the device (%s vs %s): the rate effect is %s of "
	    "the %s difference in mean D2C",
	    time_str(rd[1] - ko.mix / 2, a1, sizeof a1), time_str(rd[0] + ko.mix / 2, a2, sizeof a2),
	    c->lab[1], c->lab[0], time_str(ko.rate, a3, sizeof a3), time_str(delta, a4, sizeof a4));
	/* only one of the two stacks inserts requests into an IO scheduler
	 * (I events): the same IO served slower is its doing first */
	double ins[2];
	for (int j = 0; j < 2; j++)
		ins[j] = c->p[j]->n ? (double)c->p[j]->phase_n[BR_DP_I2D] / (double)c->p[j]->n : 0;
	if (c->flush_each && !c->sched) {
		say(ev, sizeof ev,
		    "%s issued %.2f flushes per write against %.2f (%s): a flush empties the device's "
		    "write cache, and the same IO classes took %s vs %s at the device",
		    c->lab[1], (double)w->n_flush / (double)(w->n ? w->n : 1),
		    (double)b->n_flush / (double)(b->n ? b->n : 1), c->lab[0],
		    time_str(rd[1] - ko.mix / 2, a1, sizeof a1), time_str(rd[0] + ko.mix / 2, a2, sizeof a2));
		add_term(c, "flush", "R", td * ko.rate / delta, sig || c->st_flush, ev);
	} else if (ins[1] >= 0.5 && ins[0] < 0.05) {
		say(ev, sizeof ev,
		    "%s's requests went through an IO scheduler (%.0f %% inserted, I2D avg %s) and %s's "
		    "did not; the same IO classes took %s vs %s at the device",
		    c->lab[1], 100 * ins[1],
		    time_str(w->phase_n[BR_DP_I2D] ? w->phase_sum[BR_DP_I2D] / (double)w->phase_n[BR_DP_I2D] : 0,
			     a3, sizeof a3),
		    c->lab[0], time_str(rd[1] - ko.mix / 2, a1, sizeof a1),
		    time_str(rd[0] + ko.mix / 2, a2, sizeof a2));
		add_term(c, "scheduler", "R", td * ko.rate / delta, sig, ev);
	} else {
		add_term(c, "service_time", "R", td * ko.rate / delta, sig, ev);
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
		far[j] = pct(f, n);
	}
	double mix_term = td * ko.mix / delta;
	if (ms + mz <= 0) {
		ms = 0;
		mz = 1;
	}
	say(ev, sizeof ev,
	    "%.0f %% of %s's requests started more than 1 MiB from the previous one against %.0f %% "
	    "(%s): the mix of seek distances adds %s to its mean D2C",
	    far[1], c->lab[1], far[0], c->lab[0], time_str(ko.mix_seek, a1, sizeof a1));
	add_term(c, "seek", "R", mix_term * ms / (ms + mz), sig, ev);
	say(ev, sizeof ev,
	    "a different mix of sizes and directions (%s vs %s per request, %.0f %% vs %.0f %% "
	    "writes by bytes) adds %s to %s's mean D2C",
	    size_str(c->f[1].s, a1, sizeof a1), size_str(c->f[0].s, a2, sizeof a2),
	    pct((double)w->write_bytes, (double)(w->read_bytes + w->write_bytes)),
	    pct((double)b->write_bytes, (double)(b->read_bytes + b->write_bytes)),
	    time_str(ko.mix_size, a3, sizeof a3), c->lab[1]);
	add_term(c, "io_size", "R", mix_term * mz / (ms + mz), sig, ev);
}

/* ---- latency: the change in mean Q2C by phase ---- */
static const char *const phase_names[BR_DP_COUNT] = { "Q2G", "G2I", "Q2M", "I2D", "M2D", "D2C" };
static const char *const phase_causes[BR_DP_COUNT] = {
	"scheduler", "scheduler", "merge", "scheduler", "merge", "service_time",
};

const char *br_diag_phase_name(enum br_diag_phase p)
{
	return (unsigned)p < BR_DP_COUNT ? phase_names[p] : "?";
}

static void latency_split(ctx *c)
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

static void latency_terms(ctx *c, bool sig)
{
	char ev[320], a1[32], a2[32], a3[32];
	for (int p = 0; p < BR_DP_COUNT; p++) {
		double v[2];
		for (int k = 0; k < 2; k++)
			v[k] = c->p[k]->phase_n[p] ? c->p[k]->phase_sum[p] / (double)c->p[k]->phase_n[p] : 0;
		say(ev, sizeof ev, "%s adds %s to %s's mean Q2C (%s avg %s vs %s)", phase_names[p],
		    time_str(c->out->phase_delta[p], a1, sizeof a1), c->lab[1], phase_names[p],
		    time_str(v[1], a2, sizeof a2), time_str(v[0], a3, sizeof a3));
		add_term(c, phase_causes[p], phase_names[p], c->out->phase_delta[p], sig, ev);
		flush_stage(c);
	}
}

/* ---- fairness: did both traces do the same work? ---- */
static void fairness(ctx *c)
{
	br_diagnosis *d = c->out;
	const br_diag_profile *w = c->p[1], *b = c->p[0];
	if (w->devices != b->devices)
		note(d, "different devices: %s saw %u, %s %u; the decomposition is over all of each "
			"trace's devices",
		     c->lab[1], w->devices, c->lab[0], b->devices);
	double app[2], wr[2];
	for (int k = 0; k < 2; k++) {
		const br_diag_profile *p = c->p[k];
		app[k] = (double)(p->q_bytes > p->q_bytes_kernel ? p->q_bytes - p->q_bytes_kernel : 0);
		wr[k] = pct((double)p->write_bytes, (double)(p->read_bytes + p->write_bytes));
	}
	double span_r = b->span_ns ? (double)w->span_ns / (double)b->span_ns : 0;
	if (span_r > 1 + WORK_DIFF || span_r < 1 / (1 + WORK_DIFF))
		note(d, "different spans: %s ran %.2f s, %s %.2f s; rates are compared, not totals",
		     c->lab[1], (double)w->span_ns / 1e9, c->lab[0], (double)b->span_ns / 1e9);
	if (fabs(wr[1] - wr[0]) > 100 * WORK_DIFF)
		note(d, "different work: %s wrote %.0f %% of its bytes, %s %.0f %%", c->lab[1], wr[1],
		     c->lab[0], wr[0]);
	if (c->f[0].w > 0 && c->f[1].w > 0) {
		note(d, "different work: applications queued %.2f MB/s in %s against %.2f MB/s in %s; "
			"compared per byte of that work",
		     c->f[1].w, c->lab[1], c->f[0].w, c->lab[0]);
	} else {
		note(d, "the work cannot be told apart from journal and writeback (applications queued "
			"%.0f %% and %.0f %% of the bytes): device MB/s is compared",
		     pct(app[1], (double)w->x_bytes), pct(app[0], (double)b->x_bytes));
	}
	for (int k = 0; k < 2; k++)
		if (c->p[k]->lost_ios)
			note(d, "%s: %lu IOs were issued and never completed (trace cut short, events "
				"lost, or a partial per-CPU set); they are not counted in flight, busy or "
				"served",
			     c->lab[k], (unsigned long)c->p[k]->lost_ios);
}

static bool apart(double a, double b, double factor)
{
	double lo = fmin(a, b), hi = fmax(a, b);
	return hi > 0 && (lo <= 0 || hi / lo >= factor);
}

static void structure(ctx *c)
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
	c->flush_each = c->st_flush && fl[1] >= 0.5;
}

static int by_share(const void *x, const void *y)
{
	const br_diag_cause *a = x, *b = y;
	return a->share < b->share ? 1 : a->share > b->share ? -1 : strcmp(a->cause, b->cause);
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

int br_diagnose(const br_diag_profile *a, const br_diag_profile *b, const char *label_a,
		const char *label_b, br_diagnosis *out, br_error *err)
{
	(void)err;
	memset(out, 0, sizeof *out);
	ctx c = { .out = out };
	diag_fac fa, fb;
	diag_factors(a, &fa);
	diag_factors(b, &fb);
	if (!a->n || !b->n) {
		/* issue-only formats, or no completions captured: no D→C */
		out->outcome = "none";
		note(out, "%s has no data request both issued (D) and completed (C): the diagnosis needs "
			  "both",
		     !a->n ? label_a : label_b);
		return 0;
	}
	bool work = fa.w > 0 && fb.w > 0;
	bool a_better = work ? fa.w >= fb.w : fa.x >= fb.x;
	out->outcome = work ? "work" : "throughput";
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
	out->terms[0] = ratio_ln(c.f[0].u, c.f[1].u);
	out->terms[1] = ratio_ln(c.f[0].nbusy, c.f[1].nbusy);
	out->terms[2] = ratio_ln(c.f[0].s, c.f[1].s);
	out->terms[3] = -ratio_ln(c.f[0].r, c.f[1].r);
	out->mbps_total = ratio_ln(c.f[0].x, c.f[1].x);
	out->amp_term = work ? ratio_ln(c.f[1].amp, c.f[0].amp) : 0;
	out->ratio = work ? c.f[0].w / c.f[1].w : c.f[1].x > 0 ? c.f[0].x / c.f[1].x : 0;
	static const int metric[4] = { DIAG_M_U, DIAG_M_N, DIAG_M_S, DIAG_M_R };
	for (int k = 0; k < 4; k++)
		out->t_factor[k] = diag_welch(c.p[0], c.p[1], metric[k]);
	out->t_outcome = diag_welch(c.p[0], c.p[1], work ? DIAG_M_W : DIAG_M_X);
	latency_split(&c);
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
			note(out, "%s: the identity misses by %.1f %%: %.1f %% of its completed bytes "
				  "belong to requests whose issue (D) the trace does not hold (it started "
				  "while they were in flight, or their D was lost)",
			     c.lab[k], 100 * (exp(c.f[k].residual) - 1), 100 * (1 - exp(-c.f[k].residual)));
	out->significant = out->ratio >= MIN_RATIO && fabs(out->t_outcome) >= BR_DIAG_T_MIN;
	structure(&c);
	if (!out->significant && out->ratio >= STRUCTURAL_RATIO &&
	    (c.st_flush || c.st_size || c.st_merge || c.st_split || c.st_amp))
		out->significant = true;
	if (!out->significant && out->ratio >= STRUCTURAL_RATIO) {
		/* bursty work hides a steady difference in the slices' rates: a
		 * factor that differs by half or more, beyond its own noise,
		 * pointing the way of the outcome, is a difference in how the
		 * work was done, not noise */
		double fr[4] = { c.f[0].u / c.f[1].u, c.f[0].nbusy / c.f[1].nbusy, c.f[0].s / c.f[1].s,
				 c.f[1].r / c.f[0].r };
		for (int k = 0; k < 4; k++)
			if (fr[k] >= STRUCTURAL_FACTOR && fabs(out->t_factor[k]) >= BR_DIAG_T_MIN &&
			    (k != 3 || (c.p[0]->n >= DIAG_MIN_RATE_REQUESTS &&
					c.p[1]->n >= DIAG_MIN_RATE_REQUESTS)))
				out->significant = true;
	}
	if (out->significant) {
		if (work) {
			char ev[320];
			const br_diag_profile *w = c.p[1], *bb = c.p[0];
			say(ev, sizeof ev,
			    "%s moved %.2f device bytes per byte applications queued against %.2f (%s): "
			    "kernel threads (journal, writeback) queued %.0f %% vs %.0f %% of its bytes",
			    c.lab[1], c.f[1].amp, c.f[0].amp, c.lab[0],
			    pct((double)w->q_bytes_kernel, (double)w->q_bytes),
			    pct((double)bb->q_bytes_kernel, (double)bb->q_bytes));
			add_term(&c, "amplification", "bytes_per_work", out->amp_term,
				 c.st_amp || fabs(diag_welch(c.p[0], c.p[1], DIAG_M_AMP)) >= BR_DIAG_T_MIN, ev);
		}
		flush_stage(&c);
		idle_terms(&c, out->terms[0], fabs(out->t_factor[0]) >= BR_DIAG_T_MIN);
		flush_stage(&c);
		concurrency_term(&c, out->terms[1], fabs(out->t_factor[1]) >= BR_DIAG_T_MIN);
		flush_stage(&c);
		/* bigger requests served proportionally slower (a device bound
		 * by bandwidth): when S and R point different ways, only their
		 * net is the effect of request size, given to the larger one */
		double ts = out->terms[2], tr = out->terms[3];
		bool net_sr = ts * tr < 0, s_side = fabs(ts) >= fabs(tr);
		if (!net_sr || s_side)
			size_terms(&c, net_sr ? ts + tr : ts, fabs(out->t_factor[2]) >= BR_DIAG_T_MIN);
		flush_stage(&c);
		/* a device's speed drifts from run to run: with few requests a
		 * slower device cannot be told from a slower run */
		bool enough = c.p[0]->n >= DIAG_MIN_RATE_REQUESTS && c.p[1]->n >= DIAG_MIN_RATE_REQUESTS;
		if (!net_sr || !s_side)
			service_terms(&c, net_sr ? ts + tr : tr, enough && fabs(out->t_factor[3]) >= BR_DIAG_T_MIN);
		flush_stage(&c);
		rank(out);
		return 0;
	}
	/* same throughput: is one slower per IO? */
	double qa = fa.q2c, qb = fb.q2c;
	if (qa > 0 && qb > 0 && fmax(qa, qb) / fmin(qa, qb) >= 1 + BR_DIAG_MIN_SHARE) {
		double t = diag_welch(a, b, DIAG_M_Q2C);
		if (fabs(t) >= BR_DIAG_T_MIN) {
			bool a_faster = qa <= qb;
			c.p[0] = a_faster ? a : b;
			c.p[1] = a_faster ? b : a;
			c.lab[0] = a_faster ? label_a : label_b;
			c.lab[1] = a_faster ? label_b : label_a;
			c.f[0] = a_faster ? fa : fb;
			c.f[1] = a_faster ? fb : fa;
			out->better = a_faster ? 0 : 1;
			out->worse = a_faster ? 1 : 0;
			out->outcome = "latency";
			out->significant = true;
			out->ratio = c.f[1].q2c / c.f[0].q2c;
			out->t_outcome = fabs(t);
			diag_ko(c.p[1], c.p[0], &ko);
			out->ko_mix = ko.mix;
			out->ko_rate = ko.rate;
			out->ko_q2c_mix = ko.q2c_mix;
			out->ko_q2c_rate = ko.q2c_rate;
			latency_split(&c);
			latency_terms(&c, true);
			rank(out);
			return 0;
		}
	}
	out->ncauses = out->nagainst = 0;
	return 0;
}
