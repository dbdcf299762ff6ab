#include "report.h"

#include <math.h>

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void windows(const replay_stats *st, fidelity *f)
{
	double sum = 0, worst = 0;
	size_t n = 0, worst_i = 0;
	for (size_t i = 0; i < st->nwin; i++) {
		if (!st->win_target[i])
			continue;
		double e = fabs((double)st->win_actual[i] - (double)st->win_target[i]) /
			   (double)st->win_target[i] * 100.0;
		sum += e;
		n++;
		if (e > worst) {
			worst = e;
			worst_i = i;
		}
	}
	f->windows = n;
	f->win_err_mean_pct = n ? sum / (double)n : 0;
	f->win_err_worst_pct = worst;
	f->win_worst_at_s = (double)worst_i * (double)STATS_WINDOW_NS / 1e9;
}

void report_compute(const replay_result *r, fidelity *f)
{
	const replay_stats *st = r->st;
	const plan_totals *p = r->plan;
	*f = (fidelity){ 0 };
	for (int k = 0; k < RK_COUNT; k++) {
		f->planned += p->planned[k];
		f->issued += st->issued[k];
		f->completed += st->completed[k];
		f->failed += st->failed[k];
	}
	uint64_t span = p->last_t > p->first_t ? p->last_t - p->first_t : 0;
	f->span_s = (double)span / 1e9 / r->o->speed;
	f->duration_s = (double)r->duration_ns / 1e9;
	f->drift_pct = f->span_s > 0 ? (f->duration_s - f->span_s) / f->span_s * 100.0 : 0;

	br_hist abs;
	br_hist_clear(&abs);
	br_hist_merge(&abs, &st->late);
	br_hist_merge(&abs, &st->early);
	f->err_p50 = br_hist_quantile(&abs, 0.50);
	f->err_p90 = br_hist_quantile(&abs, 0.90);
	f->err_p99 = br_hist_quantile(&abs, 0.99);
	f->err_p999 = br_hist_quantile(&abs, 0.999);
	f->err_max = abs.count ? abs.max : 0;
	f->pct_early = pct(st->early.count, abs.count);
	f->pct_10us = pct(br_hist_count_le(&abs, 10000), abs.count);
	f->pct_100us = pct(br_hist_count_le(&abs, 100000), abs.count);
	f->pct_1ms = pct(br_hist_count_le(&abs, 1000000), abs.count);
	f->gap_p50 = br_hist_quantile(&st->gap_err, 0.5);
	f->gap_p99 = br_hist_quantile(&st->gap_err, 0.99);
	f->gap_max = st->gap_err.count ? st->gap_err.max : 0;
	windows(st, f);

	f->inflight_max = st->inflight_max;
	f->inflight_avg = r->wall_ns ? (double)(st->busy_ns / (long double)r->wall_ns) : 0;
	f->trace_inflight_max = p->trace_inflight_max;
	f->trace_inflight_avg = p->trace_inflight_avg;
	for (int d = 0; d < 2; d++) {
		f->lat[d].n = st->lat[d].count;
		f->lat[d].p50 = br_hist_quantile(&st->lat[d], 0.5);
		f->lat[d].p99 = br_hist_quantile(&st->lat[d], 0.99);
		f->lat[d].max = st->lat[d].count ? st->lat[d].max : 0;
	}
	f->cpu_us_per_io = f->issued ? r->cpu_s * 1e6 / (double)f->issued : 0;
	f->iops = r->wall_ns ? (double)f->completed * 1e9 / (double)r->wall_ns : 0;
}
