/* density_grid.h — the density grid's layout, for density.c and its test
 * (tests/plot/test_density.c): where the grid starts, how it coarsens, how
 * a cell's key is made, and the sort of keys. Not for the rest of plot/. */
#ifndef BLKREEL_PLOT_DENSITY_GRID_H
#define BLKREEL_PLOT_DENSITY_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "density.h"

#define START_COL_NS 10000ull  /* 10 us */
#define START_ROW_SHIFT 5      /* 16 KiB rows */
#define COL_COARSEN 2          /* columns grow 4x at a time: fewer coarsenings */
#define ROW_BITS 40

static inline uint64_t key_of(uint64_t col, unsigned dev, uint64_t row)
{
	return col << 44 | (uint64_t)dev << ROW_BITS | (row + 1);
}

/* What density_merge_votes(zeroed cell, c) leaves: the counters largest
 * first, empty ones cleared. Every cell went through that on each rebuild
 * of the hashed grid; doing the same keeps -P's ties where they were. */
static inline void votes_norm(density_cell *c)
{
	uint8_t p0 = c->pid[0], p1 = c->pid[1];
	uint16_t v0 = c->votes[0], v1 = c->votes[1];
	if (!v0) {
		p0 = p1;
		v0 = v1;
		v1 = 0;
	} else if (v1 > v0) {
		uint8_t tp = p0;
		uint16_t tv = v0;
		p0 = p1;
		v0 = v1;
		p1 = tp;
		v1 = tv;
	}
	c->pid[0] = v0 ? p0 : 0;
	c->pid[1] = v1 ? p1 : 0;
	c->votes[0] = v0;
	c->votes[1] = v1;
}

/* Sort a[0..n) (least significant byte first; bytes equal in every value
 * are skipped). tmp has room for n. */
void density_radix_sort(uint64_t *a, uint64_t *tmp, size_t n);

#endif
