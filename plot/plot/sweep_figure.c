/* The sweep figure: the outcome (work MB/s, else device MB/s) against the
 * swept parameter, one line per stack, each with a faint line of linear
 * scaling from its first point and its knee ringed and named; below, four
 * small panels of the identity's factors (U, N_busy, S, R) on the same
 * axis, so the factor that stops growing past the knee shows. The axis is
 * logarithmic (base 2) when the values are positive and span 4x or more,
 * as sweeps of clients or jobs do (1, 2, 4, 8, 16). */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axes.h"
#include "png_write.h"
#include "render.h"

enum { SP_U, SP_N, SP_S, SP_R, SP_COUNT };

typedef struct sweep_axis {
	double lo, hi;                /* parameter values at the edges */
	bool log2;
	double vals[64];              /* distinct values, sorted, for the ticks */
	int nvals;
} sweep_axis;

static double axis_pos(const sweep_axis *a, double v)
{
	if (a->hi <= a->lo)
		return 0.5;
	if (a->log2)
		return (log2(v) - log2(a->lo)) / (log2(a->hi) - log2(a->lo));
	return (v - a->lo) / (a->hi - a->lo);
}

static double x_of(const sweep_axis *a, rect r, double v)
{
	double inset = r.w * 0.04;
	return r.x + inset + axis_pos(a, v) * (r.w - 2 * inset);
}

static void axis_build(const br_sweep *sw, sweep_axis *a)
{
	memset(a, 0, sizeof *a);
	bool positive = true;
	for (size_t s = 0; s < sw->nstacks; s++)
		for (size_t k = 0; k < sw->stacks[s].npoints; k++) {
			double v = sw->stacks[s].points[k].value;
			positive &= v > 0;
			int i = 0;
			while (i < a->nvals && a->vals[i] < v)
				i++;
			if ((i < a->nvals && a->vals[i] == v) || a->nvals == (int)(sizeof a->vals / sizeof a->vals[0]))
				continue;
			memmove(&a->vals[i + 1], &a->vals[i], (size_t)(a->nvals - i) * sizeof a->vals[0]);
			a->vals[i] = v;
			a->nvals++;
		}
	a->lo = a->nvals ? a->vals[0] : 0;
	a->hi = a->nvals ? a->vals[a->nvals - 1] : 1;
	a->log2 = positive && a->lo > 0 && a->hi / a->lo >= 4;
}

static double factor_of(const br_sweep_point *p, int panel)
{
	switch (panel) {
	case SP_U: return p->f.u;
	case SP_N: return p->f.nbusy;
	case SP_S: return p->f.s / 1024.0;  /* KiB */
	default: return p->f.r / 1e6;       /* ms */
	}
}

static const char *const factor_title[SP_COUNT] = { "U (device busy)", "N_busy (in flight)", "S (KiB/request)",
						    "R (ms/request)" };

/* the parameter's ticks at the values the sweep has, every other one when
 * they would crowd */
static void draw_param_axis(const rctx *c, const sweep_axis *a, rect r, bool labels, const char *param)
{
	cairo_t *cr = c->cr;
	cairo_set_line_width(cr, c->px);
	set_font(c, c->font * (labels ? 1.0 : 0.85), false);
	double last_right = -1e9;
	for (int i = 0; i < a->nvals; i++) {
		double x = x_of(a, r, a->vals[i]);
		set_rgb(cr, PAL_GRID);
		cairo_move_to(cr, x, r.y);
		cairo_line_to(cr, x, r.y + r.h);
		cairo_stroke(cr);
		char buf[32];
		snprintf(buf, sizeof buf, "%g", a->vals[i]);
		double w = text_width(c, buf);
		if (x - w / 2 < last_right + c->font * 0.5)
			continue;
		last_right = x + w / 2;
		set_rgb(cr, PAL_TEXT);
		draw_text(c, x, r.y + r.h + c->font * (labels ? 1.35 : 1.15), 0.5, buf);
	}
	set_rgb(cr, PAL_AXIS);
	cairo_move_to(cr, r.x, r.y + r.h);
	cairo_line_to(cr, r.x + r.w, r.y + r.h);
	cairo_stroke(cr);
	if (labels) {
		char t[64];
		snprintf(t, sizeof t, "%s%s", param, a->log2 ? " (log scale)" : "");
		set_font(c, c->font, false);
		draw_text(c, r.x + r.w / 2, r.y + r.h + c->font * 2.8, 0.5, t);
	}
}

/* a line width of 1 at the 11-pixel font, thicker with larger fonts */
static double line_unit(const rctx *c)
{
	return c->px * (c->font / 11.0 > 1 ? c->font / 11.0 : 1);
}

static void marker(cairo_t *cr, double x, double y, double size)
{
	cairo_arc(cr, x, y, size, 0, 2 * M_PI);
	cairo_fill(cr);
}

static void draw_stack_line(const rctx *c, const sweep_axis *a, rect r, const br_sweep_stack *st, rgb col,
			    double lo, double hi, int panel)
{
	cairo_t *cr = c->cr;
	double lw = 2.0 * line_unit(c);
	cairo_set_line_width(cr, lw);
	set_rgb(cr, col);
	for (size_t k = 0; k < st->npoints; k++) {
		double v = panel < 0 ? br_sweep_outcome(st, k) : factor_of(&st->points[k], panel);
		double x = x_of(a, r, st->points[k].value), y = r.y + r.h - (v - lo) / (hi - lo) * r.h;
		if (k == 0)
			cairo_move_to(cr, x, y);
		else
			cairo_line_to(cr, x, y);
	}
	cairo_stroke(cr);
	for (size_t k = 0; k < st->npoints; k++) {
		double v = panel < 0 ? br_sweep_outcome(st, k) : factor_of(&st->points[k], panel);
		double x = x_of(a, r, st->points[k].value), y = r.y + r.h - (v - lo) / (hi - lo) * r.h;
		marker(cr, x, y, lw * 1.6);
	}
}

/* linear scaling from the stack's first point: outcome × value / first
 * value, drawn faint and dashed up to the top of the panel */
static void draw_linear_guide(const rctx *c, const sweep_axis *a, rect r, const br_sweep_stack *st, rgb col,
			      double hi)
{
	if (st->npoints < 2 || st->points[0].value <= 0)
		return;
	cairo_t *cr = c->cr;
	double x0 = br_sweep_outcome(st, 0), p0 = st->points[0].value;
	cairo_set_source_rgba(cr, col.r, col.g, col.b, 0.45);
	double lw = 1.2 * line_unit(c);
	cairo_set_line_width(cr, lw);
	double dashes[] = { 3 * lw, 3 * lw };
	cairo_set_dash(cr, dashes, 2, 0);
	bool started = false;
	for (int i = 0; i <= 64; i++) {
		double p = a->log2 ? p0 * pow(2, log2(st->points[st->npoints - 1].value / p0) * i / 64.0)
				   : p0 + (st->points[st->npoints - 1].value - p0) * i / 64.0;
		double v = x0 * p / p0;
		if (v > hi)
			break;
		double x = x_of(a, r, p), y = r.y + r.h - v / hi * r.h;
		if (!started)
			cairo_move_to(cr, x, y);
		else
			cairo_line_to(cr, x, y);
		started = true;
	}
	if (started)
		cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
}

static void draw_knee(const rctx *c, const sweep_axis *a, rect r, const br_sweep_stack *st, rgb col, double hi,
		      int *nlabels)
{
	if (st->knee < 0)
		return;
	cairo_t *cr = c->cr;
	const br_sweep_point *p = &st->points[st->knee];
	double x = x_of(a, r, p->value), y = r.y + r.h - br_sweep_outcome(st, (size_t)st->knee) / hi * r.h;
	set_rgb(cr, col);
	cairo_set_line_width(cr, 1.5 * line_unit(c));
	cairo_arc(cr, x, y, c->font * 0.75, 0, 2 * M_PI);
	cairo_stroke(cr);
	char buf[96];
	snprintf(buf, sizeof buf, "knee: %s", st->limit);
	set_font(c, c->font * 0.9, true);
	double w = text_width(c, buf);
	double tx = x + c->font, ty = y - c->font * (1.0 + 1.2 * *nlabels);
	if (tx + w > r.x + r.w)
		tx = x - c->font - w;
	if (ty < r.y + c->font)
		ty = r.y + c->font * (1.0 + 1.2 * *nlabels);
	draw_text(c, tx, ty, 0, buf);
	(*nlabels)++;
}

static double panel_max(const br_sweep *sw, int panel)
{
	double m = 0;
	for (size_t s = 0; s < sw->nstacks; s++)
		for (size_t k = 0; k < sw->stacks[s].npoints; k++) {
			double v = panel < 0 ? br_sweep_outcome(&sw->stacks[s], k)
					     : factor_of(&sw->stacks[s].points[k], panel);
			m = v > m ? v : m;
		}
	return m;
}

static void draw_legend_row(const rctx *c, const br_sweep *sw, double y)
{
	cairo_t *cr = c->cr;
	double fs = c->font, total = 0;
	set_font(c, fs, false);
	for (size_t s = 0; s < sw->nstacks; s++)
		total += fs * 2.0 + text_width(c, sw->stacks[s].stack) + fs * 1.3;
	total += fs * 2.0 + text_width(c, "linear scaling");
	double x = (c->W - total) / 2, base = y + fs;
	for (size_t s = 0; s <= sw->nstacks; s++) {
		bool guide = s == sw->nstacks;
		rgb col = guide ? PAL_MUTED : PAL_TRACE[s % PLOT_MAX_TRACES];
		set_rgb(cr, col);
		double lw = 2.0 * line_unit(c);
		cairo_set_line_width(cr, lw);
		double dashes[] = { 3 * lw, 3 * lw };
		cairo_set_dash(cr, dashes, guide ? 2 : 0, 0);
		cairo_move_to(cr, x, base - fs * 0.35);
		cairo_line_to(cr, x + fs * 1.6, base - fs * 0.35);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		x += fs * 2.0;
		set_rgb(cr, PAL_TEXT);
		const char *name = guide ? "linear scaling" : sw->stacks[s].stack;
		draw_text(c, x, base, 0, name);
		x += text_width(c, name) + fs * 1.3;
	}
}

static int render_sweep(cairo_t *cr, const plot_opts *o, const br_sweep *sw, const plot_fonts *fonts, double W,
			double H, double px)
{
	rctx c = { .cr = cr, .o = o, .fonts = fonts, .W = W, .H = H, .px = px };
	double dpi = o->dpi > 0 ? o->dpi : 96;
	c.font = sqrt(W * H) / 80;
	c.font = (c.font < 9 ? 9 : c.font > 20 ? 20 : c.font) * dpi / 96;
	double fs = c.font;
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	plot_fonts_setup(fonts, cr);

	char title[256];
	if (o->title)
		snprintf(title, sizeof title, "%s", o->title);
	else {
		size_t k = (size_t)snprintf(title, sizeof title, "Sweep over %s:", sw->param);
		for (size_t s = 0; s < sw->nstacks && k < sizeof title; s++)
			k += (size_t)snprintf(title + k, sizeof title - k, "%s %s", s ? "," : "", sw->stacks[s].stack);
	}
	set_font(&c, fs * 1.35, true);
	set_rgb(cr, PAL_TEXT);
	double tw = text_width(&c, title);
	if (tw > W - 2 * fs)
		set_font(&c, fs * 1.35 * (W - 2 * fs) / tw, true);
	double y = fs * 0.6;
	draw_text(&c, W / 2, y + fs * 1.3, 0.5, title);
	y += fs * 1.9;
	draw_legend_row(&c, sw, y);
	y += fs * 2.2;

	/* one line per stack under the figure: its knee and limit */
	int nnotes = (int)sw->nstacks;
	double notes_h = nnotes * fs * 1.3 + fs * 0.6;
	sweep_axis a;
	axis_build(sw, &a);
	c.left = fs * 6.6;
	c.right = W - fs * 1.4;
	double gap = fs * 3.6, small_gap = fs * 2.4;
	double avail = H - y - notes_h - fs * 3.6 - gap;
	double main_h = avail * 0.55, small_h = (avail - main_h - small_gap) / 2;
	if (main_h < fs * 6 || small_h < fs * 4)
		return BR_EINVAL;

	bool work = true;
	for (size_t s = 0; s < sw->nstacks; s++)
		work &= sw->stacks[s].work;
	rect main = { c.left, y, c.right - c.left, main_h };
	double hi = nice_ceil(panel_max(sw, -1) * 1.08);
	if (!(hi > 0))
		hi = 1;
	draw_value_axis(&c, main, 0, hi, work ? "work MB/s (applications' bytes)|work MB/s" : "MB/s",
			value_ticks_for(&c, main));
	draw_param_axis(&c, &a, main, false, sw->param);
	int nlabels = 0;
	for (size_t s = 0; s < sw->nstacks; s++)
		draw_linear_guide(&c, &a, main, &sw->stacks[s], PAL_TRACE[s % PLOT_MAX_TRACES], hi);
	for (size_t s = 0; s < sw->nstacks; s++)
		draw_stack_line(&c, &a, main, &sw->stacks[s], PAL_TRACE[s % PLOT_MAX_TRACES], 0, hi, -1);
	for (size_t s = 0; s < sw->nstacks; s++)
		draw_knee(&c, &a, main, &sw->stacks[s], PAL_TRACE[s % PLOT_MAX_TRACES], hi, &nlabels);

	/* the factors, two by two */
	double yf = y + main_h + gap;
	double colw = (c.right - c.left - fs * 6.6) / 2;
	for (int p = 0; p < SP_COUNT; p++) {
		rect r = { c.left + (p % 2) * (colw + fs * 6.6), yf + (p / 2) * (small_h + small_gap), colw, small_h };
		double top = p == SP_U ? 1.0 : nice_ceil(panel_max(sw, p) * 1.1);
		if (!(top > 0))
			top = 1;
		draw_value_axis(&c, r, 0, top, factor_title[p], value_ticks_for(&c, r) < 4 ? value_ticks_for(&c, r) : 4);
		draw_param_axis(&c, &a, r, p >= 2, sw->param);
		for (size_t s = 0; s < sw->nstacks; s++)
			draw_stack_line(&c, &a, r, &sw->stacks[s], PAL_TRACE[s % PLOT_MAX_TRACES], 0, top, p);
		set_font(&c, fs * 0.95, true);
		set_rgb(cr, PAL_TEXT);
		draw_text(&c, r.x + fs * 0.4, r.y + fs * 1.0, 0, factor_title[p]);
	}

	/* the notes: each stack's knee and limit, cut to the width */
	double yn = H - notes_h + fs * 0.4;
	set_font(&c, fs * 0.9, false);
	for (size_t s = 0; s < sw->nstacks; s++) {
		const br_sweep_stack *st = &sw->stacks[s];
		char line[600];
		if (st->knee >= 0)
			snprintf(line, sizeof line, "%s: knee at %s=%g, %s. %s", st->stack, sw->param,
				 st->points[st->knee].value, st->limit, st->evidence);
		else
			snprintf(line, sizeof line, "%s: %s", st->stack, st->evidence);
		size_t len = strlen(line);
		while (len > 4 && text_width(&c, line) > W - 2 * fs) {
			len -= 2;
			memcpy(line + len - 3, "...", 4);
		}
		set_rgb(cr, PAL_TRACE[s % PLOT_MAX_TRACES]);
		draw_text(&c, fs, yn + fs * (1.0 + 1.3 * (double)s), 0, line);
	}
	return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : BR_ESYS;
}

typedef struct sweep_arg {
	const plot_opts *o;
	const br_sweep *sw;
	const plot_fonts *fonts;
} sweep_arg;

static int draw_sweep(cairo_t *cr, double W, double H, double px, const void *arg, br_error *err)
{
	const sweep_arg *a = arg;
	int rc = render_sweep(cr, a->o, a->sw, a->fonts, W, H, px);
	if (rc == BR_EINVAL)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "%ux%u pixels is too small for the sweep figure",
				    a->o->width, a->o->height);
	if (rc)
		return br_error_set(err, BR_ESYS, 0, NULL, -1, "cannot draw the figure: %s",
				    cairo_status_to_string(cairo_status(cr)));
	return 0;
}

int plot_render_sweep_file(const plot_opts *o, const br_sweep *sw, const plot_fonts *fonts, const char *path,
			   br_error *err)
{
	png_text_kv kv[2] = { { "Software", "blkreel-plot " BLKREEL_VERSION }, { "Command", o->cmdline } };
	sweep_arg a = { o, sw, fonts };
	return plot_write_figure(o, path, draw_sweep, &a, kv, o->cmdline ? 2 : 1, err);
}
