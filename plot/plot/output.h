/* output.h — where a figure goes: PNG, SVG or PDF, chosen from the file
 * name, each a small table of hooks. Files are written under a temporary
 * name and renamed into place only when complete. */
#ifndef BLKREEL_PLOT_OUTPUT_H
#define BLKREEL_PLOT_OUTPUT_H

#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include "blkreel/error.h"

typedef struct png_text_kv {
	const char *key, *value;
} png_text_kv;

typedef struct plot_output {
	const char *name;              /* "png" */
	const char *ext;               /* ".png" */
	/* A surface of wpx x hpx pixels writing to tmp_path (vector outputs
	 * use points: 72/dpi each). Returns NULL-status surfaces on failure. */
	cairo_surface_t *(*create)(const char *tmp_path, unsigned wpx, unsigned hpx, double dpi);
	/* Finish the file; 0 or a br_code. */
	int (*finish)(cairo_surface_t *s, const char *tmp_path, const png_text_kv *kv, size_t nkv,
		      br_error *err);
	double (*pixel)(double dpi);   /* one pixel in user units */
} plot_output;

/* The output for a file name by extension, or NULL (names in err). */
const plot_output *plot_output_for(const char *path);
/* "png, svg, pdf" */
const char *plot_output_names(void);

/* png_write.c: an opaque ARGB32 image as an RGB PNG with an iTXt chunk
 * per kv, deflated in `strips` bands of rows (0: a few per thread; more
 * than the rows: one a row) on `threads` threads (0: the online CPUs, at
 * most 4). 0 or a br_code naming path. */
int png_write_argb(FILE *fp, const unsigned char *data, int w, int h, int stride,
		   const png_text_kv *kv, size_t nkv, unsigned strips, unsigned threads,
		   const char *path, br_error *err);
/* The pieces, for the APNG movie: an image's zlib stream in strips,
 * encoded as above; written as IDAT chunks (seq NULL) or as fdAT chunks
 * numbered from *seq on (each strip one chunk). */
typedef struct png_image_z png_image_z;
int png_image_z_encode(png_image_z **out, const unsigned char *data, int w, int h, int stride,
		       unsigned strips, unsigned threads, const char *path, br_error *err);
void png_image_z_put(FILE *fp, const png_image_z *z, uint32_t *seq);
void png_image_z_free(png_image_z *z);
/* Signature, IHDR (8-bit RGB) and an iTXt per kv; then any chunk. */
int png_put_head(FILE *fp, int w, int h, const png_text_kv *kv, size_t nkv, const char *path,
		 br_error *err);
void png_put_chunk(FILE *fp, const char *type, const unsigned char *data, uint32_t len);
/* The same for an image surface, with the default strips and threads. */
int png_write_surface(FILE *fp, cairo_surface_t *img, const png_text_kv *kv, size_t nkv,
		      const char *path, br_error *err);

#endif
