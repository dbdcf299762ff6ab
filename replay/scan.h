/* scan.h — the first pass over the trace: count what would be replayed and
 * check it can be, before any IO is issued (an empty trace, a trace with
 * only completions, nothing on the mapped devices, an IO beyond a target's
 * end). */
#ifndef REPLAY_SCAN_H
#define REPLAY_SCAN_H

#include <stddef.h>
#include "blkreel/error.h"
#include "blkreel/reader.h"
#include "plan.h"

/* Read every event through a planner over cfg; totals to *out. */
int scan_trace(const char *const *inputs, size_t ninputs, const plan_cfg *cfg,
	       plan_totals *out, br_error *err);

/* 0 when there is something to replay and everything fits, else BR_EINVAL
 * with a message saying what and what to do. */
int scan_check(const plan_totals *t, const plan_cfg *cfg, br_error *err);

#endif
