/* Private parts of the report analysis (blkreel/analysis.h). */
#ifndef BLKREEL_ANALYSIS_INTERNAL_H
#define BLKREEL_ANALYSIS_INTERNAL_H

#include "blkreel/analysis.h"
#include "diagnosis/diagnosis_internal.h"
#include "stats/stats_internal.h"

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
	br_stats *stats;          /* the one pairing engine, with its hooks */
	bool started, finished;
	uint64_t first, last;
	br_hist phase[BR_PHASE_COUNT];
	/* seek distances per kind */
	uint64_t fwd[BR_KIND_COUNT][BR_DIST_BINS], back[BR_KIND_COUNT][BR_DIST_BINS];
	diag_acc diag;            /* the diagnosis profile of this trace */
	int bio_rc;               /* what on_bio returned, when it stopped the analysis */
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

/* Phases of a request the shared pairing completed (analysis_life.c), a
 * stats_hooks.complete. 0, BR_ENOMEM or on_bio's code. */
int an_life_complete(void *arg, const pair_table *t, uint32_t i, const br_event *ev);
/* A bio refused before issue, a stats_hooks.refused: out of the diagnosis' work. */
void an_life_refused(void *arg, const pair_table *t, uint32_t i, const br_event *ev);
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
