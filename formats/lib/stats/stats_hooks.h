/* stats_hooks.h — what a consumer built on the statistics (the report's
 * analysis and its diagnosis) sees of the pairing engine: the request
 * table as its hooks hand it over, read-only; the hooks; and the engine's
 * state through accessors. A consumer never reads br_stats' fields or
 * writes into the table: stats_internal.h, which has them, is included
 * only inside stats/ (tests/formats/test_layering.c checks it). */
#ifndef BLKREEL_STATS_HOOKS_H
#define BLKREEL_STATS_HOOKS_H

#include "blkreel/stats.h"

/* ---- the request table ---------------------------------------------------
 * Open requests live in one array with a free list, indexed by (device,
 * start) and (device, end) in two chained hashes, so back merges (find by
 * end) and front merges (find by start) are O(1); each request's bios hang
 * off it as a list in a second pool, so a merge moves bios without losing
 * their Q times. blkreel-plot, blkreel-replay's fidelity report and the
 * report's analysis (through stats_hooks) all read this one pairing. */
#define PAIR_NIL UINT32_MAX

enum {
	RQ_Q = 1,        /* the request's own bio has a Q time */
	RQ_G = 2,
	RQ_I = 4,
	RQ_D = 8,
	RQ_REMAPPED = 16,/* moved by A: the Q on the new device is the same bio */
	RQ_TAIL = 32,    /* second half of a split: its G has no Q of its own */
	RQ_FREE = 64,
	RQ_FLUSH = 128,  /* a flush request ("D FN": flush, no data) */
	RQ_LOST = 256,   /* issued, no completion within the lost limit: not in flight */
	RQ_STALE = 512,  /* queued, not issued within the lost limit: not waiting either */
};

typedef struct pair_bio {
	uint64_t q, m;            /* Q time; merge time when merged */
	uint32_t pid;
	uint32_t flags;           /* BIO_* */
	uint32_t next;
} pair_bio;

enum { BIO_Q = 1, BIO_M = 2 };

typedef struct pair_req {
	uint64_t start, end;      /* sectors [start, end) */
	uint64_t q, g, i, d;      /* q: Q of the request's own bio */
	uint32_t dev, flags;
	uint32_t aux;             /* the consumer's tag, set by its issue hook */
	uint64_t dpos;            /* its D in the in-flight log (valid with RQ_D) */
	uint64_t qpos;            /* its Q in the queue log */
	uint32_t bios, last_bio;  /* bio list (PAIR_NIL when empty) */
	uint32_t next_s, next_e;  /* hash chains; next_s links the free list */
} pair_req;

typedef struct pair_table {
	pair_req *r;
	uint32_t cap, used, free_head, live;
	uint32_t *head_s, *head_e;
	uint32_t mask;
	pair_bio *b;
	uint32_t bcap, bused, bfree;
} pair_table;

/* What a consumer hears of the pairing, in event order (arg is its own).
 * issue: a D issued a request (a new one, or one queued before); *tag is
 * that request's tag (pair_req.aux, 0 when new), which the consumer may
 * set and reads back in complete. complete: request i ends with
 * completion ev (called before it is freed); a non-zero return stops
 * br_stats_add with that code. */
typedef struct stats_hooks {
	void *arg;
	void (*issue)(void *arg, const br_event *ev, uint32_t *tag);
	int (*complete)(void *arg, const pair_table *t, uint32_t i, const br_event *ev);
	/* optional: request i was refused before issue (see "Refused bios" in
	 * blkreel/stats.h): complete is not called for it */
	void (*refused)(void *arg, const pair_table *t, uint32_t i, const br_event *ev);
} stats_hooks;
/* ev is a C that ends a request refused before issue. */
bool stats_is_refused(const br_stats *s, const br_event *ev);
/* Call before the first event. A consumer with hooks reads the engine's
 * state as it goes (stats_open_now), so this also turns on the queue log,
 * which nothing else needs: without hooks no Q is logged (nothing the
 * totals or series show depends on it). */
void stats_set_hooks(br_stats *s, const stats_hooks *h);

/* ---- the engine's state (stats_view.c) ----------------------------------- */
/* Requests open now, as the events say, less those the lost limit gave up
 * on: issued and not completed (in flight), and queued and not issued
 * (waiting in the block layer). */
typedef struct stats_open {
	uint32_t inflight, waiting;
} stats_open;
stats_open stats_open_now(const br_stats *s);
/* In the complete hook: the completing request's Q2C per bio, summed, and
 * how many of its bios have a Q. */
void stats_done_q2c(const br_stats *s, double *sum, uint64_t *bios);

#define BR_STATS_QD_BINS 65   /* = BR_QD_BINS (analysis.h): depths 0..63, then "or more" */
/* Time at each in-flight count (BR_STATS_QD_BINS of them), and the inner
 * stretches with nothing in flight: how many, the longest. Final after
 * br_stats_finish. */
typedef struct stats_depths {
	const uint64_t *qd_ns;
	uint64_t idle_periods, idle_max_ns;
} stats_depths;
stats_depths stats_get_depths(const br_stats *s);

#endif
