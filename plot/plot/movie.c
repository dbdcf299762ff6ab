/* --movie: an animated PNG (APNG) of the io panel with a sliding time
 * window and a cursor on the line panels. Debian's libpng has no APNG API,
 * and the figures' own PNG writer (png_write.c) already deflates an image
 * in strips on every core, so every frame goes through it: signature, IHDR
 * and text, acTL, then per frame an fcTL and the frame's zlib stream, as
 * IDAT for the first (the default image) and as fdAT (sequence number +
 * the same stream) for the others. Spec:
 * https://wiki.mozilla.org/APNG_Specification */
#include "output.h"
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	FILE *fp = NULL;
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		rc = br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory for the movie");
		goto out;
	}
	fp = fopen(tmp, "wb");
	if (!fp) {
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
		goto out;
	}
	const png_text_kv txt[2] = {
		{ "Software", "blkreel-plot " BLKREEL_VERSION },
		{ "Comment", o->cmdline ? o->cmdline : "" },
	};
	rc = png_put_head(fp, w, h, txt, 2, path, err);
	if (rc)
		goto out;
	unsigned char actl[8];
	be32(actl, n);
	be32(actl + 4, 0); /* loop forever */
	png_put_chunk(fp, "acTL", actl, 8);
	uint32_t seq = 0;
	for (unsigned i = 0; i < n; i++) {
		rc = draw_frame(o, d, fonts, i, n, img, w, h, err);
		if (rc)
			goto out;
		cairo_surface_flush(img);
		png_image_z *z;
		rc = png_image_z_encode(&z, cairo_image_surface_get_data(img), w, h,
					cairo_image_surface_get_stride(img), 0, 0, path, err);
		if (rc)
			goto out;
		unsigned char fc[26];
		fctl(fc, seq++, (uint32_t)w, (uint32_t)h);
		png_put_chunk(fp, "fcTL", fc, 26);
		/* the default image is the first frame */
		png_image_z_put(fp, z, i == 0 ? NULL : &seq);
		png_image_z_free(z);
	}
	png_put_chunk(fp, "IEND", NULL, 0);
	if (fflush(fp) || ferror(fp)) {
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
		goto out;
	}
out:
	if (fp && fclose(fp) && !rc)
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
	if (!rc && rename(tmp, path))
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "cannot rename the finished file");
	if (rc)
		unlink(tmp);
	cairo_surface_destroy(img);
	return rc;
}
