/* The plain sentences of a comparison: who moved more data and by how
 * much, the largest differences that go with it, the largest that go
 * against it, and where a trace concentrates its bytes. Numbers only; no
 * guesses about causes. */
#include "report.h"

#include <stdio.h>
#include <string.h>

/* Metrics that are the outcome, not an explanation of it. */
static bool outcome(const br_cmp_metric *m)
{
	return !strcmp(m->key, "mbps") || !strcmp(m->key, "iops") || !strcmp(m->key, "run_s");
}

/* "3.1x fewer seeks/s", "1.5x more bios per request", "1.2x larger mean IO size" */
static const char *word(const br_cmp_metric *m)
{
	bool count = !strcmp(m->key, "seeks_per_s") || !strcmp(m->key, "seek_pct") ||
		     !strcmp(m->key, "merge_ratio");
	bool size = !strcmp(m->key, "io_kib");
	if (m->better == BR_BETTER_HIGHER)
		return count ? "more" : size ? "larger" : "higher";
	return count ? "fewer" : size ? "smaller" : "lower";
}

static void value(const br_cmp_metric *m, size_t k, char *buf, size_t size)
{
	char v[32];
	report_num(m->v[k], v, sizeof v);
	if (!strcmp(m->unit, "ms"))
		report_ms(m->v[k] * 1e6, buf, size);
	else if (!m->unit[0])
		snprintf(buf, size, "%s", v);
	else if (!strcmp(m->unit, "%"))
		snprintf(buf, size, "%s %%", v);
	else
		snprintf(buf, size, "%s %s", v, m->unit);
}

/* "3.1x fewer seeks/s (12.0 vs 37.4)" */
static int phrase(const br_cmp_metric *m, char *buf, size_t size)
{
	char a[48], b[48];
	value(m, m->best, a, sizeof a);
	value(m, m->worst, b, sizeof b);
	return snprintf(buf, size, "%.1fx %s %s (%s vs %s)", m->ratio, word(m), m->name, a, b);
}

static void list(report_ctx *ctx, bool agrees, size_t max)
{
	if (ctx->nsentences >= REPORT_MAX_SENTENCES)
		return;
	char *s = ctx->sentences[ctx->nsentences];
	size_t used = 0, n = 0, who = SIZE_MAX;
	for (size_t i = 0; i < ctx->cmp.nmetrics && n < max; i++) {
		const br_cmp_metric *m = &ctx->cmp.m[i];
		if (outcome(m) || m->better == BR_BETTER_NONE || m->ratio < 1.1 || m->agrees != agrees)
			continue;
		if (who != SIZE_MAX && m->best != who)
			continue; /* one subject per sentence */
		if (who == SIZE_MAX) {
			who = m->best;
			used += (size_t)snprintf(s + used, REPORT_SENTENCE_MAX - used, "%s%s: ",
						 agrees ? "" : "Against that, ", ctx->d[who].trace->label);
		}
		if (n)
			used += (size_t)snprintf(s + used, REPORT_SENTENCE_MAX - used, ", ");
		if (used < REPORT_SENTENCE_MAX)
			used += (size_t)phrase(m, s + used, REPORT_SENTENCE_MAX - used);
		n++;
		if (used >= REPORT_SENTENCE_MAX)
			break;
	}
	if (n) {
		if (used + 2 < REPORT_SENTENCE_MAX)
			strcat(s, ".");
		ctx->nsentences++;
	}
}

static void hot(report_ctx *ctx, size_t k)
{
	const br_analysis_result *r = ctx->d[k].res;
	double all = report_bytes_total(r->totals->bytes);
	if (!r->nranges || !all || ctx->nsentences >= REPORT_MAX_SENTENCES)
		return;
	const br_analysis_range *g = &r->ranges[0];
	double b = report_bytes_total(g->bytes), share = 100.0 * b / all;
	if (share <= 25.0 || r->nranges < 2) /* more than a quarter, of several ranges */
		return;
	char dev[32], every[64] = "";
	if (g->bursts > 1) {
		char iv[32];
		report_ms(g->burst_interval_ns, iv, sizeof iv);
		snprintf(every, sizeof every, " in %llu bursts, one every %s",
			 (unsigned long long)g->bursts, iv);
	}
	const char *verb = (double)g->bytes[BR_DIR_WRITE] * 2 > b ? "writes"
			 : (double)g->bytes[BR_DIR_READ] * 2 > b  ? "reads" : "moves";
	snprintf(ctx->sentences[ctx->nsentences++], REPORT_SENTENCE_MAX,
		 "%s %s %.0f %% of its bytes %s one %llu MiB range (device %s, from %llu MiB)%s.",
		 ctx->d[k].trace->label, verb, share, strcmp(verb, "reads") ? "to" : "from",
		 (unsigned long long)(g->len >> 20), report_dev(g->device, dev, sizeof dev),
		 (unsigned long long)(g->start_byte >> 20), every);
}

void report_sentences(report_ctx *ctx)
{
	ctx->nsentences = 0;
	if (ctx->n < 2)
		return;
	const br_cmp *c = &ctx->cmp;
	size_t best = c->tput_best, worst = best;
	for (size_t k = 0; k < ctx->n; k++)
		if (ctx->d[k].res->mbps < ctx->d[worst].res->mbps)
			worst = k;
	const br_analysis_result *rb = ctx->d[best].res, *rw = ctx->d[worst].res;
	char sb[32], sw[32];
	report_ms(rb->span_s * 1e9, sb, sizeof sb);
	report_ms(rw->span_s * 1e9, sw, sizeof sw);
	if (best != worst && rw->mbps > 0 && rb->mbps < rw->mbps * 1.05)
		snprintf(ctx->sentences[ctx->nsentences++], REPORT_SENTENCE_MAX,
			 "%s and %s moved about the same MB/s (%.1f vs %.1f MB/s; %.0f vs %.0f IO/s; runs of %s and %s).",
			 ctx->d[best].trace->label, ctx->d[worst].trace->label, rb->mbps, rw->mbps, rb->iops,
			 rw->iops, sb, sw);
	else if (best != worst && rw->mbps > 0)
		snprintf(ctx->sentences[ctx->nsentences++], REPORT_SENTENCE_MAX,
			 "%s moved %.1fx the MB/s of %s (%.1f vs %.1f MB/s; %.0f vs %.0f IO/s; runs of %s and %s).",
			 ctx->d[best].trace->label, rb->mbps / rw->mbps, ctx->d[worst].trace->label,
			 rb->mbps, rw->mbps, rb->iops, rw->iops, sb, sw);
	else
		snprintf(ctx->sentences[ctx->nsentences++], REPORT_SENTENCE_MAX,
			 "Throughput is the same (%.1f MB/s).", rb->mbps);
	list(ctx, true, 3);
	list(ctx, false, 2);
	for (size_t k = 0; k < ctx->n; k++)
		hot(ctx, k);
}
