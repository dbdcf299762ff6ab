/* unrecorded_notes.h — the completions no record shows, file by file: each
 * file of a rotated capture, and each file of a --flight ring (a trigger's
 * file holds the notes of the ring's files it is cut from), says in its
 * drops note how many completions the devices counted while it was written
 * that no C record shows, and the notes of a set add up to the run's count.
 *
 * The completion check (dev_completions.h) is exact after the final drain.
 * While tracing, a sample counts the devices' completions before a read
 * round and takes the C records read by the round's end: a completion
 * counted then fired its tracepoint, and had its record written, before the
 * count (block_rq_complete runs before the request is accounted), so every
 * record it has was read by then, and the difference is a lower bound of
 * the completions lost so far. Not after a round that left records unread
 * (check->behind). A sample belongs to the newest trace time read by its
 * end; a file closed at trace time cut notes what the newest sample at or
 * before cut adds to what the files before it noted, the last file the
 * rest of the final count. A loss is noted in the file being written when a
 * sample first counts it, at most SAMPLE_NS after the completion. */
#ifndef BLKREEL_CAPTURE_UNRECORDED_NOTES_H
#define BLKREEL_CAPTURE_UNRECORDED_NOTES_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_config.h"
#include "dev_completions.h"

#define CAP_UNRECORDED_SAMPLE_NS (20ull * 1000 * 1000)
/* Samples not yet noted: the reorder window's half second of trace time
 * takes about 25; beyond this many the oldest are merged away. */
#define CAP_UNRECORDED_SAMPLES 256

typedef struct cap_unrecorded_sample {
	uint64_t time;       /* the newest trace time read by the sample's end */
	uint64_t unrecorded; /* the check's count then */
} cap_unrecorded_sample;

typedef struct cap_unrecorded_notes {
	uint64_t next_ns;                /* CLOCK_MONOTONIC of the next sample */
	uint64_t at[CAP_MAX_DEVICES];    /* the devices' counts before this read round */
	cap_unrecorded_sample q[CAP_UNRECORDED_SAMPLES]; /* in time order */
	unsigned head, n;
	bool have_settled;               /* the newest sample merged away, not noted yet */
	cap_unrecorded_sample settled;
	uint64_t noted;                  /* what the files closed so far said */
} cap_unrecorded_notes;

/* Before a read round (now: CLOCK_MONOTONIC): counts the devices when a
 * sample is due; true when it did. c: the backend's check (NULL: none,
 * nothing to do). */
bool cap_unrecorded_round_begin(cap_unrecorded_notes *n, const cap_dev_check *c, const cap_config *cfg,
				uint64_t now);
/* After a round that began with a count: the sample, at trace time newest
 * (the newest event read). */
void cap_unrecorded_round_end(cap_unrecorded_notes *n, const cap_dev_check *c, const cap_config *cfg,
			      uint64_t newest);
/* A file closed at trace time cut: its count (added to what is noted). */
uint64_t cap_unrecorded_file(cap_unrecorded_notes *n, uint64_t cut);
/* The last file, once the check's final count (total) is known: its count.
 * *run: the run's count, which the notes add up to (the final count, or
 * what the files noted when a sample saw more). */
uint64_t cap_unrecorded_last(cap_unrecorded_notes *n, uint64_t total, uint64_t *run);

#endif
