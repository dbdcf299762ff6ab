/* run_ctx.h — the state of one replay run, shared by run.c (the order of
 * things, the report) and setup.c (targets, buffers, engine). */
#ifndef REPLAY_RUN_CTX_H
#define REPLAY_RUN_CTX_H

#include <stdbool.h>
#include <sys/uio.h>
#include "blkreel/error.h"
#include "tool/progress.h"
#include "cli.h"
#include "depth.h"
#include "plan.h"
#include "replay_state.h"

typedef struct run_ctx {
	const replay_opts *o;
	const char **inputs;
	char spool[512];
	target targets[PLAN_MAX_TARGETS];
	size_t ntargets;
	plan_map maps[PLAN_MAX_TARGETS];
	plan_cfg cfg;
	plan_totals scan;
	depth_plan depth;
	replay_state s;
	void *bufmem;
	bool ring_up, stats_up, engine_up;
	tool_progress progress;
	double cpu_used;
	const struct replay_hooks *hooks; /* NULL for a plain replay */
} run_ctx;

/* Stat, check (unless --force) and open every -d/--map target. */
int setup_targets(run_ctx *c, br_error *err);
/* Signature and traced-device checks, after the scan (unless --force). */
int setup_check_content(run_ctx *c, br_error *err);
/* One aligned buffer per slot, the slots' free list. */
int setup_buffers(run_ctx *c, br_error *err);
/* The first engine (or --engine) whose init works; iov has depth entries. */
int setup_engine(run_ctx *c, struct iovec *iov, br_error *err);

#endif
