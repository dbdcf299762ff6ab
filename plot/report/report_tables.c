/* Each report section as a table of cells (see report_tables.h). */
#include "report_tables.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void header(report_table *t, const char *title, size_t ncols, ...)
{
	memset(t, 0, sizeof *t);
	snprintf(t->title, sizeof t->title, "%s", title);
	t->ncols = ncols;
	va_list ap;
	va_start(ap, ncols);
	for (size_t c = 0; c < ncols; c++)
		snprintf(t->cell[0][c], RT_CELL, "%s", va_arg(ap, const char *));
	va_end(ap);
	for (size_t c = 1; c < ncols; c++)
		t->numeric[c] = true;
	t->nrows = 1;
}

/* Next row; NULL when the table is full. */
static char (*row(report_table *t))[RT_CELL]
{
	return t->nrows < RT_MAX_ROWS ? t->cell[t->nrows++] : NULL;
}

static void kv(report_table *t, const char *key, const char *fmt, ...)
{
	char (*r)[RT_CELL] = row(t);
	if (!r)
		return;
	snprintf(r[0], RT_CELL, "%s", key);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r[1], RT_CELL, fmt, ap);
	va_end(ap);
}

static void summary(report_table *t, const report_data *d)
{
	const br_analysis_result *r = d->res;
	const br_stats_totals *s = r->totals;
	char a[32], b[32], c[32], e[32];
	header(t, "Summary", 2, "metric", "value");
	t->numeric[1] = false;
	kv(t, "trace", "%s", d->trace->path);
	kv(t, "run time", "%.6f s", r->span_s);
	kv(t, "IOs (on C, else D, else Q)", "%.0f (%s): %llu R, %llu W, %llu other",
	   report_ios_total(s->ios), br_stats_kind_name(s->io_kind), (unsigned long long)s->ios[0],
	   (unsigned long long)s->ios[1], (unsigned long long)s->ios[2]);
	kv(t, "data", "%.2f MB (%.0f %% read)", report_bytes_total(s->bytes) / 1e6,
	   report_bytes_total(s->bytes) ? 100.0 * (double)s->bytes[0] / report_bytes_total(s->bytes) : 0.0);
	kv(t, "throughput", "%s MB/s, %s IO/s", report_num(r->mbps, a, sizeof a),
	   report_num(r->iops, b, sizeof b));
	kv(t, "seeks", "%llu (%s/s), %.1f %% sequential", (unsigned long long)s->seeks,
	   report_num(r->seeks_per_s, a, sizeof a), 100.0 * r->seq_fraction);
	kv(t, "merging", "%s Q per D (%llu Q, %llu merged, %llu D)", report_num(r->merge_ratio, a, sizeof a),
	   (unsigned long long)s->queued, (unsigned long long)s->merged, (unsigned long long)s->issued);
	kv(t, "splits, remaps, requeues", "%llu, %llu, %llu", (unsigned long long)s->splits,
	   (unsigned long long)s->remaps, (unsigned long long)s->requeues);
	if (!r->has_completions)
		kv(t, "queue depth, idle", "not measurable: the trace has no completions (C)");
	else
		kv(t, "queue depth", "avg %s, max %u", report_num(r->qd_avg, a, sizeof a), r->qd_max);
	if (r->has_completions)
		kv(t, "idle", "%s (%.1f %%), longest gap %s", report_ms((double)r->idle_ns, a, sizeof a),
	   r->span_s > 0 ? 100.0 * (double)r->idle_ns / 1e9 / r->span_s : 0.0,
	   report_ms((double)r->idle_max_ns, b, sizeof b));
	kv(t, "unfinished", "%llu never issued, %llu never completed, %llu unmatched C (+%llu end-of-bio)",
	   (unsigned long long)s->never_issued, (unsigned long long)s->never_completed,
	   (unsigned long long)r->orphan_completions, (unsigned long long)r->empty_completions);
	if (s->completed_untimed)
		kv(t, "completed untimed", "%llu (the capture counted %llu completions it was not handed): "
		   "no latency, not in queue depth",
		   (unsigned long long)s->completed_untimed, (unsigned long long)s->unrecorded);
	kv(t, "latency per request", "D2C p50 %s p99 %s; Q2C p50 %s p99 %s",
	   report_ms((double)br_hist_quantile(&s->d2c, 0.5), a, sizeof a),
	   report_ms((double)br_hist_quantile(&s->d2c, 0.99), b, sizeof b),
	   report_ms((double)br_hist_quantile(&s->q2c, 0.5), c, sizeof c),
	   report_ms((double)br_hist_quantile(&s->q2c, 0.99), e, sizeof e));
}

static void phases(report_table *t, const br_analysis_result *r)
{
	header(t, "Life of an IO (btt's phases; D2C and Q2C once per bio)", 9, "phase", "N", "min",
	       "avg", "p50", "p90", "p99", "max", "share of Q2C");
	double q2c = r->phase[BR_PHASE_Q2C].sum;
	for (int p = 0; p < BR_PHASE_COUNT; p++) {
		const br_hist *h = &r->phase[p];
		char (*c)[RT_CELL] = row(t);
		snprintf(c[0], RT_CELL, "%s", br_analysis_phase_name(p));
		snprintf(c[1], RT_CELL, "%llu", (unsigned long long)h->count);
		if (!h->count)
			continue;
		report_ms((double)h->min, c[2], RT_CELL);
		report_ms(br_hist_mean(h), c[3], RT_CELL);
		report_ms((double)br_hist_quantile(h, 0.5), c[4], RT_CELL);
		report_ms((double)br_hist_quantile(h, 0.9), c[5], RT_CELL);
		report_ms((double)br_hist_quantile(h, 0.99), c[6], RT_CELL);
		report_ms((double)h->max, c[7], RT_CELL);
		snprintf(c[8], RT_CELL, q2c > 0 ? "%.1f %%" : "-", q2c > 0 ? 100.0 * h->sum / q2c : 0.0);
	}
}

static void span_label(char *buf, uint64_t lo, const char *unit)
{
	snprintf(buf, RT_CELL, "%llu-%llu %s", (unsigned long long)lo, (unsigned long long)(2 * lo), unit);
}

static void sizes(report_table *t, const br_analysis_result *r)
{
	header(t, "IO sizes", 3, "size", "IOs", "share");
	double all = 0;
	for (unsigned b = 0; b < BR_SIZE_BINS; b++)
		all += (double)r->size_hist[b];
	for (unsigned b = 0; b < BR_SIZE_BINS; b++) {
		if (!r->size_hist[b])
			continue;
		char (*c)[RT_CELL] = row(t);
		uint64_t lo = 1ull << b;
		if (lo >= 1ull << 20)
			span_label(c[0], lo >> 20, "MiB");
		else if (lo >= 1024)
			span_label(c[0], lo >> 10, "KiB");
		else
			span_label(c[0], lo, "B");
		snprintf(c[1], RT_CELL, "%llu", (unsigned long long)r->size_hist[b]);
		snprintf(c[2], RT_CELL, "%.1f %%", 100.0 * (double)r->size_hist[b] / all);
	}
}

static void seeks(report_table *t, const br_analysis_result *r)
{
	header(t, "Seek distances (sectors)", 3, "distance", "forward", "backward");
	for (unsigned b = 0; b < BR_DIST_BINS; b++) {
		if (!r->seek_fwd[b] && !r->seek_back[b])
			continue;
		char (*c)[RT_CELL] = row(t);
		snprintf(c[0], RT_CELL, "2^%u-2^%u", b, b + 1);
		snprintf(c[1], RT_CELL, "%llu", (unsigned long long)r->seek_fwd[b]);
		snprintf(c[2], RT_CELL, "%llu", (unsigned long long)r->seek_back[b]);
	}
}

static void depth(report_table *t, const br_analysis_result *r)
{
	header(t, "Queue depth (IOs in flight)", 3, "depth", "time", "share of run");
	if (!r->has_completions)
		return;
	double span = r->span_s * 1e9;
	for (unsigned b = 0; b < BR_QD_BINS; b++) {
		if (!r->qd_ns[b])
			continue;
		char (*c)[RT_CELL] = row(t);
		snprintf(c[0], RT_CELL, b + 1 < BR_QD_BINS ? "%u" : "%u or more", b);
		report_ms((double)r->qd_ns[b], c[1], RT_CELL);
		snprintf(c[2], RT_CELL, "%.1f %%", span > 0 ? 100.0 * (double)r->qd_ns[b] / span : 0.0);
	}
}

static void ranges(report_table *t, const br_analysis_result *r, unsigned top)
{
	header(t, "Hottest offset ranges", 8, "device", "offset (MiB)", "MB", "share", "written",
	       "IOs", "bursts", "every");
	double all = report_bytes_total(r->totals->bytes);
	for (size_t k = 0; k < r->nranges && k < top; k++) {
		const br_analysis_range *g = &r->ranges[k];
		double b = report_bytes_total(g->bytes);
		char (*c)[RT_CELL] = row(t);
		report_dev(g->device, c[0], RT_CELL);
		snprintf(c[1], RT_CELL, "%llu-%llu", (unsigned long long)(g->start_byte >> 20),
			 (unsigned long long)((g->start_byte + g->len) >> 20));
		snprintf(c[2], RT_CELL, "%.2f", b / 1e6);
		snprintf(c[3], RT_CELL, "%.1f %%", all ? 100.0 * b / all : 0.0);
		snprintf(c[4], RT_CELL, "%.1f %%", b ? 100.0 * (double)g->bytes[BR_DIR_WRITE] / b : 0.0);
		snprintf(c[5], RT_CELL, "%llu", (unsigned long long)g->ios);
		snprintf(c[6], RT_CELL, "%llu", (unsigned long long)g->bursts);
		if (g->burst_interval_ns > 0)
			report_ms(g->burst_interval_ns, c[7], RT_CELL);
		else
			snprintf(c[7], RT_CELL, "-");
	}
}

static void group_row(report_table *t, const br_analysis_group *g, const char *name)
{
	char (*c)[RT_CELL] = row(t);
	if (!c)
		return;
	double span = g->last_ns > g->first_ns ? (double)(g->last_ns - g->first_ns) / 1e9 : 0;
	double b = report_bytes_total(g->bytes), n = report_ios_total(g->ios);
	snprintf(c[0], RT_CELL, "%s", name);
	snprintf(c[1], RT_CELL, "%.0f", n);
	snprintf(c[2], RT_CELL, "%.2f", b / 1e6);
	snprintf(c[3], RT_CELL, "%.1f %%", b ? 100.0 * (double)g->bytes[BR_DIR_READ] / b : 0.0);
	snprintf(c[4], RT_CELL, "%.3f", span);
	if (span > 0) {
		report_num(b / 1e6 / span, c[5], RT_CELL);
		report_num(n / span, c[6], RT_CELL);
	} else {
		snprintf(c[5], RT_CELL, "-");
		snprintf(c[6], RT_CELL, "-");
	}
	if (g->q2c_n)
		report_ms(g->q2c_sum_ns / (double)g->q2c_n, c[7], RT_CELL);
	else
		snprintf(c[7], RT_CELL, "-");
	if (g->d2c_n)
		report_ms(g->d2c_sum_ns / (double)g->d2c_n, c[8], RT_CELL);
	else
		snprintf(c[8], RT_CELL, "-");
}

static void groups(report_table *t, const br_analysis_result *r, bool procs, unsigned top)
{
	header(t, procs ? "Per process (IOs as queued)" : "Per device", 9, procs ? "process" : "device",
	       "IOs", "MB", "read", "run (s)", "MB/s", "IO/s", "Q2C avg", "D2C avg");
	size_t n = procs ? r->nprocs : r->ndevices;
	for (size_t k = 0; k < n && (!procs || k < top); k++) {
		const br_analysis_group *g = procs ? &r->procs[k] : &r->devices[k];
		char name[RT_CELL];
		if (procs)
			snprintf(name, sizeof name, "%u %s", g->id, g->comm);
		else
			report_dev(g->id, name, sizeof name);
		group_row(t, g, name);
	}
}

void report_table_make(report_table *t, enum report_table_kind kind, const report_data *d,
		       unsigned top)
{
	switch (kind) {
	case RT_SUMMARY: summary(t, d); break;
	case RT_PHASES: phases(t, d->res); break;
	case RT_SIZES: sizes(t, d->res); break;
	case RT_SEEKS: seeks(t, d->res); break;
	case RT_DEPTH: depth(t, d->res); break;
	case RT_RANGES: ranges(t, d->res, top); break;
	case RT_DEVICES: groups(t, d->res, false, top); break;
	case RT_PROCS: groups(t, d->res, true, top); break;
	default: header(t, "", 0); break;
	}
}

void report_table_compare(report_table *t, const report_ctx *ctx)
{
	memset(t, 0, sizeof *t);
	snprintf(t->title, sizeof t->title, "Side by side (sorted by how much each explains the throughput difference)");
	size_t n = ctx->n < RT_MAX_COLS - 3 ? ctx->n : RT_MAX_COLS - 3;
	t->ncols = n + 3;
	snprintf(t->cell[0][0], RT_CELL, "metric");
	for (size_t k = 0; k < n; k++)
		snprintf(t->cell[0][1 + k], RT_CELL, "%s", ctx->d[k].trace->label);
	snprintf(t->cell[0][n + 1], RT_CELL, "ratio");
	snprintf(t->cell[0][n + 2], RT_CELL, "better");
	for (size_t c = 1; c < n + 2; c++)
		t->numeric[c] = true;
	t->nrows = 1;
	for (size_t i = 0; i < ctx->cmp.nmetrics; i++) {
		const br_cmp_metric *m = &ctx->cmp.m[i];
		char (*c)[RT_CELL] = row(t);
		if (!c)
			break;
		snprintf(c[0], RT_CELL, m->unit[0] ? "%s (%s)" : "%s%s", m->name, m->unit);
		for (size_t k = 0; k < n; k++)
			report_num(m->v[k], c[1 + k], RT_CELL);
		if (m->ratio > 0)
			snprintf(c[n + 1], RT_CELL, "%.2fx", m->ratio);
		else
			snprintf(c[n + 1], RT_CELL, "-");
		if (m->better != BR_BETTER_NONE && m->ratio >= 1.005) /* shows as 1.01x or more */
			snprintf(c[n + 2], RT_CELL, "%s", ctx->d[m->best].trace->label);
	}
}
