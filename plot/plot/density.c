/* Sparse time × offset grid of IO marks (see density.h): open addressing
 * on a 64-bit key, rebuilt coarser when it outgrows its bounds. */
#include "density.h"
#include "blkreel/error.h"

#include <stdlib.h>
#include <string.h>

#define START_COL_NS 10000ull  /* 10 us */
#define START_ROW_SHIFT 3      /* 4 KiB rows */
#define ROW_BITS 40

static inline size_t slot_of(uint64_t key, size_t mask)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
}

int density_init(density *d, uint64_t origin_ns)
{
	memset(d, 0, sizeof(*d));
	d->cap = 1024;
	d->cells = calloc(d->cap, sizeof(density_cell));
	if (!d->cells)
		return BR_ENOMEM;
	d->col_ns = START_COL_NS;
	d->row_shift = START_ROW_SHIFT;
	d->origin = origin_ns;
	return 0;
}

void density_free(density *d)
{
	free(d->cells);
	memset(d, 0, sizeof(*d));
}

static density_cell *find_or_add(density_cell *cells, size_t cap, uint64_t key, size_t *used)
{
	size_t mask = cap - 1, i = slot_of(key, mask);
	while (cells[i].key && cells[i].key != key)
		i = (i + 1) & mask;
	if (!cells[i].key) {
		cells[i].key = key;
		(*used)++;
	}
	return &cells[i];
}

static inline uint16_t sat_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;
	return s > 0xffff ? 0xffff : (uint16_t)s;
}

/* Re-insert every cell with coarser columns (cshift) / rows (rshift), into a
 * table of newcap slots. */
static int rebuild(density *d, unsigned cshift, unsigned rshift, size_t newcap)
{
	density_cell *n = calloc(newcap, sizeof(density_cell));
	if (!n)
		return BR_ENOMEM;
	size_t used = 0;
	for (size_t i = 0; i < d->cap; i++) {
		density_cell *c = &d->cells[i];
		if (!c->key)
			continue;
		uint64_t col = density_col(c->key) >> cshift, row = density_row(c->key) >> rshift;
		density_cell *t = find_or_add(n, newcap, (col << ROW_BITS) | (row + 1), &used);
		for (int k = 0; k < DENSITY_KINDS; k++)
			for (int r = 0; r < DENSITY_DIRS; r++)
				t->n[k][r] = sat_add(t->n[k][r], c->n[k][r]);
		t->pid = c->pid;
	}
	free(d->cells);
	d->cells = n;
	d->cap = newcap;
	d->used = used;
	d->col_ns <<= cshift;
	d->row_shift += rshift;
	d->max_row >>= rshift;
	return 0;
}

int density_add(density *d, uint64_t time, uint64_t sector, int kind, int dir, uint8_t pid)
{
	uint64_t rel = time > d->origin ? time - d->origin : 0;
	uint64_t col = rel / d->col_ns;
	while (col >= DENSITY_MAX_COLS) {
		if (rebuild(d, 1, 0, d->cap))
			return BR_ENOMEM;
		col = rel / d->col_ns;
	}
	uint64_t row = sector >> d->row_shift;
	while (row >= (1ull << ROW_BITS) - 2) {
		if (rebuild(d, 0, 1, d->cap))
			return BR_ENOMEM;
		row = sector >> d->row_shift;
	}
	while ((d->used + 1) * 4 > d->cap * 3) {
		int rc = d->cap * 2 <= DENSITY_MAX_CELLS * 2 ? rebuild(d, 0, 0, d->cap * 2)
							      : rebuild(d, 0, 1, d->cap);
		if (rc)
			return rc;
		row = sector >> d->row_shift;
	}
	density_cell *c = find_or_add(d->cells, d->cap, (col << ROW_BITS) | (row + 1), &d->used);
	if (c->n[kind][dir] != 0xffff)
		c->n[kind][dir]++;
	c->pid = pid;
	if (row > d->max_row)
		d->max_row = row;
	return 0;
}
