/* png_encode.c — time blkreel-plot's PNG writer (plot/plot/png_write.c,
 * libpng) on finished figures with each candidate deflate setting: zlib
 * level x strategy x row filters. Each figure is decoded once with cairo,
 * then written ROUNDS times each way to /dev/null, the candidates taken in
 * turn within a round (a drift of the machine's speed spreads over all).
 * Prints, per figure and candidate, the least and the median CPU time of
 * a round in ms and the file's bytes; the figures' own setting is marked "*".
 * Usage: png_encode [-r ROUNDS] FIGURE.png...   (default 20 rounds) */
#include "png_write.h"

#include <cairo.h>
#include <png.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* CPU time of this (single) thread: the machine may be shared, and the
 * encoder runs on one thread, so its CPU time is its cost. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef struct named {
	const char *name;
	int v;
} named;

/* Z_FILTERED is left out: below level 4 zlib's fast path ignores it
 * (the same bytes as Z_DEFAULT), above it costs as much; Sub alone, the
 * Up-less filters, lose to Up on every figure (an earlier run of the full
 * grid). */
static const named levels[] = { { "1", 1 }, { "3", 3 }, { "6", 6 } };
static const named strategies[] = { { "Z_RLE", Z_RLE }, { "Z_DEFAULT", Z_DEFAULT_STRATEGY } };
static const named filters[] = { { "none", PNG_FILTER_NONE }, { "up", PNG_FILTER_UP },
				 { "up|sub", PNG_FILTER_UP | PNG_FILTER_SUB }, { "all", PNG_ALL_FILTERS } };
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NCAND (N(levels) * N(strategies) * N(filters))

static plot_png_tuning candidate(size_t i, char *name, size_t n)
{
	const named *l = &levels[i % N(levels)], *s = &strategies[i / N(levels) % N(strategies)],
		    *f = &filters[i / N(levels) / N(strategies)];
	snprintf(name, n, "level %s, %s, filter %s", l->name, s->name, f->name);
	return (plot_png_tuning){ .level = l->v, .strategy = s->v, .filters = f->v };
}

static int write_once(FILE *fp, cairo_surface_t *img, const plot_png_tuning *t)
{
	br_error err;
	int rc = plot_png_write(fp, cairo_image_surface_get_data(img), cairo_image_surface_get_width(img),
				cairo_image_surface_get_height(img), cairo_image_surface_get_stride(img), NULL,
				0, t, "png_encode", &err);
	if (rc)
		fprintf(stderr, "png_encode: %s\n", err.msg);
	return rc;
}

int main(int argc, char **argv)
{
	int rounds = 20, opt;
	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r' || (rounds = atoi(optarg)) < 1) {
			fprintf(stderr, "usage: png_encode [-r ROUNDS] FIGURE.png...\n");
			return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "usage: png_encode [-r ROUNDS] FIGURE.png...\n");
		return 2;
	}
	FILE *null = fopen("/dev/null", "wb");
	double *ms = malloc(sizeof(double) * (size_t)rounds * NCAND), sorted[rounds];
	for (int a = optind; a < argc; a++) {
		cairo_surface_t *img = cairo_image_surface_create_from_png(argv[a]);
		if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
			fprintf(stderr, "png_encode: cannot read %s\n", argv[a]);
			return 1;
		}
		for (int r = 0; r < rounds; r++)
			for (size_t c = 0; c < NCAND; c++) {
				char name[96];
				plot_png_tuning t = candidate(c, name, sizeof(name));
				double t0 = now_ms();
				if (write_once(null, img, &t))
					return 1;
				ms[c * (size_t)rounds + (size_t)r] = now_ms() - t0;
			}
		printf("%dx%d figure %s, %d rounds:\n", cairo_image_surface_get_width(img),
		       cairo_image_surface_get_height(img), argv[a], rounds);
		for (size_t c = 0; c < NCAND; c++) {
			char name[96];
			plot_png_tuning t = candidate(c, name, sizeof(name));
			FILE *tmp = tmpfile();
			if (!tmp || write_once(tmp, img, &t))
				return 1;
			long bytes = ftell(tmp);
			fclose(tmp);
			memcpy(sorted, ms + c * (size_t)rounds, sizeof(double) * (size_t)rounds);
			qsort(sorted, (size_t)rounds, sizeof(double), cmp_double);
			bool ours = !memcmp(&t, &plot_png_figure_tuning, sizeof t);
			printf("  %c %-36s cpu min %6.2f ms, median %6.2f ms, %9ld bytes\n", ours ? '*' : ' ', name,
			       sorted[0], sorted[rounds / 2], bytes);
		}
		cairo_surface_destroy(img);
	}
	free(ms);
	fclose(null);
	return 0;
}
