/* report.h — what every part of blkreel-report shares: the loaded traces,
 * the comparison, and one function per output. */
#ifndef BLKREEL_REPORT_H
#define BLKREEL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "blkreel/analysis.h"
#include "blkreel/diagnosis.h"
#include "blkreel/error.h"
#include "blkreel/json.h"
#include "blkreel/sweep.h"
#include "report_cli.h"

typedef struct report_data {
	const report_trace *trace;
	br_analysis *an;
	const br_analysis_result *res;
	uint64_t events;           /* records read (including notify records) */
	char format[64];           /* input kind as the reader names it */
} report_data;

/* A sweep's pairwise diagnosis: two stacks at one value of the parameter. */
typedef struct report_pair {
	double value;
	size_t idx[2];             /* the traces (A: the earlier stack, B: the later) */
	br_diagnosis diag;
} report_pair;

#define REPORT_MAX_SENTENCES 8
#define REPORT_SENTENCE_MAX 512

typedef struct report_ctx {
	const report_cli *cli;
	report_data *d;
	size_t n;
	br_cmp cmp;                /* n >= 2 */
	char sentences[REPORT_MAX_SENTENCES][REPORT_SENTENCE_MAX];
	size_t nsentences;
	const char *figure_note;   /* HTML: why there is no figure, or how it was made */
	bool has_diag;             /* n >= 2: why the slower trace is slower */
	size_t diag_idx[2];        /* the traces compared (A, B): the only two, or best and worst */
	br_diagnosis diag;
	bool has_sweep;            /* the traces carry sweep labels (report_sweep.c) */
	br_sweep sweep;
	report_pair *pairs;
	size_t npairs;
	char sweep_summary[2048];  /* where the stacks part ways, one paragraph */
} report_ctx;

/* --per-io output (report_perio.c). */
typedef struct report_perio {
	FILE *f;
	const char *label;
	uint64_t origin;           /* the trace's first event */
} report_perio;
int report_perio_header(FILE *f);
int report_perio_bio(void *arg, const br_analysis_bio *b);

/* report_load.c: read one trace through the analysis, writing each
 * completed bio to perio->f when perio is not NULL. 0 or a br_code. */
int report_load(const report_cli *cli, size_t k, report_data *out, report_perio *perio,
		br_error *err);
void report_data_free(report_data *d);

/* report_diag.c: diagnose the pair (n >= 2); 0 or a br_code. */
int report_diagnose(report_ctx *ctx, br_error *err);
/* The diagnosis as lines of plain text: headline, notes, causes, against. */
typedef void (*report_line_fn)(void *arg, int kind, const char *line);
enum { REPORT_DIAG_HEAD, REPORT_DIAG_NOTE, REPORT_DIAG_CAUSE, REPORT_DIAG_AGAINST_HEAD,
       REPORT_DIAG_AGAINST, REPORT_DIAG_IDENTITY };
void report_diag_lines(const report_ctx *ctx, report_line_fn fn, void *arg);

/* report_sweep.c: the sweep and its pairwise diagnoses (traces with sweep
 * labels); 0 or a br_code. The text section; the JSON "sweep", "knees"
 * and "pairs" (report_sweep_json.c). */
int report_sweep(report_ctx *ctx, br_error *err);
void report_sweep_free(report_ctx *ctx);
/* sub: ctx as if the report's diagnosis were pair k's (for its printers). */
void report_sweep_pair_ctx(const report_ctx *ctx, size_t k, report_ctx *sub);
/* s in a Markdown table cell: a '|' escaped (report_markdown.c; labels are
 * the user's). */
void report_md_cell(FILE *f, const char *s);
/* report_sweep_html.c: the sweep's tables, limits and summary as HTML. */
void report_sweep_html(FILE *f, const report_ctx *ctx);
void report_sweep_text(FILE *f, const report_ctx *ctx);
void report_sweep_json(br_json *j, const report_ctx *ctx);
/* report_sweep_md.c: the sweep's Markdown; line prints the diagnoses' lines. */
void report_sweep_markdown(FILE *f, const report_ctx *ctx, report_line_fn line);
/* report_json.c: one diagnosis' detail object (ctx->diag of ctx->diag_idx),
 * with its causes when asked. */
void report_json_diagnosis_detail(br_json *j, const report_ctx *ctx, bool causes);

/* report_sentences.c: the plain sentences of a comparison (n >= 2). */
void report_sentences(report_ctx *ctx);

/* Outputs; each returns 0 or -1 with errno from the stream. */
int report_text(FILE *f, const report_ctx *ctx);
int report_json(FILE *f, const report_ctx *ctx);
int report_markdown(FILE *f, const report_ctx *ctx);
int report_html(FILE *f, const report_ctx *ctx, const char *png_b64);

/* report_figure.c: render the figure with blkreel-plot into a base64 PNG
 * (malloc'd), or NULL with *why saying why not (no error: the page says so). */
char *report_figure(const report_ctx *ctx, const char *argv0, char *why, size_t whysize);

/* report_out.c: outputs that appear whole or not at all (an unnamed file
 * linked and renamed over PATH only when complete). */
typedef struct report_out {
	FILE *f;
	const char *path;
	char *tmp;                 /* PATH.tmp.PID */
	bool unnamed;              /* f is an O_TMPFILE file, not yet linked */
} report_out;
/* Open an output for PATH; 0 or -1 (printed). */
int report_out_open(report_out *o, const char *path);
/* Put it in place (ok) or throw it away; 0 or -1 (printed). */
int report_out_close(report_out *o, bool ok);
typedef int (*report_writer)(FILE *f, const report_ctx *ctx, const void *arg);
int report_write_file(const char *path, report_writer fn, const report_ctx *ctx, const void *arg);

/* report_fmt.c: numbers for people. */
char *report_ms(double ns, char *buf, size_t size);       /* "0.155 ms", "12.3 ms", "2.10 s" */
char *report_num(double v, char *buf, size_t size);       /* 3 significant digits */
const char *report_dev(uint32_t dev, char *buf, size_t size); /* "8,16" */
double report_bytes_total(const uint64_t b[BR_STATS_DIRS]);
double report_ios_total(const uint64_t n[BR_STATS_DIRS]);

#endif
