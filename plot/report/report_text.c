/* The report as text on a terminal: for one trace the btt-style breakdown
 * and the access pattern; for several, the differences first, then each
 * trace's report. */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "blkreel/units.h"

static const char *const sdir_names[BR_STATS_DIRS] = { "reads", "writes", "other" };

static void summary(FILE *f, const report_data *d)
{
	const br_analysis_result *r = d->res;
	const br_stats_totals *t = r->totals;
	char b1[32], b2[32], b3[32], b4[32];
	double bytes = report_bytes_total(t->bytes), ios = report_ios_total(t->ios);
	fprintf(f, "== %s (%s, %s, %llu events)\n", d->trace->label, d->trace->path, d->format,
		(unsigned long long)d->events);
	fprintf(f, "  run time      %.6f s, %zu device%s\n", r->span_s, t->ndevices,
		t->ndevices == 1 ? "" : "s");
	fprintf(f, "  IOs           %.0f (counted on %s):", ios, br_stats_kind_name(t->io_kind));
	for (int s = 0; s < BR_STATS_DIRS; s++)
		fprintf(f, " %s %llu%s", sdir_names[s], (unsigned long long)t->ios[s],
			s + 1 < BR_STATS_DIRS ? "," : "\n");
	fprintf(f, "  bytes         %.1f MB:", bytes / 1e6);
	for (int s = 0; s < BR_STATS_DIRS; s++)
		fprintf(f, " %s %.0f %%%s", sdir_names[s], bytes ? 100.0 * (double)t->bytes[s] / bytes : 0.0,
			s + 1 < BR_STATS_DIRS ? "," : "\n");
	fprintf(f, "  throughput    %s MB/s, %s IO/s\n", report_num(r->mbps, b1, sizeof b1),
		report_num(r->iops, b2, sizeof b2));
	fprintf(f, "  seeks         %llu (%s/s, on %s), %.1f %% of IOs sequential (within %llu sectors)\n",
		(unsigned long long)t->seeks, report_num(r->seeks_per_s, b1, sizeof b1),
		br_stats_kind_name(t->seek_kind), 100.0 * r->seq_fraction,
		(unsigned long long)t->seek_sectors);
	fprintf(f, "  merging       %llu Q, %llu merged, %llu D: %s Q per D; %llu splits, %llu remaps, %llu requeues\n",
		(unsigned long long)t->queued, (unsigned long long)t->merged,
		(unsigned long long)t->issued, report_num(r->merge_ratio, b1, sizeof b1),
		(unsigned long long)t->splits, (unsigned long long)t->remaps,
		(unsigned long long)t->requeues);
	if (!r->has_completions) {
		fprintf(f, "  queue depth   not measurable: the trace has no completions (C)\n");
	} else {
		fprintf(f, "  queue depth   avg %s, max %u\n", report_num(r->qd_avg, b1, sizeof b1), r->qd_max);
		fprintf(f, "  idle          %s (%.1f %% of the run), %llu gaps, longest %s\n",
			report_ms((double)r->idle_ns, b1, sizeof b1),
			r->span_s > 0 ? 100.0 * (double)r->idle_ns / 1e9 / r->span_s : 0.0,
			(unsigned long long)r->idle_periods, report_ms((double)r->idle_max_ns, b2, sizeof b2));
	}
	fprintf(f, "  unfinished    %llu never issued, %llu never completed; %llu completions matched nothing",
		(unsigned long long)t->never_issued, (unsigned long long)t->never_completed,
		(unsigned long long)r->orphan_completions);
	if (r->empty_completions)
		fprintf(f, " (and %llu empty end-of-bio records)", (unsigned long long)r->empty_completions);
	fputc('\n', f);
	if (t->completed_untimed)
		fprintf(f, "  untimed       %llu IOs completed at an unknown time (the capture counted %llu "
			   "completions the kernel did not hand over): left out of latency and queue depth, "
			   "not counted as never completed\n",
			(unsigned long long)t->completed_untimed, (unsigned long long)t->unrecorded);
	if (t->refused_bios)
		fprintf(f, "  refused       %llu bios (%s) refused before issue: queued, then completed "
			   "with an error and never issued (a non-blocking submission that found the "
			   "queue full or needed a split); not served IOs, left out of the bytes, the "
			   "rates and the diagnosis\n",
			(unsigned long long)t->refused_bios, br_format_bytes(t->refused_bytes, b1, sizeof b1));
	if (t->lost_ios)
		fprintf(f, "  lost          %llu IOs issued with no completion (%llu of them completed late): "
			   "left out of queue depth, idle and busy time, and the diagnosis, which would "
			   "otherwise count them in flight to the end\n",
			(unsigned long long)t->lost_ios, (unsigned long long)t->late_completions);
	fprintf(f, "  latency       per request (as blkreel-plot draws it): D2C p50 %s p99 %s, Q2C p50 %s p99 %s\n",
		report_ms((double)br_hist_quantile(&t->d2c, 0.5), b1, sizeof b1),
		report_ms((double)br_hist_quantile(&t->d2c, 0.99), b2, sizeof b2),
		report_ms((double)br_hist_quantile(&t->q2c, 0.5), b3, sizeof b3),
		report_ms((double)br_hist_quantile(&t->q2c, 0.99), b4, sizeof b4));
}

static void phases(FILE *f, const br_analysis_result *r)
{
	static const double qs[] = { 0.5, 0.9, 0.99 };
	char b[8][32];
	double q2c_sum = r->phase[BR_PHASE_Q2C].sum;
	fprintf(f, "\n  Life of an IO (btt's phases; D2C and Q2C once per bio)\n");
	fprintf(f, "  %-5s %9s %11s %11s %11s %11s %11s %11s %8s\n", "phase", "N", "min", "avg", "p50",
		"p90", "p99", "max", "of Q2C");
	for (int p = 0; p < BR_PHASE_COUNT; p++) {
		const br_hist *h = &r->phase[p];
		if (!h->count) {
			fprintf(f, "  %-5s %9s\n", br_analysis_phase_name(p), "0");
			continue;
		}
		report_ms((double)h->min, b[0], sizeof b[0]);
		report_ms(br_hist_mean(h), b[1], sizeof b[1]);
		for (int k = 0; k < 3; k++)
			report_ms((double)br_hist_quantile(h, qs[k]), b[2 + k], sizeof b[2]);
		report_ms((double)h->max, b[5], sizeof b[5]);
		if (q2c_sum > 0)
			snprintf(b[6], sizeof b[6], "%.1f %%", 100.0 * h->sum / q2c_sum);
		else
			snprintf(b[6], sizeof b[6], "-");
		fprintf(f, "  %-5s %9llu %11s %11s %11s %11s %11s %11s %8s\n", br_analysis_phase_name(p),
			(unsigned long long)h->count, b[0], b[1], b[2], b[3], b[4], b[5], b[6]);
	}
}

/* One bar line per non-empty bin, scaled to the largest. */
static void bars(FILE *f, const char *label, double v, double max, const char *extra)
{
	int w = max > 0 ? (int)(30.0 * v / max + 0.5) : 0;
	char bar[31];
	memset(bar, '#', (size_t)w);
	bar[w] = 0;
	fprintf(f, "    %-20s %10.0f %-30s%s\n", label, v, bar, extra ? extra : "");
}

static const char *size_label(unsigned b, char *buf, size_t size)
{
	uint64_t lo = 1ull << b;
	if (lo >= 1ull << 20)
		snprintf(buf, size, "%llu-%llu MiB", (unsigned long long)(lo >> 20),
			 (unsigned long long)(lo >> 19));
	else if (lo >= 1024)
		snprintf(buf, size, "%llu-%llu KiB", (unsigned long long)(lo >> 10),
			 (unsigned long long)(lo >> 9));
	else
		snprintf(buf, size, "%llu-%llu B", (unsigned long long)lo,
			 (unsigned long long)(2 * lo));
	return buf;
}

static void histograms(FILE *f, const br_analysis_result *r)
{
	char lab[48];
	double max = 0;
	for (unsigned b = 0; b < BR_SIZE_BINS; b++)
		if (r->size_hist[b] > max)
			max = (double)r->size_hist[b];
	fprintf(f, "\n  IO sizes (%s)\n", br_stats_kind_name(r->totals->io_kind));
	for (unsigned b = 0; b < BR_SIZE_BINS; b++)
		if (r->size_hist[b])
			bars(f, size_label(b, lab, sizeof lab), (double)r->size_hist[b], max, NULL);

	max = 0;
	for (unsigned b = 0; b < BR_DIST_BINS; b++) {
		if (r->seek_fwd[b] > max)
			max = (double)r->seek_fwd[b];
		if (r->seek_back[b] > max)
			max = (double)r->seek_back[b];
	}
	fprintf(f, "\n  Seek distances (sectors; %llu seeks)\n", (unsigned long long)r->totals->seeks);
	for (int dir = 1; dir >= -1; dir -= 2)
		for (unsigned b = 0; b < BR_DIST_BINS; b++) {
			uint64_t v = dir > 0 ? r->seek_fwd[b] : r->seek_back[b];
			if (!v)
				continue;
			snprintf(lab, sizeof lab, "%s 2^%u-2^%u", dir > 0 ? "fwd " : "back", b, b + 1);
			bars(f, lab, (double)v, max, NULL);
		}

	double span_ns = r->span_s * 1e9;
	max = 0;
	for (unsigned b = 0; b < BR_QD_BINS; b++)
		if (r->qd_ns[b] > max)
			max = (double)r->qd_ns[b];
	if (!r->has_completions)
		return;
	fprintf(f, "\n  Queue depth (share of the run at each depth)\n");
	for (unsigned b = 0; b < BR_QD_BINS; b++) {
		if (!r->qd_ns[b])
			continue;
		char pct[32];
		snprintf(lab, sizeof lab, b + 1 < BR_QD_BINS ? "%u" : "%u or more", b);
		snprintf(pct, sizeof pct, " %.1f %%", span_ns > 0 ? 100.0 * (double)r->qd_ns[b] / span_ns : 0);
		int w = max > 0 ? (int)(30.0 * (double)r->qd_ns[b] / max + 0.5) : 0;
		char bar[31];
		memset(bar, '#', (size_t)w);
		bar[w] = 0;
		fprintf(f, "    %-20s %10s %-30s\n", lab, pct, bar);
	}
}

static void ranges(FILE *f, const br_analysis_result *r, unsigned top)
{
	double all = report_bytes_total(r->totals->bytes);
	char dev[32], iv[32];
	fprintf(f, "\n  Hottest offset ranges\n");
	fprintf(f, "    %-8s %14s %10s %8s %8s %8s %8s  %s\n", "device", "offset (MiB)", "MB", "share",
		"% write", "IOs", "bursts", "every");
	for (size_t k = 0; k < r->nranges && k < top; k++) {
		const br_analysis_range *g = &r->ranges[k];
		double b = report_bytes_total(g->bytes);
		if (g->burst_interval_ns > 0)
			report_ms(g->burst_interval_ns, iv, sizeof iv);
		else
			snprintf(iv, sizeof iv, "-");
		fprintf(f, "    %-8s %7llu-%-6llu %10.2f %7.1f%% %7.1f%% %8llu %8llu  %s\n",
			report_dev(g->device, dev, sizeof dev), (unsigned long long)(g->start_byte >> 20),
			(unsigned long long)((g->start_byte + g->len) >> 20), b / 1e6,
			all ? 100.0 * b / all : 0.0, b ? 100.0 * (double)g->bytes[BR_DIR_WRITE] / b : 0.0,
			(unsigned long long)g->ios, (unsigned long long)g->bursts, iv);
	}
}

static void group_row(FILE *f, const char *name, const br_analysis_group *g)
{
	double span = g->last_ns > g->first_ns ? (double)(g->last_ns - g->first_ns) / 1e9 : 0;
	double b = report_bytes_total(g->bytes), n = report_ios_total(g->ios);
	char q2c[32], d2c[32], mbps[32] = "-", iops[32] = "-";
	report_ms(g->q2c_n ? g->q2c_sum_ns / (double)g->q2c_n : 0, q2c, sizeof q2c);
	report_ms(g->d2c_n ? g->d2c_sum_ns / (double)g->d2c_n : 0, d2c, sizeof d2c);
	if (span > 0) {
		report_num(b / 1e6 / span, mbps, sizeof mbps);
		report_num(n / span, iops, sizeof iops);
	}
	fprintf(f, "    %-22s %8.0f %10.2f %6.1f%% %10.3f %8s %8s %10s %10s\n", name, n, b / 1e6,
		b ? 100.0 * (double)g->bytes[BR_DIR_READ] / b : 0.0, span, mbps, iops,
		g->q2c_n ? q2c : "-", g->d2c_n ? d2c : "-");
}

static void groups(FILE *f, const br_analysis_result *r, unsigned top)
{
	char name[64], dev[32];
	const char *head = "    %-22s %8s %10s %7s %10s %8s %8s %10s %10s\n";
	fprintf(f, "\n  Per device\n");
	fprintf(f, head, "device", "IOs", "MB", "read", "run (s)", "MB/s", "IO/s", "Q2C avg", "D2C avg");
	for (size_t k = 0; k < r->ndevices; k++)
		group_row(f, report_dev(r->devices[k].id, dev, sizeof dev), &r->devices[k]);
	fprintf(f, "\n  Per process (IOs as queued; top %u of %zu by bytes)\n", top, r->nprocs);
	fprintf(f, head, "process", "IOs", "MB", "read", "run (s)", "MB/s", "IO/s", "Q2C avg", "D2C avg");
	for (size_t k = 0; k < r->nprocs && k < top; k++) {
		const br_analysis_group *g = &r->procs[k];
		snprintf(name, sizeof name, "%u %s", g->id, g->comm[0] ? g->comm : "");
		group_row(f, name, g);
	}
}

static void one(FILE *f, const report_data *d, unsigned top)
{
	summary(f, d);
	phases(f, d->res);
	histograms(f, d->res);
	ranges(f, d->res, top);
	groups(f, d->res, top);
}

static void text_line(void *arg, int kind, const char *line)
{
	FILE *f = arg;
	switch (kind) {
	case REPORT_DIAG_HEAD: fprintf(f, "  %s\n", line); break;
	case REPORT_DIAG_NOTE: fprintf(f, "  ! %s\n", line); break;
	case REPORT_DIAG_CAUSE: fprintf(f, "    - %s\n", line); break;
	case REPORT_DIAG_AGAINST_HEAD: fprintf(f, "  %s\n", line); break;
	case REPORT_DIAG_AGAINST: fprintf(f, "    - %s\n", line); break;
	default: fprintf(f, "  (%s)\n", line); break;
	}
}

static void diagnosis(FILE *f, const report_ctx *ctx)
{
	fprintf(f, "== Diagnosis: %s vs %s\n", ctx->d[ctx->diag_idx[0]].trace->label,
		ctx->d[ctx->diag_idx[1]].trace->label);
	report_diag_lines(ctx, text_line, f);
	fprintf(f, "\n");
}

static void comparison(FILE *f, const report_ctx *ctx)
{
	fprintf(f, "== Differences");
	for (size_t k = 0; k < ctx->n; k++)
		fprintf(f, "%s%s", k ? " vs " : ": ", ctx->d[k].trace->label);
	fprintf(f, "\n");
	for (size_t s = 0; s < ctx->nsentences; s++)
		fprintf(f, "  - %s\n", ctx->sentences[s]);
	fprintf(f, "\n  %-24s", "metric");
	for (size_t k = 0; k < ctx->n; k++)
		fprintf(f, " %12.12s", ctx->d[k].trace->label);
	fprintf(f, " %8s  %s\n", "ratio", "better");
	for (size_t i = 0; i < ctx->cmp.nmetrics; i++) {
		const br_cmp_metric *m = &ctx->cmp.m[i];
		char name[64], v[32];
		snprintf(name, sizeof name, m->unit[0] ? "%s (%s)" : "%s%s", m->name, m->unit);
		fprintf(f, "  %-24s", name);
		for (size_t k = 0; k < ctx->n; k++)
			fprintf(f, " %12s", report_num(m->v[k], v, sizeof v));
		if (m->ratio > 0)
			fprintf(f, " %7.2fx", m->ratio);
		else
			fprintf(f, " %8s", "-");
		fprintf(f, "  %s\n", m->better == BR_BETTER_NONE || m->ratio < 1.005 ? ""
				     : ctx->d[m->best].trace->label);
	}
	fprintf(f, "\n");
}

int report_text(FILE *f, const report_ctx *ctx)
{
	if (ctx->has_sweep) /* the sweep and its pairs say more than the slowest against the fastest */
		report_sweep_text(f, ctx);
	else if (ctx->has_diag)
		diagnosis(f, ctx);
	if (ctx->n > 1)
		comparison(f, ctx);
	for (size_t k = 0; k < ctx->n; k++) {
		if (k)
			fprintf(f, "\n");
		one(f, &ctx->d[k], ctx->cli->top);
	}
	return ferror(f) ? -1 : 0;
}
