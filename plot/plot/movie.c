/* --movie: an animated PNG (APNG) of the io panel with a sliding time
 * window and a cursor on the line panels. Debian's libpng has no APNG API,
 * so libpng writes the signature, IHDR, text, the first frame as IDAT and
 * IEND, and we add acTL before the IDAT and an fcTL + fdAT pair for each
 * further frame (fdAT = sequence number + the same zlib stream an IDAT
 * would hold). Spec: https://wiki.mozilla.org/APNG_Specification */
#include "output.h"
#include "render.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#define FRAME_DELAY_NUM 1
#define FRAME_DELAY_DEN 10 /* 10 frames per second */

bool plot_movie_name_ok(const char *path)
{
	size_t n = strlen(path);
	return (n > 4 && !strcasecmp(path + n - 4, ".png")) ||
	       (n > 5 && !strcasecmp(path + n - 5, ".apng"));
}

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void fctl(unsigned char out[26], uint32_t seq, uint32_t w, uint32_t h)
{
	memset(out, 0, 26);
	be32(out, seq);
	be32(out + 4, w);
	be32(out + 8, h);
	/* x, y offsets 0 */
	out[20] = FRAME_DELAY_NUM >> 8;
	out[21] = FRAME_DELAY_NUM & 255;
	out[22] = FRAME_DELAY_DEN >> 8;
	out[23] = FRAME_DELAY_DEN & 255;
	out[24] = 0; /* dispose: none */
	out[25] = 0; /* blend: source */
}

/* Rows of RGB from an ARGB32 surface, each behind its filter-type byte. */
static void surface_rows(cairo_surface_t *img, unsigned char *raw, unsigned char *prev,
			 unsigned char *cur, int w, int h)
{
	cairo_surface_flush(img);
	const unsigned char *data = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	size_t rb = 3 * (size_t)w;
	memset(prev, 0, rb);
	for (int y = 0; y < h; y++) {
		unsigned char *o = raw + (size_t)y * (1 + rb);
		const uint32_t *s = (const uint32_t *)(data + (size_t)y * stride);
		for (int x = 0; x < w; x++) {
			cur[3 * x] = (unsigned char)(s[x] >> 16);
			cur[3 * x + 1] = (unsigned char)(s[x] >> 8);
			cur[3 * x + 2] = (unsigned char)s[x];
		}
		/* filter type 0 (None): the io panel's scattered marks make Up
		 * and Sub larger here, not smaller (measured) */
		*o++ = 0;
		memcpy(o, cur, rb);
		(void)prev;
	}
}

static int draw_frame(const plot_opts *o, const plot_data *d, const plot_fonts *fonts, unsigned i,
		      unsigned n, cairo_surface_t *img, int w, int h, br_error *err)
{
	uint64_t span = d->t1 - d->t0, win = span / 5 ? span / 5 : 1;
	uint64_t end = d->t0 + win + (n > 1 ? (span - win) * i / (n - 1) : span - win);
	frame_opts f = {
		.has_io_window = true, .io_t0 = end - win, .io_t1 = end,
		.has_cursor = true, .cursor = end,
		.panels = 1u << PANEL_IO | 1u << PANEL_TPUT | 1u << PANEL_IOPS | 1u << PANEL_LAT,
	};
	cairo_t *cr = cairo_create(img);
	int rc = render_figure(cr, o, d, &f, fonts, w, h, 1.0, err);
	cairo_destroy(cr);
	return rc;
}

int plot_write_movie(const plot_opts *o, const plot_data *d, const plot_fonts *fonts, const char *path,
		     br_error *err)
{
	int w = o->width > 960 ? 960 : (int)o->width;
	int h = (int)((double)o->height * w / o->width);
	if (h > 720)
		h = 720;
	if (h < 540)
		h = 540;
	unsigned n = o->movie_frames ? o->movie_frames : 60;
	char tmp[4096];
	int rc = plot_make_tmp(path, tmp, sizeof(tmp), err);
	if (rc)
		return rc;
	size_t rawlen = (size_t)h * (1 + 3 * (size_t)w);
	uLongf cap = compressBound(rawlen);
	unsigned char *raw = malloc(rawlen), *z = malloc(4 + cap);
	unsigned char *rowbuf = malloc((size_t)w * 3), *prevrow = malloc((size_t)w * 3);
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	FILE *fp = fopen(tmp, "wb");
	png_structp png = NULL;
	png_infop info = NULL;
	if (!raw || !z || !rowbuf || !prevrow || cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		rc = br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory for the movie");
		goto out;
	}
	if (!fp) {
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
		goto out;
	}
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	info = png ? png_create_info_struct(png) : NULL;
	if (!png || !info) {
		rc = br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory for the movie");
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "writing the movie failed");
		goto out;
	}
	png_init_io(png, fp);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_filter(png, 0, PNG_FILTER_NONE);
	png_set_compression_level(png, 3);
	png_text txt[2] = {
		{ .compression = PNG_TEXT_COMPRESSION_NONE, .key = (char *)"Software",
		  .text = (char *)"blkreel-plot " BLKREEL_VERSION },
		{ .compression = PNG_TEXT_COMPRESSION_NONE, .key = (char *)"Comment",
		  .text = (char *)(o->cmdline ? o->cmdline : "") },
	};
	png_set_text(png, info, txt, 2);
	png_write_info(png, info);
	unsigned char actl[8];
	be32(actl, n);
	be32(actl + 4, 0); /* loop forever */
	png_write_chunk(png, (png_const_bytep) "acTL", actl, 8);
	uint32_t seq = 0;
	for (unsigned i = 0; i < n; i++) {
		rc = draw_frame(o, d, fonts, i, n, img, w, h, err);
		if (rc)
			goto out;
		unsigned char fc[26];
		fctl(fc, seq++, (uint32_t)w, (uint32_t)h);
		png_write_chunk(png, (png_const_bytep) "fcTL", fc, 26);
		if (i == 0) { /* the default image is the first frame */
			cairo_surface_flush(img);
			const unsigned char *data = cairo_image_surface_get_data(img);
			int stride = cairo_image_surface_get_stride(img);
			for (int y = 0; y < h; y++) {
				const uint32_t *s = (const uint32_t *)(data + (size_t)y * stride);
				for (int x = 0; x < w; x++) {
					rowbuf[3 * x] = (unsigned char)(s[x] >> 16);
					rowbuf[3 * x + 1] = (unsigned char)(s[x] >> 8);
					rowbuf[3 * x + 2] = (unsigned char)s[x];
				}
				png_write_row(png, rowbuf);
			}
			continue;
		}
		surface_rows(img, raw, prevrow, rowbuf, w, h);
		uLongf zlen = cap;
		if (compress2(z + 4, &zlen, raw, rawlen, 3) != Z_OK) {
			rc = br_error_set(err, BR_ENOMEM, 0, path, -1, "deflate failed on frame %u", i);
			goto out;
		}
		be32(z, seq++);
		png_write_chunk(png, (png_const_bytep) "fdAT", z, 4 + zlen);
	}
	png_write_end(png, info);
	if (fflush(fp) || ferror(fp)) {
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
		goto out;
	}
out:
	if (png)
		png_destroy_write_struct(&png, info ? &info : NULL);
	if (fp && fclose(fp) && !rc)
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
	if (!rc && rename(tmp, path))
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "cannot rename the finished file");
	if (rc)
		unlink(tmp);
	cairo_surface_destroy(img);
	free(raw);
	free(z);
	free(rowbuf);
	free(prevrow);
	return rc;
}
