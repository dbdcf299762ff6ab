/* The sweep in the JSON report: "sweep" (per stack its points, steps,
 * knee and limit), "knees" (one per stack) and "pairs" (the diagnosis at
 * each value two stacks share). Times in ns, sizes in bytes. */
#include <math.h>
#include <stdlib.h>

#include "report.h"

static void point(br_json *j, const report_ctx *ctx, const br_sweep_point *p)
{
	br_json_object(j);
	br_json_kdouble(j, "value", p->value);
	br_json_kstr(j, "label", ctx->d[p->input].trace->label);
	br_json_kdouble(j, "mbps", p->f.x);
	br_json_kdouble(j, "work_mbps", p->f.w);
	br_json_kdouble(j, "bytes_per_work", p->f.amp);
	br_json_kdouble(j, "U", p->f.u);
	br_json_kdouble(j, "N_busy", p->f.nbusy);
	br_json_kdouble(j, "S_bytes", p->f.s);
	br_json_kdouble(j, "R_ns", p->f.r);
	br_json_kdouble(j, "residual", p->f.residual);
	br_json_kdouble(j, "q2c_mean_ns", p->f.q2c);
	br_json_kdouble(j, "d2c_mean_ns", p->d2c);
	br_json_end(j);
}

static void step(br_json *j, const br_sweep_stack *st, size_t k)
{
	const br_sweep_step *sp = &st->steps[k];
	br_json_object(j);
	br_json_kdouble(j, "from", st->points[k].value);
	br_json_kdouble(j, "to", st->points[k + 1].value);
	br_json_kdouble(j, "elasticity", sp->elasticity); /* null when undefined */
	br_json_kdouble(j, "ln_ratio", sp->dlnx);
	br_json_key(j, "terms");
	br_json_object(j);
	for (int t = 0; t < BR_SWEEP_TERMS; t++)
		br_json_kdouble(j, br_sweep_term_name(t), sp->term[t]);
	br_json_end(j);
	br_json_kdouble(j, "residual", sp->residual);
	if (sp->carrier >= 0)
		br_json_kstr(j, "carried_by", br_sweep_term_name(sp->carrier));
	else
		br_json_knull(j, "carried_by");
	br_json_end(j);
}

static void knee(br_json *j, const br_sweep_stack *st)
{
	if (st->knee >= 0)
		br_json_kdouble(j, "knee", st->points[st->knee].value);
	else
		br_json_knull(j, "knee");
	br_json_kstr(j, "limit", st->limit);
	br_json_kstr(j, "evidence", st->evidence);
}

void report_sweep_json(br_json *j, const report_ctx *ctx)
{
	const br_sweep *sw = &ctx->sweep;
	br_json_key(j, "sweep");
	br_json_object(j);
	br_json_kstr(j, "parameter", sw->param);
	br_json_kdouble(j, "knee_elasticity", BR_SWEEP_KNEE_ELASTICITY);
	br_json_kstr(j, "summary", ctx->sweep_summary);
	br_json_key(j, "stacks");
	br_json_array(j);
	for (size_t s = 0; s < sw->nstacks; s++) {
		const br_sweep_stack *st = &sw->stacks[s];
		br_json_object(j);
		br_json_kstr(j, "stack", st->stack);
		br_json_kstr(j, "outcome",
			     br_diag_outcome_name(st->work ? BR_OUTCOME_WORK : BR_OUTCOME_THROUGHPUT));
		br_json_key(j, "points");
		br_json_array(j);
		for (size_t k = 0; k < st->npoints; k++)
			point(j, ctx, &st->points[k]);
		br_json_end(j);
		br_json_key(j, "steps");
		br_json_array(j);
		for (size_t k = 0; k + 1 < st->npoints; k++)
			step(j, st, k);
		br_json_end(j);
		knee(j, st);
		br_json_end(j);
	}
	br_json_end(j);
	br_json_end(j);

	br_json_key(j, "knees");
	br_json_array(j);
	for (size_t s = 0; s < sw->nstacks; s++) {
		br_json_object(j);
		br_json_kstr(j, "stack", sw->stacks[s].stack);
		br_json_kstr(j, "parameter", sw->param);
		knee(j, &sw->stacks[s]);
		br_json_end(j);
	}
	br_json_end(j);

	br_json_key(j, "pairs");
	br_json_array(j);
	report_ctx *sub = malloc(sizeof *sub);
	for (size_t k = 0; sub && k < ctx->npairs; k++) {
		report_sweep_pair_ctx(ctx, k, sub);
		br_json_object(j);
		br_json_kdouble(j, "value", ctx->pairs[k].value);
		br_json_kstr(j, "a", ctx->d[sub->diag_idx[0]].trace->label);
		br_json_kstr(j, "b", ctx->d[sub->diag_idx[1]].trace->label);
		br_json_key(j, "diagnosis");
		report_json_diagnosis_detail(j, sub, true);
		br_json_end(j);
	}
	free(sub);
	br_json_end(j);
}
