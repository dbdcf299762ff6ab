/* splitset.h — a trace held in memory, and rotated sets cut from it
 * (NAME.NNNNN.blktrace.gz, as blkreel-capture --rotate writes them), for
 * the suites that check a set reads as the one trace it was cut from. */
#ifndef BLKREEL_SPLITSET_H
#define BLKREEL_SPLITSET_H

#include <stddef.h>
#include "blkreel/event.h"

/* Every record of a trace, each with its own copy of pdu and comm (the
 * process name the reader gave it). */
typedef struct ss_trace {
	br_event *ev;
	size_t n;
} ss_trace;

/* Every record of path, through the reader; the test fails if it cannot. */
void ss_load(const char *path, ss_trace *t);
void ss_free(ss_trace *t);

/* Records [from, to) as one compressed file (one writer thread). */
void ss_write(const ss_trace *t, size_t from, size_t to, const char *path);

/* Cut t into k members by record count, each cut moved on past records of
 * the time before it, so that a member's records all come before the
 * next member's; write them as NAME.<first + i, 5 digits>.blktrace.gz.
 * cuts[i] is member i's first record, cuts[k] = t->n (k + 1 entries). */
void ss_split(const ss_trace *t, const char *name, size_t k, unsigned first, size_t *cuts);

/* The path of member number of NAME (a static buffer, one of 4 in turn). */
const char *ss_member(const char *name, unsigned number);

#endif
