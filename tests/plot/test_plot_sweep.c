/* test_plot_sweep.c — blkreel-plot --sweep: the figure of the bundled
 * dbench samples (ext4 and xfs at 1 and 8 clients) draws each stack's line
 * the way its throughput goes (ext4's work MB/s falls from 1 to 8 clients,
 * xfs's grows), in the stack's colour, on every output type; the labels'
 * and options' usage errors; and blkreel-report's HTML page of a sweep
 * carrying this figure. */
#include <criterion/criterion.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(plot_sweep, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

static char samples[1024];

static const char *dbench_args(void)
{
	/* tu_sample's answer lives in one buffer: name the folder once */
	const char *s = tu_sample("");
	snprintf(samples, sizeof samples,
		 "-t '%1$sext4-dbench-1c.blktrace.gz' -l ext4:clients=1 -t '%1$sext4-dbench-8c.blktrace.gz' -l ext4:clients=8 "
		 "-t '%1$sxfs-dbench-1c.blktrace.gz' -l xfs:clients=1 -t '%1$sxfs-dbench-8c.blktrace.gz' -l xfs:clients=8",
		 s);
	return samples;
}

typedef struct image {
	png_image img;
	uint8_t *px;
} image;

static image read_png(const char *path)
{
	image im;
	memset(&im, 0, sizeof im);
	im.img.version = PNG_IMAGE_VERSION;
	cr_assert(png_image_begin_read_from_file(&im.img, path), "%s: libpng: %s", path, im.img.message);
	im.img.format = PNG_FORMAT_RGB;
	im.px = malloc(PNG_IMAGE_SIZE(im.img));
	cr_assert(png_image_finish_read(&im.img, NULL, im.px, 0, NULL), "libpng: %s", im.img.message);
	return im;
}

static bool near(const uint8_t *p, uint32_t rgb)
{
	int d = abs(p[0] - (int)(rgb >> 16 & 255)) + abs(p[1] - (int)(rgb >> 8 & 255)) + abs(p[2] - (int)(rgb & 255));
	return d < 24;
}

/* Mean row of the pixels of colour rgb in columns [x0, x1) of rows [y0, y1),
 * and how many there are. */
static double mean_row(const image *im, uint32_t rgb, unsigned x0, unsigned x1, unsigned y0, unsigned y1, long *n)
{
	double sum = 0;
	*n = 0;
	for (unsigned y = y0; y < y1; y++)
		for (unsigned x = x0; x < x1; x++)
			if (near(im->px + 3 * ((size_t)y * im->img.width + x), rgb)) {
				sum += y;
				(*n)++;
			}
	return *n ? sum / (double)*n : 0;
}

Test(plot_sweep, dbench_lines_go_the_way_each_stack_scales)
{
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' --sweep -q %s -o s.png", tu_dir, tu_bin("blkreel-plot"),
			 dbench_args());
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	free(err);
	image im = read_png(tu_path("s.png"));
	cr_expect_eq(im.img.width, 1100);
	cr_expect_eq(im.img.height, 1000);
	/* the main panel is the upper half under the title and legend: ext4
	 * (the first stack, blue) sits lower at clients=8 than at 1, xfs
	 * (orange) higher; left and right tenths of the plot area hold the
	 * points at 1 and 8 */
	unsigned w = im.img.width, top = 110, bottom = 520;
	unsigned left0 = w / 10, left1 = w / 10 + w / 8, right0 = w - w / 8 - w / 20, right1 = w - w / 40;
	long n1, n8;
	double e1 = mean_row(&im, 0x0072B2, left0, left1, top, bottom, &n1);
	double e8 = mean_row(&im, 0x0072B2, right0, right1, top, bottom, &n8);
	cr_expect(n1 > 20 && n8 > 20, "ext4's line: %ld and %ld pixels at its ends", n1, n8);
	cr_expect_gt(e8, e1, "ext4's work MB/s falls from 1 to 8 clients: rows %.0f -> %.0f", e1, e8);
	double x1 = mean_row(&im, 0xD55E00, left0, left1, top, bottom, &n1);
	double x8 = mean_row(&im, 0xD55E00, right0, right1, top, bottom, &n8);
	cr_expect(n1 > 20 && n8 > 20, "xfs's line: %ld and %ld pixels at its ends", n1, n8);
	cr_expect_lt(x8, x1, "xfs's work MB/s grows from 1 to 8 clients: rows %.0f -> %.0f", x1, x8);
	/* the factor panels below draw both stacks too */
	long nf_e, nf_x;
	mean_row(&im, 0x0072B2, 0, w, bottom + 40, im.img.height - 80, &nf_e);
	mean_row(&im, 0xD55E00, 0, w, bottom + 40, im.img.height - 80, &nf_x);
	cr_expect(nf_e > 200 && nf_x > 200, "factor panels: %ld ext4 and %ld xfs pixels", nf_e, nf_x);
	free(im.px);
}

Test(plot_sweep, svg_and_pdf_say_the_knee)
{
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' --sweep -q %s -o s.svg && '%s' --sweep -q %s -o s.pdf",
			 tu_dir, tu_bin("blkreel-plot"), dbench_args(), tu_bin("blkreel-plot"), dbench_args());
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	free(err);
	char *svg = tu_read_text(tu_path("s.svg"));
	cr_assert(svg && strstr(svg, "<svg"), "not an SVG");
	free(svg);
	char *pdf = tu_read_text(tu_path("s.pdf"));
	cr_assert(pdf && !strncmp(pdf, "%PDF-", 5), "not a PDF");
	free(pdf);
}

Test(plot_sweep, usage_errors)
{
	static const struct {
		const char *args, *says;
		int rc;
	} bad[] = {
		{ "--sweep -t A", "label every trace STACK:PARAM=VALUE", 2 },
		{ "--sweep -t A -l ext4", "label every trace STACK:PARAM=VALUE", 2 },
		{ "--sweep -t A -l ext4:clients=one", "STACK:PARAM=VALUE", 2 },
		{ "--sweep -t A -l ext4:clients=1 -t A -l ext4:threads=2", "one parameter per sweep", 2 },
		{ "--sweep -t A -l ext4:clients=1 --movie m.png", "--movie does not apply", 2 },
		{ "--sweep -t A -l ext4:clients=1 --panels io", "--panels does not apply", 2 },
		{ "--sweep -t A -l ext4:clients=1 -o s.gif", "must end in .png, .svg or .pdf", 2 },
		{ "--sweep -t A -l ext4:clients=1 -t A -l ext4:clients=1", "two traces of ext4 at clients=1", 1 },
		{ "-t A -t A -t A -t A -t A -t A -t A -t A -t A", "but for --sweep", 2 },
	};
	const char *s = tu_sample("ext4-dbench-1c.blktrace.gz");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char args[512], *err = NULL;
		snprintf(args, sizeof args, "%s", bad[i].args);
		char cmd[4096];
		size_t k = (size_t)snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -q", tu_dir, tu_bin("blkreel-plot"));
		for (char *tok = strtok(args, " "); tok; tok = strtok(NULL, " "))
			k += (size_t)snprintf(cmd + k, sizeof cmd - k, " '%s'", strcmp(tok, "A") ? tok : s);
		int rc = tu_runf(NULL, NULL, &err, "%s", cmd);
		cr_expect_eq(rc, bad[i].rc, "%s: exit %d", bad[i].args, rc);
		cr_expect(err && strstr(err, bad[i].says), "%s: %s", bad[i].args, err ? err : "");
		free(err);
	}
}

Test(plot_sweep, report_html_of_a_sweep_carries_the_figure)
{
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "cd '%2$s' && '%3$s' --no-progress -q -l ext4:clients=1 '%1$sext4-dbench-1c.blktrace.gz' "
			 "-l ext4:clients=8 '%1$sext4-dbench-8c.blktrace.gz' -l xfs:clients=1 '%1$sxfs-dbench-1c.blktrace.gz' "
			 "-l xfs:clients=8 '%1$sxfs-dbench-8c.blktrace.gz' --html s.html",
			 tu_sample(""), tu_dir, tu_bin("blkreel-report"));
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	free(err);
	char *html = tu_read_text(tu_path("s.html"));
	cr_assert(html);
	cr_expect(strstr(html, "src=\"data:image/png;base64,"), "no embedded figure");
	cr_expect(strstr(html, "Figure rendered by blkreel-plot"), "no caption");
	free(html);
}
