/* output.h — where a figure goes: PNG, SVG or PDF, chosen from the file
 * name, each a small table of hooks. Files are written under a temporary
 * name and renamed into place only when complete. */
#ifndef BLKREEL_PLOT_OUTPUT_H
#define BLKREEL_PLOT_OUTPUT_H

#include <cairo.h>
#include "blkreel/error.h"
#include "png_write.h"

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

#endif
