/* png_encode.c — time blkreel-plot's PNG writer (plot/plot/png_write.c) on
 * a finished figure against the libraries' ways of deflating the same rows:
 * the PNG is decoded once with cairo, then encoded ROUNDS times each way:
 *   - png_write_argb's defaults (deflate_runs.c strips on every core);
 *   - zlib Z_RLE on the same strips, each ended with Z_SYNC_FLUSH, on as
 *     many threads (pigz's scheme; the zlib stream a PNG needs);
 *   - libdeflate level 1 on the whole image, one thread (libdeflate cannot
 *     end a part of a stream without its final block, so it cannot split).
 * The rows are Up-filtered the same way for all three; only
 * png_write_argb's time includes the filtering. Prints the fastest
 * and the median round in ms and the deflated bytes.
 * Usage: png_encode FIGURE.png [ROUNDS]   (default 30) */
#include "output.h"

#include <cairo.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
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

/* the whole image Up-filtered as PNG rows (the first row unfiltered) */
static unsigned char *filtered(const unsigned char *d, int w, int h, int stride, size_t *len)
{
	size_t rb = 1 + 3 * (size_t)w;
	unsigned char *f = malloc(rb * (size_t)h);
	for (int y = 0; y < h; y++) {
		unsigned char *o = f + (size_t)y * rb;
		const uint32_t *s = (const uint32_t *)(d + (size_t)y * stride);
		const uint32_t *p = (const uint32_t *)(d + (size_t)(y ? y - 1 : 0) * stride);
		*o++ = y ? 2 : 0;
		for (int x = 0; x < w; x++)
			for (int k = 0; k < 3; k++) {
				int sh = 16 - 8 * k;
				*o++ = (unsigned char)((s[x] >> sh) - (y ? p[x] >> sh : 0));
			}
	}
	*len = rb * (size_t)h;
	return f;
}

typedef struct rle_job {
	const unsigned char *f;
	size_t rb, nrows;
	unsigned ns;
	atomic_uint next;
	atomic_size_t bytes;
} rle_job;

static void *rle_worker(void *arg)
{
	rle_job *j = arg;
	z_stream zs = { 0 };
	deflateInit2(&zs, 6, Z_DEFLATED, -15, 9, Z_RLE);
	size_t cap = deflateBound(&zs, j->rb * j->nrows);
	unsigned char *z = malloc(cap);
	for (unsigned i; (i = atomic_fetch_add(&j->next, 1)) < j->ns;) {
		size_t y0 = j->nrows * i / j->ns, y1 = j->nrows * (i + 1) / j->ns;
		deflateReset(&zs);
		zs.next_in = (Bytef *)j->f + y0 * j->rb;
		zs.avail_in = (uInt)((y1 - y0) * j->rb);
		zs.next_out = z;
		zs.avail_out = (uInt)cap;
		deflate(&zs, i + 1 == j->ns ? Z_FINISH : Z_SYNC_FLUSH);
		libdeflate_adler32(1, j->f + y0 * j->rb, (y1 - y0) * j->rb);
		atomic_fetch_add(&j->bytes, cap - zs.avail_out);
	}
	deflateEnd(&zs);
	free(z);
	return NULL;
}

/* zlib Z_RLE strips on threads (as png_write_argb would cut them); bytes */
static size_t zlib_rle_strips(const unsigned char *f, int w, int h)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned threads = ncpu < 1 ? 1 : ncpu > 4 ? 4 : (unsigned)ncpu;
	rle_job j = { .f = f, .rb = 1 + 3 * (size_t)w, .nrows = (size_t)h, .ns = 4 * threads };
	pthread_t tid[4];
	for (unsigned t = 1; t < threads; t++)
		pthread_create(&tid[t], NULL, rle_worker, &j);
	rle_worker(&j);
	for (unsigned t = 1; t < threads; t++)
		pthread_join(tid[t], NULL);
	return j.bytes;
}

static void report(const char *what, double *ms, int rounds, size_t bytes)
{
	qsort(ms, (size_t)rounds, sizeof *ms, cmp_double);
	printf("  %-46s min %6.2f ms, median %6.2f ms, %8zu bytes\n", what, ms[0], ms[rounds / 2],
	       bytes);
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
	printf("%dx%d figure %s, %d rounds each:\n", w, h, argv[1], rounds);
	report("png_write_argb (deflate_runs strips, threads)", ms, rounds, (size_t)out_size);

	/* the other two get the rows filtered beforehand, outside the timing
	 * (png_write_argb's time includes its filtering): in their favour */
	size_t len, bytes = 0;
	unsigned char *f = filtered(data, w, h, stride, &len);
	for (int i = 0; i < rounds; i++) {
		double t = now_ms();
		bytes = zlib_rle_strips(f, w, h);
		ms[i] = now_ms() - t;
	}
	report("zlib Z_RLE strips, sync-flushed, threads", ms, rounds, bytes);
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	size_t cap = libdeflate_zlib_compress_bound(c, len);
	unsigned char *z = malloc(cap);
	for (int i = 0; i < rounds; i++) {
		double t = now_ms();
		bytes = libdeflate_zlib_compress(c, f, len, z, cap);
		ms[i] = now_ms() - t;
	}
	report("libdeflate -1, whole image, one thread", ms, rounds, bytes);
	libdeflate_free_compressor(c);
	free(z);
	free(f);
	free(ms);
	cairo_surface_destroy(img);
	return 0;
}
