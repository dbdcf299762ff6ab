/* The stats table: one row per trace, the better value of each column in
 * bold on a tinted cell when traces are compared. */
#include "render.h"
#include "summary_row.h"

#include <math.h>
#include <stdio.h>

enum { COLS = 11 };
static const char *const heads[COLS] = {
	"Trace", "Run time", "IOs", "MB", "MB/s", "IO/s", "Seeks/s",
	"D2C p50", "D2C p99", "Q2C p50", "Q2C p99",
};
/* +1: higher is better, -1: lower is better, 0: neither */
static const int better[COLS] = { 0, -1, 0, 0, 1, 1, -1, -1, -1, -1, -1 };

double panel_stats_height(const rctx *c)
{
	return c->font * 1.7 * (double)(c->d->n + 1) + c->font * 0.4;
}

static double value_of(const trace_row *r, int col)
{
	switch (col) {
	case 1: return r->runtime_s;
	case 2: return r->ios;
	case 3: return r->mb;
	case 4: return r->mbps;
	case 5: return r->iops;
	case 6: return r->seeks_ps;
	case 7: return r->d2c50;
	case 8: return r->d2c99;
	case 9: return r->q2c50;
	case 10: return r->q2c99;
	}
	return 0;
}

static void cell_text(const trace_row *r, int col, char *buf, size_t n)
{
	double v = value_of(r, col);
	switch (col) {
	case 1:
		if (v >= 1)
			snprintf(buf, n, "%.2f s", v);
		else
			snprintf(buf, n, "%.1f ms", v * 1e3);
		return;
	case 2: snprintf(buf, n, "%.0f", v); return;
	case 3: case 4: snprintf(buf, n, v >= 100 ? "%.0f" : "%.1f", v); return;
	case 5: case 6: snprintf(buf, n, "%.0f", v); return;
	default: format_latency(v, buf, n); return;
	}
}

void panel_stats(const rctx *c, rect r)
{
	const plot_data *d = c->d;
	cairo_t *cr = c->cr;
	trace_row rows[PLOT_MAX_TRACES];
	for (size_t t = 0; t < d->n; t++)
		trace_row_of(&d->tr[t], &rows[t]);
	int best[COLS];
	for (int k = 0; k < COLS; k++) {
		best[k] = -1;
		if (!better[k] || d->n < 2)
			continue;
		for (size_t t = 0; t < d->n; t++) {
			double v = value_of(&rows[t], k);
			if (v < 0)
				continue;
			if (best[k] < 0 || (better[k] > 0 ? v > value_of(&rows[best[k]], k)
							  : v < value_of(&rows[best[k]], k)))
				best[k] = (int)t;
		}
		/* a tie (within 1 %) has no winner */
		for (size_t t = 0; best[k] >= 0 && t < d->n; t++) {
			double v = value_of(&rows[t], k), b = value_of(&rows[best[k]], k);
			if ((int)t != best[k] && v >= 0 && fabs(v - b) <= 0.01 * fabs(b))
				best[k] = -1;
		}
	}
	/* column widths: the label column takes what the numbers leave */
	double fs = c->font * 0.92;
	set_font(c, fs, true);
	double w[COLS], sum = 0;
	for (int k = 1; k < COLS; k++) {
		w[k] = text_width(c, heads[k]);
		for (size_t t = 0; t < d->n; t++) {
			char buf[32];
			cell_text(&rows[t], k, buf, sizeof(buf));
			double x = text_width(c, buf);
			if (x > w[k])
				w[k] = x;
		}
		w[k] += fs * 1.0;
		sum += w[k];
	}
	w[0] = r.w - sum;
	double scale = 1;
	if (w[0] < fs * 5) { /* too narrow: shrink everything */
		scale = r.w / (sum + fs * 5);
		for (int k = 1; k < COLS; k++)
			w[k] *= scale;
		w[0] = fs * 5 * scale;
		fs *= scale;
	}
	double rh = c->font * 1.7 * (scale < 1 ? scale : 1);
	double y = r.y;
	for (int row = -1; row < (int)d->n; row++) {
		double x = r.x;
		if (row >= 0 && row % 2 == 0) {
			cairo_set_source_rgb(cr, 0.965, 0.965, 0.965);
			cairo_rectangle(cr, r.x, y, r.w, rh);
			cairo_fill(cr);
		}
		for (int k = 0; k < COLS; k++) {
			char buf[64];
			bool hl = row >= 0 && best[k] == row;
			if (row < 0)
				snprintf(buf, sizeof(buf), "%s", heads[k]);
			else if (k == 0)
				snprintf(buf, sizeof(buf), "%s", d->tr[row].label);
			else
				cell_text(&rows[row], k, buf, sizeof(buf));
			if (hl) {
				cairo_set_source_rgb(cr, 0.85, 0.92, 0.97);
				cairo_rectangle(cr, x, y, w[k], rh);
				cairo_fill(cr);
			}
			set_font(c, fs, row < 0 || hl);
			if (k == 0 && row >= 0 && d->n > 1) {
				set_rgb(cr, PAL_TRACE[row]);
				cairo_rectangle(cr, x + fs * 0.2, y + rh * 0.3, fs * 0.7, rh * 0.4);
				cairo_fill(cr);
			}
			set_rgb(cr, row < 0 ? PAL_MUTED : PAL_TEXT);
			double base = y + rh * 0.68;
			if (k == 0) {
				/* clip long labels to their column */
				cairo_save(cr);
				cairo_rectangle(cr, x, y, w[0] - fs * 0.3, rh);
				cairo_clip(cr);
				draw_text(c, x + (d->n > 1 && row >= 0 ? fs * 1.2 : fs * 0.2), base, 0, buf);
				cairo_restore(cr);
			} else {
				draw_text(c, x + w[k] - fs * 0.4, base, 1, buf);
			}
			x += w[k];
		}
		y += rh;
		if (row < 0) {
			set_rgb(cr, PAL_AXIS);
			cairo_set_line_width(cr, c->px);
			cairo_move_to(cr, r.x, y);
			cairo_line_to(cr, r.x + r.w, y);
			cairo_stroke(cr);
		}
	}
}
