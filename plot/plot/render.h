/* render.h — drawing the figure with cairo: the context shared by the
 * layout, the panels and the outputs. */
#ifndef BLKREEL_PLOT_RENDER_H
#define BLKREEL_PLOT_RENDER_H

#include <cairo.h>
#include "fonts.h"
#include "plot.h"

typedef struct rgb {
	double r, g, b;
} rgb;

/* Okabe-Ito colours (safe for the common colour-vision deficiencies). */
extern const rgb PAL_READ, PAL_WRITE, PAL_OTHER, PAL_TOTAL, PAL_D2C, PAL_Q2C;
extern const rgb PAL_TRACE[PLOT_MAX_TRACES], PAL_TRACE_WRITE[PLOT_MAX_TRACES];
/* Most channels of the io panel: a read, write and other shade per trace. */
#define IO_MAX_CHANNELS (3 * PLOT_MAX_TRACES)
extern const rgb PAL_GRID, PAL_AXIS, PAL_TEXT, PAL_MUTED;

typedef struct rect {
	double x, y, w, h;
} rect;

/* Options of one rendering: the movie draws frames with a sliding io
 * window and a cursor. */
typedef struct frame_opts {
	bool has_io_window;
	uint64_t io_t0, io_t1;      /* ns */
	bool has_cursor;
	uint64_t cursor;            /* ns */
	unsigned panels;            /* override of o->panels when nonzero */
} frame_opts;

typedef struct rctx {
	cairo_t *cr;
	const plot_opts *o;
	const plot_data *d;
	const frame_opts *f;
	const plot_fonts *fonts;
	double W, H, font;          /* in user units (pixels) */
	double px;                  /* one device pixel in user units */
	double left, right;         /* plot area x extent */
	double t0, t1;              /* x range, ns */
	double tdiv;                /* ns per time-axis unit */
	const char *tunit;
	double label_at;            /* bottom edge of the panel that carries time labels */
	bool stack;                 /* one io panel per trace */
} rctx;

void set_rgb(cairo_t *cr, rgb c);
void set_font(const rctx *c, double size, bool bold);
double text_width(const rctx *c, const char *s);
/* align: 0 left, 0.5 centre, 1 right; y is the baseline. */
void draw_text(const rctx *c, double x, double y, double align, const char *s);
void draw_text_vertical(const rctx *c, double x, double y, const char *s);
double time_to_x(const rctx *c, double t_ns);

/* x grid and ticks over a panel; labels when with_labels. */
void draw_time_axis(const rctx *c, rect r, bool with_labels);
/* y grid, ticks and labels for [lo, hi]; the axis title rotated on the left. */
void draw_value_axis(const rctx *c, rect r, double lo, double hi, const char *title, int maxn);
/* A log axis over decades lo..hi of nanoseconds, labelled 1 µs, 10 µs, ... */
void draw_log_axis(const rctx *c, rect r, double lo, double hi, const char *title);
/* How many y ticks fit a panel. */
int value_ticks_for(const rctx *c, rect r);

/* Panels. */
/* band: index into d->bands (stacked), or -1 for every trace in one panel */
void panel_io(const rctx *c, rect r, int band);
/* Colours and names of the io panel channels; returns how many. */
/* cols, names and buf hold IO_MAX_CHANNELS entries. */
int io_channels(const rctx *c, int only_trace, rgb *cols, const char **names, char buf[][40]);
int io_trace_channels(const plot_data *d);
/* Line panels: kind is PANEL_TPUT..PANEL_QD. */
void panel_line(const rctx *c, rect r, int kind);
void panel_stats(const rctx *c, rect r);
double panel_stats_height(const rctx *c);

/* The whole figure in W x H user units. 0 or a br_code. */
int render_figure(cairo_t *cr, const plot_opts *o, const plot_data *d, const frame_opts *f,
		  const plot_fonts *fonts, double W, double H, double px, br_error *err);


#endif
