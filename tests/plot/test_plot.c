/* test_plot.c — blkreel-plot end to end: CSV numbers against answers
 * worked out by hand and against a real sample, the PNG read back with
 * libpng (size, read/write colours where the IOs are, empty background
 * between), text chunks, SVG/PDF, the APNG movie through ffprobe, and bad
 * input (exit 2 for usage, 1 for data, never a half-written figure).
 * Some pieces are also tested alone, their sources compiled in here (the
 * tool's objects are not a library): the image buffers, the PNG and APNG
 * writers (libpng) against libpng's decoder and ffmpeg, and the font
 * loading with its fallback. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "testutil.h"
#include "blkreel/event.h"
#include "blkreel/writer.h"

#include "../../plot/plot/fonts.h"
#include "../../plot/plot/bigbuf.h"
#include "../../plot/plot/png_write.h"
#include <dlfcn.h>

#define MS 1000000ull
#define US 1000ull
#define T0 1000000000ull
#define R BLK_TC_ACT(BLK_TC_READ)
#define W BLK_TC_ACT(BLK_TC_WRITE)


TestSuite(plot, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

typedef struct tev {
	uint64_t t;
	unsigned code;
	uint32_t rw;
	uint64_t sector;
	uint32_t bytes;
} tev;

/* A blk_io_trace stream file of these events (device 8,0). */
static const char *write_trace_dev(const char *name, const tev *e, size_t n, const uint32_t *devs)
{
	static char path[4][1024];
	static int k;
	char *p = path[k++ & 3];
	snprintf(p, 1024, "%s/%s", tu_dir, name);
	br_writer *w;
	br_error err;
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, p, NULL, &err), 0);
	for (size_t i = 0; i < n; i++) {
		br_event ev = { .time = T0 + e[i].t, .sector = e[i].sector, .bytes = e[i].bytes,
				.action = e[i].rw | e[i].code, .device = devs ? devs[i] : BR_MKDEV(8, 0), .pid = 42,
				.sequence = (uint32_t)i };
		cr_assert_eq(br_writer_write(w, &ev, &err), 0);
	}
	cr_assert_eq(br_writer_close(w, &err), 0);
	return p;
}

static const char *write_trace(const char *name, const tev *e, size_t n)
{
	return write_trace_dev(name, e, n, NULL);
}

/* Field col of CSV line `line` (0 = header) as a double. */
static double csv_field(const char *csv, int line, int col)
{
	const char *p = csv;
	for (int i = 0; i < line; i++) {
		p = strchr(p, '\n');
		cr_assert(p, "CSV has no line %d", line);
		p++;
	}
	for (int i = 0; i < col; i++) {
		p = strchr(p, ',');
		cr_assert(p, "CSV line %d has no column %d", line, col);
		p++;
	}
	return strtod(p, NULL);
}

enum { C_START = 2, C_COVERED, C_KIND, C_RIOS, C_WIOS, C_OIOS, C_RBYTES, C_WBYTES, C_OBYTES,
       C_SEEKS, C_RMBPS, C_WMBPS, C_TMBPS, C_IOPS, C_SEEKPS, C_D2C50, C_D2C99, C_Q2C50, C_Q2C99,
       C_COMPL, C_INFL_AVG, C_INFL_MAX };

static int plot(char **out, char **err, const char *args)
{
	return tu_runf(out, NULL, err, "cd '%s' && '%s' -q %s", tu_dir, tu_bin("blkreel-plot"), args);
}

/* Four IOs, each Q, D 100 us later, C 900 us after that:
 *   read  [0,8)          at 0       first IO: no seek
 *   read  [8,16)         at 300 ms  starts where the last ended: no seek
 *   write [100000,+8)    at 1200 ms seek
 *   read  [16,24)        at 1900 ms seek (99992 sectors back)
 * An unplug at 2 s - 1 ns ends the trace, so both 1 s buckets are whole.
 * [0,1): 2 reads, 8192 B, 2 IO/s, 0 seeks. [1,2): 1 read + 1 write, 2 seeks.
 * Every D2C is 900 us, Q2C 1000 us (histogram bins: within 1/32). In flight
 * at most 1; in [0,1) for 2 x 0.9 ms = 1.8 ms of 1 s. */
static const tev four[] = {
	{ 0, __BLK_TA_QUEUE, R, 0, 4096 },
	{ 100 * US, __BLK_TA_ISSUE, R, 0, 4096 },
	{ 1000 * US, __BLK_TA_COMPLETE, R, 0, 4096 },
	{ 300 * MS, __BLK_TA_QUEUE, R, 8, 4096 },
	{ 300 * MS + 100 * US, __BLK_TA_ISSUE, R, 8, 4096 },
	{ 301 * MS, __BLK_TA_COMPLETE, R, 8, 4096 },
	{ 1200 * MS, __BLK_TA_QUEUE, W, 100000, 4096 },
	{ 1200 * MS + 100 * US, __BLK_TA_ISSUE, W, 100000, 4096 },
	{ 1201 * MS, __BLK_TA_COMPLETE, W, 100000, 4096 },
	{ 1900 * MS, __BLK_TA_QUEUE, R, 16, 4096 },
	{ 1900 * MS + 100 * US, __BLK_TA_ISSUE, R, 16, 4096 },
	{ 1901 * MS, __BLK_TA_COMPLETE, R, 16, 4096 },
	{ 2000 * MS - 1, __BLK_TA_UNPLUG_IO, 0, 0, 0 }, /* the trace ends at 2 s */
};

static char *read_text(const char *name)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", tu_dir, name);
	size_t len;
	uint8_t *b = tu_read_file(path, &len);
	if (!b)
		return NULL;
	char *s = realloc(b, len + 1);
	s[len] = 0;
	return s;
}

static bool exists(const char *name)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", tu_dir, name);
	return access(path, F_OK) == 0;
}

/* No leftover temporary files beside the outputs. */
static void assert_no_tmp(void)
{
	char *out = NULL;
	tu_runf(&out, NULL, NULL, "ls '%s' | grep -c tmp- || true", tu_dir);
	cr_expect_eq(atoi(out), 0, "temporary files left: %s", out);
	free(out);
}

Test(plot, csv_matches_hand_computed_answers)
{
	write_trace("four.blktrace", four, sizeof(four) / sizeof(four[0]));
	char *err = NULL;
	int rc = plot(NULL, &err, "-t four.blktrace -b 1 -o f.png --csv f.csv");
	cr_assert_eq(rc, 0, "stderr: %s", err);
	free(err);
	char *csv = read_text("f.csv");
	cr_assert(csv);
	cr_assert_eq(tu_count_lines(csv, ","), 3, "%s", csv); /* header + 2 buckets */
	cr_expect_float_eq(csv_field(csv, 1, C_START), 0.0, 1e-12);
	cr_expect_float_eq(csv_field(csv, 1, C_COVERED), 1.0, 1e-12);
	cr_expect_eq(csv_field(csv, 1, C_RIOS), 2);
	cr_expect_eq(csv_field(csv, 1, C_WIOS), 0);
	cr_expect_eq(csv_field(csv, 1, C_RBYTES), 8192);
	cr_expect_eq(csv_field(csv, 1, C_SEEKS), 0);
	cr_expect_float_eq(csv_field(csv, 1, C_IOPS), 2.0, 1e-9);
	cr_expect_float_eq(csv_field(csv, 1, C_RMBPS), 0.008192, 1e-9);
	cr_expect(fabs(csv_field(csv, 1, C_D2C50) - 900) / 900 < 1.0 / 32);
	cr_expect(fabs(csv_field(csv, 1, C_Q2C50) - 1000) / 1000 < 1.0 / 32);
	cr_expect_eq(csv_field(csv, 1, C_COMPL), 2);
	cr_expect_float_eq(csv_field(csv, 1, C_INFL_AVG), 0.0018, 1e-4);
	cr_expect_eq(csv_field(csv, 1, C_INFL_MAX), 1);
	cr_expect_float_eq(csv_field(csv, 2, C_START), 1.0, 1e-12);
	cr_expect_float_eq(csv_field(csv, 2, C_COVERED), 1.0, 1e-9);
	cr_expect_eq(csv_field(csv, 2, C_RIOS), 1);
	cr_expect_eq(csv_field(csv, 2, C_WIOS), 1);
	cr_expect_eq(csv_field(csv, 2, C_WBYTES), 4096);
	cr_expect_eq(csv_field(csv, 2, C_SEEKS), 2);
	cr_expect_float_eq(csv_field(csv, 2, C_SEEKPS), 2.0, 1e-6);
	cr_expect_float_eq(csv_field(csv, 2, C_TMBPS), 8192 / 1e6, 1e-6);
	cr_expect_float_eq(csv_field(csv, 2, C_IOPS), 2.0, 1e-6);
	free(csv);
	assert_no_tmp();
}

/* The real sample: IOs and sectors in the CSV add up to what blkparse-style
 * text output of the same trace shows for completions with a length. */
Test(plot, csv_totals_match_the_real_sample)
{
	char *err = NULL, *out = NULL;
	char args[2048];
	snprintf(args, sizeof(args), "-t '%s' -o s.png --csv s.csv", tu_sample("ext4-loop"));
	int rc = plot(NULL, &err, args);
	cr_assert_eq(rc, 0, "stderr: %s", err);
	free(err);
	char *csv = read_text("s.csv");
	cr_assert(csv);
	double ios = 0, bytes = 0;
	size_t lines = tu_count_lines(csv, ",");
	for (size_t i = 1; i < lines; i++) {
		ios += csv_field(csv, (int)i, C_RIOS) + csv_field(csv, (int)i, C_WIOS) +
		       csv_field(csv, (int)i, C_OIOS);
		bytes += csv_field(csv, (int)i, C_RBYTES) + csv_field(csv, (int)i, C_WBYTES) +
			 csv_field(csv, (int)i, C_OBYTES);
	}
	free(csv);
	rc = tu_runf(&out, NULL, NULL,
		     "'%s' '%s' | awk '$6==\"C\" && $9==\"+\" && $10>0 {n++; s+=$10} END {print n, s*512}'",
		     tu_bin("blkreel-parse"), tu_sample("ext4-loop"));
	cr_assert_eq(rc, 0);
	double n_ref = 0, b_ref = 0;
	cr_assert_eq(sscanf(out, "%lf %lf", &n_ref, &b_ref), 2, "%s", out);
	free(out);
	cr_expect_eq(ios, n_ref);
	cr_expect_eq(bytes, b_ref);
	cr_expect_gt(n_ref, 400);
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
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", tu_dir, name);
	cr_assert(png_image_begin_read_from_file(&im.img, path), "libpng: %s", im.img.message);
	im.img.format = PNG_FORMAT_RGB;
	im.px = malloc(PNG_IMAGE_SIZE(im.img));
	cr_assert(png_image_finish_read(&im.img, NULL, im.px, 0, NULL), "libpng: %s", im.img.message);
	return im;
}

/* The palette's read blue (0,114,178) and write orange (230,159,0), shaded
 * darker or lighter with density: classify by hue. */
static int colour_class(const uint8_t *p)
{
	int r = p[0], g = p[1], b = p[2];
	if (b > r + 60 && b > g + 20)
		return 1; /* read */
	if (r > b + 100 && g > b + 40)
		return 2; /* write */
	return 0;
}

/* Reads at 100 MB and writes at 900 MB with -z 0:1000: read-coloured
 * pixels lie low in the io panel, write-coloured ones high, and the band
 * between them stays background. */
Test(plot, png_pixels_show_reads_and_writes_where_they_are)
{
	tev e[400];
	size_t n = 0;
	for (int i = 0; i < 200; i++) {
		uint64_t t = (uint64_t)i * 5 * MS;
		e[n++] = (tev){ t, __BLK_TA_COMPLETE, R, 195312 + (uint64_t)i * 8, 4096 };
		e[n++] = (tev){ t + 1 * MS, __BLK_TA_COMPLETE, W, 1757812 + (uint64_t)i * 8, 4096 };
	}
	write_trace("rw.blktrace", e, n);
	char *err = NULL;
	int rc = plot(NULL, &err, "-t rw.blktrace --panels io -z 0:1000 -F 800x600 -o rw.png");
	cr_assert_eq(rc, 0, "stderr: %s", err);
	free(err);
	image im = read_png("rw.png");
	cr_expect_eq(im.img.width, 800);
	cr_expect_eq(im.img.height, 600);
	long ry0 = 100000, ry1 = -1, wy0 = 100000, wy1 = -1, nr = 0, nw = 0;
	for (unsigned y = 0; y < im.img.height; y++)
		for (unsigned x = 0; x < im.img.width; x++) {
			int c = colour_class(im.px + 3 * ((size_t)y * im.img.width + x));
			if (c == 1) {
				nr++;
				ry0 = y < ry0 ? y : ry0;
				ry1 = (long)y > ry1 ? (long)y : ry1;
			} else if (c == 2) {
				nw++;
				wy0 = y < wy0 ? y : wy0;
				wy1 = (long)y > wy1 ? (long)y : wy1;
			}
		}
	/* the legend has one swatch of each colour at the top: ignore the top
	 * 60 pixels by requiring many marks */
	cr_expect_gt(nr, 300, "read pixels %ld", nr);
	cr_expect_gt(nw, 300, "write pixels %ld", nw);
	/* marks: recount below the legend */
	long rmin = 100000, wmax = -1;
	for (unsigned y = 80; y < im.img.height; y++)
		for (unsigned x = 0; x < im.img.width; x++) {
			int c = colour_class(im.px + 3 * ((size_t)y * im.img.width + x));
			if (c == 1 && (long)y < rmin)
				rmin = y;
			if (c == 2 && (long)y > wmax)
				wmax = y;
		}
	cr_assert_gt(wmax, 0);
	cr_expect_gt(rmin, wmax + 100, "reads (from y=%ld) must lie well below writes (to y=%ld)", rmin, wmax);
	/* the band between is background: white or light grid grey */
	for (long y = wmax + 20; y < rmin - 20; y++)
		for (unsigned x = 200; x < 700; x++) {
			const uint8_t *p = im.px + 3 * ((size_t)y * im.img.width + x);
			cr_assert(p[0] >= 0xd0 && p[1] >= 0xd0 && p[2] >= 0xd0,
				  "pixel %u,%ld is (%d,%d,%d), expected background", x, y, p[0], p[1], p[2]);
		}
	free(im.px);
}

/* Every panel gets ink: split the figure's height in bands and check
 * non-background pixels in each of the default panels. */
Test(plot, every_panel_is_drawn_and_sizes_are_kept)
{
	char args[2048];
	const char *sizes[] = { "800x600", "3000x2000" };
	for (int k = 0; k < 2; k++) {
		snprintf(args, sizeof(args), "-t '%s' -F %s -o s%d.png", tu_sample("ext4-loop"), sizes[k], k);
		char *err = NULL;
		int rc = plot(NULL, &err, args);
		cr_assert_eq(rc, 0, "stderr: %s", err);
		free(err);
		char name[32];
		snprintf(name, sizeof(name), "s%d.png", k);
		image im = read_png(name);
		unsigned w, h;
		sscanf(sizes[k], "%ux%u", &w, &h);
		cr_expect_eq(im.img.width, w);
		cr_expect_eq(im.img.height, h);
		/* ink in ten horizontal bands of the middle of the figure */
		for (int band = 1; band < 9; band++) {
			long ink = 0;
			for (unsigned y = h * band / 10; y < h * (band + 1) / 10; y++)
				for (unsigned x = w / 10; x < w; x++) {
					const uint8_t *p = im.px + 3 * ((size_t)y * w + x);
					if (p[0] < 0xc0 || p[1] < 0xc0 || p[2] < 0xc0)
						ink++;
				}
			cr_expect_gt(ink, 0, "%s: band %d is blank", sizes[k], band);
		}
		free(im.px);
	}
}

Test(plot, png_carries_the_command_and_summary)
{
	char args[2048];
	snprintf(args, sizeof(args), "-t '%s' -l mylabel -o t.png", tu_sample("ext4-loop"));
	cr_assert_eq(plot(NULL, NULL, args), 0);
	char path[1200];
	snprintf(path, sizeof(path), "%s/t.png", tu_dir);
	size_t len;
	uint8_t *b = tu_read_file(path, &len);
	cr_assert(b);
	cr_expect(memmem(b, len, "iTXtCommand", 11), "no Command text chunk");
	cr_expect(memmem(b, len, "-l mylabel -o t.png", 19), "command line missing");
	cr_expect(memmem(b, len, "iTXtTrace 1", 11), "no per-trace summary chunk");
	cr_expect(memmem(b, len, "mylabel (", 9), "summary names the trace");
	free(b);
}

Test(plot, svg_and_pdf_outputs)
{
	char args[2048];
	snprintf(args, sizeof(args), "-t '%s' -o v.svg", tu_sample("ext4-loop"));
	cr_assert_eq(plot(NULL, NULL, args), 0);
	snprintf(args, sizeof(args), "-t '%s' -o v.pdf", tu_sample("ext4-loop"));
	cr_assert_eq(plot(NULL, NULL, args), 0);
	char *svg = read_text("v.svg"), *pdf = read_text("v.pdf");
	cr_assert(svg && pdf);
	cr_expect(strstr(svg, "<svg"), "not an SVG");
	cr_expect_eq(strncmp(pdf, "%PDF-", 5), 0, "not a PDF");
	free(svg);
	free(pdf);
}

Test(plot, apng_movie_decodes_with_ffprobe)
{
	if (!tu_have("ffprobe"))
		cr_skip_test("ffprobe not installed (apt-get install ffmpeg)");
	char args[2048];
	snprintf(args, sizeof(args), "-t '%s' -o m.png --movie movie.png --movie-frames 7",
		 tu_sample("ext4-loop"));
	char *err = NULL;
	cr_assert_eq(plot(NULL, &err, args), 0, "stderr: %s", err);
	free(err);
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
			 "stream=codec_name,width,height,nb_read_frames -of csv=p=0 '%s/movie.png'", tu_dir);
	cr_assert_eq(rc, 0, "ffprobe failed: %s", out);
	cr_expect(strstr(out, "apng"), "codec: %s", out);
	cr_expect(strstr(out, ",7"), "expected 7 frames: %s", out);
	free(out);
	/* and every frame decodes */
	rc = tu_runf(&out, NULL, NULL, "ffmpeg -v error -i '%s/movie.png' -f null - 2>&1", tu_dir);
	cr_expect_eq(rc, 0, "ffmpeg decode: %s", out);
	cr_expect(!out || !*out, "decoder complained: %s", out);
	free(out);
}

/* ---- bad input ------------------------------------------------------------ */

static void expect_fail(const char *args, int code, const char *needle)
{
	char *err = NULL;
	int rc = plot(NULL, &err, args);
	cr_expect_eq(rc, code, "%s: exit %d, stderr: %s", args, rc, err);
	cr_expect(err && strstr(err, needle), "%s: stderr lacks '%s': %s", args, needle, err);
	free(err);
}

Test(plot, usage_errors_exit_2)
{
	write_trace("four.blktrace", four, sizeof(four) / sizeof(four[0]));
	expect_fail("-t four.blktrace --panels io,bogus -o x.png", 2, "unknown panel 'bogus'");
	expect_fail("-t four.blktrace -x 5:2 -o x.png", 2, "-x 5:2");
	expect_fail("-t four.blktrace -F 10x10 -o x.png", 2, "-F 10x10");
	expect_fail("-t four.blktrace -F 99999x100 -o x.png", 2, "-F");
	expect_fail("-t four.blktrace -o x.gif", 2, "x.gif");
	expect_fail("-o x.png", 2, "no trace");
	expect_fail("-t four.blktrace -F 400x300 -o x.png", 2, "too small for 6 panels");
	expect_fail("-t four.blktrace --frobnicate", 2, "--frobnicate");
	cr_expect(!exists("x.png"));
	char *out = NULL;
	cr_expect_eq(plot(&out, NULL, "--help"), 0);
	cr_expect(out && strstr(out, "Usage: blkreel-plot"));
	free(out);
}

Test(plot, data_errors_exit_1_and_leave_no_file)
{
	expect_fail("-t no-such-file.blktrace -o x.png", 1, "no-such-file.blktrace");
	char path[1200];
	snprintf(path, sizeof(path), "%s/garbage.bin", tu_dir);
	char junk[300];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 37 + 11);
	cr_assert_eq(tu_write_file(path, junk, sizeof(junk)), 0);
	expect_fail("-t garbage.bin -o x.png", 1, "garbage.bin");
	/* a stream that breaks off in the middle of a record: file and offset */
	write_trace("four.blktrace", four, sizeof(four) / sizeof(four[0]));
	tu_runf(NULL, NULL, NULL, "cd '%s' && head -c 100 four.blktrace > cut.blktrace", tu_dir);
	expect_fail("-t cut.blktrace -o x.png", 1, "cut.blktrace: byte 96");
	cr_expect(!exists("x.png"));
	assert_no_tmp();
}

Test(plot, nothing_in_range)
{
	write_trace("four.blktrace", four, sizeof(four) / sizeof(four[0]));
	expect_fail("-t four.blktrace -x 100:200 -o e.png", 1, "no IO in this range");
	cr_expect(!exists("e.png"));
	char *err = NULL;
	cr_expect_eq(plot(NULL, &err, "-t four.blktrace -x 100:200 --allow-empty -o e.png"), 0, "%s", err);
	free(err);
	cr_expect(exists("e.png"));
}

/* Only Q events: IOs and seeks fall back to Q (the figure says so); the
 * latency and queue-depth panels cannot be drawn and asking for them is a
 * data error. */
Test(plot, trace_with_only_queue_events)
{
	tev e[] = {
		{ 0, __BLK_TA_QUEUE, W, 0, 4096 },
		{ 10 * MS, __BLK_TA_QUEUE, W, 8, 4096 },
		{ 20 * MS, __BLK_TA_QUEUE, W, 5000, 4096 },
	};
	write_trace("q.blktrace", e, 3);
	char *err = NULL;
	cr_expect_eq(plot(NULL, &err, "-t q.blktrace -b 10ms -o q.png --csv q.csv"), 0, "%s", err);
	free(err);
	char *csv = read_text("q.csv");
	cr_assert(csv);
	cr_expect(strstr(csv, ",Q,"), "io kind Q: %s", csv);
	free(csv);
	expect_fail("-t q.blktrace --panels io,lat -o q2.png", 1, "only queue (Q) events");
	cr_expect(!exists("q2.png"));
}

/* Two devices in one trace: one io panel each (the figure says so), and
 * --dev keeps only the one asked for: its CSV holds only its IOs. */
Test(plot, several_devices_are_separated_or_picked)
{
	tev e[40];
	uint32_t devs[40];
	for (int i = 0; i < 20; i++) {
		e[2 * i] = (tev){ (uint64_t)i * 10 * MS, __BLK_TA_COMPLETE, W, 1000 + (uint64_t)i * 8, 4096 };
		devs[2 * i] = BR_MKDEV(8, 0);
		e[2 * i + 1] = (tev){ (uint64_t)i * 10 * MS + 1 * MS, __BLK_TA_COMPLETE, R, 99999999, 8192 };
		devs[2 * i + 1] = BR_MKDEV(8, 16);
	}
	write_trace_dev("two.blktrace", e, 40, devs);
	char *err = NULL;
	cr_assert_eq(plot(NULL, &err, "-t two.blktrace -F 800x700 -o two.png"), 0, "%s", err);
	free(err);
	image im = read_png("two.png");
	cr_expect_eq(im.img.width, 800);
	free(im.px);
	cr_assert_eq(plot(NULL, &err, "-t two.blktrace --dev 8,16 -b 1 -o one.png --csv one.csv"), 0, "%s", err);
	free(err);
	char *csv = read_text("one.csv");
	cr_assert(csv);
	cr_expect_eq(csv_field(csv, 1, C_RIOS), 20, "%s", csv);
	cr_expect_eq(csv_field(csv, 1, C_WIOS), 0, "%s", csv);
	cr_expect_eq(csv_field(csv, 1, C_RBYTES), 20 * 8192);
	free(csv);
	expect_fail("-t two.blktrace --dev 8,99 -o none.png", 1, "no IO in this range");
}

/* An empty file: a data error, or with --allow-empty a figure that says so. */
Test(plot, empty_trace_file)
{
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "cd '%s' && : > empty.blktrace", tu_dir), 0);
	expect_fail("-t empty.blktrace -o e.png", 1, "empty.blktrace");
	cr_expect(!exists("e.png"));
	char *err = NULL;
	cr_expect_eq(plot(NULL, &err, "-t empty.blktrace --allow-empty -F 800x600 -o e.png"), 0, "%s", err);
	free(err);
	image im = read_png("e.png");
	cr_expect_eq(im.img.height, 600);
	free(im.px);
}

/* The other options each produce a complete figure of the size asked. */
Test(plot, option_combinations_render)
{
	const char *combos[] = {
		"-P --panels io,tput,stats",
		"--stack -t '%1$s' -l again",
		"-r 10ms --no-panels lat,qd",
		"--dpi 150 -T 'A title with spaces'",
		"-x 50ms:120ms -z 0:200",
		"--panels qd,lat,io",
	};
	for (size_t i = 0; i < sizeof(combos) / sizeof(combos[0]); i++) {
		char extra[512], args[4096];
		snprintf(extra, sizeof(extra), combos[i], tu_sample("ext4-loop"));
		snprintf(args, sizeof(args), "-t '%s' %s -F 900x700 -o c%zu.png", tu_sample("ext4-loop"), extra, i);
		char *err = NULL;
		int rc = plot(NULL, &err, args);
		cr_expect_eq(rc, 0, "%s: exit %d: %s", args, rc, err);
		free(err);
		if (rc)
			continue;
		char name[32];
		snprintf(name, sizeof(name), "c%zu.png", i);
		image im = read_png(name);
		cr_expect_eq(im.img.width, 900, "%s", args);
		cr_expect_eq(im.img.height, 700, "%s", args);
		free(im.px);
	}
}

/* The io panel's frame: the longest vertical run of axis-grey pixels is
 * its left axis (x, top, bottom); the panel's right edge is where the
 * bottom axis line ends. */
static void find_io_frame(const image *im, unsigned *x0, unsigned *x1, unsigned *y0, unsigned *y1)
{
	unsigned w = im->img.width, h = im->img.height, best = 0;
	for (unsigned x = 0; x < w / 3; x++) {
		unsigned run = 0;
		for (unsigned y = 0; y < h; y++) {
			const uint8_t *p = im->px + 3 * ((size_t)y * w + x);
			if (p[0] == 0x66 && p[1] == 0x66 && p[2] == 0x66) {
				run++;
				if (run > best) {
					best = run;
					*x0 = x;
					*y1 = y;
					*y0 = y + 1 - run;
				}
			} else {
				run = 0;
			}
		}
	}
	cr_assert_gt(best, 100, "no io panel axis found");
	/* the bottom axis: the row near the run's end with the most grey */
	unsigned best_row = *y1, best_n = 0;
	for (unsigned y = *y1 > 3 ? *y1 - 3 : 0; y <= *y1 + 3 && y < h; y++) {
		unsigned n = 0, last = *x0;
		for (unsigned x = *x0; x < w; x++) {
			const uint8_t *p = im->px + 3 * ((size_t)y * w + x);
			if (p[0] == 0x66 && p[1] == 0x66 && p[2] == 0x66) {
				n++;
				last = x;
			}
		}
		if (n > best_n) {
			best_n = n;
			best_row = y;
			*x1 = last;
		}
	}
	cr_assert_gt(best_n, 100, "no bottom axis found");
	*y1 = best_row;
}

static int class_near(const image *im, double fx, double fy)
{
	int found = 0;
	for (int dy = -3; dy <= 3; dy++)
		for (int dx = -1; dx <= 4; dx++) {
			long x = lround(fx) + dx, y = lround(fy) + dy;
			if (x < 0 || y < 0 || x >= (long)im->img.width || y >= (long)im->img.height)
				continue;
			int c = colour_class(im->px + 3 * ((size_t)y * im->img.width + (size_t)x));
			if (c)
				found |= 1 << c;
		}
	return found;
}

/* One read at 250 MB at 0.5 s, one write at 750 MB at 1.5 s, the trace
 * ending at 2 s; -z 0:1000. The pixels where they must be drawn have the
 * read and write colours; the point half-way between stays background. */
Test(plot, png_pixel_of_a_known_io)
{
	tev e[] = {
		{ 0, __BLK_TA_UNPLUG_IO, 0, 0, 0 },
		{ 500 * MS, __BLK_TA_COMPLETE, R, 488281, 4096 },   /* 250.0 MB */
		{ 1500 * MS, __BLK_TA_COMPLETE, W, 1464843, 4096 }, /* 750.0 MB */
		{ 2000 * MS, __BLK_TA_UNPLUG_IO, 0, 0, 0 },
	};
	write_trace("known.blktrace", e, 4);
	char *err = NULL;
	cr_assert_eq(plot(NULL, &err, "-t known.blktrace --panels io -z 0:1000 -F 800x600 -o k.png"), 0,
		     "%s", err);
	free(err);
	image im = read_png("k.png");
	unsigned x0 = 0, x1 = 0, y0 = 0, y1 = 0;
	find_io_frame(&im, &x0, &x1, &y0, &y1);
	double w = x1 - x0, h = y1 - y0;
	double rx = x0 + 0.25 * w, ry = y1 - 0.25 * h, wx = x0 + 0.75 * w, wy = y1 - 0.75 * h;
	cr_expect(class_near(&im, rx, ry) & 2, "no read colour at %.0f,%.0f (frame %u..%u x %u..%u)", rx, ry,
		  x0, x1, y0, y1);
	cr_expect(class_near(&im, wx, wy) & 4, "no write colour at %.0f,%.0f", wx, wy);
	cr_expect_eq(class_near(&im, x0 + 0.5 * w, y1 - 0.5 * h), 0, "marks where no IO is");
	cr_expect_eq(class_near(&im, rx, wy), 0, "marks where no IO is");
	free(im.px);
}

/* A late time window keeps fine buckets (series start at the window, not
 * at the trace start) and counts only what is inside: -x 1.1:1.95 holds the
 * write completed at 1.201 s and the read completed at 1.901 s. */
Test(plot, late_window_keeps_fine_buckets)
{
	write_trace("four.blktrace", four, sizeof(four) / sizeof(four[0]));
	char *err = NULL;
	cr_assert_eq(plot(NULL, &err, "-t four.blktrace -x 1.1:1.95 -b 50ms -o w.png --csv w.csv"), 0, "%s", err);
	free(err);
	char *csv = read_text("w.csv");
	cr_assert(csv);
	size_t lines = tu_count_lines(csv, ",");
	cr_expect_geq(lines, 16, "%s", csv); /* about 0.85 s of 50 ms buckets */
	cr_expect_float_eq(csv_field(csv, 1, C_START), 1.1, 1e-9);
	cr_expect_float_eq(csv_field(csv, 1, C_COVERED), 0.05, 1e-9);
	cr_expect_float_eq(csv_field(csv, 3, C_START), 1.2, 1e-9);
	cr_expect_eq(csv_field(csv, 3, C_WIOS), 1, "%s", csv);
	double r = 0, w = 0;
	for (size_t i = 1; i < lines; i++) {
		r += csv_field(csv, (int)i, C_RIOS);
		w += csv_field(csv, (int)i, C_WIOS);
	}
	cr_expect_eq(r, 1);
	cr_expect_eq(w, 1);
	free(csv);
}

/* A foreign format through the shared importers: blkparse's text output of
 * the real sample plots to the same totals as the binary trace. */
Test(plot, blkparse_text_input_gives_the_same_totals)
{
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' -q '%s' > loop.txt", tu_dir,
			     tu_bin("blkreel-parse"), tu_sample("ext4-loop")), 0);
	char args[2048];
	snprintf(args, sizeof(args), "-t '%s' -b 10ms -o a.png --csv a.csv", tu_sample("ext4-loop"));
	cr_assert_eq(plot(NULL, NULL, args), 0);
	char *err = NULL;
	cr_assert_eq(plot(NULL, &err, "-t loop.txt --input-format blkparse -b 10ms -o b.png --csv b.csv"), 0,
		     "%s", err);
	free(err);
	char *a = read_text("a.csv"), *b = read_text("b.csv");
	cr_assert(a && b);
	size_t n = tu_count_lines(a, ",");
	cr_expect_eq(tu_count_lines(b, ","), n);
	for (size_t i = 1; i < n; i++)
		for (int col = C_RIOS; col <= C_SEEKS; col++)
			cr_expect_eq(csv_field(a, (int)i, col), csv_field(b, (int)i, col), "line %zu col %d", i, col);
	free(a);
	free(b);
}

/* Image buffers, small (malloc) and large (huge-page mapping): zeroed,
 * writable end to end; a surface over one has cairo's stride and is freed
 * with it. */
Test(plot, bigbuf_is_zeroed_and_sized)
{
	static const size_t sizes[] = { 0, 1, 4096, (1 << 20) - 1, 1 << 20, (5 << 20) + 12345, 4 << 20 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		unsigned char *p = bigbuf_alloc(n);
		cr_assert(p, "bigbuf_alloc(%zu)", n);
		for (size_t k = 0; k < n; k += 4093)
			cr_assert_eq(p[k], 0);
		if (n) {
			cr_assert_eq(p[n - 1], 0);
			memset(p, 0xa5, n);
		}
		bigbuf_free(p, n);
	}
	bigbuf_free(NULL, 1 << 22);
	cairo_surface_t *s = bigbuf_surface(1100, 1300);
	cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	cr_expect_eq(cairo_image_surface_get_stride(s), cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, 1100));
	cr_expect_eq(((uint32_t *)cairo_image_surface_get_data(s))[1100 * 1300 - 1], 0);
	cairo_t *cr = cairo_create(s);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	cr_expect_eq(((uint32_t *)cairo_image_surface_get_data(s))[1100 * 1300 - 1], 0xffffffffu);
	cairo_surface_destroy(s);
	cairo_surface_t *bad = bigbuf_surface(-1, 10);
	cr_expect_neq(cairo_surface_status(bad), CAIRO_STATUS_SUCCESS);
	cairo_surface_destroy(bad);
}

/* An opaque ARGB32 test image with what the encoder must get right: flat
 * areas (runs), rows repeating the one above (Up gives zeros), noise (no
 * runs at all), a colour ramp, a row differing from the one above in one
 * pixel. stride > 4 w, as cairo's may be. */
static unsigned char *test_argb(int w, int h, int stride)
{
	unsigned char *d = calloc((size_t)stride * h, 1);
	uint32_t x32 = 2463534242u;
	for (int y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)(d + (size_t)y * stride);
		for (int x = 0; x < w; x++) {
			uint32_t v;
			if (y % 7 == 3) {
				x32 ^= x32 << 13;
				x32 ^= x32 >> 17;
				x32 ^= x32 << 5;
				v = x32;
			} else if (y % 7 == 5) {
				v = (uint32_t)(x * 255 / (w > 1 ? w - 1 : 1)) << 16 | (uint32_t)y << 8 | 0x40;
			} else if (y % 7 == 6) {
				v = x == w / 2 ? 0x123456 : 0xffffff;
			} else {
				v = x < w / 3 ? 0x0072b2 : 0xffffff;
			}
			row[x] = 0xff000000u | (v & 0xffffff);
		}
	}
	return d;
}

/* Written with tuning t (NULL: the figures'), read back by libpng: the
 * exact pixels and the text. */
static void check_png_roundtrip(int w, int h, const plot_png_tuning *t)
{
	int stride = w * 4 + 12;
	unsigned char *d = test_argb(w, h, stride);
	const png_text_kv kv[] = { { "Software", "test" }, { "Trace 1", "\xc2\xb5s and more" } };
	char path[1200];
	snprintf(path, sizeof(path), "%s/enc-%dx%d-%d.png", tu_dir, w, h, t ? t->filters : -1);
	FILE *fp = fopen(path, "wb");
	cr_assert(fp);
	br_error err = { 0 };
	cr_assert_eq(plot_png_write(fp, d, w, h, stride, kv, 2, t, path, &err), 0, "%s", err.msg);
	cr_assert_eq(fclose(fp), 0);

	png_image im = { .version = PNG_IMAGE_VERSION };
	cr_assert(png_image_begin_read_from_file(&im, path), "libpng: %s", im.message);
	cr_assert_eq(im.width, (unsigned)w);
	cr_assert_eq(im.height, (unsigned)h);
	im.format = PNG_FORMAT_RGB;
	uint8_t *px = malloc(PNG_IMAGE_SIZE(im));
	cr_assert(png_image_finish_read(&im, NULL, px, 0, NULL), "libpng: %s", im.message);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t v = ((const uint32_t *)(d + (size_t)y * stride))[x];
			const uint8_t *p = px + ((size_t)y * w + x) * 3;
			cr_assert(p[0] == (uint8_t)(v >> 16) && p[1] == (uint8_t)(v >> 8) && p[2] == (uint8_t)v,
				  "%dx%d: pixel %d,%d is %02x%02x%02x, not %06x", w, h, x, y,
				  p[0], p[1], p[2], v & 0xffffff);
		}
	free(px);

	/* the text through libpng's chunk reader, which checks every CRC */
	fp = fopen(path, "rb");
	cr_assert(fp);
	png_structp rd = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(rd);
	cr_assert(rd && info);
	if (setjmp(png_jmpbuf(rd)))
		cr_assert_fail("libpng failed reading %s", path);
	png_init_io(rd, fp);
	png_read_png(rd, info, PNG_TRANSFORM_IDENTITY, NULL);
	png_textp txt;
	int ntxt = 0;
	png_get_text(rd, info, &txt, &ntxt);
	cr_assert_eq(ntxt, 2);
	cr_expect_str_eq(txt[0].key, "Software");
	cr_expect_str_eq(txt[0].text, "test");
	cr_expect_eq(txt[1].compression, PNG_ITXT_COMPRESSION_NONE);
	cr_expect_str_eq(txt[1].key, "Trace 1");
	cr_expect_str_eq(txt[1].text, "\xc2\xb5s and more");
	png_destroy_read_struct(&rd, &info, NULL);
	fclose(fp);
	free(d);
}

/* The figures' tuning, and every row filter libpng may pick (the filter
 * bytes and cairo's stride must not leak into the pixels); sizes down to
 * one pixel, and rows wide enough to span several of zlib's buffers. */
Test(plot, png_writer_decodes_to_the_exact_pixels)
{
	static const int filters[] = { PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP, PNG_FILTER_AVG,
				       PNG_FILTER_PAETH, PNG_ALL_FILTERS };
	check_png_roundtrip(301, 97, NULL);
	check_png_roundtrip(5, 3, NULL);
	check_png_roundtrip(1, 1, NULL);
	check_png_roundtrip(4000, 40, NULL);
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		plot_png_tuning t = { .level = 1, .strategy = Z_RLE, .filters = filters[i] };
		check_png_roundtrip(301, 97, &t);
	}
}

/* A write that fails (a full device) comes back as BR_ESYS naming the
 * file, not as a libpng abort. */
Test(plot, png_writer_reports_a_failed_write)
{
	FILE *fp = fopen("/dev/full", "wb");
	if (!fp)
		cr_skip_test("no /dev/full");
	setvbuf(fp, NULL, _IONBF, 0);
	unsigned char *d = test_argb(64, 64, 64 * 4);
	br_error err = { 0 };
	cr_expect_eq(plot_png_write(fp, d, 64, 64, 64 * 4, NULL, 0, NULL, "full.png", &err), BR_ESYS);
	cr_expect_eq(err.sys_errno, ENOSPC, "%d", err.sys_errno);
	cr_expect_str_eq(err.file, "full.png");
	fclose(fp);
	free(d);
}

/* The same image through an external decoder: ffmpeg decodes every row. */
Test(plot, png_encoder_output_decodes_with_ffmpeg)
{
	if (!tu_have("ffmpeg"))
		cr_skip_test("ffmpeg not installed");
	check_png_roundtrip(640, 480, NULL);
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL, "cd '%s' && ffmpeg -v error -i enc-640x480--1.png -f rawvideo "
			 "-pix_fmt rgb24 - | cksum", tu_dir);
	cr_assert_eq(rc, 0);
	unsigned char *d = test_argb(640, 480, 640 * 4 + 12);
	size_t n = 640 * 480 * 3;
	unsigned char *rgb = malloc(n);
	for (size_t i = 0; i < 640 * 480; i++) {
		uint32_t v = ((const uint32_t *)(d + (i / 640) * (640 * 4 + 12)))[i % 640];
		rgb[3 * i] = (unsigned char)(v >> 16);
		rgb[3 * i + 1] = (unsigned char)(v >> 8);
		rgb[3 * i + 2] = (unsigned char)v;
	}
	cr_assert_eq(tu_write_file(tu_path("want.rgb"), rgb, n), 0);
	char *want = NULL;
	cr_assert_eq(tu_runf(&want, NULL, NULL, "cksum < '%s'", tu_path("want.rgb")), 0);
	cr_expect_str_eq(out, want);
	free(out);
	free(want);
	free(rgb);
	free(d);
}

/* The movie's writer: three frames (the first as IDAT, the others as
 * fdAT), decoded by ffmpeg to exactly the pixels; the sequence numbers
 * run 0, 1, 2... over fcTL and fdAT chunks together, as the spec wants. */
static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

Test(plot, apng_writer_frames_decode_exactly)
{
	enum { FW = 203, FH = 61, FRAMES = 3 };
	int stride = FW * 4 + 8;
	FILE *fp = fopen(tu_path("frames.png"), "wb");
	cr_assert(fp);
	br_error err = { 0 };
	const png_text_kv kv = { "Software", "test" };
	plot_apng *a;
	cr_assert_eq(plot_apng_open(&a, fp, FW, FH, FRAMES, &kv, 1, "frames.png", &err), 0, "%s", err.msg);
	size_t n = (size_t)FW * FH * 3;
	unsigned char *want = malloc(n * FRAMES);
	for (unsigned f = 0; f < FRAMES; f++) {
		unsigned char *d = test_argb(FW, FH, stride);
		/* each frame differs: a block of colour moves across */
		for (int y = 10; y < 30; y++)
			for (int x = 0; x < 40; x++)
				((uint32_t *)(d + (size_t)y * stride))[x + 50 * (int)f] = 0xffd55e00u;
		for (size_t i = 0; i < (size_t)FW * FH; i++) {
			uint32_t v = ((const uint32_t *)(d + (i / FW) * stride))[i % FW];
			want[f * n + 3 * i] = (unsigned char)(v >> 16);
			want[f * n + 3 * i + 1] = (unsigned char)(v >> 8);
			want[f * n + 3 * i + 2] = (unsigned char)v;
		}
		cr_assert_eq(plot_apng_frame(a, d, stride, 1, 10, &err), 0, "%s", err.msg);
		free(d);
	}
	cr_expect_eq(plot_apng_frame(a, want, stride, 1, 10, &err), BR_EINVAL, "a frame too many");
	cr_assert_eq(plot_apng_close(a, &err), 0, "%s", err.msg);
	cr_assert_eq(fclose(fp), 0);

	/* the chunks, in order, with their sequence numbers */
	size_t len;
	unsigned char *png = tu_read_file(tu_path("frames.png"), &len);
	cr_assert(png && len > 8);
	char order[64] = "";
	uint32_t want_seq = 0;
	for (size_t at = 8; at + 12 <= len; at += 12 + get32(png + at)) {
		const char *type = (const char *)png + at + 4;
		if (!memcmp(type, "fcTL", 4) || !memcmp(type, "fdAT", 4)) {
			cr_expect_eq(get32(png + at + 8), want_seq, "%.4s at %zu", type, at);
			want_seq++;
		}
		/* one letter a chunk kind, runs of IDAT or fdAT counted once */
		char c = !memcmp(type, "IHDR", 4) ? 'H' : !memcmp(type, "iTXt", 4) ? 't'
			 : !memcmp(type, "acTL", 4) ? 'a' : !memcmp(type, "fcTL", 4) ? 'f'
			 : !memcmp(type, "IDAT", 4) ? 'I' : !memcmp(type, "fdAT", 4) ? 'd'
			 : !memcmp(type, "IEND", 4) ? 'E' : '?';
		size_t o = strlen(order);
		if ((c == 'I' || c == 'd') && o && order[o - 1] == c)
			continue;
		cr_assert_lt(o, sizeof(order) - 1);
		order[o] = c;
	}
	cr_expect_str_eq(order, "HtafIfdfdE");
	free(png);

	if (!tu_have("ffmpeg")) {
		free(want);
		cr_skip_test("ffmpeg not installed");
	}
	cr_assert_eq(tu_write_file(tu_path("want.rgb"), want, n * FRAMES), 0);
	char *got = NULL, *exp = NULL;
	cr_assert_eq(tu_runf(&got, NULL, NULL, "cd '%s' && ffmpeg -v error -i frames.png -f rawvideo "
			     "-pix_fmt rgb24 - | cksum", tu_dir), 0);
	cr_assert_eq(tu_runf(&exp, NULL, NULL, "cksum < '%s'", tu_path("want.rgb")), 0);
	cr_expect_str_eq(got, exp);
	free(got);
	free(exp);
	free(want);
}

/* Closed short of its frames, the movie is an error, not a file that
 * looks finished. */
Test(plot, apng_writer_refuses_a_short_movie)
{
	FILE *fp = fopen(tu_path("short.png"), "wb");
	cr_assert(fp);
	br_error err = { 0 };
	plot_apng *a;
	cr_assert_eq(plot_apng_open(&a, fp, 4, 4, 2, NULL, 0, "short.png", &err), 0, "%s", err.msg);
	unsigned char *d = test_argb(4, 4, 16);
	cr_assert_eq(plot_apng_frame(a, d, 16, 1, 10, &err), 0, "%s", err.msg);
	cr_expect_eq(plot_apng_close(a, &err), BR_EINVAL);
	cr_expect(strstr(err.msg, "1 of its 2"), "%s", err.msg);
	fclose(fp);
	free(d);
}

Test(plot, png_writer_rejects_bad_text_keys)
{
	unsigned char px[4] = { 0, 0, 0, 0xff };
	const png_text_kv kv = { "", "empty key" };
	FILE *fp = fopen(tu_path("bad.png"), "wb");
	cr_assert(fp);
	br_error err = { 0 };
	cr_expect_eq(plot_png_write(fp, px, 1, 1, 4, &kv, 1, NULL, "bad.png", &err), BR_EINVAL);
	cr_expect(strstr(err.msg, "1 to 79"), "%s", err.msg);
	plot_apng *a;
	cr_expect_eq(plot_apng_open(&a, fp, 1, 1, 1, &kv, 1, "bad.png", &err), BR_EINVAL);
	fclose(fp);
}

/* cairo's font caches and fontconfig's, as the tool gives them back. */
static void release_fonts(plot_fonts *f)
{
	plot_fonts_close(f);
	cairo_debug_reset_static_data();
	void (*fc_fini)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "FcFini");
	if (fc_fini)
		fc_fini();
}

/* Dark pixels drawn by "Hg" in face k: text was drawn. */
static int ink_of(const plot_fonts *f, bool bold, double *width)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 80, 40);
	cairo_t *cr = cairo_create(s);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	plot_fonts_setup(f, cr);
	plot_fonts_use(f, cr, 20, bold);
	cairo_text_extents_t e;
	cairo_text_extents(cr, "Hg", &e);
	*width = e.x_advance;
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_move_to(cr, 5, 30);
	cairo_show_text(cr, "Hg");
	cr_assert_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS, "%s", cairo_status_to_string(cairo_status(cr)));
	cairo_surface_flush(s);
	int dark = 0;
	const unsigned char *d = cairo_image_surface_get_data(s);
	for (int y = 0; y < 40; y++)
		for (int x = 0; x < 80; x++)
			dark += (((const uint32_t *)(d + (size_t)y * cairo_image_surface_get_stride(s)))[x] & 0xff) < 128;
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	return dark;
}

/* The files where the distribution keeps them: no fontconfig; bold is
 * wider and darker than regular. */
Test(plot, fonts_load_from_the_files)
{
	plot_fonts f;
	plot_fonts_open(&f, NULL);
	if (f.fontconfig) {
		release_fonts(&f);
		cr_skip_test("no DejaVu Sans files in the usual folders");
	}
	cr_expect_neq(f.dir[0], 0);
	double wr, wb;
	int ir = ink_of(&f, false, &wr), ib = ink_of(&f, true, &wb);
	cr_expect_gt(ir, 20);
	cr_expect_gt(ib, ir);
	cr_expect_gt(wb, wr);
	release_fonts(&f);
}

/* No folder holds the files: cairo's toy face through fontconfig stands
 * in, and text is still drawn. */
Test(plot, fonts_fall_back_to_fontconfig)
{
	const char *const dirs[] = { "/nonexistent/fonts", tu_dir, NULL };
	plot_fonts f;
	plot_fonts_open(&f, dirs);
	cr_expect(f.fontconfig);
	cr_expect_eq(f.ft, NULL);
	cr_expect_eq(f.dir[0], 0);
	double w;
	cr_expect_gt(ink_of(&f, false, &w), 20);
	cr_expect_gt(w, 0);
	release_fonts(&f);
}

/* The io panel is worked out in bands of rows, one per CPU we may run on
 * (panel_io.c): pinned to one CPU (one band) and free (one band per CPU)
 * the figures must have the same pixels, for reads and writes, processes
 * (-P) and a comparison of two traces. */
Test(plot, io_panel_bands_give_the_same_pixels)
{
	char *out = NULL;
	tu_runf(&out, NULL, NULL, "nproc");
	int ncpu = out ? atoi(out) : 0;
	free(out);
	if (ncpu < 2)
		cr_skip_test("one CPU: the io panel is one band anyway");
	/* tu_sample's answer is overwritten by its next call */
	char a[1200], b[1200], c[1200];
	snprintf(a, sizeof a, "%s", tu_sample("ext4-fio-rand-4t.blktrace.gz"));
	snprintf(b, sizeof b, "%s", tu_sample("ext4-dbench-8c.blktrace.gz"));
	snprintf(c, sizeof c, "%s", tu_sample("xfs-dbench-8c.blktrace.gz"));
	const char *figs[][3] = { /* trace, options, second trace */
		{ a, "", "" },
		{ b, "-P", "" },
		{ a, "-t ", c },
	};
	for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++) {
		const char *path = figs[f][0], *extra = figs[f][1], *second = figs[f][2];
		char *err = NULL;
		int rc = tu_runf(NULL, NULL, &err, "cd '%s' && taskset -c 0 '%s' -q -t '%s' %s%s -o one.png",
				 tu_dir, tu_bin("blkreel-plot"), path, extra, second);
		cr_assert_eq(rc, 0, "pinned: %s", err);
		free(err);
		err = NULL;
		rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' -q -t '%s' %s%s -o all.png", tu_dir,
			     tu_bin("blkreel-plot"), path, extra, second);
		cr_assert_eq(rc, 0, "%s", err);
		free(err);
		image x = read_png("one.png"), y = read_png("all.png");
		cr_assert_eq(x.img.width, y.img.width);
		cr_assert_eq(x.img.height, y.img.height);
		size_t diff = 0, size = PNG_IMAGE_SIZE(x.img);
		for (size_t i = 0; i < size; i++)
			diff += x.px[i] != y.px[i];
		cr_expect_eq(diff, 0, "figure %zu: %zu bytes of pixels differ", f, diff);
		free(x.px);
		free(y.px);
		png_image_free(&x.img);
		png_image_free(&y.img);
	}
}

/* The marks are binned on the reading thread when the input is one file of
 * raw records and on a thread of their own otherwise (a compressed file):
 * the same trace gives the same pixels and the same CSV either way, also
 * with marks coloured by process. */
Test(plot, marks_on_the_reading_thread_give_the_same_figure)
{
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' -q '%s' -o one.bin", tu_dir,
			     tu_bin("blkreel-parse"), tu_sample("ext4-dbench-8c.blktrace.gz")), 0);
	for (int by_process = 0; by_process < 2; by_process++) {
		char args[2048];
		const char *pf = by_process ? "-P" : "";
		snprintf(args, sizeof(args), "-t '%s' -l x %s -o gz.png --csv gz.csv",
			 tu_sample("ext4-dbench-8c.blktrace.gz"), pf);
		cr_assert_eq(plot(NULL, NULL, args), 0);
		snprintf(args, sizeof(args), "-t one.bin -l x %s -o raw.png --csv raw.csv", pf);
		char *err = NULL;
		cr_assert_eq(plot(NULL, &err, args), 0, "%s", err);
		free(err);
		char *a = read_text("gz.csv"), *b = read_text("raw.csv");
		cr_assert(a && b);
		cr_expect_str_eq(a, b);
		free(a);
		free(b);
		image x = read_png("gz.png"), y = read_png("raw.png");
		cr_assert_eq(x.img.width, y.img.width);
		cr_assert_eq(x.img.height, y.img.height);
		size_t diff = 0, ink = 0;
		for (size_t i = 0; i < PNG_IMAGE_SIZE(x.img); i++) {
			diff += x.px[i] != y.px[i];
			ink += x.px[i] != 255;
		}
		cr_expect_eq(diff, 0, "%zu bytes differ (-P: %d)", diff, by_process);
		cr_expect_gt(ink, 10000, "the figure has marks");
		free(x.px);
		free(y.px);
	}
}
