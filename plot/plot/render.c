/* The figure: title, one legend, notes, a column of panels on one time
 * axis, the stats table. Sizes follow the font, which follows the figure,
 * so nothing overlaps from 800x600 to 3000x2000. */
#include "axes.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct legend_item {
	rgb col;
	int style;          /* 0 square, 1 solid line, 2 dashed line */
	char text[48];
} legend_item;

static size_t legend_items(const rctx *c, unsigned panels, legend_item *it, size_t max)
{
	const plot_data *d = c->d;
	size_t n = 0;
#define ADD(C, S, T) do { if (n < max) { it[n].col = (C); it[n].style = (S); \
	snprintf(it[n].text, sizeof(it[n].text), "%s", (T)); n++; } } while (0)
	bool lines = panels & ~(1u << PANEL_IO | 1u << PANEL_STATS);
	if (c->o->by_process && (panels & 1u << PANEL_IO)) {
		rgb cols[IO_MAX_CHANNELS];
		const char *names[IO_MAX_CHANNELS];
		char buf[IO_MAX_CHANNELS][40];
		int nch = io_channels(c, -1, cols, names, buf);
		for (int k = 0; k < nch; k++)
			if (strcmp(names[k], "other") || k == nch - 1)
				ADD(cols[k], 0, names[k]);
	}
	if (d->n > 1) {
		if (c->stack && (panels & 1u << PANEL_IO) && !c->o->by_process) {
			ADD(PAL_READ, 0, "read");
			ADD(PAL_WRITE, 0, "write");
		}
		if (!c->stack && !c->o->by_process && (panels & 1u << PANEL_IO)) {
			/* overlaid: a swatch per trace and direction; the read
			 * shade is also the hue of the trace's lines */
			rgb cols[IO_MAX_CHANNELS];
			const char *names[IO_MAX_CHANNELS];
			char buf[IO_MAX_CHANNELS][40];
			int nch = io_channels(c, -1, cols, names, buf);
			for (int k = 0; k < nch; k++)
				ADD(cols[k], 0, names[k]);
		} else {
			for (size_t t = 0; t < d->n; t++)
				ADD(PAL_TRACE[t], c->stack ? 1 : 0, d->tr[t].label);
		}
	} else if (!c->o->by_process || (panels & 1u << PANEL_TPUT)) {
		int st = c->o->by_process ? 1 : 0; /* -P: read/write only name lines */
		ADD(PAL_READ, st, "read");
		ADD(PAL_WRITE, st, "write");
		if (!st && d->tr[0].tot && d->tr[0].tot->bytes[BR_DIR_OTHER])
			ADD(PAL_OTHER, 0, "discard/other");
		if (lines)
			ADD(PAL_TOTAL, 1, "total");
	}
	if (panels & 1u << PANEL_LAT) {
		if (d->n == 1) {
			ADD(PAL_D2C, 1, "D2C (device)");
			ADD(PAL_Q2C, 1, "Q2C (total)");
		}
		ADD(PAL_TOTAL, 1, "median");
		ADD(PAL_TOTAL, 2, "p99");
	}
	return n;
#undef ADD
}

static double draw_legend(const rctx *c, double y, unsigned panels)
{
	legend_item it[40];
	size_t n = legend_items(c, panels, it, 40);
	if (!n)
		return y;
	cairo_t *cr = c->cr;
	double fs = c->font;
	set_font(c, fs, false);
	double sw = fs * 1.6, gap = fs * 1.3, total = 0;
	for (size_t i = 0; i < n; i++)
		total += (it[i].style ? sw : fs * 0.9) + fs * 0.4 + text_width(c, it[i].text) + gap;
	total -= gap;
	double avail = c->W - 2 * fs;
	if (total > avail) {
		fs *= avail / total;
		set_font(c, fs, false);
		sw = fs * 1.6;
		gap = fs * 1.3;
		total = avail;
	}
	double x = (c->W - total) / 2, base = y + fs;
	for (size_t i = 0; i < n; i++) {
		set_rgb(cr, it[i].col);
		if (it[i].style == 0) {
			cairo_rectangle(cr, x, base - fs * 0.8, fs * 0.9, fs * 0.9);
			cairo_fill(cr);
			x += fs * 0.9;
		} else {
			double lw = 1.8 * c->px * (fs / 11.0 > 1 ? fs / 11.0 : 1);
			cairo_set_line_width(cr, lw);
			double dashes[] = { 4 * lw, 2.5 * lw };
			cairo_set_dash(cr, dashes, it[i].style == 2 ? 2 : 0, 0);
			cairo_move_to(cr, x, base - fs * 0.35);
			cairo_line_to(cr, x + sw, base - fs * 0.35);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			x += sw;
		}
		x += fs * 0.4;
		set_rgb(cr, PAL_TEXT);
		draw_text(c, x, base, 0, it[i].text);
		x += text_width(c, it[i].text) + gap;
	}
	return y + fs * 1.6;
}

static double panel_weight(int p)
{
	switch (p) {
	case PANEL_IO: return 3.0;
	case PANEL_LAT: return 1.5;
	default: return 1.25;
	}
}

int render_figure(cairo_t *cr, const plot_opts *o, const plot_data *d, const frame_opts *f,
		  const plot_fonts *fonts, double W, double H, double px, br_error *err)
{
	rctx c = { .cr = cr, .o = o, .d = d, .f = f, .fonts = fonts, .W = W, .H = H, .px = px };
	double dpi = o->dpi > 0 ? o->dpi : 96;
	c.font = sqrt(W * H) / 80;
	c.font = c.font < 9 ? 9 : c.font > 22 ? 22 : c.font;
	c.font *= dpi / 96;
	c.t0 = (double)d->t0;
	c.t1 = (double)d->t1;
	time_unit(c.t1 - c.t0, &c.tdiv, &c.tunit);
	unsigned panels = f && f->panels ? f->panels : o->panels;
	/* traces far apart on the disk: one io panel each, or both would be
	 * squeezed into the edges of one */
	bool stack = o->stack || d->multi_dev, auto_stack = false;
	if (!stack && d->n > 1 && !o->has_z && d->nbands) {
		double lo = d->bands[0].zr.lo, hi = d->bands[0].zr.hi, sum = 0;
		for (size_t b = 0; b < d->nbands; b++) {
			const offset_range *z = &d->bands[b].zr;
			lo = z->lo < lo ? z->lo : lo;
			hi = z->hi > hi ? z->hi : hi;
			sum += z->hi - z->lo;
		}
		auto_stack = stack = hi - lo > 3 * sum;
	}
	if (!d->lat_ok)
		panels &= ~(1u << PANEL_LAT | 1u << PANEL_QD);

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
	plot_fonts_setup(fonts, cr);

	/* title */
	double fs = c.font, y = fs * 0.6;
	char title[256];
	if (o->title) {
		snprintf(title, sizeof(title), "%s", o->title);
	} else {
		size_t k = 0;
		title[0] = 0;
		for (size_t t = 0; t < d->n; t++)
			k += (size_t)snprintf(title + k, k < sizeof(title) ? sizeof(title) - k : 0, "%s%s",
					      t ? " vs " : "", d->tr[t].label);
	}
	set_font(&c, fs * 1.35, true);
	set_rgb(cr, PAL_TEXT);
	double tw = text_width(&c, title);
	if (tw > W - 2 * fs)
		set_font(&c, fs * 1.35 * (W - 2 * fs) / tw, true);
	draw_text(&c, W / 2, y + fs * 1.3, 0.5, title);
	y += fs * 1.9;
	c.stack = stack;
	y = draw_legend(&c, y, panels);

	/* notes: the offset range shown and how IOs were counted */
	c.left = fs * 6.6;
	c.right = W - fs * 1.4;
	char notes[8][320];
	size_t nn = 0;
	char wbuf[32];
	format_width((double)d->width_ns, wbuf, sizeof(wbuf));
	if ((panels & 1u << PANEL_IO) && !d->empty && !stack)
		snprintf(notes[nn++], sizeof(notes[0]), "Disk IO: %s", d->zr_all.note);
	if (auto_stack && (panels & 1u << PANEL_IO))
		snprintf(notes[nn++], sizeof(notes[0]),
			 "Disk IO: one panel per trace, as the traces use far-apart offset ranges");
	for (size_t b = 0; stack && b < d->nbands && nn < 6 && (panels & 1u << PANEL_IO) && !d->empty; b++)
		snprintf(notes[nn++], sizeof(notes[0]), "%.80s: %s", d->bands[b].label, d->bands[b].zr.note);
	for (size_t i = 0; i < d->nnotes && nn < 8; i++)
		snprintf(notes[nn++], sizeof(notes[0]), "%s", d->notes[i]);
	set_font(&c, fs * 0.85, false);
	set_rgb(cr, PAL_MUTED);
	for (size_t i = 0; i < nn; i++) {
		y += fs * 1.25;
		draw_text(&c, c.left, y, 0, notes[i]);
	}
	y += fs * 0.9;

	/* panels */
	int list[PANEL_COUNT + PLOT_MAX_BANDS];
	int owner[PANEL_COUNT + PLOT_MAX_BANDS];
	size_t np = 0;
	double wsum = 0;
	for (int p = 0; p < PANEL_STATS; p++) {
		if (!(panels & 1u << p))
			continue;
		size_t reps = p == PANEL_IO && stack ? d->nbands : 1;
		for (size_t k = 0; k < reps; k++) {
			list[np] = p;
			owner[np] = p == PANEL_IO && stack ? (int)k : -1;
			wsum += p == PANEL_IO && reps > 1 ? 2.2 : panel_weight(p);
			np++;
		}
	}
	double table_h = (panels & 1u << PANEL_STATS) ? panel_stats_height(&c) + fs * 0.8 : 0;
	double bottom = H - fs * 0.6 - table_h - (np ? fs * 3.2 : 0);
	double gap = fs * 0.9;
	double avail = bottom - y - (np ? gap * (double)(np - 1) : 0);
	if (f && f->has_io_window && (panels & 1u << PANEL_IO))
		avail -= fs * 1.6;
	if (np && avail / wsum * 1.25 < fs * 2.6)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "a %.0fx%.0f figure is too small for %zu panels; use a larger -F or fewer --panels",
				    W / px, H / px, np);
	if (np)
		c.label_at = bottom;
	for (size_t i = 0; i < np; i++) {
		double h = avail * (list[i] == PANEL_IO && stack ? 2.2 : panel_weight(list[i])) / wsum;
		rect r = { c.left, y, c.right - c.left, h };
		if (list[i] == PANEL_IO)
			panel_io(&c, r, owner[i]);
		else
			panel_line(&c, r, list[i]);
		if (list[i] == PANEL_IO && f && f->has_io_window) {
			/* the movie's io window: say which part of the run it shows */
			char a[32], b[32], buf[96];
			snprintf(a, sizeof(a), "%.3g", (double)f->io_t0 / c.tdiv);
			snprintf(b, sizeof(b), "%.3g", (double)f->io_t1 / c.tdiv);
			snprintf(buf, sizeof(buf), "%s\xe2\x80\x93%s %s", a, b, c.tunit);
			set_font(&c, fs, true);
			set_rgb(cr, PAL_TEXT);
			draw_text(&c, r.x + r.w - fs * 0.5, r.y + fs * 1.2, 1, buf);
		}
		if (list[i] == PANEL_IO && d->empty) {
			set_font(&c, fs * 1.5, true);
			set_rgb(cr, PAL_MUTED);
			draw_text(&c, r.x + r.w / 2, r.y + r.h / 2, 0.5, "no IO in this range");
		}
		y += h + gap;
		if (list[i] == PANEL_IO && f && f->has_io_window)
			y += fs * 1.6; /* room for the window's own time labels */
	}
	if (np) {
		char xl[96];
		snprintf(xl, sizeof(xl), "Time (%s), %s buckets", c.tunit, wbuf);
		set_font(&c, fs * 0.95, false);
		set_rgb(cr, PAL_TEXT);
		draw_text(&c, (c.left + c.right) / 2, bottom + fs * 3.0, 0.5, xl);
	}
	if (panels & 1u << PANEL_STATS) {
		rect r = { fs * 0.8, H - fs * 0.6 - table_h + fs * 0.8, W - fs * 1.6, table_h - fs * 0.8 };
		panel_stats(&c, r);
	}
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		return br_error_set(err, BR_ESYS, 0, NULL, -1, "drawing failed: %s",
				    cairo_status_to_string(cairo_status(cr)));
	return 0;
}
