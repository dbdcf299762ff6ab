/* png_encode.c — time blkreel-plot's PNG writer (plot/plot/png_write.c) on
 * a finished figure: the PNG is decoded once with cairo, then encoded
 * ROUNDS times to /dev/null with png_write_argb's defaults (strips on every
 * core, at most 4). Prints the fastest and the median round in ms and the
 * size the writer makes, beside the input's size.
 * Usage: png_encode FIGURE.png [ROUNDS]   (default 30) */
#include "output.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: png_encode FIGURE.png [ROUNDS]\n");
		return 2;
	}
	int rounds = argc == 3 ? atoi(argv[2]) : 30;
	if (rounds < 1)
		rounds = 1;
	cairo_surface_t *img = cairo_image_surface_create_from_png(argv[1]);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "png_encode: cannot read %s\n", argv[1]);
		return 1;
	}
	const unsigned char *data = cairo_image_surface_get_data(img);
	int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
	int stride = cairo_image_surface_get_stride(img);
	double *ms = malloc(sizeof(double) * (size_t)rounds);
	br_error err;
	FILE *null = fopen("/dev/null", "wb");
	for (int i = 0; i < rounds; i++) {
		double t = now_ms();
		if (png_write_argb(null, data, w, h, stride, NULL, 0, 0, 0, "/dev/null", &err)) {
			fprintf(stderr, "png_encode: %s\n", err.msg);
			return 1;
		}
		ms[i] = now_ms() - t;
	}
	fclose(null);
	FILE *tmp = tmpfile();
	png_write_argb(tmp, data, w, h, stride, NULL, 0, 0, 0, "tmp", &err);
	long out_size = ftell(tmp);
	fclose(tmp);
	struct stat st;
	stat(argv[1], &st);
	qsort(ms, (size_t)rounds, sizeof *ms, cmp_double);
	printf("%dx%d: encode min %.2f ms, median %.2f ms (%d rounds); %ld bytes (input %lld)\n", w, h,
	       ms[0], ms[rounds / 2], rounds, out_size, (long long)st.st_size);
	free(ms);
	cairo_surface_destroy(img);
	return 0;
}
