/* The engine's state as a consumer may read it (stats_hooks.h): counts
 * worked out from br_stats' fields, which stay private to stats/. */
#include "stats_internal.h"

stats_open stats_open_now(const br_stats *s)
{
	/* raw_inflight counts lost IOs still open (lost_open); the open
	 * requests (live) are those in flight, the stale ones and the waiting */
	uint32_t raw = s->raw_inflight, held = raw + s->stale_pending;
	return (stats_open){
		.inflight = raw > s->lost_open ? raw - s->lost_open : 0,
		.waiting = s->pt.live > held ? s->pt.live - held : 0,
	};
}

void stats_done_q2c(const br_stats *s, double *sum, uint64_t *bios)
{
	*sum = s->done_q2c_sum;
	*bios = s->done_q2c_n;
}

stats_depths stats_get_depths(const br_stats *s)
{
	return (stats_depths){ .qd_ns = s->qd_ns, .idle_periods = s->idle_periods,
			       .idle_max_ns = s->idle_max };
}
