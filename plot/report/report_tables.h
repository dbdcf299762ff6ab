/* report_tables.h — the report as tables of text cells, shared by the
 * Markdown and HTML outputs (the text output lays itself out). */
#ifndef BLKREEL_REPORT_TABLES_H
#define BLKREEL_REPORT_TABLES_H

#include "report.h"

#define RT_MAX_ROWS 80
#define RT_MAX_COLS 12
#define RT_CELL 64

typedef struct report_table {
	char title[128];
	size_t ncols, nrows;          /* row 0 is the header */
	char cell[RT_MAX_ROWS][RT_MAX_COLS][RT_CELL];
	bool numeric[RT_MAX_COLS];    /* right-aligned */
} report_table;

enum report_table_kind {
	RT_SUMMARY, RT_PHASES, RT_SIZES, RT_SEEKS, RT_DEPTH, RT_RANGES, RT_DEVICES, RT_PROCS,
	RT_KINDS
};

/* Fill t with one section of trace d. */
void report_table_make(report_table *t, enum report_table_kind kind, const report_data *d,
		       unsigned top);
/* The comparison table (ctx->n >= 2). */
void report_table_compare(report_table *t, const report_ctx *ctx);

#endif
