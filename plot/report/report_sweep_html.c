/* The sweep in the HTML report: a table per stack, its knee and limit, and
 * the paragraph on where the stacks part ways (the pairs' diagnoses follow,
 * printed by report_html.c's own line printer). */
#include <stdio.h>

#include "report.h"

#include "tool/html.h"

static void stack_html(FILE *f, const br_sweep *sw, const br_sweep_stack *st)
{
	fputs("<h3>", f);
	tool_html_esc(f, st->stack);
	fprintf(f, " (%s)</h3>\n<table>\n<tr><th>", st->work ? "work MB/s: the bytes applications queued" : "device MB/s");
	tool_html_esc(f, sw->param);
	fputs("</th><th>MB/s</th><th>work MB/s</th><th>U</th><th>N_busy</th><th>S KiB</th><th>R ms</th>"
	      "<th>amp</th><th>Q2C ms</th><th>next step: elasticity</th><th>carried by</th></tr>\n", f);
	for (size_t k = 0; k < st->npoints; k++) {
		const br_sweep_point *p = &st->points[k];
		fprintf(f, "<tr><td>%g%s</td><td>%.3g</td><td>", p->value, (long)k == st->knee ? " (knee)" : "", p->f.x);
		if (p->f.w > 0)
			fprintf(f, "%.3g", p->f.w);
		fprintf(f, "</td><td>%.3f</td><td>%.2f</td><td>%.1f</td><td>%.3f</td><td>", p->f.u, p->f.nbusy,
			p->f.s / 1024, p->f.r / 1e6);
		if (p->f.amp > 0)
			fprintf(f, "%.2f", p->f.amp);
		fprintf(f, "</td><td>%.3f</td>", p->f.q2c / 1e6);
		if (k + 1 < st->npoints)
			fprintf(f, "<td>%.2f</td><td>%s</td></tr>\n", st->steps[k].elasticity,
				br_sweep_term_name(st->steps[k].carrier));
		else
			fputs("<td></td><td></td></tr>\n", f);
	}
	fprintf(f, "</table>\n<p><strong>Limit: %s.</strong> ", st->limit);
	tool_html_esc(f, st->evidence);
	fputs(".</p>\n", f);
}

void report_sweep_html(FILE *f, const report_ctx *ctx)
{
	const br_sweep *sw = &ctx->sweep;
	fputs("<h2>Sweep over ", f);
	tool_html_esc(f, sw->param);
	fprintf(f, "</h2>\n<p>The knee is the first point after which a step gains less than %.0f %% of linear "
		   "scaling (elasticity = ln throughput ratio / ln parameter ratio).</p>\n",
		100 * BR_SWEEP_KNEE_ELASTICITY);
	for (size_t s = 0; s < sw->nstacks; s++)
		stack_html(f, sw, &sw->stacks[s]);
	if (ctx->sweep_summary[0]) {
		fputs("<p><strong>Where they part.</strong> ", f);
		tool_html_esc(f, ctx->sweep_summary);
		fputs("</p>\n", f);
	}
}
