/* blkreel/analysis.h — what a report says about a trace, built on the
 * shared statistics (blkreel/stats.h): the btt-style life of an IO broken
 * into phases, IO size and seek distance histograms, queue depth and idle
 * time, the hottest offset ranges, per-device and per-process breakdowns,
 * and a ranking of the differences between two or more traces.
 *
 * Flushes: a flush request (D "FN": flush, no data) is a request of its
 * own, ended by the C "FN" at its sector or, on newer kernels, at sector
 * ~0. Other empty completions end an issued empty request at their sector,
 * else the oldest empty preflush bio waiting there (Q "FWS"; several can
 * share one flush); else they are the end record of a bio whose request
 * completed before (FUA/preflush writes), counted in empty_completions.
 * An empty C never ends a request with sectors.
 *
 * Feed every event of a time-ordered stream to br_analysis_add(), call
 * br_analysis_finish() once, then read br_analysis_get(). Memory does not
 * grow with trace length: only IOs in flight, one entry per device, per
 * process and per offset range are kept. Throughput, IOPS, seeks, the
 * per-request D2C/Q2C percentiles, queue depth average/maximum and the
 * pairing counts come from br_stats unchanged, and the phases below are
 * read from br_stats' own pairing (the one engine, through a completion
 * hook), so plot, replay and report agree by construction. Each result
 * also holds the trace's diagnosis profile (blkreel/diagnosis.h). The
 * library never prints or exits.
 *
 * Phases, as btt defines them (each recorded when the IO completes, so a
 * requeued IO counts its last insert and dispatch only):
 *  - Q2G  Q of the bio that became the request → G (request allocated)
 *  - G2I  G → I (inserted into the scheduler)
 *  - Q2M  Q → M/F of a bio merged into an existing request
 *  - I2D  I → D (time queued in the scheduler)
 *  - M2D  merge → D of the request it joined
 *  - D2C  D → C (the device), once per bio of the request (btt weights it so)
 *  - Q2C  Q → C (total), once per bio
 * A request issued without any Q seen (trace started mid-flight, or the
 * tail of a split bio) counts in D2C once. Partial completions keep the
 * rest open. IOs open at the end are counted (br_stats_totals
 * never_issued/never_completed), never dropped. */
#ifndef BLKREEL_ANALYSIS_H
#define BLKREEL_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "blkreel/event.h"
#include "blkreel/diagnosis.h"
#include "blkreel/stats.h"

enum br_phase {
	BR_PHASE_Q2G, BR_PHASE_G2I, BR_PHASE_Q2M, BR_PHASE_I2D, BR_PHASE_M2D,
	BR_PHASE_D2C, BR_PHASE_Q2C, BR_PHASE_COUNT
};
/* "Q2G", ... */
const char *br_analysis_phase_name(enum br_phase p);

/* IO sizes: bin k holds sizes in [2^k, 2^(k+1)) bytes (bin 9 = 512..1023). */
#define BR_SIZE_BINS 32
/* Seek distances in sectors: bin k holds [2^k, 2^(k+1)). */
#define BR_DIST_BINS 48
/* Queue depth: time spent at depth 0..BR_QD_BINS-2, the last bin "or more". */
#define BR_QD_BINS 65

#define BR_ANALYSIS_DEFAULT_RANGE (128ull << 20)    /* 128 MiB */
#define BR_ANALYSIS_DEFAULT_BURST_GAP 1000000000ull /* 1 s */

/* One completed bio, handed to br_analysis_opts.on_bio as it completes
 * (btt -p's per-IO view): absolute trace-clock times, 0 when absent. */
typedef struct br_analysis_bio {
	uint32_t device;              /* where it completed */
	uint32_t pid;                 /* who queued it */
	uint64_t sector;              /* the completed request's start and length */
	uint64_t sectors;
	uint64_t q_ns, m_ns;          /* its Q; its merge (M/F) when merged */
	uint64_t g_ns, i_ns;          /* the request's G and I (the bio that became it only) */
	uint64_t d_ns, c_ns;          /* the request's last D; its C */
} br_analysis_bio;

/* Return 0 to go on; a negative br_code stops the analysis with it. */
typedef int (*br_analysis_bio_fn)(void *arg, const br_analysis_bio *bio);

typedef struct br_analysis_opts {
	br_stats_opts stats;      /* device filter, seek rule, ... */
	uint64_t range_bytes;     /* hot-range size; 0 = 128 MiB */
	uint64_t burst_gap_ns;    /* a pause this long starts a new burst to a range; 0 = 1 s */
	br_analysis_bio_fn on_bio;/* optional: every completed bio with a Q */
	void *on_bio_arg;
} br_analysis_opts;

/* One device or one process. IOs and bytes are counted on the stats'
 * io_kind for devices (C, else D, else Q) and on Q for processes (the
 * process that submitted the IO; C and D events often carry an interrupt
 * or kworker pid), falling back to the devices' kind when there is no Q. */
typedef struct br_analysis_group {
	uint32_t id;                  /* device (BR_MKDEV) or pid */
	char comm[16];                /* process name, "" when unknown */
	uint64_t ios[BR_STATS_DIRS];
	uint64_t bytes[BR_STATS_DIRS];
	uint64_t first_ns, last_ns;   /* first and last counted IO (absolute) */
	uint64_t size_hist[BR_SIZE_BINS];
	double q2c_sum_ns;            /* per bio, completed bios of this group */
	uint64_t q2c_n;
	double d2c_sum_ns;
	uint64_t d2c_n;
} br_analysis_group;

/* One offset range of one device (range_bytes long), counted on io_kind. */
typedef struct br_analysis_range {
	uint32_t device;
	uint64_t start_byte, len;
	uint64_t bytes[BR_STATS_DIRS];
	uint64_t ios;
	uint64_t bursts;              /* runs of IO separated by >= burst_gap */
	double burst_interval_ns;     /* mean time between burst starts (0: one burst) */
} br_analysis_range;

typedef struct br_analysis_result {
	const br_stats_totals *totals;      /* the shared statistics */
	double span_s;                      /* last - first event */
	double mbps, iops, seeks_per_s;     /* totals over span (io/seek kind) */
	br_hist phase[BR_PHASE_COUNT];
	uint64_t orphan_completions;        /* C events with sectors matching no open IO */
	uint64_t empty_completions;         /* empty C matching no open flush: the end record
	                                       of a bio whose request completed before */
	uint64_t open_queued, open_issued;  /* this pairing's requests still open at the end
	                                       (not issued / issued, never completed) */
	uint64_t size_hist[BR_SIZE_BINS];   /* io_kind, bytes > 0 */
	uint64_t seek_fwd[BR_DIST_BINS];    /* seeks (seek_kind), by distance */
	uint64_t seek_back[BR_DIST_BINS];
	double seq_fraction;                /* IOs of seek_kind that were not seeks */
	double merge_ratio;                 /* Q per D (btt's #Q / #D) */
	bool has_completions;               /* the trace has C events: without them queue
	                                       depth, idle time and D2C/Q2C mean nothing */
	uint64_t qd_ns[BR_QD_BINS];         /* time at each queue depth over [first, last] */
	double qd_avg;                      /* time-weighted, from the pairing above (flushes
	                                       completed at sector ~0 included; see notes) */
	uint32_t qd_max;
	uint64_t idle_ns;                   /* time with nothing in flight */
	uint64_t idle_periods;              /* stretches with nothing in flight (inner ones) */
	uint64_t idle_max_ns;
	size_t ndevices, nprocs, nranges;
	const br_analysis_group *devices;   /* by device number */
	const br_analysis_group *procs;     /* by bytes, largest first */
	const br_analysis_range *ranges;    /* by bytes, largest first */
	const br_diag_profile *profile;     /* what br_diagnose compares (blkreel/diagnosis.h) */
} br_analysis_result;

typedef struct br_analysis br_analysis;

int br_analysis_new(br_analysis **out, const br_analysis_opts *opts, br_error *err);
/* Count one event; notify records are ignored. 0, BR_ENOMEM, or what
 * on_bio returned. */
int br_analysis_add(br_analysis *a, const br_event *ev, br_error *err);
int br_analysis_finish(br_analysis *a, br_error *err);
/* Valid after finish until free. */
const br_analysis_result *br_analysis_get(const br_analysis *a);
void br_analysis_free(br_analysis *a);

/* ---- comparison -------------------------------------------------------------
 * Each metric side by side for n >= 2 traces, with the ratio between the
 * worst and best value. Sorted by how much the metric explains the
 * difference in throughput: score = |ln(ratio)|, halved when the trace
 * with the best value of this metric is not the trace with the best
 * throughput (the metric points the other way). Metrics that are zero or
 * missing in some trace are kept but scored 0. The outcome itself
 * (throughput, IO/s, run time) comes first, in that order. */
enum br_better { BR_BETTER_LOWER, BR_BETTER_HIGHER, BR_BETTER_NONE };

#define BR_CMP_MAX_TRACES 16

typedef struct br_cmp_metric {
	const char *key;              /* "d2c_p99_ms" (JSON key) */
	const char *name;             /* "D2C p99" */
	const char *unit;             /* "ms", "MB/s", "", "%" */
	enum br_better better;
	double v[BR_CMP_MAX_TRACES];
	size_t best, worst;           /* trace indexes */
	double ratio;                 /* worst/best (>= 1), 0 when undefined */
	bool agrees;                  /* best here is the throughput winner */
	double score;
} br_cmp_metric;

typedef struct br_cmp {
	size_t ntraces;
	size_t tput_best;             /* trace with the highest MB/s */
	size_t nmetrics;
	br_cmp_metric *m;             /* sorted by score, highest first */
} br_cmp;

int br_analysis_compare(const br_analysis_result *const *res, size_t n, br_cmp *out,
			br_error *err);
void br_cmp_free(br_cmp *c);

/* Re-sort the explanations (after throughput, IO/s and run time) by their
 * contribution to the diagnosed difference (blkreel/diagnosis.h): each
 * metric takes the size of the term of the factor it measures (device
 * idle: U, queue depth: N_busy, size and bios per request: S, D2C: R,
 * Q2C and phases: their share of the change in mean Q2C); score becomes
 * that contribution, and metrics no term explains follow by their old
 * score. */
void br_cmp_sort_by_diagnosis(br_cmp *c, const br_diagnosis *d);

#endif
