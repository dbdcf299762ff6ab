/* The figure outputs as a table: PNG through libpng (png_write.c: the
 * text chunks, deflate settings tuned for figures), SVG and PDF through
 * cairo's vector surfaces. */
#include "bigbuf.h"
#include "output.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static cairo_surface_t *png_create(const char *tmp, unsigned w, unsigned h, double dpi)
{
	(void)tmp;
	(void)dpi;
	return bigbuf_surface((int)w, (int)h);
}

static int png_finish(cairo_surface_t *s, const char *tmp, const png_text_kv *kv, size_t nkv,
		      br_error *err)
{
	FILE *fp = fopen(tmp, "wb");
	if (!fp)
		return br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
	int rc = plot_png_write_surface(fp, s, kv, nkv, tmp, err);
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
