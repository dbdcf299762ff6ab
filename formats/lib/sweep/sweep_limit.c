/* The knee of one stack's sweep and the limit past it, by the rules of
 * blkreel/sweep.h, with the numbers that show it. */
#include "sweep_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The diagnosis' names: the identity's factors, and the cause that more
 * device bytes per byte of work is. */
const char *br_sweep_term_name(int term)
{
	switch (term) {
	case BR_SWEEP_T_U: return br_diag_factor_name(BR_FACTOR_U);
	case BR_SWEEP_T_N: return br_diag_factor_name(BR_FACTOR_N_BUSY);
	case BR_SWEEP_T_S: return br_diag_factor_name(BR_FACTOR_S);
	case BR_SWEEP_T_R: return br_diag_factor_name(BR_FACTOR_R);
	case BR_SWEEP_T_AMP: return br_diag_cause_name(BR_CAUSE_AMPLIFICATION);
	default: return "-";
	}
}

double br_sweep_outcome(const br_sweep_stack *st, size_t k)
{
	return st->work ? st->points[k].f.w : st->points[k].f.x;
}

static double ratio(double a, double b)
{
	return a > 0 ? b / a : 0;
}

/* The factor that fell most from a to b: its limit. */
static const char *fallback(const br_sweep_point *a, const br_sweep_point *b)
{
	double t[4] = { log(ratio(a->f.u, b->f.u)), log(ratio(a->f.nbusy, b->f.nbusy)), log(ratio(a->f.s, b->f.s)),
			-log(ratio(a->f.r, b->f.r)) };
	static const char *const limit[4] = { "host_bound", "concurrency_capped", "shrinking_requests",
					      "service_time" };
	int worst = 0;
	for (int k = 1; k < 4; k++)
		if (t[k] < t[worst])
			worst = k;
	return limit[worst];
}

/* N_busy stopped growing over the last step past the knee, at more than one
 * request, while the parameter grew: whatever the clients add waits for a
 * slot (a tag, nr_requests, a scheduler's or cgroup's limit). More clients
 * at a device that is merely busy queue at it, and N_busy grows with them. */
static bool tail_capped(const br_sweep_stack *st)
{
	size_t last = st->npoints - 1;
	if (last < 1 || (long)(last - 1) < st->knee)
		return false;
	const br_sweep_point *p = &st->points[last - 1], *b = &st->points[last];
	return b->value / p->value >= BR_SWEEP_N_GROWTH && ratio(p->f.nbusy, b->f.nbusy) < BR_SWEEP_N_GROWTH &&
	       b->f.nbusy >= BR_SWEEP_N_SERIAL;
}

void sweep_judge(br_sweep_stack *st, const char *param)
{
	st->knee = -1;
	st->limit = "none";
	st->evidence[0] = '\0';
	if (st->npoints < 2) {
		snprintf(st->evidence, sizeof st->evidence, "one point: nothing to scale");
		return;
	}
	for (size_t k = 0; k + 1 < st->npoints; k++)
		if (isnan(st->steps[k].elasticity)) {
			snprintf(st->evidence, sizeof st->evidence,
				 "no knee: %s=%g to %g has no elasticity (a value or a throughput is not positive)",
				 param, st->points[k].value, st->points[k + 1].value);
			return;
		}
	for (size_t k = 0; k + 1 < st->npoints && st->knee < 0; k++)
		if (st->steps[k].elasticity < BR_SWEEP_KNEE_ELASTICITY)
			st->knee = (long)k;
	size_t last = st->npoints - 1;
	const char *what = st->work ? "work MB/s" : "MB/s";
	if (st->knee < 0) {
		double e = log(br_sweep_outcome(st, last) / br_sweep_outcome(st, 0)) /
			   log(st->points[last].value / st->points[0].value);
		snprintf(st->evidence, sizeof st->evidence,
			 "no knee: every step keeps at least %.0f %% of linear scaling (%s %.3g -> %.3g from "
			 "%s=%g to %g, elasticity %.2f)",
			 100 * BR_SWEEP_KNEE_ELASTICITY, what, br_sweep_outcome(st, 0),
			 br_sweep_outcome(st, last), param, st->points[0].value, st->points[last].value, e);
		return;
	}
	const br_sweep_point *a = &st->points[st->knee], *b = &st->points[last];
	double xa = br_sweep_outcome(st, (size_t)st->knee), xb = br_sweep_outcome(st, last);
	double e = log(xb / xa) / log(b->value / a->value);
	double nmax = 0;
	for (size_t k = (size_t)st->knee; k <= last; k++)
		nmax = fmax(nmax, st->points[k].f.nbusy);
	double rn = ratio(a->f.nbusy, b->f.nbusy), rr = ratio(a->f.r, b->f.r);
	char head[160];
	snprintf(head, sizeof head, "past the knee at %s=%g, %s %.3g -> %.3g at %g (elasticity %.2f)", param,
		 a->value, what, xa, xb, b->value, e);
	char *ev = st->evidence;
	size_t evn = sizeof st->evidence;
	if (st->work && a->f.amp > 0 && b->f.amp > 0 && b->f.amp / a->f.amp >= BR_SWEEP_AMP_GROWTH) {
		st->limit = "amplification";
		snprintf(ev, evn, "%s: device bytes per application byte %.2f -> %.2f (%.2fx), device MB/s %.3g -> %.3g",
			 head, a->f.amp, b->f.amp, b->f.amp / a->f.amp, a->f.x, b->f.x);
	} else if (ratio(a->f.s, b->f.s) <= BR_SWEEP_S_SHRINK) {
		st->limit = "shrinking_requests";
		snprintf(ev, evn, "%s: bytes per request %.1f -> %.1f KiB (%.2fx) while N_busy %.2f -> %.2f",
			 head, a->f.s / 1024, b->f.s / 1024, ratio(a->f.s, b->f.s), a->f.nbusy, b->f.nbusy);
	} else if (b->f.u < BR_SWEEP_U_HOST) {
		st->limit = "host_bound";
		snprintf(ev, evn, "%s: the device is busy only %.0f %% of the time at %g (U %.2f -> %.2f), "
				  "N_busy %.2f -> %.2f, R %.3f -> %.3f ms: the host does not keep it busy",
			 head, 100 * b->f.u, b->value, a->f.u, b->f.u, a->f.nbusy, b->f.nbusy, a->f.r / 1e6, b->f.r / 1e6);
	} else if (nmax < BR_SWEEP_N_SERIAL) {
		st->limit = "serialised";
		snprintf(ev, evn, "%s: N_busy stays at most %.2f (%.2f -> %.2f) while U %.2f -> %.2f: one request "
				  "at a time", head, nmax, a->f.nbusy, b->f.nbusy, a->f.u, b->f.u);
	} else if (tail_capped(st)) {
		const br_sweep_point *p = &st->points[last - 1];
		st->limit = "concurrency_capped";
		snprintf(ev, evn, "%s: N_busy stops at %.2f -> %.2f (%.2fx) from %s=%g to %g, after %.2f at %g; U %.2f "
				  "-> %.2f, R %.3f -> %.3f ms: requests wait for a slot, not for the device",
			 head, p->f.nbusy, b->f.nbusy, ratio(p->f.nbusy, b->f.nbusy), param, p->value, b->value,
			 a->f.nbusy, a->value, a->f.u, b->f.u, a->f.r / 1e6, b->f.r / 1e6);
	} else if (b->f.u >= BR_SWEEP_U_SATURATED && rn >= BR_SWEEP_N_GROWTH && log(rr) >= 0.5 * log(rn)) {
		st->limit = "device_saturated";
		snprintf(ev, evn, "%s: N_busy %.2f -> %.2f (%.2fx) and R %.3f -> %.3f ms (%.2fx) with U %.2f -> "
				  "%.2f: requests queue at the device",
			 head, a->f.nbusy, b->f.nbusy, rn, a->f.r / 1e6, b->f.r / 1e6, rr, a->f.u, b->f.u);
	} else if (rr >= BR_SWEEP_N_GROWTH && rr > rn) {
		st->limit = "service_time";
		snprintf(ev, evn, "%s: R %.3f -> %.3f ms (%.2fx) while N_busy only %.2f -> %.2f (%.2fx) and U %.2f -> "
				  "%.2f: each request takes longer at the device, more than queueing behind the others explains",
			 head, a->f.r / 1e6, b->f.r / 1e6, rr, a->f.nbusy, b->f.nbusy, rn, a->f.u, b->f.u);
	} else if (rn < BR_SWEEP_N_GROWTH) {
		st->limit = "concurrency_capped";
		snprintf(ev, evn, "%s: N_busy stops at %.2f -> %.2f (%.2fx) while %s grows %.2fx, U %.2f -> %.2f",
			 head, a->f.nbusy, b->f.nbusy, rn, param, b->value / a->value, a->f.u, b->f.u);
	} else {
		st->limit = fallback(a, b);
		snprintf(ev, evn, "%s: no rule holds outright; the factor that fell most: U %.2f -> %.2f, "
				  "N_busy %.2f -> %.2f, S %.1f -> %.1f KiB, R %.3f -> %.3f ms",
			 head, a->f.u, b->f.u, a->f.nbusy, b->f.nbusy, a->f.s / 1024, b->f.s / 1024, a->f.r / 1e6, b->f.r / 1e6);
	}
}
