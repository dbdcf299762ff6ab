/* blkreel/stats.h — the statistics every presenting tool shares (plot,
 * report): throughput, IOPS and seeks per time bucket, the life of each IO
 * from pairing Q→D→C, IOs in flight over time, and latency percentiles.
 *
 * Feed every event of a time-ordered stream to br_stats_add(), call
 * br_stats_finish() once, then read totals and series. Memory does not grow
 * with trace length: time buckets coarsen by 10× when they would exceed
 * BR_STATS_MAX_BUCKETS, latencies go into log-linear histograms, and only
 * IOs in flight are remembered. The library never prints or exits.
 *
 * Definitions (documented once, here):
 *  - Event kind. Throughput, IOPS and the "IO" counts are taken from
 *    completions (C); a trace without C falls back to issues (D), then to
 *    queue events (Q). Seeks are counted on D, falling back to Q, then C.
 *    The kinds used are reported in br_stats_totals.
 *  - Seek: an IO that starts more than seek_sectors (default 128) sectors
 *    away from where the previous IO of the same kind on the same device
 *    ended. The first IO on a device is not a seek. Zero-length IOs
 *    (flushes) are ignored for seeks, throughput and IOPS.
 *  - Pairing, per dispatched request ("IO"): a Q opens a bio; M (back
 *    merge) and F (front merge) fold the bio into the request it joins; X
 *    splits a bio in two (both halves keep the Q time); A moves a bio to
 *    the device/sector it is remapped to (keeping the original Q time); R
 *    (requeue) takes an issued request back (its next D counts); D issues;
 *    C completes (a partial completion advances the start and keeps the
 *    rest in flight). D2C = C − last D; Q2C = C − earliest Q of the
 *    request's bios. q2c_bio_sum_ns adds C − Q for every bio, so the per-bio
 *    average (btt's Q2C average) is q2c_bio_sum_ns / q2c_bios.
 *    IOs still open at the end are counted (never_issued, never_completed),
 *    not dropped; C events with sectors matching nothing are counted as
 *    orphans.
 *  - Flushes and empty completions: a flush request (D "FN": flush, no
 *    write, no data) is always a request of its own (with no Q: counted
 *    in orphan_issues), ended by the C "FN" at its sector or, on newer
 *    kernels, at sector ~0 (it is issued at 0). Every other empty C ends
 *    an issued empty request at its sector, else the oldest empty bio
 *    waiting there (a preflush "Q FWS" a flush request served); else it is
 *    the end record of a bio whose request completed before (preflush and
 *    FUA writes complete once with their data, once empty), counted in
 *    empty_completions. An empty C never ends a request with sectors.
 *  - In flight: requests issued (D) and not yet completed (C) or requeued.
 *    An issue that has no completion within the lost limit — 4 times the
 *    worst D2C completed so far, at least 1 s, at most 30 s — or none by
 *    the end of the trace is lost (lost_ios): a trace cut short, dropped
 *    events or a partial per-CPU set would otherwise leave it "in flight"
 *    to the end, a fake queue. Lost IOs are never in flight (depth, busy
 *    time, the series); the accounting runs behind the events by the
 *    limit, so memory holds what is issued within it.
 *  - Refused bios: a C with an error and data that ends a request never
 *    issued (no D) is a bio the block layer refused before issue (a
 *    non-blocking submission finding the queue full or needing a split;
 *    the submitter usually sends it again, a new Q). It is counted in
 *    refused_bios/refused_bytes and nowhere else among the completions:
 *    not in the C bytes and IOs (throughput), not in Q2C, not in completed,
 *    not in queued. Its Q stays counted among the Q events (kind_ios and
 *    the Q series: what the trace holds).
 *  - Rates in a bucket are divided by the part of the bucket the trace
 *    covers, and a last bucket the trace covers only partly is folded into
 *    the one before it: no inflated last partial bucket. */
#ifndef BLKREEL_STATS_H
#define BLKREEL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "blkreel/event.h"

/* ---- log-linear histogram of nanosecond values --------------------------
 * Values below 2^BR_HIST_SUB_BITS are exact; above, each power of two is
 * split into 2^BR_HIST_SUB_BITS equal bins (relative error < 1/32). Values
 * at or above 2^BR_HIST_MAX_BITS ns (~4.9 h) land in the last bin; min, max
 * and sum stay exact. */
#define BR_HIST_SUB_BITS 4
#define BR_HIST_MAX_BITS 44
#define BR_HIST_BINS ((BR_HIST_MAX_BITS - BR_HIST_SUB_BITS + 1) << BR_HIST_SUB_BITS)

typedef struct br_hist {
	uint64_t count;
	uint64_t min, max;        /* valid when count > 0 */
	double sum;
	uint32_t bins[BR_HIST_BINS];
} br_hist;

void br_hist_clear(br_hist *h);
void br_hist_add(br_hist *h, uint64_t value);
/* Add value n times (one bin update, as n calls of br_hist_add). */
void br_hist_add_n(br_hist *h, uint64_t value, uint64_t n);
void br_hist_merge(br_hist *into, const br_hist *from);
/* Value at quantile q in [0,1]: the middle of the bin holding it, clamped
 * to [min, max]; 0 when empty. */
uint64_t br_hist_quantile(const br_hist *h, double q);
double br_hist_mean(const br_hist *h);
/* How many values are <= v: exact below 2^BR_HIST_SUB_BITS, at or beyond
 * min and max; otherwise the whole bin holding v counts (an over-count of
 * at most that bin, relative width 1/16). */
uint64_t br_hist_count_le(const br_hist *h, uint64_t v);
/* Bin index of a value and the [lo, hi) range of a bin (for reports). */
unsigned br_hist_bin(uint64_t value);
void br_hist_bin_range(unsigned bin, uint64_t *lo, uint64_t *hi);

/* ---- the accumulator ------------------------------------------------------ */
enum br_stats_kind { BR_KIND_Q, BR_KIND_D, BR_KIND_C, BR_KIND_COUNT };
/* Directions in series: reads, writes, and the rest (discards, other). */
enum br_sdir { BR_SDIR_READ, BR_SDIR_WRITE, BR_SDIR_OTHER, BR_SDIR_COUNT };

#define BR_STATS_MAX_BUCKETS 4096
#define BR_STATS_DEFAULT_SEEK_SECTORS 128

/* One request completed in full, as the pairing above saw it: handed to
 * br_stats_opts.on_request at its C (absolute trace-clock ns), so outputs
 * with a row per IO (CSV) report the same D2C as the statistics. */
typedef struct br_stats_request {
	uint32_t device;
	bool has_q, has_d;        /* a Q / a D was seen for it */
	uint64_t q_ns;            /* earliest Q of its bios (when has_q) */
	uint64_t d_ns;            /* its last D (when has_d) */
	uint64_t c_ns;            /* the C that completed it */
} br_stats_request;
typedef void (*br_stats_request_fn)(void *arg, const br_stats_request *req);

typedef struct br_stats_opts {
	bool has_device;          /* count only this device (BR_MKDEV encoding) */
	uint32_t device;
	uint64_t seek_sectors;    /* 0 = BR_STATS_DEFAULT_SEEK_SECTORS */
	bool has_origin;          /* time zero of the series (absolute ns), also */
	uint64_t origin_ns;       /* where coverage starts (e.g. a window's start);
	                             default: the first event seen */
	uint64_t base_width_ns;   /* starting bucket width; 0 = 10 us */
	bool latency_series;      /* keep per-bucket latency histograms */
	br_stats_request_fn on_request; /* optional: every request completed in full */
	void *on_request_arg;
} br_stats_opts;

typedef struct br_stats br_stats;

typedef struct br_stats_totals {
	uint64_t events;               /* non-notify events counted */
	uint64_t first_ns, last_ns;    /* absolute trace clock */
	uint64_t origin_ns;            /* time zero of the series */
	enum br_stats_kind io_kind;    /* kind used for throughput/IOPS/marks */
	enum br_stats_kind seek_kind;  /* kind used for seeks */
	uint64_t ios[BR_SDIR_COUNT];   /* IOs of io_kind with bytes > 0 */
	uint64_t bytes[BR_SDIR_COUNT];
	uint64_t kind_ios[BR_KIND_COUNT]; /* IOs with bytes > 0 seen per kind */
	uint64_t seeks;                /* of seek_kind */
	uint64_t seek_candidates;      /* IOs of seek_kind looked at */
	uint64_t seek_sectors;
	/* pairing */
	uint64_t queued, merged, splits, remaps, requeues, issued, completed;
	uint64_t never_issued;         /* open at the end, never dispatched */
	uint64_t never_completed;      /* open at the end, dispatched */
	uint64_t lost_ios;             /* issued and not completed within the lost limit
	                                  (see "In flight"): never counted in flight */
	uint64_t late_completions;     /* of those, completed after all (still not in flight) */
	uint64_t orphan_completions;   /* C with sectors matching no open IO */
	uint64_t orphan_issues;        /* D matching no Q (counted, still paired to C),
	                                  flush requests ("FN") included */
	br_hist d2c, q2c;              /* per request */
	double q2c_bio_sum_ns;         /* per bio (btt-style average) */
	uint64_t q2c_bios;
	/* in flight (D..C) */
	uint32_t inflight_max;
	double inflight_avg;           /* time-weighted over [first, last] */
	size_t ndevices;
	/* empty C matching no open flush or empty bio: the end record of a
	 * bio whose request completed before (see Flushes above) */
	uint64_t empty_completions;
	/* bios refused before issue (see "Refused bios" above) */
	uint64_t refused_bios, refused_bytes;
} br_stats_totals;

/* One bucket of a series; times relative to the origin. */
typedef struct br_stats_bucket {
	uint64_t start_ns;
	uint64_t width_ns;            /* nominal width */
	uint64_t covered_ns;          /* part of [first,last] inside it (>0) */
	uint64_t bytes[BR_SDIR_COUNT];/* io_kind */
	uint64_t ios[BR_SDIR_COUNT];
	uint64_t seeks;               /* seek_kind */
	double inflight_avg;          /* time-weighted */
	uint32_t inflight_max;
	const br_hist *d2c, *q2c;     /* completions in this bucket; NULL when none
	                                 (or when latency_series was off) */
} br_stats_bucket;

typedef struct br_stats_series {
	size_t n;
	uint64_t width_ns;
	br_stats_bucket *b;
	br_hist *hists;               /* storage behind d2c/q2c */
} br_stats_series;

int br_stats_new(br_stats **out, const br_stats_opts *opts, br_error *err);
/* Count one event (notify records are ignored). 0, or BR_ENOMEM. */
int br_stats_add(br_stats *s, const br_event *ev, br_error *err);
/* Close the in-flight integral, count what is still open, choose kinds.
 * Call once after the last add. */
int br_stats_finish(br_stats *s, br_error *err);
void br_stats_free(br_stats *s);

const br_stats_totals *br_stats_get_totals(const br_stats *s);
/* Current internal bucket width (ns); display widths must be a multiple. */
uint64_t br_stats_base_width(const br_stats *s);
/* A bucket width for a series of about target buckets over the trace's
 * span: a 1-2-5 multiple of the base width (1 s for runs of minutes with
 * target 300, finer for short runs). */
uint64_t br_stats_pick_width(const br_stats *s, unsigned target);
/* The series at width_ns (rounded up to a multiple of the base width),
 * over [from_ns, to_ns) relative to the origin (to_ns = 0: to the end).
 * Free with br_stats_series_free. */
int br_stats_series_get(const br_stats *s, uint64_t width_ns, uint64_t from_ns,
			uint64_t to_ns, br_stats_series *out, br_error *err);
void br_stats_series_free(br_stats_series *ser);

/* Rates of one bucket, per second of covered time. */
/* MB/s (10^6 bytes) of one direction; sdir -1 = reads + writes (discards,
 * which move no data, only under BR_SDIR_OTHER). */
double br_stats_bucket_mbps(const br_stats_bucket *b, int sdir);
double br_stats_bucket_iops(const br_stats_bucket *b);
double br_stats_bucket_seeks(const br_stats_bucket *b);

/* The series direction of an event (reads, writes, the rest). */
static inline enum br_sdir br_stats_sdir(const br_event *ev)
{
	if (br_event_is_discard(ev))
		return BR_SDIR_OTHER;
	if (br_event_is_write(ev))
		return BR_SDIR_WRITE;
	if (br_event_is_read(ev))
		return BR_SDIR_READ;
	return BR_SDIR_OTHER;
}

/* "C", "D", "Q" */
const char *br_stats_kind_name(enum br_stats_kind k);

#endif
