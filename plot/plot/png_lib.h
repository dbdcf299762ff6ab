/* png_lib.h — what png_write.c (a figure) and apng.c (a movie) share
 * over libpng: a write struct whose errors come back as br_errors and
 * whose bytes go to a FILE or to memory, the IHDR/text/tuning set-up and
 * the rows. The functions that call libpng must run under the caller's
 * setjmp(png_jmpbuf(png)): libpng reports a failure by longjmp, after
 * filling the sink's rc and err. */
#ifndef BLKREEL_PLOT_PNG_LIB_H
#define BLKREEL_PLOT_PNG_LIB_H

#include <png.h>
#include <stdbool.h>
#include "png_write.h"

typedef struct pngw_sink {
	FILE *fp;                   /* the file, or NULL: bytes go to mem */
	unsigned char *mem;         /* malloc'd */
	size_t len, cap;
	const char *path;           /* for messages */
	br_error *err;
	int rc;                     /* the br_code of the first failure */
	bool oom;                   /* libpng's allocation failed */
} pngw_sink;

/* A write struct and its info struct writing to s; 0, or BR_ENOMEM in
 * s->err. */
int pngw_create(pngw_sink *s, png_structp *png, png_infop *info);
/* Frees both (either may be NULL) and s's memory. */
void pngw_destroy(pngw_sink *s, png_structp *png, png_infop *info);
/* Keys libpng would reject (it would fail the whole file), named: 0 or
 * BR_EINVAL. Call before any writing. */
int pngw_check_keys(const png_text_kv *kv, size_t nkv, const char *path, br_error *err);
/* IHDR for 8-bit RGB w x h, the text and the deflate settings, then
 * png_write_info (signature, IHDR, iTXt). Under setjmp. */
void pngw_write_head(png_structp png, png_infop info, int w, int h, const png_text_kv *kv,
		     size_t nkv, const plot_png_tuning *t);
/* The h rows of an ARGB32 image (written after pngw_write_head): IDAT
 * chunks, the stream finished with the last row. Under setjmp. */
void pngw_write_rows(png_structp png, const unsigned char *data, int h, int stride);

#endif
