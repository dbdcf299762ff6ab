/* Comparing traces: every report metric side by side, the ratio between
 * the worst and best trace, ranked by how much it goes with the difference
 * in throughput (rules in blkreel/analysis.h). */
#include "analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef double (*metric_fn)(const br_analysis_result *r);

static double tot_ios(const br_analysis_result *r)
{
	const br_stats_totals *t = r->totals;
	return (double)(t->ios[0] + t->ios[1] + t->ios[2]);
}
static double tot_bytes(const br_analysis_result *r)
{
	const br_stats_totals *t = r->totals;
	return (double)(t->bytes[0] + t->bytes[1] + t->bytes[2]);
}

static double m_mbps(const br_analysis_result *r) { return r->mbps; }
static double m_iops(const br_analysis_result *r) { return r->iops; }
static double m_span(const br_analysis_result *r) { return r->span_s; }
static double m_seeks(const br_analysis_result *r) { return r->seeks_per_s; }
static double m_seekpct(const br_analysis_result *r) { return 100.0 * (1.0 - r->seq_fraction); }
static double m_size(const br_analysis_result *r)
{
	double n = tot_ios(r);
	return n ? tot_bytes(r) / n / 1024.0 : 0.0;
}
static double m_merge(const br_analysis_result *r) { return r->merge_ratio; }
static double m_d2c_avg(const br_analysis_result *r) { return br_hist_mean(&r->totals->d2c) / 1e6; }
static double m_d2c_p50(const br_analysis_result *r) { return (double)br_hist_quantile(&r->totals->d2c, 0.5) / 1e6; }
static double m_d2c_p99(const br_analysis_result *r) { return (double)br_hist_quantile(&r->totals->d2c, 0.99) / 1e6; }
static double m_q2c_avg(const br_analysis_result *r) { return br_hist_mean(&r->totals->q2c) / 1e6; }
static double m_q2c_p50(const br_analysis_result *r) { return (double)br_hist_quantile(&r->totals->q2c, 0.5) / 1e6; }
static double m_q2c_p99(const br_analysis_result *r) { return (double)br_hist_quantile(&r->totals->q2c, 0.99) / 1e6; }
static double m_i2d_avg(const br_analysis_result *r) { return br_hist_mean(&r->phase[BR_PHASE_I2D]) / 1e6; }
static double m_q2g_avg(const br_analysis_result *r) { return br_hist_mean(&r->phase[BR_PHASE_Q2G]) / 1e6; }
static double m_qd(const br_analysis_result *r) { return r->has_completions ? r->qd_avg : 0.0; }
static double m_idle(const br_analysis_result *r)
{
	return r->span_s > 0 && r->has_completions ? 100.0 * (double)r->idle_ns / 1e9 / r->span_s : 0.0;
}
static double m_hot(const br_analysis_result *r)
{
	double b = tot_bytes(r);
	if (!r->nranges || !b)
		return 0.0;
	const br_analysis_range *h = &r->ranges[0];
	return 100.0 * (double)(h->bytes[0] + h->bytes[1] + h->bytes[2]) / b;
}

static const struct {
	br_cmp_metric d;
	metric_fn fn;
} table[] = {
	{ { "mbps", "throughput", "MB/s", BR_BETTER_HIGHER }, m_mbps },
	{ { "iops", "IO/s", "", BR_BETTER_HIGHER }, m_iops },
	{ { "run_s", "run time", "s", BR_BETTER_LOWER }, m_span },
	{ { "seeks_per_s", "seeks/s", "", BR_BETTER_LOWER }, m_seeks },
	{ { "seek_pct", "IOs that seek", "%", BR_BETTER_LOWER }, m_seekpct },
	{ { "io_kib", "mean IO size", "KiB", BR_BETTER_HIGHER }, m_size },
	{ { "merge_ratio", "bios per request", "", BR_BETTER_HIGHER }, m_merge },
	{ { "d2c_avg_ms", "D2C avg", "ms", BR_BETTER_LOWER }, m_d2c_avg },
	{ { "d2c_p50_ms", "D2C p50", "ms", BR_BETTER_LOWER }, m_d2c_p50 },
	{ { "d2c_p99_ms", "D2C p99", "ms", BR_BETTER_LOWER }, m_d2c_p99 },
	{ { "q2c_avg_ms", "Q2C avg", "ms", BR_BETTER_LOWER }, m_q2c_avg },
	{ { "q2c_p50_ms", "Q2C p50", "ms", BR_BETTER_LOWER }, m_q2c_p50 },
	{ { "q2c_p99_ms", "Q2C p99", "ms", BR_BETTER_LOWER }, m_q2c_p99 },
	{ { "i2d_avg_ms", "I2D avg", "ms", BR_BETTER_LOWER }, m_i2d_avg },
	{ { "q2g_avg_ms", "Q2G avg", "ms", BR_BETTER_LOWER }, m_q2g_avg },
	{ { "qd_avg", "queue depth avg", "", BR_BETTER_NONE }, m_qd },
	{ { "idle_pct", "device idle", "%", BR_BETTER_NONE }, m_idle },
	{ { "hot_range_pct", "bytes in hottest range", "%", BR_BETTER_NONE }, m_hot },
};
#define NMETRICS (sizeof(table) / sizeof(table[0]))

/* The outcome (throughput, IO/s, run time) first, in that order; then
 * the explanations by score. */
static int outcome_rank(const br_cmp_metric *m)
{
	return !strcmp(m->key, "mbps") ? 0 : !strcmp(m->key, "iops") ? 1 : !strcmp(m->key, "run_s") ? 2 : 3;
}

static int by_score(const void *x, const void *y)
{
	const br_cmp_metric *a = x, *b = y;
	int ra = outcome_rank(a), rb = outcome_rank(b);
	if (ra != rb)
		return ra - rb;
	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	return strcmp(a->key, b->key);
}

int br_analysis_compare(const br_analysis_result *const *res, size_t n, br_cmp *out,
			br_error *err)
{
	memset(out, 0, sizeof(*out));
	if (n < 2 || n > BR_CMP_MAX_TRACES)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "compare: %zu traces (2 to %d can be compared)", n, BR_CMP_MAX_TRACES);
	out->m = calloc(NMETRICS, sizeof(br_cmp_metric));
	if (!out->m)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "compare: out of memory");
	out->ntraces = n;
	out->nmetrics = NMETRICS;
	for (size_t k = 1; k < n; k++)
		if (res[k]->mbps > res[out->tput_best]->mbps)
			out->tput_best = k;
	for (size_t i = 0; i < NMETRICS; i++) {
		br_cmp_metric *m = &out->m[i];
		*m = table[i].d;
		bool lower = m->better == BR_BETTER_LOWER;
		size_t lo = 0, hi = 0;
		bool all_pos = true;
		for (size_t k = 0; k < n; k++) {
			m->v[k] = table[i].fn(res[k]);
			all_pos &= m->v[k] > 0 && isfinite(m->v[k]);
			if (m->v[k] < m->v[lo])
				lo = k;
			if (m->v[k] > m->v[hi])
				hi = k;
		}
		m->best = lower ? lo : hi;
		m->worst = lower ? hi : lo;
		if (!all_pos) {
			m->ratio = 0;
			m->score = 0;
			continue;
		}
		m->ratio = m->v[hi] / m->v[lo];
		m->agrees = m->better != BR_BETTER_NONE && m->best == out->tput_best && m->ratio > 1.0;
		m->score = fabs(log(m->ratio)) * (m->agrees ? 1.0 : 0.5);
	}
	qsort(out->m, NMETRICS, sizeof(br_cmp_metric), by_score);
	return 0;
}

void br_cmp_free(br_cmp *c)
{
	if (!c)
		return;
	free(c->m);
	memset(c, 0, sizeof(*c));
}

static double contribution(const char *key, const br_diagnosis *d)
{
	static const struct {
		const char *key;
		int term; /* 0..3: U, N_busy, S, R; 4: Q2C; 5+p: latency phase p */
	} map[] = {
		{ "idle_pct", 0 }, { "qd_avg", 1 }, { "io_kib", 2 }, { "merge_ratio", 2 },
		{ "d2c_avg_ms", 3 }, { "d2c_p50_ms", 3 }, { "d2c_p99_ms", 3 }, { "q2c_avg_ms", 4 },
		{ "q2c_p50_ms", 4 }, { "q2c_p99_ms", 4 }, { "i2d_avg_ms", 5 + BR_DP_I2D },
		{ "q2g_avg_ms", 5 + BR_DP_Q2G },
	};
	double q2c = fabs(d->q2c_mean[1] - d->q2c_mean[0]);
	for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
		if (strcmp(map[k].key, key))
			continue;
		int t = map[k].term;
		if (t < 4)
			return fabs(d->terms[t]) / (fabs(d->mbps_total) + 1e-12);
		if (t == 4)
			return q2c > 0 ? 1.0 : 0.0;
		return q2c > 0 ? fabs(d->phase_delta[t - 5]) / q2c : 0.0;
	}
	return -1;
}

void br_cmp_sort_by_diagnosis(br_cmp *c, const br_diagnosis *d)
{
	for (size_t i = 0; i < c->nmetrics; i++) {
		double v = contribution(c->m[i].key, d);
		/* unexplained metrics after every explained one, in their order */
		c->m[i].score = v >= 0 ? 1000.0 + v : c->m[i].score;
	}
	qsort(c->m, c->nmetrics, sizeof *c->m, by_score);
}
