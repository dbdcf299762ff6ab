/* The report as JSON: every number the text shows, in base units (ns,
 * bytes), plus the comparison when there are several traces. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void sdirs(FILE *f, const uint64_t v[BR_SDIR_COUNT])
{
	fprintf(f, "{\"read\": %llu, \"write\": %llu, \"other\": %llu}", (unsigned long long)v[0],
		(unsigned long long)v[1], (unsigned long long)v[2]);
}

static void hist(FILE *f, const br_hist *h)
{
	fprintf(f, "{\"n\": %llu, \"min_ns\": %llu, \"avg_ns\": ", (unsigned long long)h->count,
		(unsigned long long)(h->count ? h->min : 0));
	num(f, br_hist_mean(h));
	fprintf(f, ", \"p50_ns\": %llu, \"p90_ns\": %llu, \"p99_ns\": %llu, \"max_ns\": %llu, \"sum_ns\": ",
		(unsigned long long)br_hist_quantile(h, 0.5), (unsigned long long)br_hist_quantile(h, 0.9),
		(unsigned long long)br_hist_quantile(h, 0.99), (unsigned long long)(h->count ? h->max : 0));
	num(f, h->sum);
	fputc('}', f);
}

static void group(FILE *f, const br_analysis_group *g, bool proc)
{
	char dev[32];
	if (proc) {
		fprintf(f, "{\"pid\": %u, \"comm\": ", g->id);
		str(f, g->comm);
	} else {
		fprintf(f, "{\"device\": ");
		str(f, report_dev(g->id, dev, sizeof dev));
	}
	fprintf(f, ", \"ios\": ");
	sdirs(f, g->ios);
	fprintf(f, ", \"bytes\": ");
	sdirs(f, g->bytes);
	fprintf(f, ", \"first_ns\": %llu, \"last_ns\": %llu, \"q2c_avg_ns\": ", (unsigned long long)g->first_ns,
		(unsigned long long)g->last_ns);
	num(f, g->q2c_n ? g->q2c_sum_ns / (double)g->q2c_n : 0);
	fprintf(f, ", \"q2c_n\": %llu, \"d2c_avg_ns\": ", (unsigned long long)g->q2c_n);
	num(f, g->d2c_n ? g->d2c_sum_ns / (double)g->d2c_n : 0);
	fprintf(f, ", \"d2c_n\": %llu, \"size_hist\": [", (unsigned long long)g->d2c_n);
	bool first = true;
	for (unsigned b = 0; b < BR_SIZE_BINS; b++)
		if (g->size_hist[b]) {
			fprintf(f, "%s{\"lo\": %llu, \"n\": %llu}", first ? "" : ", ", 1ull << b,
				(unsigned long long)g->size_hist[b]);
			first = false;
		}
	fprintf(f, "]}");
}

static void bins(FILE *f, const uint64_t *v, unsigned n)
{
	fputc('[', f);
	bool first = true;
	for (unsigned b = 0; b < n; b++)
		if (v[b]) {
			fprintf(f, "%s{\"lo\": %llu, \"n\": %llu}", first ? "" : ", ", 1ull << b,
				(unsigned long long)v[b]);
			first = false;
		}
	fputc(']', f);
}

static void trace(FILE *f, const report_data *d, unsigned top)
{
	const br_analysis_result *r = d->res;
	const br_stats_totals *t = r->totals;
	fprintf(f, "    {\"label\": ");
	str(f, d->trace->label);
	fprintf(f, ", \"path\": ");
	str(f, d->trace->path);
	fprintf(f, ", \"format\": ");
	str(f, d->format);
	fprintf(f, ",\n     \"events\": %llu, \"first_ns\": %llu, \"last_ns\": %llu, \"run_s\": ",
		(unsigned long long)d->events, (unsigned long long)t->first_ns, (unsigned long long)t->last_ns);
	num(f, r->span_s);
	fprintf(f, ", \"devices\": %zu, \"io_kind\": \"%s\", \"seek_kind\": \"%s\",\n     \"ios\": ",
		t->ndevices, br_stats_kind_name(t->io_kind), br_stats_kind_name(t->seek_kind));
	sdirs(f, t->ios);
	fprintf(f, ", \"bytes\": ");
	sdirs(f, t->bytes);
	fprintf(f, ",\n     \"mbps\": ");
	num(f, r->mbps);
	fprintf(f, ", \"iops\": ");
	num(f, r->iops);
	fprintf(f, ", \"seeks\": %llu, \"seeks_per_s\": ", (unsigned long long)t->seeks);
	num(f, r->seeks_per_s);
	fprintf(f, ", \"seek_sectors\": %llu, \"seq_fraction\": ", (unsigned long long)t->seek_sectors);
	num(f, r->seq_fraction);
	fprintf(f, ", \"merge_ratio\": ");
	num(f, r->merge_ratio);
	fprintf(f, ",\n     \"pairing\": {\"queued\": %llu, \"merged\": %llu, \"splits\": %llu, \"remaps\": %llu, "
		"\"requeues\": %llu, \"issued\": %llu, \"completed\": %llu, \"never_issued\": %llu, "
		"\"never_completed\": %llu, \"lost_ios\": %llu, \"late_completions\": %llu, "
		"\"orphan_completions\": %llu, \"orphan_issues\": %llu},\n",
		(unsigned long long)t->queued, (unsigned long long)t->merged, (unsigned long long)t->splits,
		(unsigned long long)t->remaps, (unsigned long long)t->requeues, (unsigned long long)t->issued,
		(unsigned long long)t->completed, (unsigned long long)t->never_issued,
		(unsigned long long)t->never_completed, (unsigned long long)t->lost_ios,
		(unsigned long long)t->late_completions, (unsigned long long)t->orphan_completions,
		(unsigned long long)t->orphan_issues);
	fprintf(f, "     \"unmatched_completions\": %llu, \"end_of_bio_records\": %llu,\n",
		(unsigned long long)r->orphan_completions, (unsigned long long)r->empty_completions);
	fprintf(f, "     \"latency_per_request\": {\"d2c\": ");
	hist(f, &t->d2c);
	fprintf(f, ", \"q2c\": ");
	hist(f, &t->q2c);
	fprintf(f, "},\n     \"phases\": {");
	for (int p = 0; p < BR_PHASE_COUNT; p++) {
		fprintf(f, "%s\"%s\": ", p ? ", " : "", br_analysis_phase_name(p));
		hist(f, &r->phase[p]);
	}
	fprintf(f, "},\n     \"has_completions\": %s,\n     \"queue_depth\": {\"avg\": ",
		r->has_completions ? "true" : "false");
	num(f, r->qd_avg);
	fprintf(f, ", \"max\": %u, \"stats_avg\": ", r->qd_max);
	num(f, t->inflight_avg);
	fprintf(f, ", \"stats_max\": %u, \"time_ns_at_depth\": [", t->inflight_max);
	unsigned last = 0;
	for (unsigned b = 0; b < BR_QD_BINS; b++)
		if (r->qd_ns[b])
			last = b;
	for (unsigned b = 0; b <= last; b++)
		fprintf(f, "%s%llu", b ? ", " : "", (unsigned long long)r->qd_ns[b]);
	fprintf(f, "]},\n     \"idle\": {\"ns\": %llu, \"gaps\": %llu, \"longest_ns\": %llu},\n",
		(unsigned long long)r->idle_ns, (unsigned long long)r->idle_periods,
		(unsigned long long)r->idle_max_ns);
	fprintf(f, "     \"io_size_hist\": ");
	bins(f, r->size_hist, BR_SIZE_BINS);
	fprintf(f, ",\n     \"seek_distance_hist\": {\"forward\": ");
	bins(f, r->seek_fwd, BR_DIST_BINS);
	fprintf(f, ", \"backward\": ");
	bins(f, r->seek_back, BR_DIST_BINS);
	fprintf(f, "},\n     \"hot_ranges\": [");
	char dev[32];
	for (size_t k = 0; k < r->nranges && k < top; k++) {
		const br_analysis_range *g = &r->ranges[k];
		fprintf(f, "%s{\"device\": \"%s\", \"start_byte\": %llu, \"len\": %llu, \"bytes\": ",
			k ? ", " : "", report_dev(g->device, dev, sizeof dev),
			(unsigned long long)g->start_byte, (unsigned long long)g->len);
		sdirs(f, g->bytes);
		fprintf(f, ", \"ios\": %llu, \"bursts\": %llu, \"burst_interval_ns\": ",
			(unsigned long long)g->ios, (unsigned long long)g->bursts);
		num(f, g->burst_interval_ns);
		fputc('}', f);
	}
	fprintf(f, "],\n     \"per_device\": [");
	for (size_t k = 0; k < r->ndevices; k++) {
		fprintf(f, "%s", k ? ",\n       " : "");
		group(f, &r->devices[k], false);
	}
	fprintf(f, "],\n     \"per_process\": [");
	for (size_t k = 0; k < r->nprocs && k < top; k++) {
		fprintf(f, "%s", k ? ",\n       " : "");
		group(f, &r->procs[k], true);
	}
	fprintf(f, "]}");
}

static void comparison(FILE *f, const report_ctx *ctx)
{
	fprintf(f, ",\n  \"comparison\": {\"throughput_best\": ");
	str(f, ctx->d[ctx->cmp.tput_best].trace->label);
	fprintf(f, ",\n    \"sentences\": [");
	for (size_t s = 0; s < ctx->nsentences; s++) {
		fprintf(f, "%s", s ? ",\n      " : "");
		str(f, ctx->sentences[s]);
	}
	fprintf(f, "],\n    \"metrics\": [");
	static const char *const better[] = { "lower", "higher", "neither" };
	for (size_t i = 0; i < ctx->cmp.nmetrics; i++) {
		const br_cmp_metric *m = &ctx->cmp.m[i];
		fprintf(f, "%s{\"key\": \"%s\", \"name\": ", i ? ",\n      " : "", m->key);
		str(f, m->name);
		fprintf(f, ", \"unit\": ");
		str(f, m->unit);
		fprintf(f, ", \"better\": \"%s\", \"values\": [", better[m->better]);
		for (size_t k = 0; k < ctx->n; k++) {
			if (k)
				fputs(", ", f);
			num(f, m->v[k]);
		}
		fprintf(f, "], \"ratio\": ");
		num(f, m->ratio);
		fprintf(f, ", \"best\": ");
		str(f, ctx->d[m->best].trace->label);
		fprintf(f, ", \"agrees_with_throughput\": %s, \"score\": ", m->agrees ? "true" : "false");
		num(f, m->score);
		fputc('}', f);
	}
	fprintf(f, "]}");
}

static void cause(FILE *f, const report_ctx *ctx, const br_diag_cause *c)
{
	fprintf(f, "{\"cause\": ");
	str(f, c->cause);
	fprintf(f, ", \"share\": ");
	num(f, c->share);
	fprintf(f, ", \"worse\": ");
	str(f, ctx->d[ctx->diag_idx[ctx->diag.worse]].trace->label);
	fprintf(f, ", \"factor\": ");
	str(f, c->factor);
	fprintf(f, ", \"evidence\": ");
	str(f, c->evidence);
	fputc('}', f);
}

/* The top-level "diagnosis" array (the causes, by share; empty when
 * nothing differs significantly), then how it was reached. */
static void diagnosis(FILE *f, const report_ctx *ctx)
{
	const br_diagnosis *d = &ctx->diag;
	fprintf(f, ",\n  \"diagnosis\": [");
	for (size_t k = 0; ctx->has_diag && k < d->ncauses; k++) {
		fprintf(f, "%s", k ? ",\n    " : "\n    ");
		cause(f, ctx, &d->causes[k]);
	}
	fprintf(f, "]");
	if (!ctx->has_diag)
		return;
	fprintf(f, ",\n  \"diagnosis_detail\": {\"better\": ");
	str(f, ctx->d[ctx->diag_idx[d->better]].trace->label);
	fprintf(f, ", \"worse\": ");
	str(f, ctx->d[ctx->diag_idx[d->worse]].trace->label);
	fprintf(f, ", \"outcome\": \"%s\", \"significant\": %s, \"ratio\": ", d->outcome,
		d->significant ? "true" : "false");
	num(f, d->ratio);
	fprintf(f, ", \"t\": ");
	num(f, d->t_outcome);
	fprintf(f, ",\n    \"notes\": [");
	for (size_t k = 0; k < d->nnotes; k++) {
		fprintf(f, "%s", k ? ", " : "");
		str(f, d->notes[k]);
	}
	fprintf(f, "],\n    \"against\": [");
	for (size_t k = 0; k < d->nagainst; k++) {
		fprintf(f, "%s", k ? ",\n      " : "");
		cause(f, ctx, &d->against[k]);
	}
	static const char *const fac[4] = { "U", "N_busy", "S", "R" };
	fprintf(f, "],\n    \"identity\": {");
	for (int w = 0; w < 2; w++) {
		fprintf(f, "%s\"%s\": {\"mbps\": ", w ? ", " : "", w ? "worse" : "better");
		num(f, d->x[w]);
		fprintf(f, ", \"U\": ");
		num(f, d->u[w]);
		fprintf(f, ", \"N_busy\": ");
		num(f, d->nbusy[w]);
		fprintf(f, ", \"S_bytes\": ");
		num(f, d->s[w]);
		fprintf(f, ", \"R_ns\": ");
		num(f, d->r[w]);
		fprintf(f, ", \"residual\": ");
		num(f, d->residual[w]);
		fprintf(f, ", \"work_mbps\": ");
		num(f, d->w[w]);
		fprintf(f, ", \"bytes_per_work\": ");
		num(f, d->amp[w]);
		fputc('}', f);
	}
	fprintf(f, ",\n      \"ln_ratio\": ");
	num(f, d->mbps_total);
	fprintf(f, ", \"terms\": {");
	for (int k = 0; k < 4; k++) {
		fprintf(f, "%s\"%s\": ", k ? ", " : "", fac[k]);
		num(f, d->terms[k]);
	}
	fprintf(f, ", \"amplification\": ");
	num(f, d->amp_term);
	fprintf(f, "}, \"t\": {");
	for (int k = 0; k < 4; k++) {
		fprintf(f, "%s\"%s\": ", k ? ", " : "", fac[k]);
		num(f, d->t_factor[k]);
	}
	fprintf(f, "}},\n    \"latency\": {\"q2c_mean_ns\": [");
	num(f, d->q2c_mean[0]);
	fputs(", ", f);
	num(f, d->q2c_mean[1]);
	fprintf(f, "], \"phase_delta_ns\": {");
	for (int p = 0; p < BR_DP_COUNT; p++) {
		fprintf(f, "%s\"%s\": ", p ? ", " : "", br_diag_phase_name((enum br_diag_phase)p));
		num(f, d->phase_delta[p]);
	}
	fprintf(f, "}, \"residual_ns\": ");
	num(f, d->q2c_residual);
	fprintf(f, ", \"d2c_mix_ns\": ");
	num(f, d->ko_mix);
	fprintf(f, ", \"d2c_rate_ns\": ");
	num(f, d->ko_rate);
	fprintf(f, ", \"q2c_mix_ns\": ");
	num(f, d->ko_q2c_mix);
	fprintf(f, ", \"q2c_rate_ns\": ");
	num(f, d->ko_q2c_rate);
	fprintf(f, "}}");
}

int report_json(FILE *f, const report_ctx *ctx)
{
	fprintf(f, "{\"tool\": \"blkreel-report\", \"version\": \"%s\",\n  \"command\": [", BLKREEL_VERSION);
	for (int i = 0; i < ctx->cli->argc; i++) {
		if (i)
			fputs(", ", f);
		/* the program by its name: the report must not name a path of this machine */
		const char *a = ctx->cli->argv[i];
		str(f, i == 0 && strrchr(a, '/') ? strrchr(a, '/') + 1 : a);
	}
	fprintf(f, "]");
	diagnosis(f, ctx);
	fprintf(f, ",\n  \"traces\": [\n");
	for (size_t k = 0; k < ctx->n; k++) {
		trace(f, &ctx->d[k], ctx->cli->top);
		fprintf(f, "%s\n", k + 1 < ctx->n ? "," : "");
	}
	fprintf(f, "  ]");
	if (ctx->n > 1)
		comparison(f, ctx);
	fprintf(f, "\n}\n");
	return ferror(f) ? -1 : 0;
}
