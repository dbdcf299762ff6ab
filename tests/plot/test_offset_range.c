/* test_offset_range.c — the io panel's offset ranges (plot/plot/offset_range.c,
 * compiled in here): every band's range is the busy region of its own IOs
 * (its trace, its device), whether it is worked out again or taken over
 * from the whole figure's range (one trace on one device), and the whole
 * range covers every trace. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/stats.h"

#include "../../plot/plot/density.h"
#include "../../plot/plot/axes.h"
#include "../../plot/plot/plot.h"

static br_stats_totals totals = { .io_kind = BR_KIND_C };

/* n completions of 4 KiB on device slot dev, spread over [lo_mb, hi_mb)
 * and 1 s, plus a few far outliers the busy region leaves out */
static void add_ios(plot_trace *t, unsigned dev, double lo_mb, double hi_mb, unsigned n)
{
	uint64_t s = 0x9e3779b97f4a7c15ull ^ dev ^ (uint64_t)lo_mb;
	for (unsigned i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		double mb = lo_mb + (hi_mb - lo_mb) * (double)(s % 1000000) / 1e6;
		if (i % 500 == 0)
			mb = hi_mb * 40; /* an outlier */
		uint64_t sector = (uint64_t)(mb * 1e6 / 512);
		cr_assert_eq(density_add(&t->dens, (uint64_t)i * 1000000000ull / n, sector, BR_KIND_C,
					 (int)(i & 1), 0, (uint8_t)dev), 0);
	}
}

static plot_data *make(size_t ntraces)
{
	plot_data *d = calloc(1, sizeof(*d));
	cr_assert(d);
	d->n = ntraces;
	d->t0 = 0;
	d->t1 = 1000000000ull;
	for (size_t i = 0; i < ntraces; i++) {
		d->tr[i].label = i ? "b" : "a";
		d->tr[i].tot = &totals;
		cr_assert_eq(density_init(&d->tr[i].dens, 0), 0);
	}
	return d;
}

static void finish(plot_data *d)
{
	for (size_t i = 0; i < d->n; i++)
		cr_assert_eq(density_finish(&d->tr[i].dens), 0);
	plot_opts o = { .width = 1600 };
	plot_offset_ranges(&o, d);
}

static void free_data(plot_data *d)
{
	for (size_t i = 0; i < d->n; i++)
		density_free(&d->tr[i].dens);
	free(d);
}

/* the band's range is what plot_offset_range_of gives for its trace and device */
static void expect_own_range(const plot_data *d, size_t band)
{
	plot_opts o = { .width = 1600 };
	const plot_band *b = &d->bands[band];
	offset_range want;
	plot_offset_range_of(&o, d, b->trace, b->dev, &want.lo, &want.hi, want.note, sizeof(want.note));
	cr_expect_eq(b->zr.lo, want.lo, "band %zu: lo %g, its own IOs give %g", band, b->zr.lo, want.lo);
	cr_expect_eq(b->zr.hi, want.hi, "band %zu: hi %g, its own IOs give %g", band, b->zr.hi, want.hi);
	cr_expect_str_eq(b->zr.note, want.note, "band %zu", band);
}

Test(offset_range, one_trace_one_device_band_is_the_whole_range)
{
	plot_data *d = make(1);
	add_ios(&d->tr[0], 0, 1000, 1500, 20000);
	finish(d);
	cr_assert_eq(d->nbands, 1);
	expect_own_range(d, 0);
	cr_expect_eq(d->bands[0].zr.lo, d->zr_all.lo);
	cr_expect_eq(d->bands[0].zr.hi, d->zr_all.hi);
	cr_expect_str_eq(d->bands[0].zr.note, d->zr_all.note);
	/* the busy region: outliers left out, the 1000-1500 MB block in */
	cr_expect(d->zr_all.lo <= 1000 && d->zr_all.lo > 900, "lo %g", d->zr_all.lo);
	cr_expect(d->zr_all.hi >= 1490 && d->zr_all.hi < 1600, "hi %g", d->zr_all.hi);
	cr_expect(strstr(d->zr_all.note, "lie outside"), "%s", d->zr_all.note);
	free_data(d);
}

Test(offset_range, two_traces_each_band_its_own)
{
	plot_data *d = make(2);
	add_ios(&d->tr[0], 0, 1000, 1500, 20000);
	add_ios(&d->tr[1], 0, 50000, 52000, 20000);
	finish(d);
	cr_assert_eq(d->nbands, 2);
	expect_own_range(d, 0);
	expect_own_range(d, 1);
	cr_expect_neq(d->bands[0].zr.hi, d->zr_all.hi, "trace a's band must not span trace b's IOs");
	cr_expect(d->bands[1].zr.lo > 40000, "trace b's band starts at %g", d->bands[1].zr.lo);
	free_data(d);
}

Test(offset_range, one_trace_two_devices_each_band_its_own)
{
	plot_data *d = make(1);
	d->tr[0].ndevs = 2;
	d->tr[0].devs[0] = 0x800001;
	d->tr[0].devs[1] = 0x800011;
	add_ios(&d->tr[0], 0, 1000, 1500, 20000);
	add_ios(&d->tr[0], 1, 80000, 81000, 20000);
	finish(d);
	cr_assert_eq(d->nbands, 2);
	cr_expect(d->multi_dev);
	expect_own_range(d, 0);
	expect_own_range(d, 1);
	cr_expect(d->bands[0].zr.hi < 2000, "device 0's band ends at %g", d->bands[0].zr.hi);
	cr_expect(d->bands[1].zr.lo > 70000, "device 1's band starts at %g", d->bands[1].zr.lo);
	free_data(d);
}
