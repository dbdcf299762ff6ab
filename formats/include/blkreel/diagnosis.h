/* blkreel/diagnosis.h — why trace B is slower than trace A: ranked causes,
 * each with its share of the difference and the events that show it.
 *
 * Every br_analysis keeps a profile of its trace (br_analysis_result
 * .profile, filled from the one pairing engine of blkreel/stats.h), and
 * br_diagnose() compares two profiles:
 *
 *  1. Fairness first: different work (bytes queued, read/write mix, span,
 *     devices) is stated before anything else, with the comparison per
 *     unit of work (device bytes per byte queued by applications).
 *  2. Throughput, exactly: MB/s = U · N_busy · S / R with
 *       U      = T_busy / T_span    (busy: the union of D→C intervals)
 *       N_busy = ΣD2C / T_busy      (requests in flight while busy)
 *       S      = bytes / n          (bytes per completed data request)
 *       R      = ΣD2C / n           (device time per data request;
 *                                    flush requests' D2C included)
 *     ΣD2C is the integral of the in-flight count, so the identity holds
 *     but for IOs open at the window's ends and requeued IOs (the
 *     residual, reported).
 *     ln(X_A/X_B) = Δln U + Δln N_busy + Δln S − Δln R.
 *  3. Each factor is taken apart into mechanisms (exact sub-identities):
 *     U into idle with requests held queued (scheduler), idle after a
 *     flush (flush) and idle with nothing queued (idle); S into the size
 *     applications queue (io_size, or readahead when read-ahead bios make
 *     the difference), bios merged per request (merge) and splits (split);
 *     R into flush time per request (flush) and data service time, whose
 *     change is split Kitagawa–Oaxaca into a mix effect over IO classes
 *     (direction × size × FUA/sync × seek distance: io_size or seek) and a
 *     rate effect (service_time); N_busy is concurrency, or scheduler when
 *     the slower trace keeps more requests queued-not-dispatched while
 *     its device is busy.
 *  4. Shares: the terms pointing the way of the difference sum to 1
 *     (share of the gross difference); terms pointing the other way are
 *     listed apart ("against that") on the same scale.
 *  5. Significance: each trace is cut into BR_DIAG_SLICES equal time
 *     slices; a factor counts only when the between-trace difference of
 *     its per-slice log values is at least BR_DIAG_T_MIN times their
 *     standard error (Welch; each mean's variance with the slices'
 *     autocovariance, Newey–West, never below s²/n); over pooled runs,
 *     at least br_diag_t_needed(df) instead. Causes under
 *     BR_DIAG_MIN_SHARE, or whose
 *     factor is not significant, are not causes. When throughput itself
 *     does not differ significantly, the diagnosis is empty and says "no
 *     significant difference" (then the latency decomposition is the
 *     outcome, with the same rules).
 *
 * IOs issued and never completed (a trace cut short, a partial per-CPU
 * set, drops) are not in flight: see br_stats_totals.lost_ios. */
#ifndef BLKREEL_DIAGNOSIS_H
#define BLKREEL_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"

#define BR_DIAG_SLICES 16
#define BR_DIAG_MIN_SHARE 0.05
#define BR_DIAG_T_MIN 3.0
/* Confirmation. One capture per side cannot show the host's drift between
 * two runs: the same job captured twice in a row on this project's shared
 * 2-core hosts came out with mean D2C up to 2.82x and utilisation up to
 * 2.24x apart (tests/bench/rerun_spread.sh, 2026-12-02: 4 jobs x 5
 * consecutive pairs, other builds running; a CPU hog starting between two
 * runs made it 15x, which no single pair can rule out). A cause that rests only on such a timing
 * shift, with nothing counted behind it (service_time; idle; and flush,
 * scheduler or merge when their counts do not differ), is confirmed only
 * when its factor moved by more than that; otherwise it is listed apart as
 * unconfirmed, and repeated runs (blkreel-replay's A/B rounds) decide. */
#define BR_DIAG_RERUN_RATIO 3.0
/* IO classes for the mix/rate split: direction (read, write) × size
 * (≤4 KiB, ≤16 KiB, ≤64 KiB, ≤256 KiB, more) × FUA/sync (no, yes) × seek
 * (sequential, ≤ 1 MiB away, farther). */
#define BR_DIAG_SIZES 5
#define BR_DIAG_SEEKS 3
#define BR_DIAG_CLASSES (2 * BR_DIAG_SIZES * 2 * BR_DIAG_SEEKS)

enum br_diag_phase { BR_DP_Q2G, BR_DP_G2I, BR_DP_Q2M, BR_DP_I2D, BR_DP_M2D, BR_DP_D2C, BR_DP_COUNT };

/* The diagnosis' results are ids; br_diag_cause_name(), br_diag_factor_name()
 * and br_diag_outcome_name() give the one spelling every output uses (text,
 * Markdown, HTML, JSON). */

/* The causes, in the alphabetical order of their names: causes of equal
 * share are ranked by id, which is then by name. */
enum br_diag_cause_id {
	BR_CAUSE_AMPLIFICATION,       /* more device bytes per byte of work */
	BR_CAUSE_CONCURRENCY,
	BR_CAUSE_FLUSH,
	BR_CAUSE_IDLE,
	BR_CAUSE_IO_SIZE,
	BR_CAUSE_MERGE,
	BR_CAUSE_READAHEAD,
	BR_CAUSE_REQUEUE,
	BR_CAUSE_SCHEDULER,
	BR_CAUSE_SEEK,
	BR_CAUSE_SERVICE_TIME,
	BR_CAUSE_SPLIT,
	BR_CAUSE_COUNT
};

/* The factor a cause acts through: one of the identity's (U, N_busy, S, R),
 * device bytes per byte of work, or a latency phase, BR_FACTOR_PHASE(p). */
enum br_diag_factor {
	BR_FACTOR_U,
	BR_FACTOR_N_BUSY,
	BR_FACTOR_S,
	BR_FACTOR_R,
	BR_FACTOR_BYTES_PER_WORK,
	BR_FACTOR_Q2G,                /* the phases, in enum br_diag_phase's order */
	BR_FACTOR_G2I,
	BR_FACTOR_Q2M,
	BR_FACTOR_I2D,
	BR_FACTOR_M2D,
	BR_FACTOR_D2C,
	BR_FACTOR_COUNT
};
#define BR_FACTOR_PHASE(p) ((enum br_diag_factor)(BR_FACTOR_Q2G + (int)(p)))

/* What the diagnosis compares. */
enum br_diag_outcome {
	BR_OUTCOME_NONE,              /* a trace without D→C pairs: nothing to diagnose */
	BR_OUTCOME_WORK,              /* application bytes per second */
	BR_OUTCOME_THROUGHPUT,        /* device MB/s, when the work cannot be told apart from
	                                 journal and writeback */
	BR_OUTCOME_LATENCY,           /* mean Q2C per bio */
	BR_OUTCOME_COUNT
};

/* "idle", "io_size", ...; "?" out of range */
const char *br_diag_cause_name(enum br_diag_cause_id c);
/* "U", "N_busy", "S", "R", "bytes_per_work", "Q2G", ... "D2C"; "?" out of range */
const char *br_diag_factor_name(enum br_diag_factor f);
/* "none", "work", "throughput", "latency"; "?" out of range */
const char *br_diag_outcome_name(enum br_diag_outcome o);
/* "Q2G", ... "D2C"; "?" out of range */
const char *br_diag_phase_name(enum br_diag_phase p);

typedef struct br_diag_class {
	uint64_t n;
	double d2c_sum;               /* ns */
	uint64_t q2c_n;               /* bios with a Q in requests of this class */
	double q2c_sum;
} br_diag_class;

typedef struct br_diag_slice {
	double span, busy, area;      /* ns, ns, IOs·ns */
	double bytes, n, d2c;         /* data completions in the slice */
	double q2c, nq2c;             /* Q2C of the bios completed in it, summed; how many */
	double app;                   /* bytes queued by applications (not kernel threads) */
} br_diag_slice;

/* What the diagnosis needs of one trace (times in ns). */
typedef struct br_diag_profile {
	uint64_t span_ns, busy_ns;
	double area;                  /* ∫ in flight dt = ΣD2C as the device saw it */
	uint64_t idle_held_ns;        /* idle, requests queued but not dispatched */
	uint64_t idle_flush_ns;       /* idle, nothing queued, after a flush completed or before one was queued */
	uint64_t idle_host_ns;        /* idle, nothing queued otherwise */
	uint64_t idle_gaps;           /* idle stretches ended by a new Q */
	uint64_t idle_gaps_chained;   /* ... whose Q came within 100 us of the last C */
	char gap_ender[16];           /* the process whose Q ended most idle gaps */
	uint64_t gap_ender_n;         /* how many it ended */
	double pending_busy_area;     /* ∫ queued-not-dispatched dt while busy */
	uint64_t x_bytes;             /* every completed byte (br_stats' throughput) */
	uint64_t bytes, n;            /* data requests paired D→C */
	uint64_t read_bytes, write_bytes;
	double d2c_data, d2c_flush;   /* Σ D2C of data / of empty (flush) requests */
	uint64_t n_flush;             /* empty requests completed (flushes) */
	uint64_t n_fua;               /* data requests with FUA */
	double depth_at_flush_sum;    /* in flight when a flush was issued, summed */
	uint64_t q_bios, q_bytes;     /* data bios queued (Q) */
	uint64_t ra_bios, ra_bytes;   /* ... of them read-ahead */
	uint64_t q_bytes_kernel;      /* ... queued by kernel threads (journal, writeback) */
	uint64_t kern_n, kern_bytes;  /* data requests paired D→C whose first bio a kernel thread queued */
	uint64_t merges, splits, requeues;
	uint64_t lost_ios;            /* issued, never completed: not counted in flight */
	uint64_t completed_untimed;   /* issued, completed at an unknown time (the capture's
	                                 unrecorded=N): not counted in flight either */
	uint64_t refused_bios, refused_bytes; /* refused before issue (Q, C with an error, no
	                                 D; br_stats_totals): not served, not queued work */
	uint32_t devices;
	br_diag_class cls[BR_DIAG_CLASSES];
	double phase_sum[BR_DP_COUNT];/* per bio, as btt weighs them */
	uint64_t phase_n[BR_DP_COUNT];
	uint64_t q2c_bios;
	double q2c_sum;
	size_t nslices;
	br_diag_slice slice[BR_DIAG_SLICES];
	bool runs;                    /* the slices are independent runs (br_diag_pool_runs) */
} br_diag_profile;

/* One term of the decomposition or one cause. */
typedef struct br_diag_cause {
	enum br_diag_cause_id cause;
	enum br_diag_factor factor;
	double term;                  /* contribution to ln(X_better/X_worse), or ns of ΔQ2C */
	double share;                 /* of the gross difference, 0..1 */
	bool significant;
	/* false: a single pair cannot tell it from the host's drift between two
	 * runs (see BR_DIAG_RERUN_RATIO); listed apart, never ranked */
	bool confirmed;
	double shift;                 /* a timed cause: its factor's ratio, worse/better (>= 1); else 0 */
	char evidence[320];           /* one sentence with numbers */
} br_diag_cause;

#define BR_DIAG_MAX_CAUSES 16
#define BR_DIAG_MAX_NOTES 6

typedef struct br_diagnosis {
	size_t better, worse;         /* 0 = A, 1 = B */
	bool significant;             /* the outcome differs beyond the slices' noise */
	enum br_diag_outcome outcome;
	double w[2];                  /* application MB/s */
	double amp_term;              /* ln(amp_worse / amp_better): the part of a work-rate
	                                 difference that is more device bytes per byte of work */
	double ratio;                 /* X_better / X_worse (or Q2C worse / better) */
	double t_outcome;             /* its Welch t over the slices */
	double t_need_outcome;        /* the |t| it had to reach (over runs: BR_DIAG_RUNS_ALPHA) */
	/* the identity, per trace: factors and ln X; residual = ln X − (ln U + ln N + ln S − ln R) */
	double x[2], u[2], nbusy[2], s[2], r[2];
	double terms[4];              /* Δln U, Δln N_busy, Δln S, −Δln R (better − worse) */
	double t_factor[4];
	double t_need_factor[4];      /* the |t| each had to reach as a cause (over runs:
	                                 BR_DIAG_RUNS_CAUSE_ALPHA) */
	double residual[2];
	double mbps_total;            /* ln(X_better / X_worse) */
	/* latency: mean Q2C per bio and each phase's contribution to its change */
	double q2c_mean[2];
	double phase_delta[BR_DP_COUNT];
	double q2c_residual;
	/* Kitagawa–Oaxaca on mean data D2C (ns): mix + rate = Δ */
	double ko_mix, ko_rate, ko_mix_seek, ko_mix_size;
	/* the same on mean Q2C per bio (the latency outcome) */
	double ko_q2c_mix, ko_q2c_rate;
	size_t ncauses, nagainst, nunconfirmed, nnotes;
	br_diag_cause causes[BR_DIAG_MAX_CAUSES];   /* confirmed, by share, highest first */
	br_diag_cause against[BR_DIAG_MAX_CAUSES];
	br_diag_cause unconfirmed[BR_DIAG_MAX_CAUSES]; /* toward the difference, but only timed: by share */
	char notes[BR_DIAG_MAX_NOTES][320];          /* fairness, residual, lost IOs: said first */
	double amp[2];                /* device bytes per byte applications queued (0: unknown) */
} br_diagnosis;

/* Compare two profiles; labels name them in the sentences. 0 or a br_code. */
int br_diagnose(const br_diag_profile *a, const br_diag_profile *b, const char *label_a,
		const char *label_b, br_diagnosis *out, br_error *err);

/* Repeated runs of one side (replays of one trace onto one stack, as
 * blkreel-replay --ab makes them): one profile of all of them whose
 * slices are the runs, one each, so that br_diagnose's significance is the
 * spread between runs, which sees what a run's own time slices cannot (the
 * host drifting between runs). Counts and times add up; the runs are taken
 * as independent (no autocovariance between them); a timed difference then
 * needs BR_DIAG_RUNS_MIN_RATIO instead of one capture per side's 1.25x
 * beside its t, and is confirmed by the runs (no BR_DIAG_RERUN_RATIO).
 * 1 <= n <= BR_DIAG_SLICES. 0 or BR_EINVAL. */
#define BR_DIAG_RUNS_MIN_RATIO 1.10
int br_diag_pool_runs(const br_diag_profile *const *runs, size_t n, br_diag_profile *out, br_error *err);

/* Over runs, a difference counts when its Welch |t| reaches
 * br_diag_t_needed(df, alpha): Student's t at two-sided alpha for the
 * runs' Welch–Satterthwaite degrees of freedom, never below BR_DIAG_T_MIN
 * (time slices keep BR_DIAG_T_MIN: their df is large). Two levels: that
 * the sides differ at all (the outcome, MB/s or Q2C, and any factor that
 * stands in for it) at BR_DIAG_RUNS_ALPHA; which factor made a difference
 * so shown, at BR_DIAG_RUNS_CAUSE_ALPHA. With 3 runs a side (df 2 to 4) a
 * bar of 3.0 alone passed 4-10 % of pure noise per metric; at 0.5 % it
 * takes t 5.6 at df 4, 14.1 at df 2. Factors of one run move together
 * (a throttle fixes X = U·N·S/R, so a round where R grew had U grow too):
 * held to 0.5 % as well, a 3x lower U (t 7.8 at df 2) was no cause in a
 * fresh-clone make check, beside a 3.5x difference in MB/s at t 230.
 * br_diag_t_two_tailed(t, df) is P(|T| >= t) (NAN for df <= 0). */
#define BR_DIAG_RUNS_ALPHA 0.005
#define BR_DIAG_RUNS_CAUSE_ALPHA 0.05
double br_diag_t_needed(double df, double alpha);
double br_diag_t_two_tailed(double t, double df);

/* The identity's factors of one profile (a run's, a pool's). */
typedef struct br_diag_factors {
	double x;                     /* MB/s, every completed byte */
	double u, nbusy, s, r;        /* fraction, requests, bytes, ns */
	double residual;              /* ln X − (ln U + ln N_busy + ln S − ln R) */
	double q2c;                   /* mean Q2C per bio, ns (0: no Q) */
	double w;                     /* application MB/s (0: the work cannot be told apart) */
	double amp;                   /* completed bytes per application byte (0: unknown) */
} br_diag_factors;
void br_diag_factors_of(const br_diag_profile *p, br_diag_factors *f);

/* One cause as a JSON object, the form every writer uses (blkreel-report's
 * --json, blkreel-replay --ab's report.json): cause, share, worse (the
 * label of the slower side), factor, evidence, confirmed, and shift for a
 * timed cause. */
struct br_json;
void br_diag_cause_json(struct br_json *j, const br_diag_cause *c, const char *worse);

#endif
