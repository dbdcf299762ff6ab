#include "report.h"

#include <errno.h>

static void jstr(FILE *o, const char *s)
{
	fputc('"', o);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void num(FILE *o, double v)
{
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", o);
	else
		fprintf(o, "%.6g", v);
}

#define U(x) ((unsigned long long)(x))

static void kinds(FILE *o, const char *name, const uint64_t *v)
{
	fprintf(o, "  \"%s\": {\"read\": %llu, \"write\": %llu, \"flush\": %llu, \"discard\": %llu},\n",
		name, U(v[RK_READ]), U(v[RK_WRITE]), U(v[RK_FLUSH]), U(v[RK_DISCARD]));
}

static void windows(FILE *o, const replay_stats *st)
{
	size_t n = st->nwin < 100000 ? st->nwin : 100000;
	while (n && !st->win_target[n - 1] && !st->win_actual[n - 1])
		n--;
	fputs("  \"iops_windows\": {\"window_ms\": 100, \"target\": [", o);
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s%u", i ? "," : "", st->win_target[i] * 10);
	fputs("], \"achieved\": [", o);
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s%u", i ? "," : "", st->win_actual[i] * 10);
	fputs("]},\n", o);
}

int report_json(const char *path, const replay_result *r, const fidelity *f, br_error *err)
{
	FILE *o = fopen(path, "w");
	if (!o)
		return br_error_set(err, BR_ESYS, errno, path, -1, "creating the report");
	const plan_totals *p = r->plan;
	const replay_stats *st = r->st;
	fputs("{\n  \"tool\": \"blkreel-replay\",\n  \"version\": ", o);
	jstr(o, BLKREEL_VERSION);
	fputs(",\n  \"engine\": ", o);
	jstr(o, r->engine);
	fputs(",\n  \"targets\": [", o);
	for (size_t i = 0; i < r->ntargets; i++) {
		fprintf(o, "%s{\"path\": ", i ? ", " : "");
		jstr(o, r->targets[i].path);
		fprintf(o, ", \"size\": %llu, \"direct\": %s, \"align\": %u, \"queue_depth\": %u}",
			U(r->targets[i].size), r->targets[i].direct ? "true" : "false",
			r->targets[i].align, r->targets[i].queue_depth);
	}
	fprintf(o, "],\n  \"options\": {\"speed\": ");
	num(o, r->o->speed);
	fprintf(o, ", \"no_stall\": %s, \"closed\": %s, \"write\": %s, \"source\": \"%s\", \"max_inflight\": %u},\n",
		r->o->no_stall ? "true" : "false", r->o->closed ? "true" : "false",
		r->o->write ? "true" : "false", r->o->source_q ? "Q" : "D", r->depth);
	kinds(o, "planned", p->planned);
	kinds(o, "issued", st->issued);
	kinds(o, "completed", st->completed);
	kinds(o, "failed", st->failed);
	kinds(o, "not_replayed_without_write", p->not_written);
	fprintf(o, "  \"fua\": %llu, \"preflush\": %llu, \"unmapped\": %llu, \"unaligned\": %llu, \"aligned_by\": \"%s\",\n",
		U(p->fua), U(p->preflush), U(p->unmapped), U(p->unaligned),
		r->o->buffered ? "buffered" : "widening");
	fputs("  \"trace_span_s\": ", o);
	num(o, f->span_s);
	fputs(", \"duration_s\": ", o);
	num(o, f->duration_s);
	fputs(", \"drift_pct\": ", o);
	num(o, f->drift_pct);
	fputs(", \"wall_s\": ", o);
	num(o, (double)r->wall_ns / 1e9);
	fputs(", \"iops\": ", o);
	num(o, f->iops);
	fprintf(o, ",\n  \"issue_error_ns\": {\"p50\": %llu, \"p90\": %llu, \"p99\": %llu, \"p99_9\": %llu, \"max\": %llu, \"pct_early\": ",
		U(f->err_p50), U(f->err_p90), U(f->err_p99), U(f->err_p999), U(f->err_max));
	num(o, f->pct_early);
	fputs(", \"pct_within_10us\": ", o);
	num(o, f->pct_10us);
	fputs(", \"pct_within_100us\": ", o);
	num(o, f->pct_100us);
	fputs(", \"pct_within_1ms\": ", o);
	num(o, f->pct_1ms);
	fprintf(o, "},\n  \"inter_arrival_error_ns\": {\"p50\": %llu, \"p99\": %llu, \"max\": %llu},\n",
		U(f->gap_p50), U(f->gap_p99), U(f->gap_max));
	fprintf(o, "  \"iops_window_error_pct\": {\"windows\": %zu, \"mean\": ", f->windows);
	num(o, f->win_err_mean_pct);
	fputs(", \"worst\": ", o);
	num(o, f->win_err_worst_pct);
	fputs(", \"worst_at_s\": ", o);
	num(o, f->win_worst_at_s);
	fputs("},\n", o);
	windows(o, st);
	fputs("  \"inflight\": {\"avg\": ", o);
	num(o, f->inflight_avg);
	fprintf(o, ", \"max\": %llu, \"trace_avg\": ", U(f->inflight_max));
	if (p->completed) {
		num(o, f->trace_inflight_avg);
		fprintf(o, ", \"trace_max\": %llu},\n", U(f->trace_inflight_max));
	} else {
		fputs("null, \"trace_max\": null},\n", o);
	}
	fprintf(o, "  \"order_inversions\": %llu,\n", U(r->inversions));
	fprintf(o, "  \"latency_ns\": {\"read\": {\"n\": %llu, \"p50\": %llu, \"p99\": %llu, \"max\": %llu}, "
		"\"write\": {\"n\": %llu, \"p50\": %llu, \"p99\": %llu, \"max\": %llu}},\n",
		U(f->lat[0].n), U(f->lat[0].p50), U(f->lat[0].p99), U(f->lat[0].max), U(f->lat[1].n),
		U(f->lat[1].p50), U(f->lat[1].p99), U(f->lat[1].max));
	fputs("  \"cpu_us_per_io\": ", o);
	num(o, f->cpu_us_per_io);
	fprintf(o, ",\n  \"deps_unmet\": %llu,\n  \"aborted\": %s\n}\n", U(st->deps_unmet),
		r->aborted ? "true" : "false");
	if (fclose(o) != 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "writing the report");
	return 0;
}
