/* The line panels over the shared time axis: throughput, seeks, IOPS,
 * latency (median and p99 of D2C and Q2C) and IOs in flight. */
#include "axes.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_LINES (4 * PLOT_MAX_TRACES)

typedef struct line {
	double *y;           /* one value per bucket of its trace's series; NAN = gap */
	const br_stats_series *s;
	rgb col;
	bool dashed;
} line;

static double bucket_value(const br_stats_bucket *b, int kind, int which)
{
	switch (kind) {
	case PANEL_TPUT:
		return br_stats_bucket_mbps(b, which);
	case PANEL_SEEK:
		return br_stats_bucket_seeks(b);
	case PANEL_IOPS:
		return br_stats_bucket_iops(b);
	case PANEL_QD:
		return b->inflight_avg;
	case PANEL_LAT: {
		/* which: 0 d2c p50, 1 d2c p99, 2 q2c p50, 3 q2c p99 */
		const br_hist *h = which < 2 ? b->d2c : b->q2c;
		if (!h)
			return NAN;
		return (double)br_hist_quantile(h, which & 1 ? 0.99 : 0.5);
	}
	}
	return NAN;
}

/* Trailing moving average over k buckets, skipping gaps. */
static void smooth(double *y, size_t n, size_t k)
{
	if (k <= 1)
		return;
	double *o = malloc(n * sizeof(double));
	if (!o)
		return;
	for (size_t i = 0; i < n; i++) {
		double s = 0;
		size_t m = 0;
		for (size_t j = i + 1 > k ? i + 1 - k : 0; j <= i; j++)
			if (!isnan(y[j])) {
				s += y[j];
				m++;
			}
		o[i] = m && !isnan(y[i]) ? s / (double)m : NAN;
	}
	for (size_t i = 0; i < n; i++)
		y[i] = o[i];
	free(o);
}

static double ymap(rect r, double v, bool logy, double lo, double top)
{
	if (!logy)
		return r.y + r.h - v / top * r.h;
	double l = v > 0 ? log10(v) : lo;
	if (l < lo)
		l = lo;
	return r.y + r.h - (l - lo) / (top - lo) * r.h;
}

static const char *title_of(int kind)
{
	switch (kind) {
	case PANEL_TPUT: return "Throughput (MB/s)|MB/s";
	case PANEL_SEEK: return "Seeks/s";
	case PANEL_IOPS: return "IO/s";
	case PANEL_QD: return "IOs in flight|In flight";
	default: return "";
	}
}

void panel_line(const rctx *c, rect r, int kind)
{
	const plot_data *d = c->d;
	bool multi = d->n > 1;
	line L[MAX_LINES];
	size_t nl = 0;
	for (size_t t = 0; t < d->n; t++) {
		const br_stats_series *s = &d->tr[t].ser;
		int which[4], nw = 0;
		rgb cols[4];
		bool dash[4] = { false, false, false, false };
		if (kind == PANEL_TPUT && !multi) {
			/* total underneath, so a write-only run still shows its colour */
			which[0] = -1; cols[0] = PAL_TOTAL;
			which[1] = BR_DIR_READ; cols[1] = PAL_READ;
			which[2] = BR_DIR_WRITE; cols[2] = PAL_WRITE;
			nw = 3;
		} else if (kind == PANEL_LAT && !multi) {
			which[0] = 0; cols[0] = PAL_D2C;
			which[1] = 1; cols[1] = PAL_D2C; dash[1] = true;
			which[2] = 2; cols[2] = PAL_Q2C;
			which[3] = 3; cols[3] = PAL_Q2C; dash[3] = true;
			nw = 4;
		} else if (kind == PANEL_LAT) {
			which[0] = 2; cols[0] = PAL_TRACE[t];
			which[1] = 3; cols[1] = PAL_TRACE[t]; dash[1] = true;
			nw = 2;
		} else {
			which[0] = -1;
			cols[0] = multi ? PAL_TRACE[t] : PAL_TOTAL;
			nw = 1;
		}
		for (int w = 0; w < nw && nl < MAX_LINES; w++) {
			line *l = &L[nl];
			l->y = malloc((s->n ? s->n : 1) * sizeof(double));
			if (!l->y)
				break;
			for (size_t i = 0; i < s->n; i++)
				l->y[i] = bucket_value(&s->b[i], kind, which[w]);
			if (c->o->avg_window_ns && d->width_ns)
				smooth(l->y, s->n, (size_t)(c->o->avg_window_ns / d->width_ns));
			l->s = s;
			l->col = cols[w];
			l->dashed = dash[w];
			nl++;
		}
	}
	double ymax = 0;
	for (size_t li = 0; li < nl; li++) {
		const br_stats_series *s = L[li].s;
		for (size_t i = 0; i < s->n; i++)
			if (!isnan(L[li].y[i]) && L[li].y[i] > ymax)
				ymax = L[li].y[i];
	}
	/* latency spans decades (a p99 spike would flatten the medians):
	 * a log axis in ns; the other panels are linear from 0 */
	bool logy = kind == PANEL_LAT;
	double scale = 1, lo = 0, top;
	if (logy) {
		double ymin = 0;
		for (size_t li = 0; li < nl; li++) {
			const br_stats_series *s = L[li].s;
			for (size_t i = 0; i < s->n; i++)
				if (L[li].y[i] > 0 && (ymin == 0 || L[li].y[i] < ymin))
					ymin = L[li].y[i];
		}
		lo = ymin > 0 ? floor(log10(ymin)) : 3;
		top = ymax > 0 ? ceil(log10(ymax)) : lo + 1;
		if (top <= lo)
			top = lo + 1;
	} else {
		top = ymax > 0 ? nice_ceil(ymax * 1.05) : 1;
	}
	cairo_t *cr = c->cr;
	cairo_save(cr);
	draw_time_axis(c, r, false);
	if (logy)
		draw_log_axis(c, r, lo, top, multi ? "Q2C latency|Q2C" : "Latency|Latency");
	else
		draw_value_axis(c, r, 0, top, title_of(kind), value_ticks_for(c, r));
	cairo_rectangle(cr, r.x, r.y - c->px, r.w, r.h + c->px);
	cairo_clip(cr);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	/* cairo's finer antialiasing rasterises each long stroke over the whole
	 * panel at many samples per pixel: the line panels were a third of a
	 * small trace's run. The fast mode draws the same lines, edges no
	 * different to the eye at these widths, for a fifth fewer instructions
	 * in the whole run (vector outputs ignore it). */
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
	double lw = 1.6 * c->px * (c->font / 11.0 > 1 ? c->font / 11.0 : 1);
	for (size_t li = 0; li < nl; li++) {
		const br_stats_series *s = L[li].s;
		set_rgb(cr, L[li].col);
		cairo_set_line_width(cr, lw);
		double dashes[] = { 4 * lw, 2.5 * lw };
		cairo_set_dash(cr, dashes, L[li].dashed ? 2 : 0, 0);
		bool pen = false;
		for (size_t i = 0; i < s->n; i++) {
			double v = L[li].y[i];
			if (isnan(v)) {
				pen = false;
				continue;
			}
			const br_stats_bucket *b = &s->b[i];
			double x = time_to_x(c, (double)(b->start_ns + d->shift) + (double)b->covered_ns / 2);
			double y = ymap(r, v / scale, logy, lo, top);
			if (s->n == 1) { /* a lone bucket: a segment across it */
				cairo_move_to(cr, time_to_x(c, (double)(b->start_ns + d->shift)), y);
				cairo_line_to(cr, time_to_x(c, (double)(b->start_ns + d->shift + b->covered_ns)), y);
				continue;
			}
			if (pen)
				cairo_line_to(cr, x, y);
			else
				cairo_move_to(cr, x, y);
			pen = true;
		}
		cairo_stroke(cr);
		/* a value between two gaps would be invisible as a line: mark it */
		for (size_t i = 0; i < s->n && s->n > 1; i++) {
			double v = L[li].y[i];
			bool lone = !isnan(v) && (i == 0 || isnan(L[li].y[i - 1])) &&
				    (i + 1 == s->n || isnan(L[li].y[i + 1]));
			if (!lone)
				continue;
			const br_stats_bucket *b = &s->b[i];
			double x = time_to_x(c, (double)(b->start_ns + d->shift) + (double)b->covered_ns / 2);
			double y = ymap(r, v / scale, logy, lo, top);
			cairo_new_sub_path(cr);
			cairo_arc(cr, x, y, lw * (L[li].dashed ? 0.9 : 1.3), 0, 2 * M_PI);
			cairo_fill(cr);
		}
	}
	cairo_set_dash(cr, NULL, 0, 0);
	if (kind == PANEL_QD) {
		/* IOs with no completion are left out of the line (blkreel/stats.h,
		 * "In flight"): say how many, or the line looks complete */
		uint64_t lost = 0, untimed = 0;
		for (size_t t = 0; t < d->n; t++) {
			lost += d->tr[t].tot->lost_ios;
			untimed += d->tr[t].tot->completed_untimed;
		}
		if (lost || untimed) {
			char note[160];
			if (lost && untimed)
				snprintf(note, sizeof note,
					 "%llu IOs never completed, %llu completed at an unknown time: not counted in flight",
					 (unsigned long long)lost, (unsigned long long)untimed);
			else if (lost)
				snprintf(note, sizeof note, "%llu IOs never completed: not counted in flight",
					 (unsigned long long)lost);
			else
				snprintf(note, sizeof note,
					 "%llu IOs completed at an unknown time (unrecorded): not counted in flight",
					 (unsigned long long)untimed);
			cairo_set_source_rgb(cr, 0.6, 0.1, 0.1);
			set_font(c, c->font * 0.85, false);
			draw_text(c, r.x + r.w - 4 * c->px, r.y + c->font, 1.0, note);
		}
	}
	if (c->f && c->f->has_cursor) {
		double x = time_to_x(c, (double)c->f->cursor);
		cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
		cairo_set_line_width(cr, 1.5 * c->px);
		cairo_move_to(cr, x, r.y);
		cairo_line_to(cr, x, r.y + r.h);
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	for (size_t li = 0; li < nl; li++)
		free(L[li].y);
}
