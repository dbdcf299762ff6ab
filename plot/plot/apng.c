/* The APNG container through libpng. Debian's libpng has no APNG API, but
 * its chunk writer writes any chunk: acTL and each fcTL go through it; the
 * first frame is the PNG's own image (IDAT, libpng's rows); each later
 * frame is encoded by a write struct of its own into memory, and the data
 * of that PNG's IDAT chunks goes out as fdAT chunks (a sequence number,
 * then the same bytes). Spec: https://wiki.mozilla.org/APNG_Specification */
#include "png_lib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct plot_apng {
	pngw_sink s; /* the file; libpng keeps a pointer to it */
	png_structp png;
	png_infop info;
	int w, h;
	unsigned frames, done;
	uint32_t seq; /* fcTL and fdAT share one numbering */
};

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int plot_apng_open(plot_apng **out, FILE *fp, int w, int h, unsigned frames, const png_text_kv *kv,
		   size_t nkv, const char *path, br_error *err)
{
	*out = NULL;
	if (w < 1 || h < 1 || frames < 1)
		return br_error_set(err, BR_EINVAL, 0, path, -1, "cannot write %u frames of %dx%d", frames,
				    w, h);
	int rc = pngw_check_keys(kv, nkv, path, err);
	if (rc)
		return rc;
	plot_apng *a = calloc(1, sizeof *a);
	if (!a)
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory for the movie");
	a->s = (pngw_sink){ .fp = fp, .path = path, .err = err };
	a->w = w;
	a->h = h;
	a->frames = frames;
	rc = pngw_create(&a->s, &a->png, &a->info);
	if (rc) {
		free(a);
		return rc;
	}
	if (setjmp(png_jmpbuf(a->png))) {
		rc = a->s.rc;
		plot_apng_close(a, NULL);
		return rc;
	}
	pngw_write_head(a->png, a->info, w, h, kv, nkv, &plot_png_figure_tuning);
	unsigned char actl[8];
	be32(actl, frames);
	be32(actl + 4, 0); /* loop forever */
	png_write_chunk(a->png, (png_const_bytep) "acTL", actl, 8);
	*out = a;
	return 0;
}

/* The frame as a PNG of its own in f's memory. */
static int encode_alone(pngw_sink *f, const unsigned char *data, int w, int h, int stride)
{
	png_structp png;
	png_infop info;
	int rc = pngw_create(f, &png, &info);
	if (rc)
		return rc;
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return f->rc;
	}
	pngw_write_head(png, info, w, h, NULL, 0, &plot_png_figure_tuning);
	pngw_write_rows(png, data, h, stride);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	return 0;
}

/* The IDAT data of the PNG in f, as fdAT chunks. Under setjmp. */
static void put_fdat(plot_apng *a, const pngw_sink *f)
{
	for (size_t at = 8; at + 12 <= f->len;) {
		uint32_t len = get_be32(f->mem + at);
		const unsigned char *type = f->mem + at + 4;
		if (!memcmp(type, "IDAT", 4)) {
			unsigned char seq[4];
			be32(seq, a->seq++);
			png_write_chunk_start(a->png, (png_const_bytep) "fdAT", len + 4);
			png_write_chunk_data(a->png, seq, 4);
			png_write_chunk_data(a->png, f->mem + at + 8, len);
			png_write_chunk_end(a->png);
		}
		at += 12 + (size_t)len;
	}
}

int plot_apng_frame(plot_apng *a, const unsigned char *data, int stride, uint16_t delay_num,
		    uint16_t delay_den, br_error *err)
{
	a->s.err = err;
	if (a->done == a->frames)
		return br_error_set(err, BR_EINVAL, 0, a->s.path, -1, "the movie has only %u frames",
				    a->frames);
	pngw_sink f = { .path = a->s.path, .err = err };
	if (a->done > 0) {
		int rc = encode_alone(&f, data, a->w, a->h, stride);
		if (rc) {
			free(f.mem);
			return rc;
		}
	}
	if (setjmp(png_jmpbuf(a->png))) {
		free(f.mem);
		return a->s.rc;
	}
	unsigned char fc[26] = { 0 };
	be32(fc, a->seq++);
	be32(fc + 4, (uint32_t)a->w);
	be32(fc + 8, (uint32_t)a->h);
	/* x, y offsets 0 */
	fc[20] = (unsigned char)(delay_num >> 8);
	fc[21] = (unsigned char)delay_num;
	fc[22] = (unsigned char)(delay_den >> 8);
	fc[23] = (unsigned char)delay_den;
	fc[24] = 0; /* dispose: none */
	fc[25] = 0; /* blend: source (the whole frame replaces the last) */
	png_write_chunk(a->png, (png_const_bytep) "fcTL", fc, 26);
	if (a->done == 0)
		pngw_write_rows(a->png, data, a->h, stride); /* the default image */
	else
		put_fdat(a, &f);
	free(f.mem);
	a->done++;
	return 0;
}

/* png_write_end and the flush, under their own setjmp. */
static int finish(plot_apng *a, br_error *err)
{
	if (setjmp(png_jmpbuf(a->png)))
		return a->s.rc;
	png_write_end(a->png, NULL);
	if (fflush(a->s.fp) || ferror(a->s.fp))
		return br_error_set(err, BR_ESYS, errno, a->s.path, -1, "write failed");
	return 0;
}

int plot_apng_close(plot_apng *a, br_error *err)
{
	if (!a)
		return 0;
	int rc = 0;
	if (err) {
		a->s.err = err;
		rc = a->done < a->frames
			     ? br_error_set(err, BR_EINVAL, 0, a->s.path, -1,
					    "the movie got %u of its %u frames", a->done, a->frames)
			     : finish(a, err);
	}
	pngw_destroy(&a->s, &a->png, &a->info);
	free(a);
	return rc;
}
