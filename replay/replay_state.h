/* replay_state.h — one replay in progress: what the planner, the timing thread
 * and the completion path share. */
#ifndef REPLAY_STATE_H
#define REPLAY_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "engine.h"
#include "ring.h"
#include "stats.h"
#include "target.h"
#include "tracelog.h"

typedef struct replay_state {
	/* set up before the timing thread starts */
	const engine_ops *eng;
	void *eng_state;
	target *targets;
	size_t ntargets;
	item_ring ring;
	replay_io *ios;            /* depth slots */
	unsigned depth;
	unsigned *free_slots;      /* stack, under stats.lock */
	unsigned nfree;
	tracelog *tl;
	double speed;
	bool no_stall, closed, write, stop_on_error;
	uint64_t spin_ns;
	unsigned nowait_room;      /* in flight the smallest target queue takes
	                            * without refusing (less a request per CPU
	                            * completing); 0 when unknown */
	uint64_t trace_t0;         /* trace ns that maps to t_start */
	uint64_t t_start;          /* monotonic ns of the replay's origin */
	/* live */
	atomic_uint inflight;
	atomic_uint_fast64_t completed;
	atomic_uint_fast64_t issued;
	atomic_bool abort;
	replay_stats stats;
	uint64_t inversions;       /* timing thread: issue stamps out of plan order */
	/* the timing thread's result */
	int rc;
	br_error err;
} replay_state;

/* The timing thread: pops planned items, waits for each one's moment on the
 * absolute schedule, issues it, and at the end waits for every completion. */
void *replay_timing_main(void *arg);

/* The engines' completion callback (ctx = the replay_state). */
void replay_complete(void *ctx, replay_io *io, int res, uint64_t t_done);

#endif
