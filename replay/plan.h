/* plan.h — which trace events become IOs, and where they go.
 *
 * The planner sees every event of the trace in time order (plan_feed) and
 * turns the chosen stage (D by default, Q with --source Q) into
 * replay_items: kind (read, write, flush, discard; a write with a preflush
 * becomes a flush then the write), target (by --map or -d), offset after
 * address fitting (--offset, --wrap, --scale) and O_DIRECT alignment. It also
 * follows completions, for --closed dependencies and the trace's in-flight.
 * The same code runs twice: a scan that counts and checks (nothing is issued
 * if an IO does not fit), then the replay itself, streaming. */
#ifndef REPLAY_PLAN_H
#define REPLAY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/event.h"
#include "io.h"
#include "target.h"

#define PLAN_MAX_TARGETS 64
#define PLAN_MAX_DEVICES 64

enum plan_fit { FIT_NONE, FIT_WRAP, FIT_SCALE };

typedef struct plan_map {
	uint32_t dev;        /* BR_MKDEV of the traced device */
	bool any;            /* -d: every traced device */
	uint16_t target;
} plan_map;

typedef struct plan_cfg {
	bool source_q;
	const plan_map *maps;
	size_t nmaps;
	const target *targets;
	size_t ntargets;
	enum plan_fit fit;
	uint64_t offset;     /* bytes added on the target */
	bool buffered;       /* unaligned IOs go buffered instead of being aligned */
	bool reads_only;     /* no --write: writes, flushes, discards are counted, not planned */
	/* from the scan, for --scale: highest byte each target's IOs reach */
	uint64_t max_end[PLAN_MAX_TARGETS];
} plan_cfg;

typedef struct plan_totals {
	uint64_t events, notify, queued, issued, completed;   /* trace events seen */
	uint64_t planned[RK_COUNT], bytes[RK_COUNT];
	uint64_t fua, preflush;     /* writes with FUA; writes split into flush+write */
	uint64_t not_written[RK_COUNT]; /* reads only: left out by kind */
	uint64_t unmapped;          /* source events on devices with no target */
	uint64_t skipped_empty;     /* source events with no data and no flush */
	uint64_t unaligned;         /* aligned for O_DIRECT (or sent buffered) */
	uint64_t first_t, last_t;   /* trace ns of the first/last planned IO */
	uint64_t items;             /* replay items */
	uint32_t max_len;
	uint64_t max_end[PLAN_MAX_TARGETS];  /* raw trace byte end + offset */
	uint32_t devices[PLAN_MAX_DEVICES];
	size_t ndevices;
	/* the trace's own in-flight (D..C), from the shared statistics
	 * (blkreel/stats.h) so replay, plot and report agree; set by scan_trace */
	uint64_t trace_inflight_max;
	double trace_inflight_avg;       /* time-weighted over the trace */
	/* first IO that does not fit its target (FIT_NONE) */
	bool overflow;
	replay_item first_overflow;
} plan_totals;

typedef struct plan_state plan_state;

/* A planner over cfg (which must outlive it). NULL when out of memory. */
plan_state *plan_new(const plan_cfg *cfg);
void plan_free(plan_state *p);

/* Feed one event; up to 2 items are written to out. Returns how many. */
int plan_feed(plan_state *p, const br_event *ev, replay_item out[2]);

const plan_totals *plan_totals_get(const plan_state *p);

/* "7,0" style device name into buf. */
char *plan_dev_name(uint32_t dev, char *buf, size_t size);

#endif
