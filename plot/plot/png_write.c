/* PNG files through libpng: the write struct set up once for every image
 * the plot writes (errors as br_errors, bytes to a FILE or to memory,
 * cairo's pixels handed over as they are), and a figure written with it.
 * Spec: https://www.w3.org/TR/png/ */
#include "png_lib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Chosen by timing every candidate on the default figure, a dense
 * 5 M-event figure and a movie-sized one (tests/bench/png_encode.c;
 * plot/README.md has the figures): zlib's fastest level with no row
 * filter came out the quickest or within 0.5 ms of it on all three and
 * the smallest of the quick ones (Z_RLE with the Up filter, the old
 * encoder's scheme, was as quick on the small figures but 10-50 % larger;
 * adaptive filters cost 2-4x the time). Figures are flat colour: level 1's
 * hash finds the repeated pixels and rows without a filter's help. Tall
 * figures (1400x4400, many panels) are the exception: Up with Z_RLE makes
 * them 40 % smaller for 15 % more time; the default figure decided. */
const plot_png_tuning plot_png_figure_tuning = {
	.level = 1,
	.strategy = Z_DEFAULT_STRATEGY,
	.filters = PNG_FILTER_NONE,
};

static void on_error(png_structp png, png_const_charp msg)
{
	pngw_sink *s = png_get_error_ptr(png);
	if (!s->rc)
		s->rc = br_error_set(s->err, s->oom ? BR_ENOMEM : BR_EINVAL, 0, s->path, -1, "libpng: %s",
				     msg);
	png_longjmp(png, 1);
}

/* Warnings are about text libpng changed (we check the keys first) or
 * settings it adjusted: nothing a user can act on. */
static void on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static png_voidp on_malloc(png_structp png, png_alloc_size_t n)
{
	void *p = malloc(n);
	if (!p)
		((pngw_sink *)png_get_mem_ptr(png))->oom = true;
	return p;
}

static void on_free(png_structp png, png_voidp p)
{
	(void)png;
	free(p);
}

static void on_write(png_structp png, png_bytep data, size_t n)
{
	pngw_sink *s = png_get_io_ptr(png);
	if (s->fp) {
		if (fwrite(data, 1, n, s->fp) != n) {
			s->rc = br_error_set(s->err, BR_ESYS, errno, s->path, -1, "write failed");
			png_error(png, "write failed");
		}
		return;
	}
	if (n > s->cap - s->len) {
		size_t cap = s->cap ? s->cap : 1 << 16;
		while (n > cap - s->len)
			cap *= 2;
		unsigned char *m = realloc(s->mem, cap);
		if (!m) {
			s->rc = br_error_set(s->err, BR_ENOMEM, 0, s->path, -1, "out of memory encoding PNG");
			png_error(png, "out of memory");
		}
		s->mem = m;
		s->cap = cap;
	}
	memcpy(s->mem + s->len, data, n);
	s->len += n;
}

/* The FILE is flushed once, by the caller. */
static void on_flush(png_structp png)
{
	(void)png;
}

int pngw_create(pngw_sink *s, png_structp *png, png_infop *info)
{
	*png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, s, on_error, on_warning, s, on_malloc,
					 on_free);
	*info = *png ? png_create_info_struct(*png) : NULL;
	if (!*info) {
		png_destroy_write_struct(png, NULL);
		return br_error_set(s->err, BR_ENOMEM, 0, s->path, -1, "out of memory for libpng");
	}
	png_set_write_fn(*png, s, on_write, on_flush);
	return 0;
}

void pngw_destroy(pngw_sink *s, png_structp *png, png_infop *info)
{
	if (*png)
		png_destroy_write_struct(png, info);
	*png = NULL;
	*info = NULL;
	free(s->mem);
	s->mem = NULL;
	s->len = s->cap = 0;
}

int pngw_check_keys(const png_text_kv *kv, size_t nkv, const char *path, br_error *err)
{
	for (size_t i = 0; i < nkv; i++) {
		size_t kl = strlen(kv[i].key);
		if (kl < 1 || kl > 79)
			return br_error_set(err, BR_EINVAL, 0, path, -1,
					    "PNG text key \"%.80s\" must be 1 to 79 bytes long", kv[i].key);
	}
	return 0;
}

void pngw_write_head(png_structp png, png_infop info, int w, int h, const png_text_kv *kv,
		     size_t nkv, const plot_png_tuning *t)
{
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	for (size_t i = 0; i < nkv; i++) {
		/* libpng copies the text; its fields are not const */
		png_text txt = { .compression = PNG_ITXT_COMPRESSION_NONE, .key = (char *)kv[i].key,
				 .text = (char *)kv[i].value, .lang = (char *)"", .lang_key = (char *)"" };
		png_set_text(png, info, &txt, 1);
	}
	png_set_filter(png, PNG_FILTER_TYPE_BASE, t->filters);
	png_set_compression_level(png, t->level);
	png_set_compression_strategy(png, t->strategy);
	png_write_info(png, info);
	/* cairo's ARGB32 is a native-endian word: B, G, R, A in memory on a
	 * little-endian host, A, R, G, B on a big-endian one */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	png_set_bgr(png);
	png_set_filler(png, 0, PNG_FILLER_AFTER);
#else
	png_set_filler(png, 0, PNG_FILLER_BEFORE);
#endif
}

void pngw_write_rows(png_structp png, const unsigned char *data, int h, int stride)
{
	for (int y = 0; y < h; y++)
		png_write_row(png, data + (size_t)y * (size_t)stride);
}

int plot_png_write(FILE *fp, const unsigned char *data, int w, int h, int stride,
		   const png_text_kv *kv, size_t nkv, const plot_png_tuning *t, const char *path,
		   br_error *err)
{
	if (w < 1 || h < 1)
		return br_error_set(err, BR_EINVAL, 0, path, -1, "cannot write a %dx%d PNG", w, h);
	int rc = pngw_check_keys(kv, nkv, path, err);
	if (rc)
		return rc;
	pngw_sink s = { .fp = fp, .path = path, .err = err };
	png_structp png;
	png_infop info;
	rc = pngw_create(&s, &png, &info);
	if (rc)
		return rc;
	if (setjmp(png_jmpbuf(png))) {
		pngw_destroy(&s, &png, &info);
		return s.rc;
	}
	pngw_write_head(png, info, w, h, kv, nkv, t ? t : &plot_png_figure_tuning);
	pngw_write_rows(png, data, h, stride);
	png_write_end(png, NULL);
	pngw_destroy(&s, &png, &info);
	if (fflush(fp) || ferror(fp))
		return br_error_set(err, BR_ESYS, errno, path, -1, "write failed");
	return 0;
}

int plot_png_write_surface(FILE *fp, cairo_surface_t *img, const png_text_kv *kv, size_t nkv,
			   const char *path, br_error *err)
{
	cairo_surface_flush(img);
	return plot_png_write(fp, cairo_image_surface_get_data(img), cairo_image_surface_get_width(img),
			      cairo_image_surface_get_height(img), cairo_image_surface_get_stride(img), kv,
			      nkv, NULL, path, err);
}
