/* The sweep (blkreel/sweep.h) of traces labelled STACK:PARAM=VALUE, the
 * pairwise diagnosis at each value two stacks share, and its text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The factor that carried most of a stack's change from its first point to
 * its last (the steps' terms summed), the way throughput moved. */
static int overall_carrier(const br_sweep_stack *st, double *dlnx, double *carried)
{
	double term[BR_SWEEP_TERMS] = { 0 };
	*dlnx = 0;
	for (size_t k = 0; k + 1 < st->npoints; k++) {
		*dlnx += st->steps[k].dlnx;
		for (int t = 0; t < BR_SWEEP_TERMS; t++)
			term[t] += st->steps[k].term[t];
	}
	int best = -1;
	double most = 0;
	for (int t = 0; t < BR_SWEEP_TERMS; t++) {
		double along = *dlnx >= 0 ? term[t] : -term[t];
		if (along > most) {
			most = along;
			best = t;
		}
	}
	*carried = best >= 0 ? term[best] : 0;
	return best;
}

/* One paragraph: how each stack goes along the parameter, then what the
 * pairwise diagnosis finds at the largest value the stacks share. */
static void summary(report_ctx *ctx)
{
	const br_sweep *sw = &ctx->sweep;
	char *o = ctx->sweep_summary;
	size_t left = sizeof ctx->sweep_summary, n;
	o[0] = '\0';
#define SAY(...) do { n = (size_t)snprintf(o, left, __VA_ARGS__); n = n < left ? n : left - 1; o += n; left -= n; } while (0)
	for (size_t s = 0; s < sw->nstacks; s++) {
		const br_sweep_stack *st = &sw->stacks[s];
		if (st->npoints < 2)
			continue;
		double dlnx, carried;
		int c = overall_carrier(st, &dlnx, &carried);
		const br_sweep_point *a = &st->points[0], *b = &st->points[st->npoints - 1];
		SAY("%s%s goes from %.3g to %.3g %s between %s=%g and %g, mostly through %s (ln %+.2f of %+.2f)",
		    s ? "; " : "", st->stack, br_sweep_outcome(st, 0), br_sweep_outcome(st, st->npoints - 1),
		    st->work ? "work MB/s" : "MB/s", sw->param, a->value, b->value, br_sweep_term_name(c), carried,
		    dlnx);
		if (st->knee >= 0)
			SAY(", and stops scaling past %s=%g: %s (U %.2f, N_busy %.2f, R %.3f ms at %g)", sw->param,
			    st->points[st->knee].value, st->limit, b->f.u, b->f.nbusy, b->f.r / 1e6, b->value);
		else
			SAY(", with no knee");
	}
	if (o != ctx->sweep_summary)
		SAY(".");
	/* the pair at the largest shared value that shows a difference */
	for (size_t k = ctx->npairs; k-- > 0;) {
		const report_pair *p = &ctx->pairs[k];
		const br_diagnosis *d = &p->diag;
		if (!d->significant || !d->ncauses)
			continue;
		const char *worse = ctx->d[p->idx[d->worse]].trace->stack;
		SAY(" At %s=%g %s is the slower (%.2fx): %s (%s, %.0f %%)", sw->param, p->value, worse, d->ratio,
		    br_diag_cause_name(d->causes[0].cause), br_diag_factor_name(d->causes[0].factor),
		    100 * d->causes[0].share);
		if (d->ncauses > 1)
			SAY(", %s (%s, %.0f %%)", br_diag_cause_name(d->causes[1].cause),
			    br_diag_factor_name(d->causes[1].factor), 100 * d->causes[1].share);
		SAY(".");
		break;
	}
#undef SAY
}

int report_sweep(report_ctx *ctx, br_error *err)
{
	if (!ctx->cli->param[0] || ctx->n < 1)
		return 0;
	br_sweep_input in[BR_CMP_MAX_TRACES];
	for (size_t k = 0; k < ctx->n; k++)
		in[k] = (br_sweep_input){ ctx->d[k].trace->stack, ctx->d[k].trace->value, ctx->d[k].res->profile };
	int rc = br_sweep_build(in, ctx->n, ctx->cli->param, &ctx->sweep, err);
	if (rc)
		return rc;
	ctx->has_sweep = true;
	ctx->pairs = calloc(ctx->n * ctx->n, sizeof *ctx->pairs);
	if (!ctx->pairs)
		return br_error_set(err, BR_ENOMEM, 0, NULL, 0, "%zu sweep pairs", ctx->n * ctx->n);
	const br_sweep *sw = &ctx->sweep;
	for (size_t a = 0; a < sw->nstacks; a++)
		for (size_t b = a + 1; b < sw->nstacks; b++)
			for (size_t i = 0; i < sw->stacks[a].npoints; i++)
				for (size_t j = 0; j < sw->stacks[b].npoints; j++) {
					const br_sweep_point *pa = &sw->stacks[a].points[i], *pb = &sw->stacks[b].points[j];
					if (pa->value != pb->value)
						continue;
					report_pair *p = &ctx->pairs[ctx->npairs];
					p->value = pa->value;
					p->idx[0] = pa->input;
					p->idx[1] = pb->input;
					rc = br_diagnose(ctx->d[pa->input].res->profile, ctx->d[pb->input].res->profile,
							 ctx->d[pa->input].trace->label, ctx->d[pb->input].trace->label,
							 &p->diag, err);
					if (rc)
						return rc;
					ctx->npairs++;
				}
	summary(ctx);
	return 0;
}

void report_sweep_pair_ctx(const report_ctx *ctx, size_t k, report_ctx *sub)
{
	*sub = *ctx;
	sub->diag = ctx->pairs[k].diag;
	sub->diag_idx[0] = ctx->pairs[k].idx[0];
	sub->diag_idx[1] = ctx->pairs[k].idx[1];
	sub->has_diag = true;
}

void report_sweep_free(report_ctx *ctx)
{
	br_sweep_free(&ctx->sweep);
	free(ctx->pairs);
	ctx->pairs = NULL;
	ctx->npairs = 0;
	ctx->has_sweep = false;
}

static void stack_text(FILE *f, const br_sweep *sw, const br_sweep_stack *st)
{
	fprintf(f, "  %s (%s; by %s)\n", st->stack, st->work ? "outcome: work MB/s, the bytes applications queued"
							    : "outcome: device MB/s", sw->param);
	fprintf(f, "    %10s %9s %9s %6s %7s %8s %9s %6s %9s  %s\n", sw->param, "MB/s", "work MB/s", "U",
		"N_busy", "S KiB", "R ms", "amp", "Q2C ms", "step to the next: elasticity, carried by");
	for (size_t k = 0; k < st->npoints; k++) {
		const br_sweep_point *p = &st->points[k];
		char amp[16] = "-", w[16] = "-";
		if (p->f.amp > 0)
			snprintf(amp, sizeof amp, "%.2f", p->f.amp);
		if (p->f.w > 0)
			snprintf(w, sizeof w, "%.3g", p->f.w);
		fprintf(f, "    %10g %9.3g %9s %6.3f %7.2f %8.1f %9.3f %6s %9.3f", p->value, p->f.x, w, p->f.u,
			p->f.nbusy, p->f.s / 1024, p->f.r / 1e6, amp, p->f.q2c / 1e6);
		if (k + 1 < st->npoints) {
			const br_sweep_step *sp = &st->steps[k];
			fprintf(f, "  %.2f, %s (U %+.2f, N_busy %+.2f, S %+.2f, R %+.2f", sp->elasticity,
				br_sweep_term_name(sp->carrier), sp->term[BR_SWEEP_T_U], sp->term[BR_SWEEP_T_N],
				sp->term[BR_SWEEP_T_S], sp->term[BR_SWEEP_T_R]);
			if (st->work)
				fprintf(f, ", amp %+.2f", sp->term[BR_SWEEP_T_AMP]);
			fprintf(f, " of ln %+.2f)", sp->dlnx);
		}
		fprintf(f, "%s\n", (long)k == st->knee ? "  <- knee" : "");
	}
	fprintf(f, "    limit: %s: %s.\n", st->limit, st->evidence);
}

static void pair_line(void *arg, int kind, const char *line)
{
	FILE *f = arg;
	fprintf(f, kind == REPORT_DIAG_CAUSE || kind == REPORT_DIAG_AGAINST ? "    - %s\n"
		   : kind == REPORT_DIAG_NOTE				   ? "  ! %s\n"
		   : kind == REPORT_DIAG_IDENTITY			   ? "  (%s)\n"
									   : "  %s\n",
		line);
}

void report_sweep_text(FILE *f, const report_ctx *ctx)
{
	const br_sweep *sw = &ctx->sweep;
	fprintf(f, "== Sweep over %s:", sw->param);
	for (size_t s = 0; s < sw->nstacks; s++)
		fprintf(f, "%s%s", s ? ", " : " ", sw->stacks[s].stack);
	fprintf(f, "\n  knee: the first point after which a step gains less than %.0f %% of linear scaling "
		   "(elasticity = ln throughput ratio / ln %s ratio; 1 is linear)\n",
		100 * BR_SWEEP_KNEE_ELASTICITY, sw->param);
	for (size_t s = 0; s < sw->nstacks; s++)
		stack_text(f, sw, &sw->stacks[s]);
	if (ctx->sweep_summary[0])
		fprintf(f, "  Where they part: %s\n", ctx->sweep_summary);
	fprintf(f, "\n");
	/* each pair through the one diagnosis printer, as if it were the report's */
	report_ctx *sub = malloc(sizeof *sub);
	for (size_t k = 0; sub && k < ctx->npairs; k++) {
		report_sweep_pair_ctx(ctx, k, sub);
		fprintf(f, "== Diagnosis at %s=%g: %s vs %s\n", sw->param, ctx->pairs[k].value,
			ctx->d[sub->diag_idx[0]].trace->label, ctx->d[sub->diag_idx[1]].trace->label);
		report_diag_lines(sub, pair_line, f);
		fprintf(f, "\n");
	}
	if (!sub)
		fprintf(f, "(out of memory: the pairwise diagnoses are left out)\n\n");
	free(sub);
}
