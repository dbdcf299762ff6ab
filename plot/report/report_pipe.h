/* report_pipe.h — read a trace on a thread of its own and hand its events
 * over in batches, so decoding and analysis run on two cores. */
#ifndef BLKREEL_REPORT_PIPE_H
#define BLKREEL_REPORT_PIPE_H

#include <stddef.h>
#include "blkreel/error.h"
#include "blkreel/event.h"
#include "blkreel/reader.h"

typedef struct report_pipe report_pipe;

/* Start reading r (owned by the caller, closed after report_pipe_stop). */
int report_pipe_start(report_pipe **out, br_reader *r, br_error *err);
/* The next batch: *evs valid until the next call. Returns the number of
 * events (> 0), 0 at the end, or the reader's negative code with err. */
int report_pipe_next(report_pipe *p, const br_event **evs, br_error *err);
/* Stop the reader thread (at any point) and free everything; NULL is fine. */
void report_pipe_stop(report_pipe *p);

#endif
