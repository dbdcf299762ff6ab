/* flight.h — the flight recorder (--flight TIME): the capture keeps the
 * last TIME of trace in a ring of spool files (rotate.h, ring mode;
 * outputs.c names them NAME.ring.NNNNN.blktrace.spool) and,
 * when triggered, writes the trace from TIME before the trigger to
 * --flight-after after it into NAME.flight-NNNNN.blktrace.gz, with the
 * trigger's time and reason in a note at that time; then goes on.
 *
 * Triggers: a rule on the merged stream (--trigger-on, watch.h), SIGUSR1,
 * and `blkreel-capture --trigger` from another shell (which sends it).
 * Triggers within the after-window of one already pending are counted in
 * its file, not written again. */
#ifndef BLKREEL_CAPTURE_FLIGHT_H
#define BLKREEL_CAPTURE_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "blkreel/error.h"
#include "flight/watch.h"
#include "spool/rotate.h"
#include "spool/sink.h"

typedef struct cap_flight cap_flight;

typedef struct cap_flight_opts {
	const char *base;        /* NAME (with -D's folder) */
	uint64_t before_ns;      /* --flight */
	uint64_t after_ns;       /* --flight-after */
	const watch_rule *rules; /* --trigger-on */
	size_t nrules;
	FILE *log;               /* one line per trigger; NULL = quiet */
} cap_flight_opts;

int cap_flight_new(cap_flight **out, const cap_flight_opts *o, br_error *err);
void cap_flight_free(cap_flight *f);

/* The actions the rules read (bits 1 << __BLK_TA_*; 0 = all, or there
 * are no rules): a raw ring decodes all and orders only those. */
uint32_t cap_flight_actions(const cap_flight *f);

/* Each event the capture writes (the sink's observer): the rules. */
void cap_flight_event(cap_flight *f, const br_event *ev);

/* Trace time at which recording began, when no event says it (a raw
 * ring's events are made only for a trigger's file); the first call counts. */
void cap_flight_seen(cap_flight *f, uint64_t time);

/* A trigger from outside (SIGUSR1) at trace time now_ns: why says which. */
void cap_flight_trigger(cap_flight *f, uint64_t now_ns, const char *why);

/* Each loop round, with the latest time written: a trigger whose after-
 * window is in (or, at the end, any pending one) starts a new ring file
 * and queues the output. */
int cap_flight_poll(cap_flight *f, cap_sink *sink, cap_rotate *ring, uint64_t written_ns, bool end, br_error *err);

/* Triggers seen, and outputs queued. */
unsigned cap_flight_triggers(const cap_flight *f);
unsigned cap_flight_outputs(const cap_flight *f);

#endif
