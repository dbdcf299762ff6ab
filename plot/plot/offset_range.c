/* The io panel's offset range: by default the busy region, the offsets
 * holding the middle 99 % of the IOs (0.5 % cut at each end) with a small
 * margin, rounded to ticks; -z sets it. Computed once per figure from the
 * density grids, with a note saying what the range leaves out. */
#include "axes.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rowcount {
	double mb;
	double n;
} rowcount;

/* Sort by offset: LSD radix sort on the bits of the (non-negative) double,
 * which order like the values; O(n). 16-bit digits (4 passes) for many
 * cells; for a few thousand, clearing and summing 65536 counters 4 times
 * would cost more than the sort, so 8-bit digits (8 passes). Stable either
 * way: the same order. */
static int sort_rowcounts(rowcount *a, size_t n)
{
	unsigned bits = n >= 65536 ? 16 : 8, passes = 64 / bits;
	size_t nb = (size_t)1 << bits, mask = nb - 1;
	rowcount *tmp = malloc(n * sizeof(*tmp));
	size_t *count = malloc(nb * sizeof(size_t));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -1;
	}
	rowcount *src = a, *dst = tmp;
	for (unsigned pass = 0; pass < passes; pass++) {
		unsigned shift = bits * pass;
		memset(count, 0, nb * sizeof(size_t));
		for (size_t i = 0; i < n; i++) {
			uint64_t k;
			memcpy(&k, &src[i].mb, 8);
			count[(k >> shift) & mask]++;
		}
		size_t sum = 0;
		for (size_t b = 0; b < nb; b++) {
			size_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t k;
			memcpy(&k, &src[i].mb, 8);
			dst[count[(k >> shift) & mask]++] = src[i];
		}
		rowcount *t = src;
		src = dst;
		dst = t;
	}
	/* an even number of passes: the sorted data is back in a */
	free(tmp);
	free(count);
	return 0;
}

/* "120 MB", "1.25 GB", "3.2 TB" with digits for the span shown. */
static void offset_label(double mb, double top, double span, char *buf, size_t n, bool unit)
{
	double div = 1;
	const char *u = "MB";
	offset_unit(top, &div, &u);
	double v = mb / div, s = span / div;
	int dec = s >= 10 ? 0 : s >= 1 ? 1 : s >= 0.1 ? 2 : 3;
	if (v == 0)
		dec = 0;
	snprintf(buf, n, "%.*f%s%s", dec, v, unit ? " " : "", unit ? u : "");
}

/* IO counts per row of one grid: open addressing on row + 1. */
typedef struct rowsum {
	uint64_t *row;  /* 0 = empty */
	double *n;
	size_t cap, used;
} rowsum;

static int rowsum_add(rowsum *r, uint64_t row, unsigned n)
{
	if ((r->used + 1) * 2 > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		uint64_t *nr = calloc(cap, sizeof(*nr));
		double *nn = calloc(cap, sizeof(*nn));
		if (!nr || !nn) {
			free(nr);
			free(nn);
			return -1;
		}
		for (size_t i = 0; i < r->cap; i++)
			if (r->row[i]) {
				size_t j = (size_t)((r->row[i] * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
				while (nr[j])
					j = (j + 1) & (cap - 1);
				nr[j] = r->row[i];
				nn[j] = r->n[i];
			}
		free(r->row);
		free(r->n);
		r->row = nr;
		r->n = nn;
		r->cap = cap;
	}
	uint64_t key = row + 1;
	size_t j = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (r->cap - 1);
	while (r->row[j] && r->row[j] != key)
		j = (j + 1) & (r->cap - 1);
	if (!r->row[j]) {
		r->row[j] = key;
		r->used++;
	}
	r->n[j] += n;
	return 0;
}

void plot_offset_range_of(const plot_opts *o, const plot_data *d, int only_trace, int only_dev, double *lo,
			  double *hi, char *note, size_t n)
{
	size_t total = 0;
	for (size_t t = 0; t < d->n; t++)
		if (only_trace < 0 || (size_t)only_trace == t)
			total += d->tr[t].dens.used;
	rowcount *rc = malloc((total ? total : 1) * sizeof(*rc));
	size_t m = 0;
	double sum = 0, rowh = 0;
	for (size_t t = 0; t < d->n && rc; t++) {
		if (only_trace >= 0 && (size_t)only_trace != t)
			continue;
		const density *dn = &d->tr[t].dens;
		int kind = d->tr[t].tot->io_kind;
		double h = density_row_mb(dn, 1);
		if (h > rowh)
			rowh = h;
		/* one entry per row: the quantiles fall in the same row whether
		 * its cells are summed first or not, and the sort gets shorter */
		rowsum rs = { 0 };
		for (size_t i = 0; i < dn->cap; i++) {
			const density_cell *cl = &dn->cells[i];
			double ta;
			if (!density_cell_shown(dn, cl, kind, only_dev, (double)d->shift, (double)d->t0,
						(double)d->t1, &ta))
				continue;
			unsigned c = density_cell_count(cl, kind);
			sum += c;
			if (rowsum_add(&rs, density_row(cl->key), c)) {
				free(rc); /* out of memory: no busy region (0-1 MB) */
				rc = NULL;
				m = 0;
				break;
			}
		}
		for (size_t i = 0; rc && i < rs.cap; i++)
			if (rs.row[i]) {
				rc[m].mb = density_row_mb(dn, rs.row[i] - 1);
				rc[m].n = rs.n[i];
				m++;
			}
		free(rs.row);
		free(rs.n);
	}
	double qlo = 0, qhi = 1;
	if (m) {
		if (sort_rowcounts(rc, m))
			m = 0; /* out of memory: no busy region (0-1 MB) */
		double acc = 0;
		bool got_lo = false;
		for (size_t i = 0; i < m; i++) {
			acc += rc[i].n;
			if (!got_lo && acc >= sum * 0.005) {
				qlo = rc[i].mb;
				got_lo = true;
			}
			if (acc >= sum * 0.995) {
				qhi = rc[i].mb + rowh;
				break;
			}
		}
	}
	if (o->has_z) {
		*lo = o->z0;
		*hi = o->z1;
	} else {
		double span = qhi - qlo;
		if (span < 1)
			span = 1;
		double a = qlo - span * 0.02, b = qhi + span * 0.02;
		if (a < span * 0.1)
			a = 0; /* close to the start: show it from 0 */
		*lo = a;
		*hi = b;
	}
	double outside = 0;
	for (size_t i = 0; i < m; i++)
		if (rc[i].mb + rowh <= *lo || rc[i].mb >= *hi)
			outside += rc[i].n;
	if (note) {
		char a[32], b[32];
		offset_label(*lo, *hi, *hi - *lo, a, sizeof(a), false);
		offset_label(*hi, *hi, *hi - *lo, b, sizeof(b), true);
		if (outside > 0)
			snprintf(note, n, "offsets %s\xe2\x80\x93%s shown%s; %.0f of %.0f IOs (%.1f%%) lie outside",
				 a, b, o->has_z ? " (-z)" : ", the busy region", outside, sum,
				 100.0 * outside / (sum > 0 ? sum : 1));
		else
			snprintf(note, n, "offsets %s\xe2\x80\x93%s shown (every IO)", a, b);
	}
	free(rc);
}


void plot_offset_ranges(const plot_opts *o, plot_data *d)
{
	offset_range *z = &d->zr_all;
	plot_offset_range_of(o, d, -1, -1, &z->lo, &z->hi, z->note, sizeof(z->note));
	d->nbands = 0;
	d->multi_dev = false;
	for (size_t t = 0; t < d->n; t++) {
		const plot_trace *tr = &d->tr[t];
		unsigned nd = tr->ndevs > 1 ? tr->ndevs : 1;
		if (tr->ndevs > 1)
			d->multi_dev = true;
		for (unsigned k = 0; k < nd && d->nbands < PLOT_MAX_BANDS; k++) {
			plot_band *b = &d->bands[d->nbands++];
			b->trace = (int)t;
			b->dev = tr->ndevs > 1 ? (int)k : -1;
			if (b->dev < 0)
				snprintf(b->label, sizeof(b->label), "%.80s", tr->label);
			else if (k == DENSITY_MAX_DEVS - 1)
				snprintf(b->label, sizeof(b->label), "%.60s%sother devices", d->n > 1 ? tr->label : "",
					 d->n > 1 ? ", " : "");
			else
				snprintf(b->label, sizeof(b->label), "%.60s%sdevice %u,%u", d->n > 1 ? tr->label : "",
					 d->n > 1 ? ", " : "", BR_DEV_MAJOR(tr->devs[k]), BR_DEV_MINOR(tr->devs[k]));
			if (d->n == 1 && b->dev < 0)
				b->zr = *z; /* the one trace's one band: the whole range again */
			else
				plot_offset_range_of(o, d, (int)t, b->dev, &b->zr.lo, &b->zr.hi, b->zr.note,
					  sizeof(b->zr.note));
		}
	}
}
