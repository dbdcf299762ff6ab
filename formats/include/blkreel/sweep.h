/* blkreel/sweep.h — how each stack scales along a swept parameter (clients,
 * numjobs, threads), where it stops scaling and what stops it.
 *
 * Input: one diagnosis profile per trace (br_analysis_result .profile),
 * labelled by its stack and the parameter's value. Per stack, sorted by
 * the value:
 *
 *  - each point's throughput, the identity's factors of blkreel/diagnosis.h
 *    (MB/s = U · N_busy · S / R), the application (work) MB/s and the
 *    amplification where the work can be told apart, mean Q2C and D2C;
 *  - each step between consecutive points: its elasticity
 *      e = ln(X_next / X) / ln(p_next / p)
 *    (1 = throughput grows in proportion to the parameter, linear scaling;
 *    0 = flat; below 0 = falls), and the log-ratio decomposition of the
 *    growth, Δln X = Δln U + Δln N_busy + Δln S − Δln R (− Δln amp for the
 *    work rate) + residual, with the factor that carries it: the term of
 *    largest size pointing the way X moved;
 *  - the knee: the first point after which the step's elasticity falls
 *    below BR_SWEEP_KNEE_ELASTICITY (the marginal gain is less than half of
 *    what linear scaling would give). X is the work rate when every point
 *    of the stack has one, else device MB/s. No knee when every step keeps
 *    at least that gain (the stack scales over the range), or when a value
 *    is not positive (the elasticity needs logarithms);
 *  - the limit past the knee, judged from the knee point to the last one,
 *    by the first of these rules that holds (thresholds below):
 *      amplification       device bytes per application byte grew ≥ 1.25x
 *      shrinking_requests  S fell to ≤ 0.8x
 *      host_bound          U at the last point < 0.5: the device is idle
 *                          most of the time, the host does not keep it busy
 *      serialised          N_busy < 1.75 at every point past the knee:
 *                          one request at a time, now and then beside a
 *                          journal commit's or a flush's (ext4 with fsync
 *                          after every write: 1.0-1.55 at 1-16 writers;
 *                          two tags make 2)
 *      concurrency_capped  N_busy grew < 1.25x over the last step while the
 *                          parameter grew ≥ 1.25x, at ≥ 1.75: the clients
 *                          added wait for a slot (a tag, nr_requests), not
 *                          at a busy device (where N_busy grows with them)
 *      device_saturated    U at the last point ≥ 0.8, N_busy grew ≥ 1.25x
 *                          and R with it (ln R grew by at least half of
 *                          ln N_busy): queueing at a busy device
 *      service_time        R grew ≥ 1.25x, and more than N_busy did: each
 *                          request takes longer at the device than queueing
 *                          behind the others explains (a seekier or mixed
 *                          load, flushes inside the device, a loop's backing
 *                          file), with the device not busy enough to call
 *                          it saturated
 *      concurrency_capped  N_busy stopped (grew < 1.25x) at a value ≥ 1.75
 *      otherwise the factor that fell most: U host_bound, N_busy
 *      concurrency_capped, S shrinking_requests, R service_time.
 *    Each limit comes with a sentence of its numbers.
 */
#ifndef BLKREEL_SWEEP_H
#define BLKREEL_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include "blkreel/diagnosis.h"
#include "blkreel/error.h"

#define BR_SWEEP_KNEE_ELASTICITY 0.5
#define BR_SWEEP_AMP_GROWTH 1.25
#define BR_SWEEP_S_SHRINK 0.8
#define BR_SWEEP_U_HOST 0.5
#define BR_SWEEP_U_SATURATED 0.8
#define BR_SWEEP_N_SERIAL 1.75
#define BR_SWEEP_N_GROWTH 1.25

/* The terms of a step, in this order. */
enum { BR_SWEEP_T_U, BR_SWEEP_T_N, BR_SWEEP_T_S, BR_SWEEP_T_R, BR_SWEEP_T_AMP, BR_SWEEP_TERMS };

typedef struct br_sweep_input {
	const char *stack;             /* "ext4" */
	double value;                  /* the parameter's value */
	const br_diag_profile *profile;
} br_sweep_input;

typedef struct br_sweep_point {
	double value;
	size_t input;                  /* index into the inputs */
	br_diag_factors f;              /* the identity's factors, as the diagnosis has them */
	double d2c;                    /* mean D2C per data request, ns */
} br_sweep_point;

typedef struct br_sweep_step {
	double elasticity;             /* of the stack's outcome (see above); NAN without logarithms */
	double dlnx;                   /* ln(outcome_next / outcome) */
	double term[BR_SWEEP_TERMS];   /* Δln U, Δln N_busy, Δln S, −Δln R, −Δln amp (0 unless the outcome is work) */
	double residual;               /* dlnx − Σ term */
	int carrier;                   /* BR_SWEEP_T_*, or -1 when X did not move */
} br_sweep_step;

typedef struct br_sweep_stack {
	char stack[64];
	bool work;                     /* the outcome is the work rate (else device MB/s) */
	size_t npoints;
	br_sweep_point *points;        /* by value */
	br_sweep_step *steps;          /* npoints − 1 */
	long knee;                     /* index into points, −1: none */
	const char *limit;             /* one of the vocabulary above, or "none" */
	char evidence[400];
} br_sweep_stack;

typedef struct br_sweep {
	char param[32];                /* the parameter's name ("clients"), for the sentences */
	size_t nstacks;
	br_sweep_stack *stacks;        /* in the order their first input came */
} br_sweep;

/* Build the sweep of n inputs; two inputs with the same stack and value
 * are an error (BR_EINVAL). 0 or a br_code; free with br_sweep_free. */
int br_sweep_build(const br_sweep_input *in, size_t n, const char *param, br_sweep *out,
		   br_error *err);
void br_sweep_free(br_sweep *s);
/* "U", "N_busy", "S", "R", "amplification"; "-" for -1 */
const char *br_sweep_term_name(int term);
/* The outcome along the sweep at point k: work MB/s or device MB/s. */
double br_sweep_outcome(const br_sweep_stack *st, size_t k);

#endif
