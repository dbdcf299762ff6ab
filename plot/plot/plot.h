/* plot.h — the pieces of blkreel-plot and the data they share. */
#ifndef BLKREEL_PLOT_H
#define BLKREEL_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "blkreel/stats.h"
#include "density.h"
#include "tool/sweep_label.h"

#define PLOT_MAX_TRACES 8
/* traces of a --sweep figure: drawn as points, not overlaid, so more fit */
#define PLOT_SWEEP_MAX 16

enum plot_panel {
	PANEL_IO, PANEL_TPUT, PANEL_SEEK, PANEL_IOPS, PANEL_LAT, PANEL_QD, PANEL_STATS, PANEL_COUNT
};
extern const char *const plot_panel_names[PANEL_COUNT];

typedef struct plot_opts {
	size_t ntraces;
	const char *paths[PLOT_SWEEP_MAX];   /* at most PLOT_MAX_TRACES but for --sweep */
	const char *labels[PLOT_SWEEP_MAX];
	bool sweep;                          /* --sweep: the sweep figure (sweep.h) */
	tool_sweep_label sweep_labels[PLOT_SWEEP_MAX];
	char sweep_param[TOOL_SWEEP_PARAM_MAX];
	const char *out, *title, *csv, *movie;
	unsigned width, height;      /* pixels */
	double dpi;                  /* 0 = 96 */
	unsigned panels;             /* bit mask of enum plot_panel */
	bool panels_explicit;
	bool stack, by_process, allow_empty;
	bool has_dev;
	uint32_t dev;
	bool has_x;
	uint64_t x0, x1;             /* ns after each trace's start */
	bool has_z;
	double z0, z1;               /* MB */
	uint64_t avg_window_ns;      /* -r; 0 = none */
	uint64_t bucket_ns;          /* -b; 0 = chosen from the span */
	unsigned movie_frames;
	const char *cmdline;         /* for the PNG text chunk */
	const char *input_format;    /* --input-format: force the input kind */
	bool skip_bad;               /* --skip-bad: skip malformed text lines */
	bool quiet;
} plot_opts;

/* One loaded trace: statistics and the density grid of its IO marks. */
typedef struct plot_trace {
	const char *path, *label;
	br_stats *stats;
	const br_stats_totals *tot;
	density dens;
	br_stats_series ser;
	uint64_t window_from, window_to; /* ns relative to start; to = 0: open */
	uint32_t pids[DENSITY_MAX_PIDS]; /* pid of each density pid slot */
	char comms[DENSITY_MAX_PIDS][20];
	uint32_t devs[DENSITY_MAX_DEVS];   /* device of each density device slot */
	unsigned ndevs;
} plot_trace;

typedef struct offset_range {
	double lo, hi;                /* MB */
	char note[240];
} offset_range;

/* One io panel of a stacked figure: a trace, or one device of a trace. */
#define PLOT_MAX_BANDS 16
typedef struct plot_band {
	int trace;                    /* index into tr[] */
	int dev;                      /* density device slot, -1 = every device */
	char label[96];
	offset_range zr;
} plot_band;

typedef struct plot_data {
	size_t n;
	plot_trace tr[PLOT_MAX_TRACES];
	uint64_t width_ns;            /* series bucket width */
	uint64_t t0, t1;              /* x range, ns relative to each start */
	uint64_t shift;               /* stats and density times are relative to
	                                 start + shift (the -x start), so a late
	                                 window keeps fine buckets; add it to show */
	bool empty;                   /* no IO in range (with --allow-empty) */
	bool lat_ok;                  /* some trace has D or C events */
	offset_range zr_all;          /* every trace in one io panel */
	plot_band bands[PLOT_MAX_BANDS]; /* one io panel each when stacked */
	size_t nbands;
	bool multi_dev;               /* some trace has several devices */
	char notes[8][200];
	size_t nnotes;
} plot_data;

/* load.c: read every trace, fill stats, density and series. 0, or a
 * negative br_code with err naming the file. */
int plot_load(const plot_opts *o, plot_data *d, br_error *err);
void plot_data_free(plot_data *d);

/* offset_range.c: fill d->zr (after plot_load). */
void plot_offset_ranges(const plot_opts *o, plot_data *d);
/* The offset range of the IOs of one trace (only_trace, -1 for all) on one
 * device (only_dev, -1 for all), with its note: what each band gets. */
void plot_offset_range_of(const plot_opts *o, const plot_data *d, int only_trace, int only_dev, double *lo,
			  double *hi, char *note, size_t n);

/* csv.c */
int plot_write_csv(const plot_opts *o, const plot_data *d, const char *path, br_error *err);

struct plot_fonts; /* fonts.h */

/* figure.c: the whole figure to a file chosen by extension. */
int plot_render_file(const plot_opts *o, const plot_data *d, const struct plot_fonts *fonts,
		     const char *path, br_error *err);

/* figure.c: a figure of o's size to path (.png, .svg or .pdf, by its
 * name), drawn by draw in W x H user units (px: one device pixel), written
 * under a temporary name and renamed into place when whole, with kv as
 * the PNG's text. 0 or a br_code with err naming path. */
struct png_text_kv;
struct _cairo;
typedef int (*plot_draw_fn)(struct _cairo *cr, double W, double H, double px, const void *arg, br_error *err);
int plot_write_figure(const plot_opts *o, const char *path, plot_draw_fn draw, const void *arg,
		      const struct png_text_kv *kv, size_t nkv, br_error *err);

/* figure.c helpers shared with the movie */
int plot_make_tmp(const char *path, char *tmp, size_t n, br_error *err);

/* Drop fonts' references and release cairo's caches, and fontconfig's when
 * fonts used it (call once, at exit). */
void plot_release_static(struct plot_fonts *fonts);

/* true when the name ends in an extension we can write */
bool plot_output_ok(const char *path);
bool plot_movie_name_ok(const char *path);

/* movie.c: APNG of the io panel with a sliding window. */
int plot_write_movie(const plot_opts *o, const plot_data *d, const struct plot_fonts *fonts,
		     const char *path, br_error *err);

#endif
