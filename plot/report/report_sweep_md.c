/* The sweep in the Markdown report: a table per stack, its knee and limit,
 * the paragraph on where the stacks part ways, then each shared value's
 * diagnosis through the report's own line printer. */
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

static void stack_md(FILE *f, const br_sweep *sw, const br_sweep_stack *st)
{
	fputs("\n### ", f);
	report_md_cell(f, st->stack);
	fprintf(f, " (%s)\n\n", st->work ? "work MB/s: the bytes applications queued" : "device MB/s");
	fprintf(f, "| %s | MB/s | work MB/s | U | N_busy | S KiB | R ms | amp | Q2C ms | next step: elasticity | carried by |\n",
		sw->param);
	fputs("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n", f);
	for (size_t k = 0; k < st->npoints; k++) {
		const br_sweep_point *p = &st->points[k];
		fprintf(f, "| %g%s | %.3g | ", p->value, (long)k == st->knee ? " (knee)" : "", p->f.x);
		if (p->f.w > 0)
			fprintf(f, "%.3g", p->f.w);
		else
			fputs("-", f);
		fprintf(f, " | %.3f | %.2f | %.1f | %.3f | ", p->f.u, p->f.nbusy, p->f.s / 1024, p->f.r / 1e6);
		if (p->f.amp > 0)
			fprintf(f, "%.2f", p->f.amp);
		else
			fputs("-", f);
		fprintf(f, " | %.3f | ", p->f.q2c / 1e6);
		if (k + 1 < st->npoints)
			fprintf(f, "%.2f | %s |\n", st->steps[k].elasticity, br_sweep_term_name(st->steps[k].carrier));
		else
			fputs(" | |\n", f);
	}
	fprintf(f, "\n**Limit: %s.** ", st->limit);
	report_md_cell(f, st->evidence);
	fputs(".\n", f);
}

void report_sweep_markdown(FILE *f, const report_ctx *ctx, report_line_fn line)
{
	const br_sweep *sw = &ctx->sweep;
	fprintf(f, "\n## Sweep over %s\n\nThe knee is the first point after which a step gains less than "
		   "%.0f %% of linear scaling (elasticity = ln throughput ratio / ln %s ratio).\n",
		sw->param, 100 * BR_SWEEP_KNEE_ELASTICITY, sw->param);
	for (size_t s = 0; s < sw->nstacks; s++)
		stack_md(f, sw, &sw->stacks[s]);
	if (ctx->sweep_summary[0]) {
		fputs("\n**Where they part.** ", f);
		report_md_cell(f, ctx->sweep_summary);
		fputc('\n', f);
	}
	report_ctx *sub = malloc(sizeof *sub);
	for (size_t k = 0; sub && k < ctx->npairs; k++) {
		report_sweep_pair_ctx(ctx, k, sub);
		fprintf(f, "\n## Diagnosis at %s=%g\n\n", sw->param, ctx->pairs[k].value);
		report_diag_lines(sub, line, f);
	}
	if (!sub)
		fputs("\n(out of memory: the pairwise diagnoses are left out)\n", f);
	free(sub);
}
