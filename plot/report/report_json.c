/* The report as JSON: every number the text shows, in base units (ns,
 * bytes), plus the comparison when there are several traces. Written
 * through the library's writer (blkreel/json.h), which escapes every
 * string: labels, paths and process names are whatever bytes they hold. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blkreel/json.h"
#include "tool/say.h"

static void sdirs(br_json *j, const char *key, const uint64_t v[BR_STATS_DIRS])
{
	br_json_key(j, key);
	br_json_object(j);
	br_json_kuint(j, "read", v[0]);
	br_json_kuint(j, "write", v[1]);
	br_json_kuint(j, "other", v[2]);
	br_json_end(j);
}

static void hist(br_json *j, const char *key, const br_hist *h)
{
	br_json_key(j, key);
	br_json_object(j);
	br_json_kuint(j, "n", h->count);
	br_json_kuint(j, "min_ns", h->count ? h->min : 0);
	br_json_kdouble(j, "avg_ns", br_hist_mean(h));
	br_json_kuint(j, "p50_ns", br_hist_quantile(h, 0.5));
	br_json_kuint(j, "p90_ns", br_hist_quantile(h, 0.9));
	br_json_kuint(j, "p99_ns", br_hist_quantile(h, 0.99));
	br_json_kuint(j, "max_ns", h->count ? h->max : 0);
	br_json_kdouble(j, "sum_ns", h->sum);
	br_json_end(j);
}

/* Power-of-two bins that are not empty: [{"lo": 2^b, "n": count}, ...]. */
static void bins(br_json *j, const char *key, const uint64_t *v, unsigned n)
{
	br_json_key(j, key);
	br_json_array(j);
	for (unsigned b = 0; b < n; b++) {
		if (!v[b])
			continue;
		br_json_object(j);
		br_json_kuint(j, "lo", 1ull << b);
		br_json_kuint(j, "n", v[b]);
		br_json_end(j);
	}
	br_json_end(j);
}

static void group(br_json *j, const br_analysis_group *g, bool proc)
{
	char dev[32];
	br_json_object(j);
	if (proc) {
		br_json_kuint(j, "pid", g->id);
		br_json_kstr(j, "comm", g->comm);
	} else {
		br_json_kstr(j, "device", report_dev(g->id, dev, sizeof dev));
	}
	sdirs(j, "ios", g->ios);
	sdirs(j, "bytes", g->bytes);
	br_json_kuint(j, "first_ns", g->first_ns);
	br_json_kuint(j, "last_ns", g->last_ns);
	br_json_kdouble(j, "q2c_avg_ns", g->q2c_n ? g->q2c_sum_ns / (double)g->q2c_n : 0);
	br_json_kuint(j, "q2c_n", g->q2c_n);
	br_json_kdouble(j, "d2c_avg_ns", g->d2c_n ? g->d2c_sum_ns / (double)g->d2c_n : 0);
	br_json_kuint(j, "d2c_n", g->d2c_n);
	bins(j, "size_hist", g->size_hist, BR_SIZE_BINS);
	br_json_end(j);
}

static void queue_depth(br_json *j, const br_analysis_result *r, const br_stats_totals *t)
{
	br_json_key(j, "queue_depth");
	br_json_object(j);
	br_json_kdouble(j, "avg", r->qd_avg);
	br_json_kuint(j, "max", r->qd_max);
	br_json_kdouble(j, "stats_avg", t->inflight_avg);
	br_json_kuint(j, "stats_max", t->inflight_max);
	/* up to the deepest level that had time; depth 0 always */
	unsigned last = 0;
	for (unsigned b = 0; b < BR_QD_BINS; b++)
		if (r->qd_ns[b])
			last = b;
	br_json_key(j, "time_ns_at_depth");
	br_json_array(j);
	for (unsigned b = 0; b <= last; b++)
		br_json_uint(j, r->qd_ns[b]);
	br_json_end(j);
	br_json_end(j);
}

static void pairing(br_json *j, const br_stats_totals *t)
{
	br_json_key(j, "pairing");
	br_json_object(j);
	br_json_kuint(j, "queued", t->queued);
	br_json_kuint(j, "merged", t->merged);
	br_json_kuint(j, "splits", t->splits);
	br_json_kuint(j, "remaps", t->remaps);
	br_json_kuint(j, "requeues", t->requeues);
	br_json_kuint(j, "issued", t->issued);
	br_json_kuint(j, "completed", t->completed);
	br_json_kuint(j, "never_issued", t->never_issued);
	br_json_kuint(j, "never_completed", t->never_completed);
	br_json_kuint(j, "lost_ios", t->lost_ios);
	br_json_kuint(j, "unrecorded", t->unrecorded);
	br_json_kuint(j, "completed_untimed", t->completed_untimed);
	br_json_kuint(j, "late_completions", t->late_completions);
	br_json_kuint(j, "orphan_completions", t->orphan_completions);
	br_json_kuint(j, "orphan_issues", t->orphan_issues);
	br_json_kuint(j, "refused_bios", t->refused_bios);
	br_json_kuint(j, "refused_bytes", t->refused_bytes);
	br_json_end(j);
}

static void hot_ranges(br_json *j, const br_analysis_result *r, unsigned top)
{
	char dev[32];
	br_json_key(j, "hot_ranges");
	br_json_array(j);
	for (size_t k = 0; k < r->nranges && k < top; k++) {
		const br_analysis_range *g = &r->ranges[k];
		br_json_object(j);
		br_json_kstr(j, "device", report_dev(g->device, dev, sizeof dev));
		br_json_kuint(j, "start_byte", g->start_byte);
		br_json_kuint(j, "len", g->len);
		sdirs(j, "bytes", g->bytes);
		br_json_kuint(j, "ios", g->ios);
		br_json_kuint(j, "bursts", g->bursts);
		br_json_kdouble(j, "burst_interval_ns", g->burst_interval_ns);
		br_json_end(j);
	}
	br_json_end(j);
}

static void trace(br_json *j, const report_data *d, unsigned top)
{
	const br_analysis_result *r = d->res;
	const br_stats_totals *t = r->totals;
	br_json_object(j);
	br_json_kstr(j, "label", d->trace->label);
	br_json_kstr(j, "path", d->trace->path);
	br_json_kstr(j, "format", d->format);
	br_json_kuint(j, "events", d->events);
	br_json_kuint(j, "first_ns", t->first_ns);
	br_json_kuint(j, "last_ns", t->last_ns);
	br_json_kdouble(j, "run_s", r->span_s);
	br_json_kuint(j, "devices", t->ndevices);
	br_json_kstr(j, "io_kind", br_stats_kind_name(t->io_kind));
	br_json_kstr(j, "seek_kind", br_stats_kind_name(t->seek_kind));
	sdirs(j, "ios", t->ios);
	sdirs(j, "bytes", t->bytes);
	br_json_kdouble(j, "mbps", r->mbps);
	br_json_kdouble(j, "iops", r->iops);
	br_json_kuint(j, "seeks", t->seeks);
	br_json_kdouble(j, "seeks_per_s", r->seeks_per_s);
	br_json_kuint(j, "seek_sectors", t->seek_sectors);
	br_json_kdouble(j, "seq_fraction", r->seq_fraction);
	br_json_kdouble(j, "merge_ratio", r->merge_ratio);
	pairing(j, t);
	br_json_kuint(j, "unmatched_completions", r->orphan_completions);
	br_json_kuint(j, "end_of_bio_records", r->empty_completions);
	br_json_key(j, "latency_per_request");
	br_json_object(j);
	hist(j, "d2c", &t->d2c);
	hist(j, "q2c", &t->q2c);
	br_json_end(j);
	br_json_key(j, "phases");
	br_json_object(j);
	for (int p = 0; p < BR_PHASE_COUNT; p++)
		hist(j, br_analysis_phase_name(p), &r->phase[p]);
	br_json_end(j);
	br_json_kbool(j, "has_completions", r->has_completions);
	queue_depth(j, r, t);
	br_json_key(j, "idle");
	br_json_object(j);
	br_json_kuint(j, "ns", r->idle_ns);
	br_json_kuint(j, "gaps", r->idle_periods);
	br_json_kuint(j, "longest_ns", r->idle_max_ns);
	br_json_end(j);
	bins(j, "io_size_hist", r->size_hist, BR_SIZE_BINS);
	br_json_key(j, "seek_distance_hist");
	br_json_object(j);
	bins(j, "forward", r->seek_fwd, BR_DIST_BINS);
	bins(j, "backward", r->seek_back, BR_DIST_BINS);
	br_json_end(j);
	hot_ranges(j, r, top);
	br_json_key(j, "per_device");
	br_json_array(j);
	for (size_t k = 0; k < r->ndevices; k++)
		group(j, &r->devices[k], false);
	br_json_end(j);
	br_json_key(j, "per_process");
	br_json_array(j);
	for (size_t k = 0; k < r->nprocs && k < top; k++)
		group(j, &r->procs[k], true);
	br_json_end(j);
	br_json_end(j);
}

static void comparison(br_json *j, const report_ctx *ctx)
{
	static const char *const better[] = { "lower", "higher", "neither" };
	br_json_key(j, "comparison");
	br_json_object(j);
	br_json_kstr(j, "throughput_best", ctx->d[ctx->cmp.tput_best].trace->label);
	br_json_key(j, "sentences");
	br_json_array(j);
	for (size_t s = 0; s < ctx->nsentences; s++)
		br_json_str(j, ctx->sentences[s]);
	br_json_end(j);
	br_json_key(j, "metrics");
	br_json_array(j);
	for (size_t i = 0; i < ctx->cmp.nmetrics; i++) {
		const br_cmp_metric *m = &ctx->cmp.m[i];
		br_json_object(j);
		br_json_kstr(j, "key", m->key);
		br_json_kstr(j, "name", m->name);
		br_json_kstr(j, "unit", m->unit);
		br_json_kstr(j, "better", better[m->better]);
		br_json_key(j, "values");
		br_json_array(j);
		for (size_t k = 0; k < ctx->n; k++)
			br_json_double(j, m->v[k]);
		br_json_end(j);
		br_json_kdouble(j, "ratio", m->ratio);
		br_json_kstr(j, "best", ctx->d[m->best].trace->label);
		br_json_kbool(j, "agrees_with_throughput", m->agrees);
		br_json_kdouble(j, "score", m->score);
		br_json_end(j);
	}
	br_json_end(j);
	br_json_end(j);
}

static void cause(br_json *j, const report_ctx *ctx, const br_diag_cause *c)
{
	br_diag_cause_json(j, c, ctx->d[ctx->diag_idx[ctx->diag.worse]].trace->label);
}

/* The throughput identity's figures for the better (w 0) or worse trace. */
static void identity_side(br_json *j, const br_diagnosis *d, int w)
{
	br_json_key(j, w ? "worse" : "better");
	br_json_object(j);
	br_json_kdouble(j, "mbps", d->x[w]);
	br_json_kdouble(j, "U", d->u[w]);
	br_json_kdouble(j, "N_busy", d->nbusy[w]);
	br_json_kdouble(j, "S_bytes", d->s[w]);
	br_json_kdouble(j, "R_ns", d->r[w]);
	br_json_kdouble(j, "residual", d->residual[w]);
	br_json_kdouble(j, "work_mbps", d->w[w]);
	br_json_kdouble(j, "bytes_per_work", d->amp[w]);
	br_json_end(j);
}

static void identity(br_json *j, const br_diagnosis *d)
{
	br_json_key(j, "identity");
	br_json_object(j);
	identity_side(j, d, 0);
	identity_side(j, d, 1);
	br_json_kdouble(j, "ln_ratio", d->mbps_total);
	br_json_key(j, "terms");
	br_json_object(j);
	/* terms[] and t_factor[] run U, N_busy, S, R, as the factors' ids do */
	for (int k = 0; k < 4; k++)
		br_json_kdouble(j, br_diag_factor_name(BR_FACTOR_U + k), d->terms[k]);
	br_json_kdouble(j, "amplification", d->amp_term);
	br_json_end(j);
	br_json_key(j, "t");
	br_json_object(j);
	for (int k = 0; k < 4; k++)
		br_json_kdouble(j, br_diag_factor_name(BR_FACTOR_U + k), d->t_factor[k]);
	br_json_end(j);
	br_json_end(j);
}

static void latency(br_json *j, const br_diagnosis *d)
{
	br_json_key(j, "latency");
	br_json_object(j);
	br_json_key(j, "q2c_mean_ns");
	br_json_array(j);
	br_json_double(j, d->q2c_mean[0]);
	br_json_double(j, d->q2c_mean[1]);
	br_json_end(j);
	br_json_key(j, "phase_delta_ns");
	br_json_object(j);
	for (int p = 0; p < BR_DP_COUNT; p++)
		br_json_kdouble(j, br_diag_phase_name((enum br_diag_phase)p), d->phase_delta[p]);
	br_json_end(j);
	br_json_kdouble(j, "residual_ns", d->q2c_residual);
	br_json_kdouble(j, "d2c_mix_ns", d->ko_mix);
	br_json_kdouble(j, "d2c_rate_ns", d->ko_rate);
	br_json_kdouble(j, "q2c_mix_ns", d->ko_q2c_mix);
	br_json_kdouble(j, "q2c_rate_ns", d->ko_q2c_rate);
	br_json_end(j);
}

/* The top-level "diagnosis" array (the causes, by share; empty when
 * nothing differs significantly), then how it was reached. */
static void diagnosis(br_json *j, const report_ctx *ctx)
{
	const br_diagnosis *d = &ctx->diag;
	br_json_key(j, "diagnosis");
	br_json_array(j);
	for (size_t k = 0; ctx->has_diag && k < d->ncauses; k++)
		cause(j, ctx, &d->causes[k]);
	br_json_end(j);
	if (!ctx->has_diag)
		return;
	br_json_key(j, "diagnosis_detail");
	report_json_diagnosis_detail(j, ctx, false);
}

void report_json_diagnosis_detail(br_json *j, const report_ctx *ctx, bool causes)
{
	const br_diagnosis *d = &ctx->diag;
	br_json_object(j);
	if (causes) { /* the top level has them apart, in "diagnosis" */
		br_json_key(j, "causes");
		br_json_array(j);
		for (size_t k = 0; k < d->ncauses; k++)
			cause(j, ctx, &d->causes[k]);
		br_json_end(j);
	}
	br_json_kstr(j, "better", ctx->d[ctx->diag_idx[d->better]].trace->label);
	br_json_kstr(j, "worse", ctx->d[ctx->diag_idx[d->worse]].trace->label);
	br_json_kstr(j, "outcome", br_diag_outcome_name(d->outcome));
	br_json_kbool(j, "significant", d->significant);
	br_json_kdouble(j, "ratio", d->ratio);
	br_json_kdouble(j, "t", d->t_outcome);
	br_json_key(j, "notes");
	br_json_array(j);
	for (size_t k = 0; k < d->nnotes; k++)
		br_json_str(j, d->notes[k]);
	br_json_end(j);
	br_json_key(j, "against");
	br_json_array(j);
	for (size_t k = 0; k < d->nagainst; k++)
		cause(j, ctx, &d->against[k]);
	br_json_end(j);
	br_json_key(j, "unconfirmed");
	br_json_array(j);
	for (size_t k = 0; k < d->nunconfirmed; k++)
		cause(j, ctx, &d->unconfirmed[k]);
	br_json_end(j);
	br_json_kdouble(j, "rerun_ratio", BR_DIAG_RERUN_RATIO);
	identity(j, d);
	latency(j, d);
	br_json_end(j);
}

int report_json(FILE *f, const report_ctx *ctx)
{
	br_json j;
	br_json_init(&j, f, BR_JSON_PRETTY);
	br_json_object(&j);
	br_json_kstr(&j, "tool", "blkreel-report");
	br_json_kstr(&j, "version", BLKREEL_VERSION);
	br_json_key(&j, "command");
	br_json_array(&j);
	for (int i = 0; i < ctx->cli->argc; i++) {
		/* the program by its name: the report must not name a path of this machine */
		const char *a = ctx->cli->argv[i];
		br_json_str(&j, i == 0 && strrchr(a, '/') ? strrchr(a, '/') + 1 : a);
	}
	br_json_end(&j);
	diagnosis(&j, ctx);
	if (ctx->has_sweep)
		report_sweep_json(&j, ctx);
	br_json_key(&j, "traces");
	br_json_array(&j);
	for (size_t k = 0; k < ctx->n; k++)
		trace(&j, &ctx->d[k], ctx->cli->top);
	br_json_end(&j);
	if (ctx->n > 1)
		comparison(&j, ctx);
	br_json_end(&j);
	br_error err;
	br_error_clear(&err);
	if (!br_json_finish(&j, ctx->cli->json, &err))
		return 0;
	if (err.code == BR_ESYS) {
		errno = err.sys_errno; /* the caller names the file and the cause */
	} else {
		tool_say_error("blkreel-report", NULL, &err);
		errno = 0;
	}
	return -1;
}
