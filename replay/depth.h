/* depth.h — how many IOs the replay keeps in flight. A block device's
 * request queue holds nr_requests; an IO submitted beyond that cannot go
 * to the device at once, and io_uring hands it to a worker thread instead,
 * where several workers race and reorder IOs. So by default the replay
 * never has more in flight than the smallest target queue: the excess waits
 * in order on the timing thread instead of out of order in the kernel.
 * A few requests are left spare: the kernel posts an IO's completion before
 * it puts the IO's request back, one such IO per CPU completing at a time,
 * and an IO sent in that window finds the queue full. */
#ifndef REPLAY_DEPTH_H
#define REPLAY_DEPTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "target.h"

#define DEPTH_DEFAULT 256

typedef struct depth_plan {
	unsigned depth;         /* slots, and the in-flight cap */
	unsigned queue;         /* smallest known target queue, 0 if none is known */
	const char *queue_of;   /* the target with that queue */
	unsigned spare;         /* requests of that queue left free when capped */
	bool capped;            /* the default was lowered to the queue (less spare) */
	bool above_queue;       /* --max-inflight asks for more than the queue holds */
} depth_plan;

/* requested: --max-inflight (0 = default). Default: DEPTH_DEFAULT, or with
 * no_stall the trace's own maximum in flight (when the trace has completions
 * to measure it), then capped at the smallest target queue less spare (the
 * CPUs that can be completing IOs; at least 1 stays). */
depth_plan depth_choose(unsigned requested, bool no_stall, uint64_t trace_max,
			bool trace_has_completions, const target *targets, size_t ntargets,
			unsigned spare);

#endif
