/* Drawing helpers: text, the shared time axis, value axes with a grid. */
#include "axes.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void set_rgb(cairo_t *cr, rgb c)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

void set_font(const rctx *c, double size, bool bold)
{
	plot_fonts_use(c->fonts, c->cr, size, bold);
}

double text_width(const rctx *c, const char *s)
{
	cairo_text_extents_t e;
	cairo_text_extents(c->cr, s, &e);
	return e.x_advance;
}

void draw_text(const rctx *c, double x, double y, double align, const char *s)
{
	cairo_move_to(c->cr, x - align * text_width(c, s), y);
	cairo_show_text(c->cr, s);
}

void draw_text_vertical(const rctx *c, double x, double y, const char *s)
{
	cairo_save(c->cr);
	cairo_translate(c->cr, x, y);
	cairo_rotate(c->cr, -M_PI / 2);
	draw_text(c, 0, 0, 0.5, s);
	cairo_restore(c->cr);
}

double time_to_x(const rctx *c, double t)
{
	return c->left + (t - c->t0) / (c->t1 - c->t0) * (c->right - c->left);
}

/* Snap a coordinate to the middle of a device pixel for crisp 1 px lines. */
static double crisp(const rctx *c, double v)
{
	return (floor(v / c->px) + 0.5) * c->px;
}

void draw_time_axis(const rctx *c, rect r, bool with_labels)
{
	if (fabs(r.y + r.h - c->label_at) < 0.5)
		with_labels = true;
	ticks t;
	double span = (c->t1 - c->t0) / c->tdiv;
	int maxn = (int)((c->right - c->left) / (c->font * 6)) + 1;
	nice_ticks(c->t0 / c->tdiv, c->t1 / c->tdiv, maxn, &t);
	(void)span;
	cairo_t *cr = c->cr;
	cairo_set_line_width(cr, c->px);
	for (int i = 0; i < t.n; i++) {
		double x = crisp(c, time_to_x(c, t.v[i] * c->tdiv));
		set_rgb(cr, PAL_GRID);
		cairo_move_to(cr, x, r.y);
		cairo_line_to(cr, x, r.y + r.h);
		cairo_stroke(cr);
		set_rgb(cr, PAL_AXIS);
		cairo_move_to(cr, x, r.y + r.h);
		cairo_line_to(cr, x, r.y + r.h + c->font * 0.35);
		cairo_stroke(cr);
		if (with_labels) {
			char buf[32];
			tick_label(t.v[i], t.decimals, buf, sizeof(buf));
			set_font(c, c->font, false);
			set_rgb(cr, PAL_TEXT);
			draw_text(c, x, r.y + r.h + c->font * 1.45, 0.5, buf);
		}
	}
	set_rgb(cr, PAL_AXIS);
	double yb = crisp(c, r.y + r.h);
	cairo_move_to(cr, r.x, yb);
	cairo_line_to(cr, r.x + r.w, yb);
	cairo_stroke(cr);
}

int value_ticks_for(const rctx *c, rect r)
{
	int n = (int)(r.h / (c->font * 2.2)) + 1;
	return n < 2 ? 2 : n > 8 ? 8 : n;
}

/* One labelled tick of a value axis at y: the grid line across the panel
 * (grid), the tick mark and the label, kept inside the panel's height.
 * Returns the label's width. */
static double value_tick(const rctx *c, rect r, double y, bool grid, const char *label)
{
	cairo_t *cr = c->cr;
	if (grid) {
		set_rgb(cr, PAL_GRID);
		cairo_move_to(cr, r.x, y);
		cairo_line_to(cr, r.x + r.w, y);
		cairo_stroke(cr);
	}
	set_rgb(cr, PAL_AXIS);
	cairo_move_to(cr, r.x - c->font * 0.35, y);
	cairo_line_to(cr, r.x, y);
	cairo_stroke(cr);
	set_rgb(cr, PAL_TEXT);
	double ty = y + c->font * 0.35;
	if (ty > r.y + r.h + c->font * 0.2)
		ty = r.y + r.h + c->font * 0.2;
	if (ty < r.y + c->font * 0.75)
		ty = r.y + c->font * 0.75;
	draw_text(c, r.x - c->font * 0.55, ty, 1, label);
	return text_width(c, label);
}

/* The axis line, and the vertical title left of labels wmax wide:
 * "Long title|short" uses the short one when the long does not fit, then
 * shrinks to fit. */
static void value_axis_finish(const rctx *c, rect r, double wmax, const char *title)
{
	cairo_t *cr = c->cr;
	set_rgb(cr, PAL_AXIS);
	double xl = crisp(c, r.x);
	cairo_move_to(cr, xl, r.y);
	cairo_line_to(cr, xl, r.y + r.h);
	cairo_stroke(cr);
	if (!title)
		return;
	set_font(c, c->font * 0.95, false);
	set_rgb(cr, PAL_TEXT);
	char buf[96];
	snprintf(buf, sizeof(buf), "%s", title);
	char *bar = strchr(buf, '|');
	const char *tt = buf;
	if (bar) {
		*bar = 0;
		if (text_width(c, buf) > r.h * 1.05)
			tt = bar + 1;
	}
	double tw = text_width(c, tt);
	if (tw > r.h * 1.05)
		set_font(c, c->font * 0.95 * r.h * 1.05 / tw, false);
	draw_text_vertical(c, r.x - c->font * 1.0 - wmax, r.y + r.h / 2, tt);
}

void draw_value_axis(const rctx *c, rect r, double lo, double hi, const char *title, int maxn)
{
	ticks t;
	nice_ticks(lo, hi, maxn, &t);
	cairo_set_line_width(c->cr, c->px);
	set_font(c, c->font, false);
	double wmax = 0;
	for (int i = 0; i < t.n; i++) {
		double y = crisp(c, r.y + r.h - (t.v[i] - lo) / (hi - lo) * r.h);
		char buf[32];
		tick_label(t.v[i], t.decimals, buf, sizeof(buf));
		double w = value_tick(c, r, y, i > 0 || t.v[i] > lo, buf);
		if (w > wmax)
			wmax = w;
	}
	value_axis_finish(c, r, wmax, title);
}

/* "1 µs", "10 ms", "1 s" for a power of ten of nanoseconds. */
static void decade_label(int e, char *buf, size_t n)
{
	static const char *const unit[] = { "ns", "\xc2\xb5s", "ms", "s" };
	if (e < 0)
		e = 0;
	int u = e / 3 < 3 ? e / 3 : 3;
	double v = 1;
	for (int k = 0; k < e - 3 * u; k++)
		v *= 10;
	snprintf(buf, n, "%.0f %s", v, unit[u]);
}

void draw_log_axis(const rctx *c, rect r, double lo, double hi, const char *title)
{
	cairo_t *cr = c->cr;
	cairo_set_line_width(cr, c->px);
	set_font(c, c->font, false);
	int step = (int)((hi - lo) / (value_ticks_for(c, r) - 1) + 0.999);
	if (step < 1)
		step = 1;
	double wmax = 0;
	for (int e = (int)lo; e <= (int)hi; e++) {
		double y = crisp(c, r.y + r.h - ((double)e - lo) / (hi - lo) * r.h);
		/* light minor lines at 2x and 5x inside each decade */
		for (int m = 2; m <= 5 && e < (int)hi; m += 3) {
			double ym = crisp(c, r.y + r.h - ((double)e + log10(m) - lo) / (hi - lo) * r.h);
			cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
			cairo_move_to(cr, r.x, ym);
			cairo_line_to(cr, r.x + r.w, ym);
			cairo_stroke(cr);
		}
		if ((e - (int)lo) % step)
			continue;
		char buf[32];
		decade_label(e, buf, sizeof(buf));
		double w = value_tick(c, r, y, e > (int)lo, buf);
		if (w > wmax)
			wmax = w;
	}
	value_axis_finish(c, r, wmax, title);
}
