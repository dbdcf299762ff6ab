/* The report as Markdown (GitHub tables): differences first, then each
 * trace's sections. */
#include "report_tables.h"

#include <stdio.h>
#include <stdlib.h>

/* Cells never hold '|' except labels given by the user: escape it. */
void report_md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void table(FILE *f, const report_table *t)
{
	if (!t->ncols || t->nrows < 2)
		return;
	fprintf(f, "\n### %s\n\n", t->title);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("|", f);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			report_md_cell(f, t->cell[r][c]);
			fputs(" |", f);
		}
		fputc('\n', f);
		if (r == 0) {
			fputs("|", f);
			for (size_t c = 0; c < t->ncols; c++)
				fputs(t->numeric[c] ? " ---: |" : " --- |", f);
			fputc('\n', f);
		}
	}
}

static void md_line(void *arg, int kind, const char *line)
{
	FILE *f = arg;
	switch (kind) {
	case REPORT_DIAG_NOTE: fputs("> ", f); report_md_cell(f, line); fputs("\n\n", f); break;
	case REPORT_DIAG_CAUSE:
	case REPORT_DIAG_AGAINST: fputs("- ", f); report_md_cell(f, line); fputc('\n', f); break;
	case REPORT_DIAG_IDENTITY: fputs("\n_", f); report_md_cell(f, line); fputs("_\n", f); break;
	default: fputc('\n', f); report_md_cell(f, line); fputs("\n\n", f); break;
	}
}

int report_markdown(FILE *f, const report_ctx *ctx)
{
	report_table *t = malloc(sizeof *t);
	if (!t)
		return -1;
	fprintf(f, "# Block I/O report:");
	for (size_t k = 0; k < ctx->n; k++) {
		fprintf(f, "%s", k ? " vs " : " ");
		report_md_cell(f, ctx->d[k].trace->label);
	}
	fprintf(f, "\n");
	if (ctx->has_sweep) {
		report_sweep_markdown(f, ctx, md_line);
	} else if (ctx->has_diag) {
		fprintf(f, "\n## Diagnosis\n\n");
		report_diag_lines(ctx, md_line, f);
	}
	if (ctx->n > 1) {
		fprintf(f, "\n## Differences\n\n");
		for (size_t s = 0; s < ctx->nsentences; s++) {
			fputs("- ", f);
			report_md_cell(f, ctx->sentences[s]);
			fputc('\n', f);
		}
		report_table_compare(t, ctx);
		table(f, t);
	}
	for (size_t k = 0; k < ctx->n; k++) {
		fprintf(f, "\n## ");
		report_md_cell(f, ctx->d[k].trace->label);
		fputc('\n', f);
		for (int kind = 0; kind < RT_KINDS; kind++) {
			report_table_make(t, kind, &ctx->d[k], ctx->cli->top);
			table(f, t);
		}
	}
	fprintf(f, "\n_Made by blkreel-report %s._\n", BLKREEL_VERSION);
	free(t);
	return ferror(f) ? -1 : 0;
}
