/* density.h — IO marks binned into a sparse time × offset grid that stays
 * bounded: columns grow 4x in width past DENSITY_MAX_COLS, rows grow in
 * height when there are more than DENSITY_MAX_CELLS cells. The io panel
 * is drawn from it, so millions of IOs cost one pass over the cells. */
#ifndef BLKREEL_PLOT_DENSITY_H
#define BLKREEL_PLOT_DENSITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DENSITY_MAX_COLS 4096
#define DENSITY_MAX_CELLS (1u << 19)
#define DENSITY_MAX_PIDS 255      /* slot 255 = any other process */
#define DENSITY_KINDS 3           /* Q, D, C (enum br_kind) */
#define DENSITY_DIRS 3            /* read, write, other (enum br_dir) */
#define DENSITY_BATCH 64
#define DENSITY_MAX_DEVS 16       /* device slots per trace; 15 = any other */

typedef struct density_cell {
	uint64_t key;                 /* 0 = empty slot; else col<<44 | dev<<40 | row+1 */
	uint16_t n[DENSITY_KINDS][DENSITY_DIRS]; /* saturating */
	/* the cell's dominant process, in constant space: a Misra-Gries
	 * summary with two counters (any pid slot with more than a third of
	 * the cell's IOs is one of the two; a majority always wins) */
	uint8_t pid[2];
	uint16_t votes[2];
} density_cell;

typedef struct density {
	/* after density_finish: every cell, sorted by key (cap == used) */
	density_cell *cells;
	size_t cap, used;
	uint64_t col_ns;              /* column width */
	unsigned row_shift;           /* row = sector >> row_shift */
	unsigned row_step;            /* next row coarsening (grows when one barely helps) */
	uint64_t origin;              /* absolute ns of column 0 */
	uint64_t max_row, max_col;
	unsigned npids;
	/* While IOs are added (density.c): the columns before open_col are
	 * cells[0..nclosed), sorted by key; the cells of column open_col and
	 * the few that arrive late for older columns are in a small hash. The
	 * grid coarsens when used would exceed half of budget. */
	size_t budget, nclosed, closed_cap;
	uint64_t open_col;
	density_cell *open;
	size_t nopen, open_cap;
	uint32_t *slots;              /* index + 1 into open, 0 = empty */
	size_t nslots;                /* a power of two */
	uint64_t *sortkey, *sorttmp;  /* scratch for sorting a column */
	density_cell *scratch;
	size_t scratch_cap;
	struct density_pending {
		uint64_t rel, sector;
		uint8_t kind, dir, pid, dev;
	} pend[DENSITY_BATCH];
	unsigned npend;
} density;

int density_init(density *d, uint64_t origin_ns);
void density_free(density *d);
/* 0, or BR_ENOMEM. Call density_finish before reading the cells. */
int density_add(density *d, uint64_t time, uint64_t sector, int kind, int dir, uint8_t pid,
		uint8_t dev);
/* Bin the IOs added so far (density_add does it a batch at a time). */
int density_flush(density *d);
/* After the last IO: every cell in cells[0..cap). 0, or BR_ENOMEM. */
int density_finish(density *d);

static inline uint64_t density_col(uint64_t key) { return key >> 44; }
static inline unsigned density_dev(uint64_t key) { return (unsigned)(key >> 40) & 15; }
static inline uint64_t density_row(uint64_t key) { return (key & ((1ull << 40) - 1)) - 1; }

/* IOs of event kind (enum br_kind) in a cell, all directions. */
static inline unsigned density_cell_count(const density_cell *cl, int kind)
{
	return (unsigned)cl->n[kind][0] + cl->n[kind][1] + cl->n[kind][2];
}

/* The pid slot with the most IOs in the cell (see density_cell). */
static inline uint8_t density_cell_pid(const density_cell *cl)
{
	return cl->votes[1] > cl->votes[0] ? cl->pid[1] : cl->pid[0];
}

/* Count one IO of pid slot p in the cell's summary; merge another cell's
 * summary into it (when the grid coarsens). */
void density_vote(density_cell *cl, uint8_t p);
void density_merge_votes(density_cell *into, const density_cell *from);

/* Where row starts on the device, in MB. */
static inline double density_row_mb(const density *d, uint64_t row)
{
	return (double)(row << d->row_shift) * 512.0 / 1e6;
}

/* Whether slot cl holds IOs of kind on device slot only_dev (-1: any) in a
 * column that overlaps [t0, t1] once shift (ns) is added to its time; *ta
 * is then the column's start. Panels and the busy region draw and count
 * the same cells. */
static inline bool density_cell_shown(const density *d, const density_cell *cl, int kind,
				      int only_dev, double shift, double t0, double t1, double *ta)
{
	if (!cl->key || !density_cell_count(cl, kind))
		return false;
	if (only_dev >= 0 && density_dev(cl->key) != (unsigned)only_dev)
		return false;
	*ta = (double)density_col(cl->key) * (double)d->col_ns + shift;
	return *ta + (double)d->col_ns > t0 && *ta <= t1;
}

#endif
