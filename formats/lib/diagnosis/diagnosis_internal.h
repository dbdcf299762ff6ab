/* Private parts of the diagnosis: the per-trace profile accumulator that
 * br_analysis feeds (diagnosis_profile.c), and the comparison (diagnosis_identity.c, diagnosis_say.c,
 * diagnosis_terms.c, diagnosis_causes.c; the ids' names, diagnosis_names.c). */
#ifndef BLKREEL_DIAGNOSIS_INTERNAL_H
#define BLKREEL_DIAGNOSIS_INTERNAL_H

#include "blkreel/diagnosis.h"
#include "stats/stats_hooks.h"

#define DIAG_FINE 512            /* fine time slices, folded into BR_DIAG_SLICES at the end */

typedef struct diag_dev {
	uint32_t dev;
	bool seen;
	uint64_t last_end;
} diag_dev;

#define DIAG_RUNS 4096           /* busy stretches kept open to later D→C intervals */
#define DIAG_QUEUED_BY 4096      /* bios remembered by sector (a power of two) */

typedef struct diag_run {
	uint64_t lo, hi;
} diag_run;

typedef struct diag_acc {
	br_diag_profile p;
	uint64_t seek_sectors;    /* a jump past this is a seek (br_stats_opts) */
	bool started;
	uint64_t origin, last_t;
	uint64_t width;           /* of a fine slice, ns */
	size_t nfine;
	br_diag_slice fine[DIAG_FINE];
	uint64_t last_c;          /* last completion */
	bool last_c_flush;
	bool gap_open;            /* idle with nothing queued, waiting for the next Q */
	uint64_t gap_host_ns;     /* that idle so far, not after a flush: whose it is, the next Q says */
	diag_run runs[DIAG_RUNS]; /* a ring, oldest at run0 */
	size_t run0, nruns;
	uint64_t runs_floor;      /* before it, busy time is final */
	struct { const char *comm; uint64_t n; } enders[8]; /* who ended idle gaps */
	const char *kcomm;        /* the last process name looked at, and whether */
	bool kcomm_kernel;        /* it is a kernel thread */
	diag_dev devs[8];
	size_t ndevs;
	/* who queued the bio starting at a sector: a request is the journal's
	 * or the application's by its first bio (direct-mapped; a collision
	 * forgets, and the request counts as the application's) */
	struct { uint64_t sector; uint32_t dev; bool used, kernel; } queued_by[DIAG_QUEUED_BY];
} diag_acc;

void diag_init(diag_acc *d, uint64_t seek_sectors);
/* Before the pairing sees ev: account the time since the previous event
 * with the state the pairing had then. */
void diag_event(diag_acc *d, const br_stats *s, const br_event *ev);
/* The pairing issued a request (its issue hook): its seek class goes in
 * the request's tag. */
void diag_issued(diag_acc *d, const br_event *ev, uint32_t *tag);
/* A request completes (called from the completion hook). */
void diag_complete(diag_acc *d, const br_stats *s, const pair_table *t, uint32_t i,
		   const br_event *ev);
/* A bio refused before issue (stats_hooks.refused): its Q is taken back
 * out of what was queued. */
void diag_refused(diag_acc *d, const pair_table *t, uint32_t i, const br_event *ev);
/* Fill the profile's derived parts. phases: the analysis' phase histograms. */
void diag_finish(diag_acc *d, const br_stats *s, const br_hist *phase);

/* ---- the comparison (diagnosis_identity.c) ---- */
typedef br_diag_factors diag_fac; /* blkreel/diagnosis.h */
/* Work must be at least this share of the device bytes to be told apart. */
#define DIAG_MIN_APP 0.10
void diag_factors(const br_diag_profile *p, diag_fac *f);

enum { DIAG_M_X, DIAG_M_U, DIAG_M_N, DIAG_M_S, DIAG_M_R, DIAG_M_Q2C, DIAG_M_W, DIAG_M_AMP };
/* Welch t of ln(metric) over the slices, a minus b (DIAG_M_R: of 1/R, so
 * positive means a serves faster); 0 with fewer than 3 slices each. */
double diag_welch(const br_diag_profile *a, const br_diag_profile *b, int m);
/* The |t| metric m's difference must reach: BR_DIAG_T_MIN over time
 * slices, br_diag_t_needed(Welch df, alpha) over runs. */
double diag_t_need(const br_diag_profile *a, const br_diag_profile *b, int m, double alpha);

typedef struct diag_ko_out {
	double mix, rate;          /* ns of mean data D2C, worse − better */
	double mix_seek, mix_size; /* mix over seek classes only, over size/direction only */
	double q2c_mix, q2c_rate;  /* the same split of mean Q2C per bio */
} diag_ko_out;
void diag_ko(const br_diag_profile *worse, const br_diag_profile *better, diag_ko_out *o);

/* ---- the comparison, taken apart (diagnosis_say.c, diagnosis_terms.c,
 * diagnosis_causes.c) ---- */
typedef struct staged {
	enum br_diag_cause_id cause;
	enum br_diag_factor factor;
	double term;
	bool sig;
	char evidence[320];
} staged;

typedef struct diag_ctx {
	const br_diag_profile *p[2];  /* [0] better, [1] worse */
	const char *lab[2];
	diag_fac f[2];
	br_diagnosis *out;
	/* differences in what the stacks did, counted, not timed: no run-to-run
	 * noise makes a flush per write out of none */
	bool st_flush, st_size, st_merge, st_split, st_amp;
	bool sched;                   /* only the slower stack runs an IO scheduler (I events) */
	bool ra_window;               /* both read ahead, with windows far apart */
	bool flush_each;              /* the slower one flushes at least every other write */
	staged stage[8];              /* the mechanisms of one factor */
	size_t nstage;
} diag_ctx;

double dx_ratio_ln(double a, double b);
double dx_pct(double part, double whole);
void dx_say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note said before the causes (fairness, residual, lost IOs). */
void dx_note(br_diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A mechanism of the factor at hand, staged; dx_flush_stage commits the
 * factor's mechanisms (netted when they point different ways). */
void dx_add_term(diag_ctx *c, enum br_diag_cause_id cause, enum br_diag_factor factor, double term,
		 bool sig, const char *evidence);
void dx_commit_term(diag_ctx *c, enum br_diag_cause_id cause, enum br_diag_factor factor, double term,
		    bool sig, const char *evidence);
void dx_flush_stage(diag_ctx *c);
char *dx_size_str(double bytes, char *buf, size_t n);
char *dx_time_str(double ns, char *buf, size_t n);
/* Each factor's mechanisms (diagnosis_terms.c); term: the factor's share
 * of ln(better/worse), sig: whether its slices differ beyond noise. */
void dx_idle_terms(diag_ctx *c, double term, bool sig);
void dx_concurrency_term(diag_ctx *c, double term, bool sig);
void dx_size_terms(diag_ctx *c, double term, bool sig);
void dx_service_terms(diag_ctx *c, double term, bool sig);
/* Mean Q2C per bio and each phase's part of its change; phases as causes. */
void dx_latency_split(diag_ctx *c);
void dx_latency_terms(diag_ctx *c, bool sig);

#endif
