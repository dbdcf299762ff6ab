/* blkreel/event_pipe.h — read a trace on a thread of its own and hand its
 * events over in batches, so decoding and analysis run on two cores (or
 * more: several consumers can each take every batch on a thread of their
 * own).
 *
 * A reader thread fills a small ring of fixed-size batches (events plus a
 * copy of their payloads) that the consumer drains in order; memory stays
 * at a few hundred KB whatever the trace length. Events keep the reader's
 * comm pointers, which stay valid for the reader's lifetime. */
#ifndef BLKREEL_EVENT_PIPE_H
#define BLKREEL_EVENT_PIPE_H

#include "blkreel/error.h"
#include "blkreel/event.h"
#include "blkreel/reader.h"

typedef struct br_event_pipe br_event_pipe;

/* Start reading r. r stays the caller's: do not use it until
 * br_event_pipe_stop has returned, then close it. */
int br_event_pipe_start(br_event_pipe **out, br_reader *r, br_error *err);

/* The next batch, in the reader's order: *evs is valid until the next call.
 * Returns the number of events (> 0), 0 at the end, or — after every event
 * read before it — the reader's negative code with err (file and offset as
 * the reader gave them). Call from one thread. */
int br_event_pipe_next(br_event_pipe *p, const br_event **evs, br_error *err);

/* Several consumers of the same batches, each on a thread of its own (the
 * statistics on one, the figure's marks on another): consumer c of
 * nconsumers calls br_event_pipe_next_for(p, c, ...), which works as
 * br_event_pipe_next for it; a batch is reused once every consumer has
 * asked for the one after it. A consumer that stops early must cancel the
 * pipe, or the others wait for it. br_event_pipe_start is the case of one. */
#define BR_EVENT_PIPE_MAX_CONSUMERS 4
int br_event_pipe_start_shared(br_event_pipe **out, br_reader *r, unsigned nconsumers,
			       br_error *err);
int br_event_pipe_next_for(br_event_pipe *p, unsigned consumer, const br_event **evs,
			   br_error *err);

/* The same, with hook->fn called on the reader thread with every batch
 * before any consumer gets it, in order (work that is cheap next to the
 * decoding, on the core that just wrote the events, instead of a thread of
 * its own). A negative return stops the reading: consumers get the batch,
 * then that code with the error fn set. */
typedef struct br_event_pipe_hook {
	int (*fn)(void *arg, const br_event *evs, int n, br_error *err);
	void *arg;
} br_event_pipe_hook;
int br_event_pipe_start_hooked(br_event_pipe **out, br_reader *r, unsigned nconsumers,
			       const br_event_pipe_hook *hook, br_error *err);

/* Stop handing out batches: every consumer waiting or calling later gets 0
 * (also from another thread, while consumers still run). NULL is fine. */
void br_event_pipe_cancel(br_event_pipe *p);

/* Stop the reader thread (at any point: the rest of the trace is not read)
 * and free everything, once no consumer uses the pipe any more. NULL is
 * fine. */
void br_event_pipe_stop(br_event_pipe *p);

#endif
