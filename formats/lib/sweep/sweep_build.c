/* br_sweep_build: group the inputs by stack, sort each by the parameter,
 * take each point's factors and each step's decomposition
 * (blkreel/sweep.h). */
#include "sweep_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnosis/diagnosis_internal.h"

static int by_value(const void *x, const void *y)
{
	const br_sweep_point *a = x, *b = y;
	return a->value < b->value ? -1 : a->value > b->value;
}

static double lnr(double a, double b)
{
	return a > 0 && b > 0 ? log(b / a) : 0;
}

static void point_of(const br_sweep_input *in, size_t i, br_sweep_point *pt)
{
	const br_diag_profile *p = in[i].profile;
	memset(pt, 0, sizeof *pt);
	pt->value = in[i].value;
	pt->input = i;
	br_diag_factors_of(p, &pt->f);
	pt->d2c = p->n ? p->d2c_data / (double)p->n : 0;
}

static void step_of(const br_sweep_stack *st, size_t k, br_sweep_step *sp)
{
	const br_sweep_point *a = &st->points[k], *b = &st->points[k + 1];
	double xa = br_sweep_outcome(st, k), xb = br_sweep_outcome(st, k + 1);
	memset(sp, 0, sizeof *sp);
	sp->dlnx = lnr(xa, xb);
	sp->elasticity = a->value > 0 && b->value > 0 && xa > 0 && xb > 0
		? sp->dlnx / log(b->value / a->value) : NAN;
	sp->term[BR_SWEEP_T_U] = lnr(a->f.u, b->f.u);
	sp->term[BR_SWEEP_T_N] = lnr(a->f.nbusy, b->f.nbusy);
	sp->term[BR_SWEEP_T_S] = lnr(a->f.s, b->f.s);
	sp->term[BR_SWEEP_T_R] = -lnr(a->f.r, b->f.r);
	/* work = device bytes / amp: more device bytes per byte of work is less work */
	sp->term[BR_SWEEP_T_AMP] = st->work ? -lnr(a->f.amp, b->f.amp) : 0;
	double sum = 0;
	for (int t = 0; t < BR_SWEEP_TERMS; t++)
		sum += sp->term[t];
	sp->residual = sp->dlnx - sum;
	sp->carrier = -1;
	if (fabs(sp->dlnx) < 1e-9)
		return;
	double best = 0;
	for (int t = 0; t < BR_SWEEP_TERMS; t++) {
		double along = sp->dlnx > 0 ? sp->term[t] : -sp->term[t];
		if (along > best) {
			best = along;
			sp->carrier = t;
		}
	}
}

void br_sweep_free(br_sweep *s)
{
	for (size_t i = 0; s && i < s->nstacks; i++) {
		free(s->stacks[i].points);
		free(s->stacks[i].steps);
	}
	if (s) {
		free(s->stacks);
		memset(s, 0, sizeof *s);
	}
}

static long stack_index(const br_sweep *s, const char *name)
{
	for (size_t i = 0; i < s->nstacks; i++)
		if (!strcmp(s->stacks[i].stack, name))
			return (long)i;
	return -1;
}

int br_sweep_build(const br_sweep_input *in, size_t n, const char *param, br_sweep *out,
		   br_error *err)
{
	memset(out, 0, sizeof *out);
	snprintf(out->param, sizeof out->param, "%s", param ? param : "parameter");
	out->stacks = calloc(n ? n : 1, sizeof *out->stacks);
	if (!out->stacks)
		return br_error_set(err, BR_ENOMEM, 0, NULL, 0, "sweep of %zu traces", n);
	for (size_t i = 0; i < n; i++) {
		if (!in[i].stack || !in[i].profile || !isfinite(in[i].value)) {
			br_sweep_free(out);
			return br_error_set(err, BR_EINVAL, 0, NULL, 0, "sweep input %zu: no stack, profile or value", i);
		}
		long k = stack_index(out, in[i].stack);
		if (k < 0) {
			k = (long)out->nstacks++;
			snprintf(out->stacks[k].stack, sizeof out->stacks[k].stack, "%s", in[i].stack);
			out->stacks[k].points = calloc(n, sizeof *out->stacks[k].points);
			out->stacks[k].steps = calloc(n, sizeof *out->stacks[k].steps);
			if (!out->stacks[k].points || !out->stacks[k].steps) {
				br_sweep_free(out);
				return br_error_set(err, BR_ENOMEM, 0, NULL, 0, "sweep of %zu traces", n);
			}
		}
		br_sweep_stack *st = &out->stacks[k];
		for (size_t j = 0; j < st->npoints; j++)
			if (st->points[j].value == in[i].value) {
				br_error_set(err, BR_EINVAL, 0, NULL, 0,
					     "two traces of %s at %s=%g: one trace per value", in[i].stack,
					     out->param, in[i].value);
				br_sweep_free(out);
				return BR_EINVAL;
			}
		point_of(in, i, &st->points[st->npoints++]);
	}
	for (size_t k = 0; k < out->nstacks; k++) {
		br_sweep_stack *st = &out->stacks[k];
		qsort(st->points, st->npoints, sizeof *st->points, by_value);
		st->work = true;
		for (size_t j = 0; j < st->npoints; j++)
			st->work = st->work && st->points[j].f.w > 0;
		for (size_t j = 0; j + 1 < st->npoints; j++)
			step_of(st, j, &st->steps[j]);
		sweep_judge(st, out->param);
	}
	return 0;
}
