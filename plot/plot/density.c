/* Sparse time × offset grid of IO marks (see density.h).
 *
 * Marks arrive in time order, so the grid is kept as two parts: the columns
 * already passed, in one array sorted by key (column, device, row), and the
 * column IOs land in now, in a small hash that stays in the CPU caches.
 * When IOs move on to a later column, the open column is sorted and
 * appended. Coarsening then merges neighbours of the sorted array in one
 * sequential pass, where a hash of megabytes had to be rehashed at random
 * (most of the plot's time on traces of millions of IOs), and raising the
 * cell budget is a number, not a rebuild.
 *
 * When and how far to coarsen are decided exactly as the hashed grid this
 * replaced did (the same counts of cells, the same bounds), so the final
 * grid and the figure are the same. An IO for a column already passed (a
 * trace that is not in time order) is looked up in the sorted array, and
 * a new cell for it waits in the hash until the open column is sorted. */
#include "density.h"
#include "density_grid.h"
#include "blkreel/error.h"
#include "tool/io.h"

#include <stdlib.h>
#include <string.h>

#define ROW_COARSEN 1          /* rows grow 2x (up to 8x) when cells run out */
#define START_BUDGET 1024u
#define LOW_KEY ((1ull << 44) - 1) /* a key without its column */
#define IDX_BITS 20            /* a cell's index in a sort: used < 2^20 always */
#define MIN_SLOTS 1024u

int density_init(density *d, uint64_t origin_ns)
{
	memset(d, 0, sizeof(*d));
	d->budget = START_BUDGET;
	d->col_ns = START_COL_NS;
	d->row_shift = START_ROW_SHIFT;
	d->row_step = ROW_COARSEN;
	d->origin = origin_ns;
	return 0;
}

static void free_building(density *d)
{
	free(d->open);
	free(d->slots);
	free(d->sortkey);
	free(d->sorttmp);
	free(d->scratch);
	d->open = d->scratch = NULL;
	d->slots = NULL;
	d->sortkey = d->sorttmp = NULL;
	d->nopen = d->open_cap = d->nslots = d->scratch_cap = 0;
}

void density_free(density *d)
{
	free_building(d);
	free(d->cells);
	memset(d, 0, sizeof(*d));
}

static inline uint16_t sat_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;
	return s > 0xffff ? 0xffff : (uint16_t)s;
}


/* c's IOs into t (same key): counts add, saturating; votes merge. */
static inline void cell_merge(density_cell *t, const density_cell *c)
{
	for (int k = 0; k < DENSITY_KINDS; k++)
		for (int r = 0; r < DENSITY_DIRS; r++)
			t->n[k][r] = sat_add(t->n[k][r], c->n[k][r]);
	density_merge_votes(t, c);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *q = tool_grow(*p, cap, need, elem, 256);
	if (!q)
		return BR_ENOMEM;
	*p = q;
	return 0;
}

static int scratch_room(density *d, size_t n)
{
	if (n <= d->scratch_cap)
		return 0;
	size_t cap = d->scratch_cap;
	size_t c1 = cap, c2 = cap, c3 = cap;
	if (grow((void **)&d->sortkey, &c1, n, sizeof(uint64_t)) ||
	    grow((void **)&d->sorttmp, &c2, n, sizeof(uint64_t)) ||
	    grow((void **)&d->scratch, &c3, n, sizeof(density_cell)))
		return BR_ENOMEM;
	d->scratch_cap = c1;
	return 0;
}

void density_radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	if (n < 48) {
		for (size_t i = 1; i < n; i++) {
			uint64_t v = a[i];
			size_t j = i;
			for (; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	uint64_t diff = 0;
	for (size_t i = 1; i < n; i++)
		diff |= a[i] ^ a[0];
	uint64_t *src = a, *dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((diff >> shift) & 0xff))
			continue;
		size_t at[256] = { 0 };
		for (size_t i = 0; i < n; i++)
			at[(src[i] >> shift) & 0xff]++;
		size_t sum = 0;
		for (int b = 0; b < 256; b++) {
			size_t c = at[b];
			at[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[at[(src[i] >> shift) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = ((const density_cell *)a)->key, y = ((const density_cell *)b)->key;
	return x < y ? -1 : x > y;
}

/* out[0..n) = c[0..n) sorted by key, equal keys in their order in c (out
 * and c do not overlap). Cells of one column (the usual case) are sorted
 * as integers; a mix of columns (IOs out of time order) by qsort. */
static int sort_cells(density *d, const density_cell *c, size_t n, density_cell *out)
{
	bool one_col = true;
	for (size_t i = 1; i < n && one_col; i++)
		one_col = density_col(c[i].key) == density_col(c[0].key);
	if (!one_col || n > (1u << IDX_BITS)) {
		memcpy(out, c, n * sizeof(*c));
		/* distinct keys (a column coarsening sorts one column only) */
		qsort(out, n, sizeof(*out), key_cmp);
		return 0;
	}
	if (scratch_room(d, n))
		return BR_ENOMEM;
	/* the index in as few low bits as n needs (ties, if any, still go by
	 * it): the radix sort then has fewer varying bytes to pass over */
	unsigned bits = n > 1 ? 64u - (unsigned)__builtin_clzll((unsigned long long)(n - 1)) : 1;
	uint64_t *k = d->sortkey;
	for (size_t i = 0; i < n; i++)
		k[i] = (c[i].key & LOW_KEY) << bits | i;
	density_radix_sort(k, d->sorttmp, n);
	for (size_t i = 0; i < n; i++)
		out[i] = c[k[i] & ((1ull << bits) - 1)];
	return 0;
}

static inline size_t slot_of(uint64_t key, size_t nslots)
{
	/* Fibonacci hashing: the top bits of the product depend on every bit */
	unsigned bits = (unsigned)__builtin_ctzll(nslots);
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static void slot_put(density *d, size_t idx)
{
	size_t mask = d->nslots - 1, i = slot_of(d->open[idx].key, d->nslots);
	while (d->slots[i])
		i = (i + 1) & mask;
	d->slots[i] = (uint32_t)idx + 1;
}

static int slots_resize(density *d, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));
	if (!s)
		return BR_ENOMEM;
	free(d->slots);
	d->slots = s;
	d->nslots = nslots;
	for (size_t i = 0; i < d->nopen; i++)
		slot_put(d, i);
	return 0;
}

/* The open cell of key, added (and counted in used) if new; NULL when out
 * of memory. */
static density_cell *open_find_or_add(density *d, uint64_t key)
{
	if ((d->nopen + 1) * 2 > d->nslots &&
	    slots_resize(d, d->nslots ? d->nslots * 2 : MIN_SLOTS))
		return NULL;
	size_t mask = d->nslots - 1, i = slot_of(key, d->nslots);
	for (uint32_t s; (s = d->slots[i]); i = (i + 1) & mask)
		if (d->open[s - 1].key == key)
			return &d->open[s - 1];
	if (grow((void **)&d->open, &d->open_cap, d->nopen + 1, sizeof(*d->open)))
		return NULL;
	density_cell *c = &d->open[d->nopen];
	memset(c, 0, sizeof(*c));
	c->key = key;
	d->slots[i] = (uint32_t)++d->nopen;
	d->used++;
	return c;
}

/* The cell of key among the passed columns, or NULL. */
static density_cell *closed_find(density *d, uint64_t key)
{
	size_t lo = 0, hi = d->nclosed;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->cells[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nclosed && d->cells[lo].key == key ? &d->cells[lo] : NULL;
}

/* Move the open cells into the sorted array (no key is in both). */
static int open_close(density *d)
{
	size_t n = d->nopen;
	if (!n)
		return 0;
	if (grow((void **)&d->cells, &d->closed_cap, d->nclosed + n, sizeof(*d->cells)) ||
	    scratch_room(d, n))
		return BR_ENOMEM;
	density_cell *sorted = d->scratch;
	if (sort_cells(d, d->open, n, sorted))
		return BR_ENOMEM;
	size_t m = d->nclosed;
	if (!m || sorted[0].key > d->cells[m - 1].key) {
		memcpy(d->cells + m, sorted, n * sizeof(*sorted));
	} else {
		/* late cells among them: merge from the back, in place */
		size_t i = m, j = n, k = m + n;
		while (j) {
			if (i && d->cells[i - 1].key > sorted[j - 1].key)
				d->cells[--k] = d->cells[--i];
			else
				d->cells[--k] = sorted[--j];
		}
	}
	d->nclosed = m + n;
	d->nopen = 0;
	/* a smaller table for the next column if this one was unusually big */
	size_t want = MIN_SLOTS;
	while (want < 2 * n)
		want *= 2;
	if (d->nslots > 4 * want) {
		free(d->slots);
		d->slots = NULL;
		d->nslots = 0;
		return slots_resize(d, want);
	}
	memset(d->slots, 0, d->nslots * sizeof(*d->slots));
	return 0;
}

/* Rows rshift times coarser: keys stay in order, neighbours merge. */
static void coarsen_rows(density *d, unsigned rshift)
{
	size_t out = 0;
	for (size_t i = 0; i < d->nclosed; i++) {
		density_cell *c = &d->cells[i];
		uint64_t key = key_of(density_col(c->key), density_dev(c->key),
				      density_row(c->key) >> rshift);
		if (out && d->cells[out - 1].key == key) {
			cell_merge(&d->cells[out - 1], c);
			continue;
		}
		density_cell *t = &d->cells[out++];
		if (t != c)
			*t = *c;
		t->key = key;
		votes_norm(t);
	}
	d->nclosed = out;
}

/* Columns cshift times coarser: the old columns of each new one are
 * re-sorted together (in old column order where keys tie) and merged. */
static int coarsen_cols(density *d, unsigned cshift)
{
	size_t out = 0, i = 0, n = d->nclosed;
	while (i < n) {
		uint64_t col = density_col(d->cells[i].key) >> cshift;
		size_t j = i + 1;
		bool one_old = true;
		while (j < n && density_col(d->cells[j].key) >> cshift == col) {
			one_old = one_old && density_col(d->cells[j].key) == density_col(d->cells[i].key);
			j++;
		}
		size_t g = j - i;
		for (size_t k = i; k < j; k++) {
			density_cell *c = &d->cells[k];
			c->key = key_of(col, density_dev(c->key), density_row(c->key));
		}
		const density_cell *src = &d->cells[i];
		if (!one_old) {
			if (scratch_room(d, g) || sort_cells(d, &d->cells[i], g, d->scratch))
				return BR_ENOMEM;
			src = d->scratch;
		}
		for (size_t k = 0; k < g; k++) {
			if (out && d->cells[out - 1].key == src[k].key) {
				cell_merge(&d->cells[out - 1], &src[k]);
				continue;
			}
			density_cell *t = &d->cells[out++];
			if (t != &src[k])
				*t = src[k];
			votes_norm(t);
		}
		i = j;
	}
	d->nclosed = out;
	return 0;
}

/* Coarsen every cell by cshift columns / rshift rows. */
static int rebuild(density *d, unsigned cshift, unsigned rshift)
{
	if (open_close(d))
		return BR_ENOMEM;
	if (rshift)
		coarsen_rows(d, rshift);
	if (cshift && coarsen_cols(d, cshift))
		return BR_ENOMEM;
	d->used = d->nclosed;
	d->col_ns <<= cshift;
	d->row_shift += rshift;
	d->max_row >>= rshift;
	d->max_col >>= cshift;
	d->open_col >>= cshift;
	/* the open column's cells go back into the hash */
	size_t t = d->nclosed;
	while (t && density_col(d->cells[t - 1].key) == d->open_col)
		t--;
	size_t n = d->nclosed - t;
	if (n) {
		if (grow((void **)&d->open, &d->open_cap, n, sizeof(*d->open)))
			return BR_ENOMEM;
		memcpy(d->open, &d->cells[t], n * sizeof(*d->open));
		d->nopen = n;
		d->nclosed = t;
		size_t want = MIN_SLOTS;
		while (want < 2 * n)
			want *= 2;
		if (want != d->nslots) {
			free(d->slots);
			d->slots = NULL;
			d->nslots = 0;
		}
		if (!d->slots) {
			if (slots_resize(d, want))
				return BR_ENOMEM;
		} else {
			for (size_t i = 0; i < n; i++)
				slot_put(d, i);
		}
	}
	return 0;
}

/* A larger budget: the hashed grid rehashed every cell into a table twice
 * the size, which left the cells as they were but for votes_norm. */
static void raise_budget(density *d)
{
	d->budget *= 2;
	for (size_t i = 0; i < d->nclosed; i++)
		votes_norm(&d->cells[i]);
	for (size_t i = 0; i < d->nopen; i++)
		votes_norm(&d->open[i]);
}

/* Coarsen until col and row fit, and make room for n more cells. */
static int make_room(density *d, uint64_t max_rel, uint64_t max_sector, size_t n)
{
	while (max_rel / d->col_ns >= DENSITY_MAX_COLS)
		if (rebuild(d, COL_COARSEN, 0))
			return BR_ENOMEM;
	while ((max_sector >> d->row_shift) >= (1ull << ROW_BITS) - 2)
		if (rebuild(d, 0, 1))
			return BR_ENOMEM;
	while ((d->used + n) * 2 > d->budget) {
		if (d->budget < DENSITY_MAX_CELLS * 2) {
			raise_budget(d);
			continue;
		}
		/* full: trade columns beyond what a figure shows for rows first */
		if (d->max_col >= DENSITY_MAX_COLS / 2) {
			if (rebuild(d, 1, 0))
				return BR_ENOMEM;
			continue;
		}
		size_t before = d->used;
		if (rebuild(d, 0, d->row_step))
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
	for (unsigned i = 0; i < n; i++) {
		const struct density_pending *p = &d->pend[i];
		uint64_t col = p->rel / d->col_ns, row = p->sector >> d->row_shift;
		uint64_t key = key_of(col, p->dev, row);
		if (row > d->max_row)
			d->max_row = row;
		if (col > d->max_col)
			d->max_col = col;
		if (col > d->open_col) {
			if (open_close(d))
				return BR_ENOMEM;
			d->open_col = col;
		}
		density_cell *c = col < d->open_col ? closed_find(d, key) : NULL;
		if (!c && !(c = open_find_or_add(d, key)))
			return BR_ENOMEM;
		uint16_t *v = &c->n[p->kind][p->dir];
		if (*v != 0xffff)
			(*v)++;
		density_vote(c, p->pid);
	}
	d->npend = 0;
	return 0;
}

int density_finish(density *d)
{
	if (density_flush(d) || open_close(d))
		return BR_ENOMEM;
	free_building(d);
	d->cap = d->used = d->nclosed;
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
