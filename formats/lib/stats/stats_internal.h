/* Private parts of the statistics accumulator (blkreel/stats.h). */
#ifndef BLKREEL_STATS_INTERNAL_H
#define BLKREEL_STATS_INTERNAL_H

#include "blkreel/stats.h"

/* ---- the one pairing engine ---------------------------------------------
 * Open requests live in one array with a free list, indexed by (device,
 * start) and (device, end) in two chained hashes, so back merges (find by
 * end) and front merges (find by start) are O(1); each request's bios hang
 * off it as a list in a second pool, so a merge moves bios without losing
 * their Q times. blkreel-plot, blkreel-replay's fidelity report and the
 * report's analysis (through stats_hooks) all read this one pairing. */
#define PAIR_NIL UINT32_MAX
#define BR_STATS_QD_BINS 65   /* = BR_QD_BINS (analysis.h): depths 0..63, then "or more" */

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
	uint32_t aux;             /* a consumer's tag (the diagnosis: seek class + 1) */
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

int pair_init(pair_table *t);
void pair_destroy(pair_table *t);
/* A new linked request (no bios), or PAIR_NIL when out of memory. */
uint32_t pair_new(pair_table *t, uint32_t dev, uint64_t start, uint64_t end);
/* Unlink a request and free it with its bios. */
void pair_free(pair_table *t, uint32_t i);
void pair_rekey(pair_table *t, uint32_t i, uint32_t dev, uint64_t start, uint64_t end);
/* First open request with this start (end) whose flags & mask == want. */
uint32_t pair_find_start(const pair_table *t, uint32_t dev, uint64_t start, uint32_t mask,
			 uint32_t want, uint32_t except);
uint32_t pair_find_end(const pair_table *t, uint32_t dev, uint64_t end, uint32_t mask,
		       uint32_t want, uint32_t except);
/* First open empty request ([sec, sec)) whose flags & mask == want; the
 * _oldest variant picks the one with the earliest Q (several empty preflush
 * bios can wait at one sector, and the flush machinery ends them in order). */
uint32_t pair_find_empty(const pair_table *t, uint32_t dev, uint64_t sec, uint32_t mask,
			 uint32_t want);
uint32_t pair_find_empty_oldest(const pair_table *t, uint32_t dev, uint64_t sec, uint32_t mask,
				uint32_t want);
/* Append a new bio to request i; 0 or BR_ENOMEM. */
int pair_bio_add(pair_table *t, uint32_t i, uint64_t q, uint32_t pid, uint32_t flags);
/* Move all bios of request from to the end of request to. */
void pair_bio_move(pair_table *t, uint32_t from, uint32_t to);

/* What a consumer built on the shared statistics (the report's analysis)
 * hears of the pairing. complete: request i ends with completion ev
 * (called before it is freed); a non-zero return stops br_stats_add with
 * that code. */
typedef struct stats_hooks {
	void *arg;
	int (*complete)(void *arg, const pair_table *t, uint32_t i, const br_event *ev);
	/* optional: request i was refused before issue (see "Refused bios" in
	 * blkreel/stats.h): complete is not called for it */
	void (*refused)(void *arg, const pair_table *t, uint32_t i, const br_event *ev);
} stats_hooks;

/* The open request a C with data at ev's sector ends (PAIR_NIL: none); the
 * one rule on_complete and the byte counts of br_stats_add share. */
uint32_t stats_data_target(const pair_table *t, const br_event *ev);
/* ev is a C that ends a request refused before issue. */
bool stats_is_refused(const br_stats *s, const br_event *ev);
/* Call before the first event. A consumer with hooks reads the engine's
 * state as it goes (the diagnosis: requests still waiting, stale_pending),
 * so this also turns on the queue log, which nothing else needs: without
 * hooks no Q is logged (nothing the totals or series show depends on it). */
void stats_set_hooks(br_stats *s, const stats_hooks *h);

/* ---- the in-flight log ----------------------------------------------------
 * In-flight accounting runs behind the events by the lost limit: an issue
 * enters the sweep only once it completed or once it stayed open longer
 * than the limit (then it is lost, and never counts as in flight). Memory
 * is what the trace issues and completes within the limit. */
#define STATS_LOST_MIN_NS 1000000000ull   /* 1 s */
#define STATS_LOST_MAX_NS 30000000000ull  /* 30 s */
#define STATS_LOST_MARGIN 4               /* times the worst completed D2C so far */

typedef struct flight_ev {
	uint64_t t;
	uint32_t req;             /* D: the request; C/R: unused */
	int8_t delta;             /* +1 issue, -1 completion or requeue */
	uint8_t done;             /* D: its completion or requeue came */
} flight_ev;

typedef struct flight_log {
	flight_ev *e;
	uint64_t head, tail;      /* absolute positions; [tail, head) are pending */
	uint64_t cap;             /* a power of two */
} flight_log;

/* ---- time buckets --------------------------------------------------------- */
typedef struct sbucket {
	uint64_t bytes[BR_KIND_COUNT][BR_SDIR_COUNT];
	uint32_t ios[BR_KIND_COUNT][BR_SDIR_COUNT];
	uint32_t seeks[BR_KIND_COUNT];
	uint32_t inflight_max;
	double inflight_area;     /* IOs x ns */
	br_hist *lat;             /* [2]: d2c, q2c; NULL until needed */
} sbucket;

/* A bucket a lookup found: absolute ns [lo, hi), index k; hi = 0 when
 * unset. */
typedef struct stats_bucket_hit {
	uint64_t lo, hi;
	size_t k;
} stats_bucket_hit;
enum { STATS_HIT_NOW, STATS_HIT_SWEEP };

typedef struct dev_state {
	uint32_t dev;
	bool seen[BR_KIND_COUNT];
	uint64_t last_end[BR_KIND_COUNT];
} dev_state;

struct br_stats {
	br_stats_opts opts;
	br_stats_totals t;
	bool started, finished;
	uint64_t width;           /* base bucket width, ns */
	size_t nb;                /* buckets in use */
	/* the bucket the last lookup found, one for the events' own times
	 * (STATS_HIT_NOW) and one for the in-flight sweep, which runs behind
	 * them by the lost limit (STATS_HIT_SWEEP): with one the two sides
	 * evicted each other and nearly every lookup divided */
	stats_bucket_hit hit[2];
	sbucket *b;               /* BR_STATS_MAX_BUCKETS */
	dev_state *devs;
	size_t ndevs, devcap, lastdev;
	uint64_t seeks[BR_KIND_COUNT], seek_cand[BR_KIND_COUNT];
	/* in flight: raw (as the events say) and swept (lost IOs left out) */
	uint32_t raw_inflight;
	uint32_t lost_open;       /* lost and still open: in raw_inflight, not in flight */
	uint64_t worst_d2c;
	flight_log flog;
	uint64_t flog_last_t;     /* time of the newest entry of flog */
	bool flog_unordered;      /* an entry came older than the one before it */
	flight_log qlog;          /* Q of requests not yet issued, by the same limit */
	bool keep_qlog;           /* only with hooks (stats_set_hooks) */
	/* no sweep can find anything due before this time (absolute ns): at
	 * most the older log tail plus the lost limit (see stats_flight.c) */
	uint64_t sweep_due;
	uint32_t stale_pending;   /* queued, never issued within the limit (RQ_STALE) */
	uint32_t cur_inflight;
	uint64_t last_change;
	double area_total;
	uint64_t qd_ns[BR_STATS_QD_BINS]; /* time at each in-flight count */
	uint64_t idle_periods, idle_max;  /* inner stretches with nothing in flight */
	bool was_busy;
	pair_table pt;
	uint32_t last_issued;     /* the request the last D issued (for hooks) */
	double done_q2c_sum;      /* the completing request's per-bio Q2C, summed (for hooks) */
	uint64_t done_q2c_n;
	stats_hooks hooks;
	int hook_rc;              /* what a hook returned, for br_stats_add */
};

/* ---- the buckets (stats_buckets.c), the bottom of stats/ ----------------- */
/* Index of the bucket holding absolute time t, coarsening as needed,
 * remembered in s->hit[side]; SIZE_MAX on allocation failure. */
size_t stats_bucket_find(br_stats *s, int side, uint64_t t);
static inline size_t stats_bucket_at(br_stats *s, int side, uint64_t t)
{
	const stats_bucket_hit *h = &s->hit[side];
	if (t >= h->lo && t < h->hi)
		return h->k;
	return stats_bucket_find(s, side, t);
}
/* br_hist_add of v to both a and b, its bin worked out once (stats_hist.c). */
void stats_hist_add2(br_hist *a, br_hist *b, uint64_t v);
/* Integrate the in-flight count up to absolute time t. */
void stats_inflight_advance(br_stats *s, uint64_t t);
/* Record the latencies of one completed request. 0 or BR_ENOMEM. */
int stats_record_latency(br_stats *s, uint64_t t, bool has_d2c, uint64_t d2c,
			 bool has_q2c, uint64_t q2c);
/* One more (+1) or one fewer (-1) request in flight at absolute time t
 * (the sweep, from the in-flight log). */
void stats_inflight_change(br_stats *s, uint64_t t, int delta);
/* The in-flight log (stats_flight.c): request i issued at t; request i
 * completed or requeued at t; sweep what is older than the lost limit
 * (all of it when final). 0 or BR_ENOMEM. */
int stats_flight_issue(br_stats *s, uint32_t i, uint64_t t);
int stats_flight_end(br_stats *s, uint32_t i, uint64_t t);
void stats_flight_sweep(br_stats *s, uint64_t now, bool final);
/* The sweep at event time now, only when something can be due (the same
 * as calling stats_flight_sweep(s, now, false) after every event). */
static inline void stats_flight_sweep_due(br_stats *s, uint64_t now)
{
	if (now >= s->sweep_due)
		stats_flight_sweep(s, now, false);
}
/* The queue log: request i queued at t; request i issued, merged away or
 * ended without issue (no longer waiting). 0 or BR_ENOMEM. */
int stats_queue_add(br_stats *s, uint32_t i, uint64_t t);
void stats_queue_done(br_stats *s, uint32_t i);
/* Handle one event in the pairing state machine. 0, BR_ENOMEM or what a
 * hook returned. */
int stats_pair_event(br_stats *s, const br_event *ev, br_error *err);

#endif
