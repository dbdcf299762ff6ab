/* The names of the diagnosis' ids (blkreel/diagnosis.h): the one spelling
 * of each cause, factor, outcome and phase that every output writes. */
#include "blkreel/diagnosis.h"

static const char *const cause_names[BR_CAUSE_COUNT] = {
	[BR_CAUSE_AMPLIFICATION] = "amplification",
	[BR_CAUSE_CONCURRENCY] = "concurrency",
	[BR_CAUSE_FLUSH] = "flush",
	[BR_CAUSE_IDLE] = "idle",
	[BR_CAUSE_IO_SIZE] = "io_size",
	[BR_CAUSE_MERGE] = "merge",
	[BR_CAUSE_READAHEAD] = "readahead",
	[BR_CAUSE_REQUEUE] = "requeue",
	[BR_CAUSE_SCHEDULER] = "scheduler",
	[BR_CAUSE_SEEK] = "seek",
	[BR_CAUSE_SERVICE_TIME] = "service_time",
	[BR_CAUSE_SPLIT] = "split",
};

static const char *const phase_names[BR_DP_COUNT] = {
	[BR_DP_Q2G] = "Q2G", [BR_DP_G2I] = "G2I", [BR_DP_Q2M] = "Q2M",
	[BR_DP_I2D] = "I2D", [BR_DP_M2D] = "M2D", [BR_DP_D2C] = "D2C",
};

/* the phases' factors follow enum br_diag_phase one for one */
_Static_assert(BR_FACTOR_D2C - BR_FACTOR_Q2G == BR_DP_D2C - BR_DP_Q2G &&
		       BR_FACTOR_COUNT - BR_FACTOR_Q2G == BR_DP_COUNT,
	       "latency-phase factors out of step with enum br_diag_phase");

static const char *const factor_names[BR_FACTOR_Q2G] = {
	[BR_FACTOR_U] = "U",
	[BR_FACTOR_N_BUSY] = "N_busy",
	[BR_FACTOR_S] = "S",
	[BR_FACTOR_R] = "R",
	[BR_FACTOR_BYTES_PER_WORK] = "bytes_per_work",
};

static const char *const outcome_names[BR_OUTCOME_COUNT] = {
	[BR_OUTCOME_NONE] = "none",
	[BR_OUTCOME_WORK] = "work",
	[BR_OUTCOME_THROUGHPUT] = "throughput",
	[BR_OUTCOME_LATENCY] = "latency",
};

const char *br_diag_cause_name(enum br_diag_cause_id c)
{
	return (unsigned)c < BR_CAUSE_COUNT ? cause_names[c] : "?";
}

const char *br_diag_factor_name(enum br_diag_factor f)
{
	if ((unsigned)f < BR_FACTOR_Q2G)
		return factor_names[f];
	return br_diag_phase_name((enum br_diag_phase)((int)f - BR_FACTOR_Q2G));
}

const char *br_diag_outcome_name(enum br_diag_outcome o)
{
	return (unsigned)o < BR_OUTCOME_COUNT ? outcome_names[o] : "?";
}

const char *br_diag_phase_name(enum br_diag_phase p)
{
	return (unsigned)p < BR_DP_COUNT ? phase_names[p] : "?";
}
