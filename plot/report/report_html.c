/* The report as one self-contained HTML page: the figure (a base64 PNG
 * from blkreel-plot) when there is one, the differences, then each trace's
 * tables. No scripts, no external resources. */
#include "report_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/html.h"

static void table(FILE *f, const report_table *t)
{
	if (!t->ncols || t->nrows < 2)
		return;
	fputs("<h3>", f);
	tool_html_esc(f, t->title);
	fputs("</h3>\n<table>\n", f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr>", f);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *tag = r == 0 ? "th" : "td";
			fprintf(f, "<%s%s>", tag, t->numeric[c] ? " class=\"n\"" : "");
			tool_html_esc(f, t->cell[r][c]);
			fprintf(f, "</%s>", tag);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

typedef struct html_diag {
	FILE *f;
	bool in_list;
} html_diag;

static void html_line(void *arg, int kind, const char *line)
{
	html_diag *h = arg;
	bool item = kind == REPORT_DIAG_CAUSE || kind == REPORT_DIAG_AGAINST;
	if (item && !h->in_list)
		fputs("<ul>\n", h->f);
	if (!item && h->in_list)
		fputs("</ul>\n", h->f);
	h->in_list = item;
	fputs(item ? "<li>" : kind == REPORT_DIAG_HEAD ? "<p><strong>"
			      : kind == REPORT_DIAG_NOTE ? "<p class=\"note\">" : "<p>", h->f);
	tool_html_esc(h->f, line);
	fputs(item ? "</li>\n" : kind == REPORT_DIAG_HEAD ? "</strong></p>\n" : "</p>\n", h->f);
}

int report_html(FILE *f, const report_ctx *ctx, const char *png_b64)
{
	report_table *t = malloc(sizeof *t);
	if (!t)
		return -1;
	char title[1024] = "Block I/O report: ";
	for (size_t k = 0; k < ctx->n; k++) {
		size_t len = strlen(title);
		snprintf(title + len, sizeof title - len, "%s%s", k ? " vs " : "", ctx->d[k].trace->label);
	}
	tool_html_head(f, title);
	fputs("<h1>Block I/O report: ", f);
	for (size_t k = 0; k < ctx->n; k++) {
		fputs(k ? " vs " : "", f);
		tool_html_esc(f, ctx->d[k].trace->label);
	}
	fputs("</h1>\n", f);
	report_ctx *sub = ctx->has_sweep ? malloc(sizeof *sub) : NULL;
	if (ctx->has_sweep)
		report_sweep_html(f, ctx);
	for (size_t k = 0; sub && k < ctx->npairs; k++) {
		report_sweep_pair_ctx(ctx, k, sub);
		fprintf(f, "<h2>Diagnosis at %s=%g</h2>\n", ctx->sweep.param, ctx->pairs[k].value);
		html_diag h = { f, false };
		report_diag_lines(sub, html_line, &h);
		if (h.in_list)
			fputs("</ul>\n", f);
	}
	free(sub);
	if (ctx->has_diag && !ctx->has_sweep) {
		fputs("<h2>Diagnosis</h2>\n", f);
		html_diag h = { f, false };
		report_diag_lines(ctx, html_line, &h);
		if (h.in_list)
			fputs("</ul>\n", f);
	}
	if (png_b64) {
		fprintf(f, "<figure><img alt=\"blkreel-plot figure\" src=\"data:image/png;base64,%s\">", png_b64);
		fputs("<figcaption class=\"note\">", f);
		tool_html_esc(f, ctx->figure_note ? ctx->figure_note : "");
		fputs("</figcaption></figure>\n", f);
	} else if (ctx->figure_note && ctx->figure_note[0]) {
		fputs("<p class=\"note\">No figure: ", f);
		tool_html_esc(f, ctx->figure_note);
		fputs("</p>\n", f);
	}
	if (ctx->n > 1) {
		fputs("<h2>Differences</h2>\n<ul>\n", f);
		for (size_t s = 0; s < ctx->nsentences; s++) {
			fputs("<li>", f);
			tool_html_esc(f, ctx->sentences[s]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
		report_table_compare(t, ctx);
		table(f, t);
	}
	for (size_t k = 0; k < ctx->n; k++) {
		fputs("<h2>", f);
		tool_html_esc(f, ctx->d[k].trace->label);
		fputs("</h2>\n", f);
		for (int kind = 0; kind < RT_KINDS; kind++) {
			report_table_make(t, kind, &ctx->d[k], ctx->cli->top);
			table(f, t);
		}
	}
	fprintf(f, "<p class=\"note\">Made by blkreel-report %s.</p>\n</body>\n</html>\n", BLKREEL_VERSION);
	free(t);
	return ferror(f) ? -1 : 0;
}
