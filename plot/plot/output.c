/* The figure outputs as a table: PNG through libpng (for text chunks),
 * SVG and PDF through cairo's vector surfaces. */
#include "output.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <png.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static cairo_surface_t *png_create(const char *tmp, unsigned w, unsigned h, double dpi)
{
	(void)tmp;
	(void)dpi;
	return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
}

/* libpng reports errors through longjmp; keep it inside this function. */
int png_write_surface(FILE *fp, cairo_surface_t *img, const png_text_kv *kv, size_t nkv,
		      const char *path, br_error *err)
{
	cairo_surface_flush(img);
	int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
	int stride = cairo_image_surface_get_stride(img);
	const unsigned char *data = cairo_image_surface_get_data(img);
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	unsigned char *row = malloc((size_t)w * 3);
	png_text *txt = calloc(nkv ? nkv : 1, sizeof(png_text));
	volatile int rc = 0;
	if (!png || !info || !row || !txt) {
		rc = br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory writing PNG");
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "writing PNG failed");
		goto out;
	}
	png_init_io(png, fp);
	/* figures are mostly flat colour: run-length deflate after the Up
	 * filter is several times faster than level 6 and nearly as small */
	png_set_compression_level(png, 6);
	png_set_compression_strategy(png, Z_RLE);
	png_set_filter(png, 0, PNG_FILTER_UP);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	for (size_t i = 0; i < nkv; i++) {
		txt[i].compression = PNG_ITXT_COMPRESSION_NONE;
		txt[i].key = (char *)kv[i].key;
		txt[i].text = (char *)kv[i].value;
		txt[i].text_length = 0;
		txt[i].itxt_length = strlen(kv[i].value);
		txt[i].lang = (char *)"";
		txt[i].lang_key = (char *)"";
	}
	if (nkv)
		png_set_text(png, info, txt, (int)nkv);
	png_write_info(png, info);
	for (int y = 0; y < h; y++) {
		const uint32_t *src = (const uint32_t *)(data + (size_t)y * stride);
		for (int x = 0; x < w; x++) {
			/* opaque figure: premultiplied equals straight */
			row[3 * x] = (unsigned char)(src[x] >> 16);
			row[3 * x + 1] = (unsigned char)(src[x] >> 8);
			row[3 * x + 2] = (unsigned char)src[x];
		}
		png_write_row(png, row);
	}
	png_write_end(png, info);
out:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	free(row);
	free(txt);
	return rc;
}

static int png_finish(cairo_surface_t *s, const char *tmp, const png_text_kv *kv, size_t nkv,
		      br_error *err)
{
	FILE *fp = fopen(tmp, "wb");
	if (!fp)
		return br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
	int rc = png_write_surface(fp, s, kv, nkv, tmp, err);
	if (fclose(fp) && !rc)
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
	return rc;
}

static cairo_surface_t *svg_create(const char *tmp, unsigned w, unsigned h, double dpi)
{
	return cairo_svg_surface_create(tmp, w * 72.0 / dpi, h * 72.0 / dpi);
}

static cairo_surface_t *pdf_create(const char *tmp, unsigned w, unsigned h, double dpi)
{
	return cairo_pdf_surface_create(tmp, w * 72.0 / dpi, h * 72.0 / dpi);
}

static int vector_finish(cairo_surface_t *s, const char *tmp, const png_text_kv *kv, size_t nkv,
			 br_error *err)
{
	(void)kv;
	(void)nkv;
	cairo_surface_finish(s);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
		return br_error_set(err, BR_ESYS, 0, tmp, -1, "%s",
				    cairo_status_to_string(cairo_surface_status(s)));
	return 0;
}

static double raster_pixel(double dpi)
{
	(void)dpi;
	return 1.0;
}

static double vector_pixel(double dpi)
{
	(void)dpi;
	return 1.0; /* figures are laid out in pixels; vector outputs scale */
}

static const plot_output outputs[] = {
	{ "png", ".png", png_create, png_finish, raster_pixel },
	{ "svg", ".svg", svg_create, vector_finish, vector_pixel },
	{ "pdf", ".pdf", pdf_create, vector_finish, vector_pixel },
};

const plot_output *plot_output_for(const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		size_t e = strlen(outputs[i].ext);
		if (n > e && !strcasecmp(path + n - e, outputs[i].ext))
			return &outputs[i];
	}
	return NULL;
}

const char *plot_output_names(void)
{
	return "png, svg, pdf";
}
