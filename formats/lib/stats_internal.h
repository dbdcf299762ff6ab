/* Private parts of the statistics accumulator (blkreel/stats.h). */
#ifndef BLKREEL_STATS_INTERNAL_H
#define BLKREEL_STATS_INTERNAL_H

#include "blkreel/stats.h"

/* ---- open IOs, found by (device, start sector) and (device, end) ---- */
#define PAIR_NIL UINT32_MAX
/* IO_FLUSH: a flush request of the flush machinery (D "FN": flush, no
 * write, no data), which its own C "FN" ends, not an empty bio's C. */
enum { IO_HAS_Q = 1, IO_HAS_D = 2, IO_REMAPPED = 4, IO_FLUSH = 8 };

typedef struct open_io {
	uint64_t start, end;      /* sectors [start, end) */
	uint64_t q, d;            /* absolute ns (valid per flags) */
	uint64_t qsum;            /* sum over bios of (Q time - base) */
	uint32_t dev, flags;
	uint32_t nbios;           /* bios with a Q time */
	uint32_t next_s, next_e;  /* hash chains; next_s links the free list */
} open_io;

typedef struct pair_table {
	open_io *io;
	uint32_t cap, used, free_head, live;
	uint32_t *head_s, *head_e;
	uint32_t mask;
	uint64_t qbase;           /* base of qsum */
} pair_table;

int pair_init(pair_table *t);
void pair_destroy(pair_table *t);
/* A new entry (linked), or PAIR_NIL on allocation failure. */
uint32_t pair_new(pair_table *t, uint32_t dev, uint64_t start, uint64_t end);
void pair_free(pair_table *t, uint32_t i);
/* First open IO with this start (or end), whose flags & mask == want. */
uint32_t pair_find_start(const pair_table *t, uint32_t dev, uint64_t start,
			 uint32_t mask, uint32_t want, uint32_t except);
uint32_t pair_find_end(const pair_table *t, uint32_t dev, uint64_t end,
		       uint32_t mask, uint32_t want, uint32_t except);
/* First open empty IO ([sec, sec)) whose flags & mask == want; the _oldest
 * variant picks the one with the earliest Q (several empty preflush bios
 * can wait at one sector, and the flush machinery ends them in order). */
uint32_t pair_find_empty(const pair_table *t, uint32_t dev, uint64_t sec,
			 uint32_t mask, uint32_t want);
uint32_t pair_find_empty_oldest(const pair_table *t, uint32_t dev, uint64_t sec,
				uint32_t mask, uint32_t want);
/* Change the keys of a linked entry. */
void pair_rekey(pair_table *t, uint32_t i, uint32_t dev, uint64_t start, uint64_t end);

/* ---- time buckets --------------------------------------------------------- */
typedef struct sbucket {
	uint64_t bytes[BR_KIND_COUNT][BR_SDIR_COUNT];
	uint32_t ios[BR_KIND_COUNT][BR_SDIR_COUNT];
	uint32_t seeks[BR_KIND_COUNT];
	uint32_t inflight_max;
	double inflight_area;     /* IOs x ns */
	br_hist *lat;             /* [2]: d2c, q2c; NULL until needed */
} sbucket;

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
	/* the bucket the last lookup found: events come in time order, so
	 * nearly every lookup lands in it without a division */
	uint64_t hit_lo, hit_hi;  /* absolute ns, [lo, hi); hi = 0 when unset */
	size_t hit_k;
	sbucket *b;               /* BR_STATS_MAX_BUCKETS */
	dev_state *devs;
	size_t ndevs, devcap, lastdev;
	uint64_t seeks[BR_KIND_COUNT], seek_cand[BR_KIND_COUNT];
	/* in flight */
	uint32_t cur_inflight;
	uint64_t last_change;
	double area_total;
	pair_table pt;
};

/* Index of the bucket holding absolute time t, coarsening as needed;
 * SIZE_MAX on allocation failure. */
size_t stats_bucket_at(br_stats *s, uint64_t t);
/* Integrate the in-flight count up to absolute time t. */
void stats_inflight_advance(br_stats *s, uint64_t t);
/* Record the latencies of one completed request. 0 or BR_ENOMEM. */
int stats_record_latency(br_stats *s, uint64_t t, bool has_d2c, uint64_t d2c,
			 bool has_q2c, uint64_t q2c);
/* Handle one event in the pairing state machine. 0 or BR_ENOMEM. */
int stats_pair_event(br_stats *s, const br_event *ev, br_error *err);

#endif
