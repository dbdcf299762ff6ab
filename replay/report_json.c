/* report_json.c — the replay report as JSON (the same numbers as
 * report_text.c), through the library's writer (blkreel/json.h). */
#include "report.h"

#include <errno.h>
#include "blkreel/json.h"

static void kinds(br_json *j, const char *name, const uint64_t *v)
{
	br_json_key(j, name);
	br_json_object(j);
	br_json_kuint(j, "read", v[RK_READ]);
	br_json_kuint(j, "write", v[RK_WRITE]);
	br_json_kuint(j, "flush", v[RK_FLUSH]);
	br_json_kuint(j, "discard", v[RK_DISCARD]);
	br_json_end(j);
}

/* IOPS per 100 ms window, planned and achieved, trailing empty windows
 * dropped (at most 100 000 windows: 10 000 s). */
static void windows(br_json *j, const replay_stats *st)
{
	size_t n = st->nwin < 100000 ? st->nwin : 100000;
	while (n && !st->win_target[n - 1] && !st->win_actual[n - 1])
		n--;
	br_json_key(j, "iops_windows");
	br_json_object(j);
	br_json_kuint(j, "window_ms", 100);
	br_json_key(j, "target");
	br_json_array(j);
	for (size_t i = 0; i < n; i++)
		br_json_uint(j, (uint64_t)st->win_target[i] * 10);
	br_json_end(j);
	br_json_key(j, "achieved");
	br_json_array(j);
	for (size_t i = 0; i < n; i++)
		br_json_uint(j, (uint64_t)st->win_actual[i] * 10);
	br_json_end(j);
	br_json_end(j);
}

static void latency(br_json *j, const char *name, const lat_summary *l)
{
	br_json_key(j, name);
	br_json_object(j);
	br_json_kuint(j, "n", l->n);
	br_json_kuint(j, "p50", l->p50);
	br_json_kuint(j, "p99", l->p99);
	br_json_kuint(j, "max", l->max);
	br_json_end(j);
}

static void targets(br_json *j, const replay_result *r)
{
	br_json_key(j, "targets");
	br_json_array(j);
	for (size_t i = 0; i < r->ntargets; i++) {
		const target *t = &r->targets[i];
		br_json_object(j);
		br_json_kstr(j, "path", t->path);
		br_json_kuint(j, "size", t->size);
		br_json_kbool(j, "direct", t->direct);
		br_json_kuint(j, "align", t->align);
		br_json_kuint(j, "queue_depth", t->queue_depth);
		br_json_end(j);
	}
	br_json_end(j);
}

static void fidelity_json(br_json *j, const replay_result *r, const fidelity *f)
{
	br_json_kdouble(j, "trace_span_s", f->span_s);
	br_json_kdouble(j, "duration_s", f->duration_s);
	br_json_kdouble(j, "drift_pct", f->drift_pct);
	br_json_kdouble(j, "wall_s", (double)r->wall_ns / 1e9);
	br_json_kdouble(j, "iops", f->iops);
	br_json_key(j, "issue_error_ns");
	br_json_object(j);
	br_json_kuint(j, "p50", f->err_p50);
	br_json_kuint(j, "p90", f->err_p90);
	br_json_kuint(j, "p99", f->err_p99);
	br_json_kuint(j, "p99_9", f->err_p999);
	br_json_kuint(j, "max", f->err_max);
	br_json_kdouble(j, "pct_early", f->pct_early);
	br_json_kdouble(j, "pct_within_10us", f->pct_10us);
	br_json_kdouble(j, "pct_within_100us", f->pct_100us);
	br_json_kdouble(j, "pct_within_1ms", f->pct_1ms);
	br_json_end(j);
	br_json_key(j, "inter_arrival_error_ns");
	br_json_object(j);
	br_json_kuint(j, "p50", f->gap_p50);
	br_json_kuint(j, "p99", f->gap_p99);
	br_json_kuint(j, "max", f->gap_max);
	br_json_end(j);
	br_json_key(j, "iops_window_error_pct");
	br_json_object(j);
	br_json_kuint(j, "windows", f->windows);
	br_json_kdouble(j, "mean", f->win_err_mean_pct);
	br_json_kdouble(j, "worst", f->win_err_worst_pct);
	br_json_kdouble(j, "worst_at_s", f->win_worst_at_s);
	br_json_end(j);
}

int report_json(const char *path, const replay_result *r, const fidelity *f, br_error *err)
{
	FILE *o = fopen(path, "w");
	if (!o)
		return br_error_set(err, BR_ESYS, errno, path, -1, "creating the report");
	const plan_totals *p = r->plan;
	const replay_stats *st = r->st;
	br_json j;
	br_json_init(&j, o, BR_JSON_PRETTY);
	br_json_object(&j);
	br_json_kstr(&j, "tool", "blkreel-replay");
	br_json_kstr(&j, "version", BLKREEL_VERSION);
	br_json_kstr(&j, "engine", r->engine);
	targets(&j, r);
	br_json_key(&j, "options");
	br_json_object(&j);
	br_json_kdouble(&j, "speed", r->o->speed);
	br_json_kbool(&j, "no_stall", r->o->no_stall);
	br_json_kbool(&j, "closed", r->o->closed);
	br_json_kbool(&j, "write", r->o->write);
	br_json_kstr(&j, "source", r->o->source_q ? "Q" : "D");
	br_json_kuint(&j, "max_inflight", r->depth);
	br_json_end(&j);
	kinds(&j, "planned", p->planned);
	kinds(&j, "issued", st->issued);
	kinds(&j, "completed", st->completed);
	kinds(&j, "failed", st->failed);
	kinds(&j, "not_replayed_without_write", p->not_written);
	br_json_kuint(&j, "fua", p->fua);
	br_json_kuint(&j, "preflush", p->preflush);
	br_json_kuint(&j, "unmapped", p->unmapped);
	br_json_kuint(&j, "unaligned", p->unaligned);
	br_json_kstr(&j, "aligned_by", r->o->buffered ? "buffered" : "widening");
	fidelity_json(&j, r, f);
	windows(&j, st);
	br_json_key(&j, "inflight");
	br_json_object(&j);
	br_json_kdouble(&j, "avg", f->inflight_avg);
	br_json_kuint(&j, "max", f->inflight_max);
	if (p->completed) {
		br_json_kdouble(&j, "trace_avg", f->trace_inflight_avg);
		br_json_kuint(&j, "trace_max", f->trace_inflight_max);
	} else {
		/* a trace without completions says nothing about its depth */
		br_json_knull(&j, "trace_avg");
		br_json_knull(&j, "trace_max");
	}
	br_json_end(&j);
	br_json_kuint(&j, "order_inversions", r->inversions);
	/* IOs the device's queue refused (RWF_NOWAIT) and that were sent again
	 * to wait; all IOs sent to wait through io_uring's workers (those, IOs
	 * beyond the queue, IOs the device would split): the only ones that can
	 * reach the device out of trace order */
	br_json_key(&j, "queue_full");
	br_json_object(&j);
	br_json_kuint(&j, "refused", r->refused);
	br_json_kuint(&j, "through_workers", r->refused_to_workers);
	br_json_kuint(&j, "would_split", r->would_split);
	br_json_end(&j);
	br_json_key(&j, "latency_ns");
	br_json_object(&j);
	latency(&j, "read", &f->lat[0]);
	latency(&j, "write", &f->lat[1]);
	br_json_end(&j);
	br_json_kdouble(&j, "cpu_us_per_io", f->cpu_us_per_io);
	br_json_kuint(&j, "deps_unmet", st->deps_unmet);
	br_json_kbool(&j, "aborted", r->aborted);
	br_json_end(&j);
	int rc = br_json_finish(&j, path, err);
	if (fclose(o) != 0 && !rc)
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "writing the report");
	return rc;
}
