/* Private parts of the report analysis (blkreel/analysis.h). */
#ifndef BLKREEL_ANALYSIS_INTERNAL_H
#define BLKREEL_ANALYSIS_INTERNAL_H

#include "blkreel/analysis.h"

/* ---- open requests and their bios -----------------------------------------
 * A request lives in one array with a free list, indexed by (device, start)
 * and (device, end) in two chained hashes; its bios hang off it as a list
 * in a second pool, so a merge moves bios without losing their Q times. */
#define AN_NIL UINT32_MAX

enum {
	RQ_Q = 1,        /* the request's own bio has a Q time */
	RQ_G = 2,
	RQ_I = 4,
	RQ_D = 8,
	RQ_REMAPPED = 16,/* moved by A: the Q on the new device is the same bio */
	RQ_TAIL = 32,    /* second half of a split: its G has no Q of its own */
	RQ_FREE = 64,
	RQ_FLUSH = 128,  /* a flush request ("D FN": flush, no data) */
};

typedef struct an_bio {
	uint64_t q, m;            /* Q time; merge time when merged */
	uint32_t pid;
	uint32_t flags;           /* BIO_* */
	uint32_t next;
} an_bio;

enum { BIO_Q = 1, BIO_M = 2 };

typedef struct an_req {
	uint64_t start, end;      /* sectors [start, end) */
	uint64_t q, g, i, d;      /* q: Q of the request's own bio */
	uint32_t dev, flags;
	uint32_t bios, last_bio;  /* bio list (AN_NIL when empty) */
	uint32_t next_s, next_e;  /* hash chains; next_s links the free list */
} an_req;

typedef struct an_table {
	an_req *r;
	uint32_t cap, used, free_head, live;
	uint32_t *head_s, *head_e;
	uint32_t mask;
	an_bio *b;
	uint32_t bcap, bused, bfree;
} an_table;

int an_table_init(an_table *t);
void an_table_destroy(an_table *t);
/* A new linked request (no bios), or AN_NIL when out of memory. */
uint32_t an_req_new(an_table *t, uint32_t dev, uint64_t start, uint64_t end);
/* Unlink a request and free it with its bios. */
void an_req_free(an_table *t, uint32_t i);
void an_req_rekey(an_table *t, uint32_t i, uint32_t dev, uint64_t start, uint64_t end);
/* First open request with this start (end) whose flags & mask == want. */
uint32_t an_find_start(const an_table *t, uint32_t dev, uint64_t start, uint32_t mask,
		       uint32_t want, uint32_t except);
uint32_t an_find_end(const an_table *t, uint32_t dev, uint64_t end, uint32_t mask,
		     uint32_t want, uint32_t except);
/* First open empty request ([sec, sec)) whose flags & mask == want. */
uint32_t an_find_empty(const an_table *t, uint32_t dev, uint64_t sec, uint32_t mask, uint32_t want);
/* The same, the one with the earliest Q. */
uint32_t an_find_empty_oldest(const an_table *t, uint32_t dev, uint64_t sec, uint32_t mask,
			      uint32_t want);
/* Append a new bio to request i; 0 or BR_ENOMEM. */
int an_bio_add(an_table *t, uint32_t i, uint64_t q, uint32_t pid, uint32_t flags);
/* Move all bios of request from to the end of request to. */
void an_bio_move(an_table *t, uint32_t from, uint32_t to);

/* ---- per-device, per-process and per-range accumulators -------------------- */
typedef struct an_group {
	br_analysis_group out;
	uint64_t ios[BR_KIND_COUNT][BR_SDIR_COUNT];
	uint64_t bytes[BR_KIND_COUNT][BR_SDIR_COUNT];
	uint64_t first[BR_KIND_COUNT], last[BR_KIND_COUNT];
	uint64_t size[BR_KIND_COUNT][BR_SIZE_BINS];
	bool seen[BR_KIND_COUNT];
	/* seeks by distance, per kind (devices only) */
	bool has_end[BR_KIND_COUNT];
	uint64_t last_end[BR_KIND_COUNT];
} an_group;

typedef struct an_range {
	uint32_t dev;
	uint64_t idx;             /* start / range_bytes */
	uint64_t bytes[BR_KIND_COUNT][BR_SDIR_COUNT];
	uint64_t ios[BR_KIND_COUNT];
	uint64_t last[BR_KIND_COUNT], bursts[BR_KIND_COUNT];
	uint64_t burst_first[BR_KIND_COUNT], burst_last[BR_KIND_COUNT];
	uint32_t next;
} an_range;

typedef struct an_groups {   /* a small open-hash of groups by id */
	an_group *g;
	size_t n, cap;
	uint32_t *slot;           /* index + 1, 0 = empty */
	size_t nslots;
	size_t last;              /* index of the last group found (consecutive events share it) */
} an_groups;

an_group *an_group_get(an_groups *gs, uint32_t id);
an_group *an_group_find(const an_groups *gs, uint32_t id);
void an_groups_free(an_groups *gs);

struct br_analysis {
	br_analysis_opts opts;
	br_stats *stats;
	an_table t;
	bool started, finished;
	uint64_t first, last;
	br_hist phase[BR_PHASE_COUNT];
	uint64_t orphan_c, empty_c;
	/* seek distances per kind */
	uint64_t fwd[BR_KIND_COUNT][BR_DIST_BINS], back[BR_KIND_COUNT][BR_DIST_BINS];
	/* queue depth */
	uint32_t depth, depth_max;
	double depth_area;
	uint64_t depth_since;
	uint64_t qd_ns[BR_QD_BINS];
	uint64_t idle_periods, idle_max;
	bool was_busy;
	an_groups devs, procs;
	an_range *ranges;
	size_t nranges, rcap;
	uint32_t *rslot;
	size_t nrslots;
	size_t rlast;             /* index + 1 of the last range found, 0 = none */
	/* results */
	br_analysis_result res;
	br_analysis_group *dev_out, *proc_out;
	br_analysis_range *range_out;
};

/* Pairing and phases (analysis_life.c). 0, BR_ENOMEM or on_bio's code. */
int an_life_event(br_analysis *a, const br_event *ev);
/* Queue depth bookkeeping (analysis_depth.c). */
void an_depth_change(br_analysis *a, uint64_t t, int delta);
void an_depth_finish(br_analysis *a);
/* Ranges (analysis_ranges.c). 0 or BR_ENOMEM. */
int an_range_add(br_analysis *a, const br_event *ev, int kind);
int an_ranges_finish(br_analysis *a, int kind);
/* Latencies of completed bios, summed, for one device or process. */
typedef struct an_lat {
	double q2c_sum, d2c_sum;
	uint64_t q2c_n, d2c_n;
} an_lat;
void an_group_latency(an_groups *gs, uint32_t id, const an_lat *l);

static inline unsigned an_log2(uint64_t v)
{
	return v ? 63u - (unsigned)__builtin_clzll(v) : 0;
}

#endif
