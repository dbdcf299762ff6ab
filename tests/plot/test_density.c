/* test_density.c — the density grid of IO marks (plot/plot/density.c,
 * compiled in here): whatever order IOs arrive in and however far the grid
 * coarsens, every cell holds exactly the IOs that fall in it at the final
 * column width and row height, each key once, in key order; and the votes'
 * normal form is what merging into an empty cell gives. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "blkreel/stats.h"

#include "../../plot/plot/density_grid.h"

typedef struct mark {
	uint64_t t, sector;
	uint8_t dev, dir;
} mark;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int dcell_cmp(const void *a, const void *b)
{
	uint64_t x = ((const density_cell *)a)->key, y = ((const density_cell *)b)->key;
	return x < y ? -1 : x > y;
}
/* FNV-1a over the cells' keys and counts in key order */
static uint64_t grid_digest(const density_cell *cells, size_t cap)
{
	density_cell *c = malloc((cap + 1) * sizeof(*c));
	size_t n = 0;
	for (size_t i = 0; i < cap; i++)
		if (cells[i].key)
			c[n++] = cells[i];
	qsort(c, n, sizeof(*c), dcell_cmp);
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		uint64_t v[1 + DENSITY_KINDS * DENSITY_DIRS];
		v[0] = c[i].key;
		for (int k = 0; k < DENSITY_KINDS * DENSITY_DIRS; k++)
			v[1 + k] = c[i].n[k / DENSITY_DIRS][k % DENSITY_DIRS];
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++)
			for (int b = 0; b < 8; b++) {
				h ^= (v[j] >> (8 * b)) & 0xff;
				h *= 0x100000001b3ull;
			}
	}
	free(c);
	return h;
}

/* Add the marks, then check the grid against a count made from scratch at
 * the grid's final resolution. */
static void check_grid(const mark *m, size_t n, uint64_t origin, uint64_t *col_ns,
		       unsigned *row_shift)
{
	density d;
	cr_assert_eq(density_init(&d, origin), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(density_add(&d, m[i].t, m[i].sector, BR_KIND_C, m[i].dir, 0, m[i].dev), 0);
	cr_assert_eq(density_finish(&d), 0);
	cr_assert_eq(d.cap, d.used);
	uint64_t *k = malloc(n * sizeof(*k));
	cr_assert(k);
	for (size_t i = 0; i < n; i++) {
		uint64_t rel = m[i].t > origin ? m[i].t - origin : 0;
		k[i] = key_of(rel / d.col_ns, m[i].dev, m[i].sector >> d.row_shift) << 2 | m[i].dir;
	}
	qsort(k, n, sizeof(*k), u64_cmp);
	size_t c = 0, i = 0;
	while (i < n) {
		uint64_t key = k[i] >> 2;
		unsigned want[3] = { 0 };
		for (; i < n && k[i] >> 2 == key; i++)
			want[k[i] & 3]++;
		cr_assert_lt(c, d.cap, "fewer cells than keys");
		const density_cell *cl = &d.cells[c++];
		cr_assert_eq(cl->key, key, "cell %zu: key %llx, expected %llx", c - 1,
			     (unsigned long long)cl->key, (unsigned long long)key);
		for (int r = 0; r < 3; r++)
			cr_assert_eq(cl->n[BR_KIND_C][r], want[r] > 0xffff ? 0xffff : want[r]);
		cr_assert_eq(cl->n[BR_KIND_Q][0] + cl->n[BR_KIND_D][0], 0);
	}
	cr_assert_eq(c, d.cap, "%zu cells where the marks make %zu", d.cap, c);
	free(k);
	*col_ns = d.col_ns;
	*row_shift = d.row_shift;
	density_free(&d);
}

/* Random IO over a wide span and a big disk: the grid coarsens both ways
 * many times (more than DENSITY_MAX_CELLS cells at the start resolution). */
static mark *random_marks(size_t n, uint64_t seed)
{
	mark *m = malloc(n * sizeof(*m));
	cr_assert(m);
	uint64_t s = seed, t = 5000;
	for (size_t i = 0; i < n; i++) {
		t += rnd(&s) % 20000;
		uint64_t r = rnd(&s);
		m[i].t = t;
		/* a sequential stream, random IO over ~100 GB, and a second device */
		m[i].sector = r % 3 == 0 ? i * 8 : (r >> 8) % (200ull << 20);
		m[i].dev = r % 7 == 0;
		m[i].dir = (uint8_t)(r >> 60) % 3;
	}
	return m;
}

Test(density, cells_hold_exactly_their_ios_in_time_order)
{
	size_t n = 900000;
	mark *m = random_marks(n, 88172645463325252ull);
	uint64_t col_ns;
	unsigned row_shift;
	check_grid(m, n, 0, &col_ns, &row_shift);
	cr_expect_gt(col_ns, START_COL_NS << 2 * COL_COARSEN, "columns coarsened more than twice");
	cr_expect_gt(row_shift, START_ROW_SHIFT + 1, "rows coarsened more than once");
	free(m);
}

/* The grid is the one the hashed grid it replaced made (commit 78d8960,
 * plot/plot/density.c): the same coarsening decisions, so the same final
 * resolution and cells, so the same figures. Digest printed by that code on
 * these marks. */
Test(density, same_grid_as_the_hashed_grid)
{
	size_t n = 900000;
	mark *m = random_marks(n, 88172645463325252ull);
	density d;
	cr_assert_eq(density_init(&d, 0), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(density_add(&d, m[i].t, m[i].sector, BR_KIND_C, m[i].dir, 0, m[i].dev), 0);
	cr_assert_eq(density_finish(&d), 0);
	cr_expect_eq(d.col_ns, 5120000);
	cr_expect_eq(d.row_shift, 20);
	cr_expect_eq(d.used, 347969);
	cr_expect_eq(grid_digest(d.cells, d.cap), 0x4d9b69f726122d7eull);
	density_free(&d);
	free(m);
}

Test(density, cells_hold_exactly_their_ios_out_of_time_order)
{
	/* nearly sorted (neighbours swapped, as unsorted imports are), then a
	 * stretch fully shuffled: cells of passed columns get more IOs and
	 * new cells */
	size_t n = 600000;
	mark *m = random_marks(n, 0x9e3779b97f4a7c15ull);
	uint64_t s = 12345;
	for (size_t i = 1; i < n; i += 1 + rnd(&s) % 5) {
		mark x = m[i];
		m[i] = m[i - 1];
		m[i - 1] = x;
	}
	for (size_t i = n - 1; i > n / 2; i--) {
		size_t j = n / 2 + rnd(&s) % (i - n / 2 + 1);
		mark x = m[i];
		m[i] = m[j];
		m[j] = x;
	}
	uint64_t col_ns;
	unsigned row_shift;
	check_grid(m, n, 1000, &col_ns, &row_shift);
	cr_expect_gt(col_ns, START_COL_NS);
	cr_expect_gt(row_shift, START_ROW_SHIFT);
	free(m);
}

Test(density, one_busy_column_and_counts_saturate)
{
	/* all IOs in the first 10 us: one column, rows coarsen, counts cap */
	size_t n = 1000000;
	mark *m = malloc(n * sizeof(*m));
	cr_assert(m);
	uint64_t s = 7;
	for (size_t i = 0; i < n; i++)
		m[i] = (mark){ .t = i % 5000, .sector = i < 400000 ? 64 : rnd(&s) % (1ull << 30), .dir = 1 };
	uint64_t col_ns;
	unsigned row_shift;
	check_grid(m, n, 0, &col_ns, &row_shift);
	cr_expect_eq(col_ns, START_COL_NS);
	cr_expect_gt(row_shift, START_ROW_SHIFT, "600 k cells in one column: rows coarsened");
	free(m);
}

Test(density, votes_norm_is_a_merge_into_an_empty_cell)
{
	for (unsigned v0 = 0; v0 < 4; v0++)
		for (unsigned v1 = 0; v1 < 4; v1++)
			for (unsigned p0 = 0; p0 < 3; p0++)
				for (unsigned p1 = 0; p1 < 3; p1++) {
					if (v0 && v1 && p0 == p1)
						continue; /* two live counters never share a pid */
					density_cell c = { .key = 1 };
					c.pid[0] = (uint8_t)p0;
					c.pid[1] = (uint8_t)p1;
					c.votes[0] = (uint16_t)v0;
					c.votes[1] = (uint16_t)v1;
					density_cell want = { 0 };
					density_merge_votes(&want, &c);
					votes_norm(&c);
					cr_expect(c.pid[0] == want.pid[0] && c.pid[1] == want.pid[1] &&
						  c.votes[0] == want.votes[0] && c.votes[1] == want.votes[1],
						  "pids %u,%u votes %u,%u", p0, p1, v0, v1);
				}
}

Test(density, radix_sort_sorts)
{
	uint64_t s = 99;
	for (size_t n = 0; n < 3000; n = n * 2 + 1) {
		uint64_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b)),
			 *t = malloc((n + 1) * sizeof(*t));
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] = n % 3 ? rnd(&s) : rnd(&s) & 0xff00ff;
		density_radix_sort(a, t, n);
		qsort(b, n, sizeof(*b), u64_cmp);
		for (size_t i = 0; i < n; i++)
			cr_assert_eq(a[i], b[i], "n %zu, at %zu", n, i);
		free(a);
		free(b);
		free(t);
	}
}
