/* png_write.h — figures and movie frames as PNG files, through libpng.
 * An image here is an opaque cairo ARGB32 buffer (premultiplied, so its
 * colour bytes are the straight RGB); the file is 8-bit RGB, the alpha
 * byte dropped by libpng's filler transform. */
#ifndef BLKREEL_PLOT_PNG_WRITE_H
#define BLKREEL_PLOT_PNG_WRITE_H

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "blkreel/error.h"

/* One iTXt chunk (uncompressed UTF-8 text); the key is 1 to 79 bytes. */
typedef struct png_text_kv {
	const char *key, *value;
} png_text_kv;

/* How libpng deflates the rows: zlib's level and strategy (Z_RLE...)
 * and the row filters it may pick from (PNG_FILTER_* bits, or'ed). */
typedef struct plot_png_tuning {
	int level, strategy, filters;
} plot_png_tuning;

/* The settings of every figure and movie frame, chosen by timing the
 * candidates on real figures (tests/bench/png_encode.c; plot/README.md). */
extern const plot_png_tuning plot_png_figure_tuning;

/* data (w x h pixels, rows stride bytes apart) as a PNG on fp, with an
 * iTXt chunk per kv, deflated as t says (NULL: the figure tuning).
 * 0 or a br_code naming path. */
int plot_png_write(FILE *fp, const unsigned char *data, int w, int h, int stride,
		   const png_text_kv *kv, size_t nkv, const plot_png_tuning *t, const char *path,
		   br_error *err);
/* The same for a finished image surface, with the figure tuning. */
int plot_png_write_surface(FILE *fp, cairo_surface_t *img, const png_text_kv *kv, size_t nkv,
			   const char *path, br_error *err);

/* An animated PNG (APNG) of `frames` frames of w x h, written as they
 * come: open writes the signature, IHDR, the text and acTL (looping
 * forever); each frame adds its fcTL and the image (the first as IDAT,
 * the default image; the others as fdAT); close writes IEND once every
 * frame is in (else it fails), and frees. Spec:
 * https://wiki.mozilla.org/APNG_Specification */
typedef struct plot_apng plot_apng;
int plot_apng_open(plot_apng **out, FILE *fp, int w, int h, unsigned frames, const png_text_kv *kv,
		   size_t nkv, const char *path, br_error *err);
/* One frame shown for delay_num/delay_den seconds. */
int plot_apng_frame(plot_apng *a, const unsigned char *data, int stride, uint16_t delay_num,
		    uint16_t delay_den, br_error *err);
/* Accepts NULL. With err NULL, only frees (after an earlier failure). */
int plot_apng_close(plot_apng *a, br_error *err);

#endif
