/* Sparse time × offset grid of IO marks (see density.h): open addressing
 * on a 64-bit key, rebuilt coarser when it outgrows its bounds. */
#include "density.h"
#include "blkreel/error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define START_COL_NS 10000ull  /* 10 us */
#define START_ROW_SHIFT 5      /* 16 KiB rows */
#define COL_COARSEN 2          /* columns grow 4x at a time: fewer rebuilds */
#define ROW_COARSEN 1          /* rows grow 2x (up to 8x) when cells run out */
#define ROW_BITS 40

static inline size_t slot_of(uint64_t key, size_t mask)
{
	/* murmur3's finaliser: every key bit reaches the low bits */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return (size_t)key & mask;
}

/* A zeroed table of cap cells, freed with free(). Tables of megabytes are
 * probed at random once per IO: on 4 KB pages nearly every probe also
 * misses the TLB and every page is a fault, so they ask for huge pages
 * (the kernel's THP setting is often "madvise"): rebuilding the 32 MB
 * table of 10 M IOs took about 30 % less time. */
#define HUGE_PAGE (2u << 20)
static density_cell *table_new(size_t cap)
{
	size_t bytes = cap * sizeof(density_cell);
	if (bytes < HUGE_PAGE)
		return calloc(cap, sizeof(density_cell));
	void *p;
	if (posix_memalign(&p, HUGE_PAGE, bytes))
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KB pages */
	memset(p, 0, bytes);
	return p;
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
	d->row_step = ROW_COARSEN;
	d->origin = origin_ns;
	return 0;
}

void density_free(density *d)
{
	free(d->spare);
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
	/* reuse the previous table of this size: clearing it is cheaper than
	 * faulting in fresh pages */
	density_cell *n;
	if (d->spare && d->spare_cap == newcap) {
		n = d->spare;
		d->spare = NULL;
		memset(n, 0, newcap * sizeof(density_cell));
	} else {
		n = table_new(newcap);
		if (!n)
			return BR_ENOMEM;
	}
	size_t used = 0, mask = newcap - 1;
	/* in batches: compute and prefetch the new slots, then insert */
	for (size_t base = 0; base < d->cap; base += DENSITY_BATCH) {
		size_t end = base + DENSITY_BATCH < d->cap ? base + DENSITY_BATCH : d->cap;
		uint64_t key[DENSITY_BATCH];
		for (size_t i = base; i < end; i++) {
			density_cell *c = &d->cells[i];
			if (!c->key)
				continue;
			uint64_t col = density_col(c->key) >> cshift, row = density_row(c->key) >> rshift;
			key[i - base] = (col << 44) | ((uint64_t)density_dev(c->key) << ROW_BITS) | (row + 1);
			__builtin_prefetch(&n[slot_of(key[i - base], mask)], 1);
		}
		for (size_t i = base; i < end; i++) {
			density_cell *c = &d->cells[i];
			if (!c->key)
				continue;
			density_cell *t = find_or_add(n, newcap, key[i - base], &used);
			for (int k = 0; k < DENSITY_KINDS; k++)
				for (int r = 0; r < DENSITY_DIRS; r++)
					t->n[k][r] = sat_add(t->n[k][r], c->n[k][r]);
			density_merge_votes(t, c);
		}
	}
	free(d->spare);
	d->spare = d->cells;
	d->spare_cap = d->cap;
	d->cells = n;
	d->cap = newcap;
	d->used = used;
	d->col_ns <<= cshift;
	d->row_shift += rshift;
	d->max_row >>= rshift;
	d->max_col >>= cshift;
	return 0;
}

/* Coarsen until col and row fit, and make room for n more cells. */
static int make_room(density *d, uint64_t max_rel, uint64_t max_sector, size_t n)
{
	while (max_rel / d->col_ns >= DENSITY_MAX_COLS)
		if (rebuild(d, COL_COARSEN, 0, d->cap))
			return BR_ENOMEM;
	while ((max_sector >> d->row_shift) >= (1ull << ROW_BITS) - 2)
		if (rebuild(d, 0, 1, d->cap))
			return BR_ENOMEM;
	while ((d->used + n) * 2 > d->cap) {
		if (d->cap < DENSITY_MAX_CELLS * 2) {
			if (rebuild(d, 0, 0, d->cap * 2))
				return BR_ENOMEM;
			continue;
		}
		/* full: trade columns beyond what a figure shows for rows first */
		if (d->max_col >= DENSITY_MAX_COLS / 2) {
			if (rebuild(d, 1, 0, d->cap))
				return BR_ENOMEM;
			continue;
		}
		size_t before = d->used;
		if (rebuild(d, 0, d->row_step, d->cap))
			return BR_ENOMEM;
		/* scattered IO barely merges: take bigger steps from now on */
		if (d->used * 4 > before * 3 && d->row_step < 3)
			d->row_step++;
	}
	return 0;
}

/* two vote counters fit where the latest pid was: the grid keeps its size */
_Static_assert(sizeof(density_cell) == 32, "density_cell grew");

void density_vote(density_cell *cl, uint8_t p)
{
	for (int k = 0; k < 2; k++)
		if (cl->votes[k] && cl->pid[k] == p) {
			if (cl->votes[k] != 0xffff)
				cl->votes[k]++;
			return;
		}
	for (int k = 0; k < 2; k++)
		if (!cl->votes[k]) {
			cl->pid[k] = p;
			cl->votes[k] = 1;
			return;
		}
	cl->votes[0]--;
	cl->votes[1]--;
}

/* Misra-Gries merge: add the counts of equal pids, keep the two largest
 * and take the third largest off both. */
void density_merge_votes(density_cell *into, const density_cell *from)
{
	uint8_t pid[4];
	uint32_t v[4];
	int n = 0;
	const density_cell *src[2] = { into, from };
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 2; k++) {
			if (!src[s]->votes[k])
				continue;
			int j = 0;
			while (j < n && pid[j] != src[s]->pid[k])
				j++;
			if (j == n) {
				pid[n] = src[s]->pid[k];
				v[n++] = 0;
			}
			v[j] += src[s]->votes[k];
		}
	for (int i = 1; i < n; i++) /* largest first */
		for (int j = i; j > 0 && v[j] > v[j - 1]; j--) {
			uint32_t tv = v[j];
			uint8_t tp = pid[j];
			v[j] = v[j - 1];
			pid[j] = pid[j - 1];
			v[j - 1] = tv;
			pid[j - 1] = tp;
		}
	uint32_t third = n > 2 ? v[2] : 0;
	for (int k = 0; k < 2; k++) {
		uint32_t left = k < n ? v[k] - third : 0;
		into->pid[k] = k < n ? pid[k] : 0;
		into->votes[k] = (uint16_t)(left > 0xffff ? 0xffff : left);
	}
}

int density_flush(density *d)
{
	unsigned n = d->npend;
	if (!n)
		return 0;
	uint64_t max_rel = 0, max_sector = 0;
	for (unsigned i = 0; i < n; i++) {
		if (d->pend[i].rel > max_rel)
			max_rel = d->pend[i].rel;
		if (d->pend[i].sector > max_sector)
			max_sector = d->pend[i].sector;
	}
	int rc = make_room(d, max_rel, max_sector, n);
	if (rc)
		return rc;
	uint64_t key[DENSITY_BATCH];
	size_t mask = d->cap - 1;
	for (unsigned i = 0; i < n; i++) {
		uint64_t col = d->pend[i].rel / d->col_ns, row = d->pend[i].sector >> d->row_shift;
		key[i] = (col << 44) | ((uint64_t)d->pend[i].dev << ROW_BITS) | (row + 1);
		__builtin_prefetch(&d->cells[slot_of(key[i], mask)], 1);
		if (row > d->max_row)
			d->max_row = row;
		if (col > d->max_col)
			d->max_col = col;
	}
	for (unsigned i = 0; i < n; i++) {
		density_cell *c = find_or_add(d->cells, d->cap, key[i], &d->used);
		uint16_t *v = &c->n[d->pend[i].kind][d->pend[i].dir];
		if (*v != 0xffff)
			(*v)++;
		density_vote(c, d->pend[i].pid);
	}
	d->npend = 0;
	return 0;
}

int density_add(density *d, uint64_t time, uint64_t sector, int kind, int dir, uint8_t pid,
		uint8_t dev)
{
	struct density_pending *p = &d->pend[d->npend++];
	p->rel = time > d->origin ? time - d->origin : 0;
	p->sector = sector;
	p->kind = (uint8_t)kind;
	p->dir = (uint8_t)dir;
	p->pid = pid;
	p->dev = dev < DENSITY_MAX_DEVS ? dev : DENSITY_MAX_DEVS - 1;
	return d->npend == DENSITY_BATCH ? density_flush(d) : 0;
}
