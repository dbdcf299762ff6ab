/* diagnosis_pairs.h — capturing one controlled pair with
 * tests/report/pairs/make_pairs.sh --quick (root; the script makes and
 * removes its own loop devices and puts every knob back) and reading what
 * `blkreel-report -l a A -l b B --json` says about it. Included as a .c by
 * the suite that uses it, like the capture and replay fixtures. */
#ifndef BLKREEL_TEST_DIAGNOSIS_PAIRS_H
#define BLKREEL_TEST_DIAGNOSIS_PAIRS_H

#include <stdbool.h>
#include <stddef.h>

#define DP_MAX_CAUSES 24

typedef struct dp_cause {
	char cause[40];
	double share;
	char worse[64];
	char factor[40];
	char evidence[600];
	double shift;         /* an unconfirmed cause: its factor's ratio */
} dp_cause;

typedef struct dp_report {
	bool has_diagnosis;   /* a top-level "diagnosis" array was there */
	int n;                /* its elements, in the report's order */
	dp_cause c[DP_MAX_CAUSES];
	int nu;               /* unconfirmed causes (diagnosis_detail.unconfirmed) */
	dp_cause u[DP_MAX_CAUSES];
	double mbps[2];       /* traces[0] (a), traces[1] (b) */
	double bytes[2];      /* device bytes moved, all directions */
	double run_s[2];      /* each trace's span */
	double d2c_p50_ns[2]; /* median D2C per request */
	double d2c_mean_ns[2];
	double depth[2];      /* mean requests in flight */
	double flushes[2];    /* requests issued beyond the data IOs completed: flushes */
	double ios[2];        /* data IOs completed */
	int attempts;         /* captures it took to get the pair as built */
} dp_report;

/* DP_DIFFERENT: side B must come out slower than A (for the amplification
 * pair, whose device MB/s counts the journal's bytes too: more device bytes
 * and a longer run for the same work); DP_SAME: an A/A pair, within
 * DP_SAME_RATIO of each other; DP_RERUN: the same job run twice in a
 * row, taken as it comes (the host's drift between runs is the point).
 * What the recipe holds fixed must also have
 * held (the device's median service time where only the host side differs,
 * the flushes per write, the depths; see as_built in diagnosis_pairs.c).
 * A capture that does not is an accident of a shared machine, not of the
 * report: it is captured again, up to DP_CAPTURES times, and then the
 * test fails saying what each capture measured. Beside two CPU hogs about
 * half the captures of aa_buffered_read do not (one side's 64 KiB reads
 * go from 24 to ~100 us partway through the run, with every thread that
 * serves them at SCHED_FIFO; the cause is not known), hence 5. */
enum dp_kind { DP_DIFFERENT, DP_SAME, DP_RERUN };
#define DP_MIN_RATIO 1.2
#define DP_SAME_RATIO 1.25
#define DP_CAPTURES 5
/* where a recipe holds the device's work fixed (A/A, flushes), the median
 * service time of the two sides must stay this close */
#define DP_SAME_D2C 1.5
/* the concurrency pair's least mean depth on its deep side (fio asks 16) */
#define DP_MIN_DEPTH_A 2.5
/* B's think time in the idle pair (IDLE_THINK_US in make_pairs.sh). A
 * RAM loop left idle wakes its worker for B's next IO, which adds 70-110 us
 * to B's service time here (its D2C p50 3-5x A's): the pair holds as built
 * while that stays under an eighth of the think time, so that thinking,
 * not serving, makes most of B's time per IO. */
#define DP_IDLE_THINK_US 10000

/* Run make_pairs.sh --quick RECIPE into DIR (a pair or a sweep); skips the
 * test (cr_skip_test) when the kernel lacks what the recipe needs (the
 * script's exit 3), fails it on anything else. */
void dp_make(const char *recipe, const char *dir);

/* Skips the test (cr_skip_test) when not root or when the kernel lacks
 * what the pair needs (the script's exit 3); fails it on anything else. */
void dp_capture_pair(const char *pair, enum dp_kind kind, dp_report *r);

/* Parse the JSON of blkreel-report (through python3's json module). */
bool dp_read_report(const char *json_path, dp_report *r, char *why, size_t size);

/* One line per cause and the two traces' MB/s, for failure messages. */
void dp_describe(const dp_report *r, char *buf, size_t size);

/* Every element as the spec has it: a cause id, a share in [min_share, 1],
 * ordered by share, shares summing to at most 1, worse naming a trace's
 * label, a factor, and evidence with numbers in it. */
void dp_assert_well_formed(const char *pair, const dp_report *r, double min_share);

#endif
