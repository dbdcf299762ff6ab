/* ab_stats.c — the rounds as the unit of variance: each captured replay
 * read into its diagnosis profile, each side's runs pooled into one profile
 * whose slices are the runs (br_diag_pool_runs), A diagnosed against B, and
 * per metric (U, N_busy, S, R, the latency phases) the rounds' values,
 * their Welch t and the detection floor. */
#include "ab_types.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blkreel/analysis.h"
#include "tool/analyse.h"

static int load_one(ab_run_rec *r, br_error *err)
{
	br_analysis_opts opts;
	memset(&opts, 0, sizeof opts);
	br_analysis *an = NULL;
	int rc = tool_analyse_path(r->trace, NULL, &opts, NULL, &an, &r->events, err);
	if (!rc)
		r->prof = *br_analysis_get(an)->profile;
	br_analysis_free(an);
	return rc;
}

int ab_stats_load(ab_ctx *c, br_error *err)
{
	for (size_t i = 0; i < c->nruns; i++)
		if (c->runs[i].done) {
			int rc = load_one(&c->runs[i], err);
			if (rc)
				return rc;
		}
	return 0;
}

static double run_value(const ab_run_rec *r, int m)
{
	br_diag_factors f;
	br_diag_factors_of(&r->prof, &f);
	switch (m) {
	case AB_M_X: return f.x;
	case AB_M_U: return f.u;
	case AB_M_N: return f.nbusy;
	case AB_M_S: return f.s;
	case AB_M_R: return f.r;
	case AB_M_Q2C: return f.q2c;
	default: {
		int p = m - AB_M_PHASE0;
		return r->prof.phase_n[p] ? r->prof.phase_sum[p] / (double)r->prof.phase_n[p] : 0;
	}
	}
}

static void describe(ab_metric *mt, int m)
{
	static char keys[BR_DP_COUNT][16];
	switch (m) {
	case AB_M_X: *mt = (ab_metric){ .key = "mbps", .name = "MB/s", .unit = "MB/s", .scale = 1 }; return;
	case AB_M_U: *mt = (ab_metric){ .key = "u", .name = "U", .unit = "", .scale = 1 }; return;
	case AB_M_N: *mt = (ab_metric){ .key = "n_busy", .name = "N_busy", .unit = "", .scale = 1 }; return;
	case AB_M_S: *mt = (ab_metric){ .key = "s_kib", .name = "S", .unit = "KiB", .scale = 1024 }; return;
	case AB_M_R: *mt = (ab_metric){ .key = "r_us", .name = "R", .unit = "us", .scale = 1e3 }; return;
	case AB_M_Q2C: *mt = (ab_metric){ .key = "q2c_us", .name = "Q2C", .unit = "us", .scale = 1e3 }; return;
	default: {
		int p = m - AB_M_PHASE0;
		const char *name = br_diag_phase_name((enum br_diag_phase)p);
		snprintf(keys[p], sizeof keys[p], "%c%c%c_us", name[0] | 0x20, name[1], name[2] | 0x20);
		*mt = (ab_metric){ .key = keys[p], .name = name, .unit = "us", .scale = 1e3 };
	}
	}
}

/* Welch over ln values: t of ln B − ln A, its degrees of freedom, the |t|
 * a difference must reach at that df (br_diag_t_needed, as the diagnosis
 * over the rounds), and the detection floor (the smallest ratio reaching
 * it given these spreads, never under BR_DIAG_RUNS_MIN_RATIO, the
 * diagnosis' own minimum for a timed difference). */
static void welch(ab_metric *mt)
{
	double mean[2], var[2];
	for (int s = 0; s < 2; s++) {
		double sum = 0, sq = 0;
		size_t n = mt->n[s];
		for (size_t i = 0; i < n; i++)
			sum += log(mt->v[s][i]);
		mean[s] = n ? sum / (double)n : 0;
		for (size_t i = 0; i < n; i++)
			sq += (log(mt->v[s][i]) - mean[s]) * (log(mt->v[s][i]) - mean[s]);
		var[s] = n > 1 ? sq / (double)(n - 1) : 0;
		mt->sd_ln[s] = sqrt(var[s]);
		mt->mean[s] = exp(mean[s]);
	}
	double d = mean[1] - mean[0];
	mt->ratio = exp(d);
	double va = var[0] / (double)mt->n[0], vb = var[1] / (double)mt->n[1];
	double se = sqrt(va + vb);
	mt->t = se > 0 ? d / se : (fabs(d) > 1e-12 ? copysign(INFINITY, d) : 0);
	double den = (mt->n[0] > 1 ? va * va / (double)(mt->n[0] - 1) : 0) +
		     (mt->n[1] > 1 ? vb * vb / (double)(mt->n[1] - 1) : 0);
	mt->df = den > 0 ? (va + vb) * (va + vb) / den : 0;
	mt->t_need = br_diag_t_needed(den > 0 ? mt->df : (double)(mt->n[0] + mt->n[1]) - 2, BR_DIAG_RUNS_ALPHA);
	double fl = exp(mt->t_need * se);
	if (fl < BR_DIAG_RUNS_MIN_RATIO)
		fl = BR_DIAG_RUNS_MIN_RATIO;
	mt->floor = fl - 1;
	mt->significant = mt->n[0] >= 2 && mt->n[1] >= 2 && fabs(mt->t) >= mt->t_need &&
			  fmax(mt->ratio, 1 / mt->ratio) >= BR_DIAG_RUNS_MIN_RATIO;
}

int ab_stats_compare(ab_ctx *c, br_error *err)
{
	const br_diag_profile *side[2][AB_MAX_ROUNDS];
	size_t n[2] = { 0, 0 };
	for (size_t i = 0; i < c->nruns; i++) {
		const ab_run_rec *r = &c->runs[i];
		if (r->done && n[r->side] < AB_MAX_ROUNDS)
			side[r->side][n[r->side]++] = &r->prof;
	}
	if (!n[0] || !n[1])
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "no finished round on %s",
				    n[0] ? c->label[1] : c->label[0]);
	for (int s = 0; s < 2; s++) {
		int rc = br_diag_pool_runs(side[s], n[s], &c->pool[s], err);
		if (rc)
			return rc;
	}
	int rc = br_diagnose(&c->pool[0], &c->pool[1], c->label[0], c->label[1], &c->diag, err);
	if (rc)
		return rc;
	c->has_diag = true;
	for (int m = 0; m < AB_M_COUNT; m++) {
		ab_metric *mt = &c->m[m];
		describe(mt, m);
		mt->present = true;
		for (size_t i = 0; i < c->nruns; i++) {
			const ab_run_rec *r = &c->runs[i];
			if (!r->done)
				continue;
			double v = run_value(r, m);
			if (!(v > 0))
				mt->present = false;
			mt->v[r->side][mt->n[r->side]++] = v;
		}
		/* a phase the stack does not have (Q2M without merges) has no rounds */
		if (mt->present)
			welch(mt);
	}
	return 0;
}
