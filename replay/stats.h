/* stats.h — what the replay measures: per-kind counts, issue-time error
 * (issue − target), inter-arrival error, IOPS per 100 ms window against the
 * schedule, in-flight, latency per direction, failures. Issue-side fields
 * are written by one thread at a time (the timing thread for io_uring, the
 * completion path under the lock for the thread pool); completion-side
 * fields under lock. */
#ifndef REPLAY_STATS_H
#define REPLAY_STATS_H

#include <pthread.h>
#include <stdint.h>
#include "blkreel/stats.h" /* br_hist */
#include "io.h"

#define STATS_WINDOW_NS 100000000ull

typedef struct replay_stats {
	/* issue side */
	uint64_t issued[RK_COUNT];
	uint64_t issued_bytes[RK_COUNT];
	br_hist late;          /* issue − target when ≥ 0 */
	br_hist early;         /* target − issue when > 0 */
	br_hist gap_err;       /* |(issue − previous issue) − (target − previous target)| */
	uint64_t prev_issue, prev_target;
	uint64_t last_issue;
	uint32_t *win_target, *win_actual;
	size_t nwin;
	uint64_t t_start;   /* replay origin (monotonic ns) */
	uint64_t inflight_max;
	uint64_t deps_unmet;
	/* completion side */
	pthread_mutex_t lock;
	uint64_t completed[RK_COUNT];
	uint64_t failed[RK_COUNT];
	uint64_t short_io;
	br_hist lat[2];        /* read, write latency (issue → completion) */
	long double busy_ns;/* Σ latency of every IO: average in-flight = busy / duration */
	uint64_t last_done;
	int first_errno;
	replay_item first_failed;
	uint64_t errno_count[8]; /* EIO, ENOSPC, EINVAL, EOPNOTSUPP, EAGAIN, EBADF, other, short */
} replay_stats;

int stats_init(replay_stats *s, uint64_t span_ns);
void stats_free(replay_stats *s);
void stats_issue(replay_stats *s, const replay_io *io);
/* Called with s->lock held. */
void stats_complete(replay_stats *s, const replay_io *io, int res, uint64_t t_done);

#endif
