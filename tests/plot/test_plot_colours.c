/* test_plot_colours.c — colours of the io panel that a reader must be able
 * to tell apart: in a comparison, reads and writes of each trace (a hue
 * per trace, a shade per direction: four colours for two traces, as
 * seekwatcher's -t a -t b), and with -P the process that did most of a
 * cell's IOs, not the one that did the last. The vote that picks it
 * (density.c, compiled in here) is tested alone too. */
#include <criterion/criterion.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "blkreel/event.h"
#include "blkreel/stats.h"
#include "blkreel/writer.h"

#include "../../plot/plot/density.h"

#define MS 1000000ull
#define US 1000ull
#define T0 1000000000ull
#define MB_SECTOR(mb) ((uint64_t)(mb) * 1000000 / 512)

TestSuite(plot_colours, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

/* ---- the vote ------------------------------------------------------------ */

Test(plot_colours, vote_picks_the_most_frequent_not_the_latest)
{
	density_cell c = { 0 };
	for (int i = 0; i < 5; i++)
		density_vote(&c, 2);
	for (int i = 0; i < 3; i++)
		density_vote(&c, 1); /* the latest */
	cr_expect_eq(density_cell_pid(&c), 2);

	/* a majority always wins, however the others interleave */
	density_cell m = { 0 };
	const uint8_t seq[] = { 3, 1, 4, 1, 5, 1, 9, 1, 2, 1, 6 };
	for (size_t i = 0; i < sizeof seq; i++)
		density_vote(&m, seq[i]);
	cr_expect_eq(density_cell_pid(&m), 1, "5 of 11 is the plurality, and with two counters it survives");

	/* saturates instead of wrapping */
	density_cell s = { 0 };
	for (int i = 0; i < 70000; i++)
		density_vote(&s, 7);
	cr_expect_eq(s.votes[0], 0xffff);
	density_vote(&s, 8);
	cr_expect_eq(density_cell_pid(&s), 7);
}

Test(plot_colours, merged_cells_keep_the_dominant_process)
{
	density_cell a = { 0 }, b = { 0 };
	for (int i = 0; i < 10; i++)
		density_vote(&a, 1);
	for (int i = 0; i < 4; i++)
		density_vote(&b, 2);
	for (int i = 0; i < 3; i++)
		density_vote(&b, 3);
	density_merge_votes(&a, &b);
	cr_expect_eq(density_cell_pid(&a), 1);

	density_cell c = { 0 }, d = { 0 };
	for (int i = 0; i < 3; i++)
		density_vote(&c, 1);
	for (int i = 0; i < 5; i++)
		density_vote(&d, 2);
	density_merge_votes(&c, &d);
	cr_expect_eq(density_cell_pid(&c), 2, "the merged-in cell had more");

	/* the same pid in both adds up */
	density_cell e = { 0 }, f = { 0 };
	for (int i = 0; i < 3; i++)
		density_vote(&e, 4), density_vote(&f, 4);
	for (int i = 0; i < 5; i++)
		density_vote(&f, 5);
	density_merge_votes(&e, &f);
	cr_expect_eq(density_cell_pid(&e), 4, "6 votes for 4 against 5 for 5");
}

/* Through the grid, across the coarsening that merges cells. */
Test(plot_colours, grid_cells_keep_the_dominant_process_when_coarsened)
{
	density d;
	cr_assert_eq(density_init(&d, 0), 0);
	uint64_t col0 = d.col_ns;
	/* many columns of: three IOs of pid 1, then one of pid 2 */
	for (uint64_t k = 0; k < 2 * DENSITY_MAX_COLS; k++)
		for (int i = 0; i < 4; i++)
			cr_assert_eq(density_add(&d, k * col0 + (uint64_t)i, 1000, BR_KIND_C, BR_DIR_READ,
						 i < 3 ? 1 : 2, 0), 0);
	cr_assert_eq(density_finish(&d), 0);
	cr_expect_gt(d.col_ns, col0, "the grid coarsened");
	size_t cells = 0;
	for (size_t i = 0; i < d.cap; i++)
		if (d.cells[i].key) {
			cells++;
			cr_expect_eq(density_cell_pid(&d.cells[i]), 1);
		}
	cr_expect_gt(cells, 0);
	density_free(&d);
}

/* ---- the figures --------------------------------------------------------- */

typedef struct io {
	uint64_t t;
	uint32_t rw, pid;
	uint64_t sector;
} io;

/* A trace of completions of 4 KiB each, with process names. */
static const char *write_trace(const char *name, const io *e, size_t n)
{
	static char path[4][1024];
	static int k;
	char *p = path[k++ & 3];
	snprintf(p, 1024, "%s/%s", tu_dir, name);
	br_writer *w;
	br_error err;
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, p, NULL, &err), 0);
	static const struct {
		uint32_t pid;
		const char *name;
	} procs[] = { { 100, "alpha" }, { 200, "beta" } };
	for (size_t i = 0; i < 2; i++) {
		br_event ev = { .time = T0, .action = BLK_TN_PROCESS, .pid = procs[i].pid,
				.device = BR_MKDEV(8, 0), .pdu_len = (uint16_t)strlen(procs[i].name),
				.pdu = (const uint8_t *)procs[i].name };
		cr_assert_eq(br_writer_write(w, &ev, &err), 0);
	}
	for (size_t i = 0; i < n; i++) {
		br_event ev = { .time = T0 + e[i].t, .sector = e[i].sector, .bytes = 4096,
				.action = e[i].rw | __BLK_TA_COMPLETE, .device = BR_MKDEV(8, 0),
				.pid = e[i].pid, .sequence = (uint32_t)i + 1 };
		cr_assert_eq(br_writer_write(w, &ev, &err), 0);
	}
	cr_assert_eq(br_writer_close(w, &err), 0);
	return p;
}

typedef struct image {
	png_image img;
	uint8_t *px;
} image;

static image read_png(const char *name)
{
	image im;
	memset(&im, 0, sizeof(im));
	im.img.version = PNG_IMAGE_VERSION;
	const char *path = tu_path(name);
	cr_assert(png_image_begin_read_from_file(&im.img, path), "libpng: %s", im.img.message);
	im.img.format = PNG_FORMAT_RGB;
	im.px = malloc(PNG_IMAGE_SIZE(im.img));
	cr_assert(png_image_finish_read(&im.img, NULL, im.px, 0, NULL), "libpng: %s", im.img.message);
	return im;
}

/* Which of the colours (0xRRGGBB) the pixel is, as panel_io draws them
 * over white at any density (strength f: alpha 0.6 + 0.4 f, darkened by
 * 1 - 0.35 f) or solid (legend swatches), or -1. */
static int classify(const uint8_t *p, const uint32_t *cols, int n)
{
	int best = -1;
	double bestd = 0.06;
	for (int k = 0; k < n; k++) {
		double c[3] = { (cols[k] >> 16 & 255) / 255.0, (cols[k] >> 8 & 255) / 255.0, (cols[k] & 255) / 255.0 };
		for (int s = 0; s <= 21; s++) { /* s = 21: the solid colour of a legend swatch */
			double f = s / 20.0, a = s > 20 ? 1 : 0.6 + 0.4 * f, dk = s > 20 ? 1 : 1 - 0.35 * f, d = 0;
			for (int j = 0; j < 3; j++) {
				double v = c[j] * dk * a + (1 - a) - p[j] / 255.0;
				d += v * v;
			}
			d = sqrt(d);
			if (d < bestd) {
				bestd = d;
				best = k;
			}
		}
	}
	return best;
}

typedef struct tally {
	long n[8];
	double ysum[8];
} tally;

static tally count_colours(const image *im, const uint32_t *cols, int n, unsigned y0, unsigned y1)
{
	tally t = { 0 };
	for (unsigned y = y0; y < y1 && y < im->img.height; y++)
		for (unsigned x = 0; x < im->img.width; x++) {
			int k = classify(im->px + 3 * ((size_t)y * im->img.width + x), cols, n);
			if (k >= 0) {
				t.n[k]++;
				t.ysum[k] += y;
			}
		}
	return t;
}

#define R BLK_TC_ACT(BLK_TC_READ)
#define W BLK_TC_ACT(BLK_TC_WRITE)

/* Two traces, reads and writes of each in their own offset band: the io
 * panel shows four colours, each in its band, and the legend all four. */
Test(plot_colours, comparison_keeps_reads_and_writes_of_each_trace_apart)
{
	io a[400], b[400];
	size_t na = 0, nb = 0;
	for (int i = 0; i < 200; i++) {
		uint64_t t = (uint64_t)i * 5 * MS;
		a[na++] = (io){ t, R, 100, MB_SECTOR(100) + (uint64_t)i * 8 };
		a[na++] = (io){ t + 2 * MS, W, 100, MB_SECTOR(300) + (uint64_t)i * 8 };
		b[nb++] = (io){ t + 1 * MS, R, 100, MB_SECTOR(500) + (uint64_t)i * 8 };
		b[nb++] = (io){ t + 3 * MS, W, 100, MB_SECTOR(700) + (uint64_t)i * 8 };
	}
	write_trace("a.blktrace", a, na);
	write_trace("b.blktrace", b, nb);
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "cd '%s' && '%s' -q -t a.blktrace -l A -t b.blktrace -l B --panels io -z 0:800 "
			 "-F 800x600 -o cmp.png",
			 tu_dir, tu_bin("blkreel-plot"));
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	image im = read_png("cmp.png");
	/* trace A: blue, dark for reads, sky for writes; B: vermillion and orange */
	static const uint32_t cols[] = { 0x0072B2, 0x56B4E9, 0xD55E00, 0xE69F00 };
	tally legend = count_colours(&im, cols, 4, 0, 70);
	tally panel = count_colours(&im, cols, 4, 90, im.img.height);
	static const char *const what[] = { "A read", "A write", "B read", "B write" };
	for (int k = 0; k < 4; k++) {
		cr_expect_gt(legend.n[k], 20, "legend swatch of %s: %ld pixels", what[k], legend.n[k]);
		cr_expect_gt(panel.n[k], 300, "marks of %s: %ld pixels", what[k], panel.n[k]);
	}
	/* each in its band: higher offsets are higher up (smaller y) */
	double y[4];
	for (int k = 0; k < 4; k++)
		y[k] = panel.n[k] ? panel.ysum[k] / (double)panel.n[k] : 0;
	cr_expect(y[0] > y[1] + 50 && y[1] > y[2] + 50 && y[2] > y[3] + 50,
		  "bands at y %.0f (A read, 100 MB), %.0f (A write, 300 MB), %.0f (B read), %.0f (B write)", y[0],
		  y[1], y[2], y[3]);
	free(im.px);
}

/* -P: at 200 MB alpha does five of every six IOs of a cell and beta the
 * last one; at 600 MB the other way round; at 20 MB alpha alone, so alpha
 * has the most IOs and the first colour (blue), beta the second
 * (vermillion). Each band takes the colour of its dominant process, where
 * the latest process would give the opposite. */
Test(plot_colours, by_process_colours_each_cell_by_its_dominant_process)
{
	io e[3200];
	size_t n = 0;
	for (int i = 0; i < 150; i++) {
		uint64_t t = (uint64_t)i * 6 * MS;
		for (int k = 0; k < 6; k++) /* same time and sector: one cell */
			e[n++] = (io){ t, R, k < 5 ? 100 : 200, MB_SECTOR(200) };
		for (int k = 0; k < 5; k++)
			e[n++] = (io){ t + 3 * MS, W, k < 4 ? 200 : 100, MB_SECTOR(600) };
		/* alpha alone, often: alpha has the most IOs and the first colour */
		for (int k = 0; k < 8; k++)
			e[n++] = (io){ t + 4 * MS, R, 100, MB_SECTOR(20) };
	}
	write_trace("p.blktrace", e, n);
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "cd '%s' && '%s' -q -t p.blktrace -P --panels io -z 0:800 -F 800x600 -o p.png", tu_dir,
			 tu_bin("blkreel-plot"));
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	image im = read_png("p.png");
	static const uint32_t cols[] = { 0x0072B2, 0xD55E00 }; /* the first two process channels */
	unsigned mid = im.img.height / 2; /* 400 MB: between the bands */
	tally low = count_colours(&im, cols, 2, mid, im.img.height);
	tally high = count_colours(&im, cols, 2, 90, mid);
	cr_expect_gt(low.n[0], 300, "200 MB band in alpha's colour: %ld pixels", low.n[0]);
	cr_expect_lt(low.n[1], low.n[0] / 20, "beta, the latest in each cell, hardly shows there: %ld", low.n[1]);
	cr_expect_gt(high.n[1], 300, "600 MB band in beta's colour: %ld pixels", high.n[1]);
	cr_expect_lt(high.n[0], high.n[1] / 20, "alpha hardly shows there: %ld", high.n[0]);
	free(im.px);
}
