/* blkreel/text.h — blkparse's text output, column for column.
 *
 * br_text_event() prints one line in blkparse's default format (the same
 * columns, widths and action-specific tails as `blkparse -i`), with times
 * relative to the origin given at open (blkparse's "genesis": the trace's
 * first event). br_text_summary() prints blkparse's end-of-run per-CPU and
 * per-device summary for everything printed. Output goes through a large
 * private buffer and stdio is avoided on the hot path. */
#ifndef BLKREEL_TEXT_H
#define BLKREEL_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include "blkreel/error.h"
#include "blkreel/event.h"

typedef struct br_text br_text;

/* fd is where lines go (not closed). origin_time: absolute time that prints
 * as 0.000000000. */
int br_text_open(br_text **out, int fd, const char *fd_name, uint64_t origin_time, br_error *err);

/* Title the summary the way blkparse's file mode does for a per-CPU set:
 * one block per CPU and a Total labelled with the set's name (NAME of
 * NAME.blktrace.N) instead of per-device blocks, and no skip counting.
 * Call before the first event. */
int br_text_set_label(br_text *t, const char *label, br_error *err);

/* Print one event (notify records print nothing, as in blkparse, except
 * messages which print their text). Returns 0 or a negative br_code
 * (write failure). */
int br_text_event(br_text *t, const br_event *ev, br_error *err);

/* Print the end-of-run summary (per CPU, per device, totals). */
int br_text_summary(br_text *t, br_error *err);

/* Flush buffered lines, free; returns first error. NULL is fine. */
int br_text_close(br_text *t, br_error *err);

#endif
