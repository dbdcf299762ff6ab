/* Queue depth over time: how long the device had 0, 1, 2... requests in
 * flight (issued, not completed), and the idle stretches between them. */
#include "analysis_internal.h"

static void account(br_analysis *a, uint64_t t)
{
	if (t <= a->depth_since)
		return;
	uint64_t dt = t - a->depth_since;
	a->qd_ns[a->depth < BR_QD_BINS - 1 ? a->depth : BR_QD_BINS - 1] += dt;
	a->depth_area += (double)a->depth * (double)dt;
	a->depth_since = t;
}

void an_depth_change(br_analysis *a, uint64_t t, int delta)
{
	if (a->depth == 0 && delta > 0 && a->was_busy) { /* an inner idle stretch ends */
		uint64_t len = t > a->depth_since ? t - a->depth_since : 0;
		a->idle_periods++;
		if (len > a->idle_max)
			a->idle_max = len;
	}
	account(a, t);
	if (delta < 0 && a->depth == 0)
		return;
	a->depth = (uint32_t)((int64_t)a->depth + delta);
	if (a->depth)
		a->was_busy = true;
	if (a->depth > a->depth_max)
		a->depth_max = a->depth;
}

void an_depth_finish(br_analysis *a)
{
	account(a, a->last);
}
