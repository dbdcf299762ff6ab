/* summary_row.h — one trace's headline numbers (stats table, PNG text). */
#ifndef BLKREEL_PLOT_SUMMARY_ROW_H
#define BLKREEL_PLOT_SUMMARY_ROW_H

#include <stddef.h>
#include "plot.h"

typedef struct trace_row {
	double runtime_s, ios, mb, mbps, iops, seeks_ps;
	double d2c50, d2c99, q2c50, q2c99;     /* ns; < 0 when unknown */
} trace_row;

void trace_row_of(const plot_trace *t, trace_row *r);
/* One line: "label: 1.23 s, 4567 IOs, 89.0 MB, ..." */
void trace_row_text(const plot_trace *t, char *buf, size_t n);
/* "830 µs", "12.3 ms", "1.20 s" */
void format_latency(double ns, char *buf, size_t n);

#endif
