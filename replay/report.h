/* report.h — how well the replay matched the trace, computed once
 * (report_compute) and printed as text or JSON from the same numbers. */
#ifndef REPLAY_REPORT_H
#define REPLAY_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "blkreel/error.h"
#include "cli.h"
#include "depth.h"
#include "plan.h"
#include "stats.h"
#include "target.h"

typedef struct replay_result {
	const replay_opts *o;
	const char *engine, *engine_desc;
	const plan_totals *plan;
	const replay_stats *st;
	const target *targets;
	size_t ntargets;
	unsigned depth;
	const depth_plan *depth_plan; /* how depth was chosen; may be NULL */
	uint64_t duration_ns;   /* replay start → last issue */
	uint64_t wall_ns;       /* replay start → last completion */
	double cpu_s;           /* user + system, whole process */
	uint64_t inversions;
	uint64_t refused;            /* refused by the device (-EAGAIN), sent again blocking */
	uint64_t refused_to_workers; /* sent blocking through io_uring's workers, all told */
	uint64_t would_split;        /* of those, because the device would split them */
	uint64_t out_events, out_clamped;
	bool aborted;
} replay_result;

typedef struct lat_summary {
	uint64_t n, p50, p99, max;
} lat_summary;

typedef struct fidelity {
	uint64_t planned, issued, completed, failed;
	double span_s;          /* trace span of the planned IOs, divided by speed */
	double duration_s;
	double drift_pct;       /* (duration − span) / span */
	uint64_t err_p50, err_p90, err_p99, err_p999, err_max;  /* |issue − target| ns */
	double pct_early, pct_10us, pct_100us, pct_1ms;
	uint64_t gap_p50, gap_p99, gap_max;
	size_t windows;         /* 100 ms windows with a target */
	double win_err_mean_pct, win_err_worst_pct;
	double win_worst_at_s;
	double inflight_avg, trace_inflight_avg;
	uint64_t inflight_max, trace_inflight_max;
	lat_summary lat[2];
	double cpu_us_per_io;
	double iops;
} fidelity;

void report_compute(const replay_result *r, fidelity *f);
void report_text(FILE *out, const replay_result *r, const fidelity *f);
/* 0 or a negative br_code naming path. */
int report_json(const char *path, const replay_result *r, const fidelity *f, br_error *err);

#endif
