/* The io panel: offset against time, one mark per IO, shaded by density.
 * Marks come from the density grid, so the cost is one pass over its
 * cells whatever the number of IOs. Reads and writes (per trace in a
 * comparison, or processes with -P: each cell's dominant one) are
 * channels; a pixel's colour is the mix of its channels weighted by their
 * counts, so neither hides the other, and its strength grows with the log
 * of the count. */
#include "axes.h"
#include "bigbuf.h"
#include "render.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CH IO_MAX_CHANNELS
#define PROC_CH 8 /* -P: seven processes and "other" */
#define LOG_LUT 1024

/* v in [0, 1] to 0..255, rounded half up (lround without the call) */
static inline uint32_t to_byte(double v)
{
	return (uint32_t)(v * 255 + 0.5);
}

static void io_time_range(const rctx *c, double *t0, double *t1)
{
	*t0 = c->t0;
	*t1 = c->t1;
	if (c->f && c->f->has_io_window) {
		*t0 = (double)c->f->io_t0;
		*t1 = (double)c->f->io_t1;
	}
}

/* Top processes of a trace by IO marks: slot -> channel (PROC_CH-1 = other). */
static void process_channels(const plot_trace *t, int kind, uint8_t map[256])
{
	double cnt[256] = { 0 };
	const density *dn = &t->dens;
	for (size_t i = 0; i < dn->cap; i++)
		if (dn->cells[i].key)
			cnt[density_cell_pid(&dn->cells[i])] += density_cell_count(&dn->cells[i], kind);
	memset(map, PROC_CH - 1, 256);
	for (int ch = 0; ch < PROC_CH - 1; ch++) {
		int best = -1;
		for (int p = 0; p < DENSITY_MAX_PIDS; p++)
			if (cnt[p] > 0 && map[p] == PROC_CH - 1 && (best < 0 || cnt[p] > cnt[best]))
				best = p;
		if (best < 0)
			break;
		map[best] = (uint8_t)ch;
		cnt[best] = -1;
	}
}

/* Channels per trace in an overlaid comparison: read and write, and a
 * third when some trace has discards (or other IOs with data). */
int io_trace_channels(const plot_data *d)
{
	for (size_t t = 0; t < d->n; t++)
		if (d->tr[t].tot && d->tr[t].tot->ios[BR_DIR_OTHER])
			return 3;
	return 2;
}

/* Channel colours for the current mode (shared with the legend). */
int io_channels(const rctx *c, int only_trace, rgb *cols, const char **names, char buf[][40])
{
	const plot_data *d = c->d;
	if (c->o->by_process) {
		const plot_trace *t = &d->tr[only_trace >= 0 ? only_trace : 0];
		uint8_t map[256];
		process_channels(t, t->tot->io_kind, map);
		for (int ch = 0; ch < PROC_CH; ch++) {
			cols[ch] = ch < PROC_CH - 1 ? PAL_TRACE[ch] : PAL_OTHER;
			snprintf(buf[ch], 40, "other");
			names[ch] = buf[ch];
		}
		for (int p = 0; p < DENSITY_MAX_PIDS && p < (int)t->dens.npids; p++)
			if (map[p] < PROC_CH - 1)
				snprintf(buf[map[p]], 40, "%s%s%u", t->comms[p], t->comms[p][0] ? " " : "pid ",
					 t->pids[p]);
		return PROC_CH;
	}
	if (d->n > 1 && only_trace < 0) {
		/* a hue per trace, a shade per direction: reads, writes (and
		 * discards) of each trace stay apart, as seekwatcher -t a -t b */
		int per = io_trace_channels(d);
		for (size_t t = 0; t < d->n; t++) {
			cols[per * t] = PAL_TRACE[t];
			cols[per * t + 1] = PAL_TRACE_WRITE[t];
			snprintf(buf[per * t], 40, "%.28s read", d->tr[t].label);
			snprintf(buf[per * t + 1], 40, "%.28s write", d->tr[t].label);
			if (per == 3) {
				cols[per * t + 2] = (rgb){ (PAL_TRACE[t].r + 2 * PAL_OTHER.r) / 3,
							   (PAL_TRACE[t].g + 2 * PAL_OTHER.g) / 3,
							   (PAL_TRACE[t].b + 2 * PAL_OTHER.b) / 3 };
				snprintf(buf[per * t + 2], 40, "%.24s discard/other", d->tr[t].label);
			}
			for (int k = 0; k < per; k++)
				names[per * t + k] = buf[per * t + k];
		}
		return per * (int)d->n;
	}
	cols[0] = PAL_READ;
	cols[1] = PAL_WRITE;
	cols[2] = PAL_OTHER;
	names[0] = "read";
	names[1] = "write";
	names[2] = "discard/other";
	return 3;
}

/* The io panel's pixels are worked out in bands of rows, each on a thread
 * of its own: every band walks all cells in order but adds only to its own
 * rows, so each pixel sums the same counts in the same order as one pass
 * would, and the figure is the same. Then (phase 2, once the largest sum
 * over all bands is known) each band turns its sums into colours. */
typedef struct io_band {
	const rctx *c;
	int only_trace, only_dev;
	double lo, hi, t0, t1;
	int pw, ph, nch, dot;
	float *buf;
	const rgb *cols;
	unsigned char *px;
	int stride;
	/* per band */
	int y_from, y_to;
	int phase;                /* 1: add counts, 2: colour */
	float nmax;               /* phase 1's result; phase 2's input */
} io_band;

/* A row's pixel rows in one band, cached by row (see band_add): 1 MB, or
 * a small one on the stack when that cannot be had. */
#define ROW_CACHE 65536
#define ROW_CACHE_SMALL 256
typedef struct row_span {
	uint64_t row;             /* UINT64_MAX: empty */
	bool skip;
	int y0, y1;
} row_span;

static void band_add(io_band *j)
{
	row_span small[ROW_CACHE_SMALL];
	row_span *rows = malloc(ROW_CACHE * sizeof *rows);
	size_t nrows = rows ? ROW_CACHE : ROW_CACHE_SMALL;
	if (!rows)
		rows = small;
	const rctx *c = j->c;
	const plot_data *d = c->d;
	int pw = j->pw, ph = j->ph, nch = j->nch, dot = j->dot, only_trace = j->only_trace;
	double lo = j->lo, hi = j->hi, t0 = j->t0, t1 = j->t1;
	float *buf = j->buf;
	for (size_t t = 0; t < d->n; t++) {
		if (only_trace >= 0 && (size_t)only_trace != t)
			continue;
		const density *dn = &d->tr[t].dens;
		int kind = d->tr[t].tot->io_kind;
		uint8_t pmap[256];
		if (c->o->by_process)
			process_channels(&d->tr[t], kind, pmap);
		/* A cell's pixel span depends on its column (the cells are
		 * sorted by it) and its row (rows recur from column to
		 * column): each is worked out once, with the same arithmetic,
		 * and kept. */
		uint64_t span_col = UINT64_MAX;
		int cx0 = 0, cx1 = 0;
		for (size_t k = 0; k < nrows; k++)
			rows[k].row = UINT64_MAX;
		for (size_t i = 0; i < dn->cap; i++) {
			const density_cell *cl = &dn->cells[i];
			double ta;
			if (!density_cell_shown(dn, cl, kind, j->only_dev, (double)d->shift, t0, t1, &ta))
				continue;
			uint64_t row = density_row(cl->key);
			row_span *rs = &rows[row & (nrows - 1)];
			if (rs->row != row) {
				double ma = density_row_mb(dn, row), mb = density_row_mb(dn, row + 1);
				int y1 = (int)ceil(ph - (ma - lo) / (hi - lo) * ph);
				int y0 = (int)floor(ph - (mb - lo) / (hi - lo) * ph);
				if (y1 < y0 + dot) {
					int mid = (y0 + y1) / 2;
					y0 = mid - dot / 2;
					y1 = y0 + dot;
				}
				if (y0 < j->y_from) y0 = j->y_from;
				if (y1 > j->y_to) y1 = j->y_to;
				rs->row = row;
				/* outside the range drawn, or another band's rows */
				rs->skip = mb <= lo || ma >= hi || y0 >= y1;
				rs->y0 = y0;
				rs->y1 = y1;
			}
			if (rs->skip)
				continue;
			int y0 = rs->y0, y1 = rs->y1;
			if (density_col(cl->key) != span_col) {
				span_col = density_col(cl->key);
				double tb = ta + (double)dn->col_ns;
				int x0 = (int)floor((ta - t0) / (t1 - t0) * pw);
				int x1 = (int)ceil((tb - t0) / (t1 - t0) * pw);
				if (x1 < x0 + dot)
					x1 = x0 + dot;
				cx0 = x0 < 0 ? 0 : x0;
				cx1 = x1 > pw ? pw : x1;
			}
			int x0 = cx0, x1 = cx1;
			float add[MAX_CH] = { 0 };
			if (c->o->by_process) {
				add[pmap[density_cell_pid(cl)]] = (float)density_cell_count(cl, kind);
			} else if (d->n > 1 && only_trace < 0) {
				int per = nch / (int)d->n;
				add[per * t] = cl->n[kind][BR_DIR_READ];
				add[per * t + 1] = cl->n[kind][BR_DIR_WRITE];
				/* without a third channel, data IOs that are neither
				 * read nor write (none, by io_trace_channels) */
				add[per * t + (per == 3 ? 2 : 1)] += cl->n[kind][BR_DIR_OTHER];
			} else {
				for (int k = 0; k < 3; k++)
					add[k] = cl->n[kind][k];
			}
			for (int y = y0; y < y1; y++)
				for (int x = x0; x < x1; x++) {
					float *p = buf + ((size_t)y * pw + x) * nch;
					for (int k = 0; k < nch; k++)
						p[k] += add[k];
				}
		}
	}
	if (rows != small)
		free(rows);
	float nmax = 0;
	for (size_t i = (size_t)j->y_from * pw; i < (size_t)j->y_to * pw; i++) {
		float s = 0;
		for (int k = 0; k < nch; k++)
			s += buf[i * nch + k];
		if (s > nmax)
			nmax = s;
	}
	j->nmax = nmax;
}

static void band_colour(const io_band *j)
{
	int pw = j->pw, nch = j->nch;
	const float *buf = j->buf;
	const rgb *cols = j->cols;
	double lmax = log1p(j->nmax);
	/* counts are whole numbers: the common small sums take their strength
	 * from a table filled as they turn up, not a log1p per pixel */
	double lut[LOG_LUT];
	for (int i = 0; i < LOG_LUT; i++)
		lut[i] = -1;
	for (int y = j->y_from; y < j->y_to; y++) {
		uint32_t *row = (uint32_t *)(j->px + (size_t)y * j->stride);
		for (int x = 0; x < pw; x++) {
			const float *p = buf + ((size_t)y * pw + x) * nch;
			double s = 0;
			for (int k = 0; k < nch; k++)
				s += p[k];
			if (s <= 0)
				continue; /* bigbuf_surface starts transparent */
			double cr = 0, cg = 0, cb = 0;
			for (int k = 0; k < nch; k++) {
				cr += p[k] * cols[k].r;
				cg += p[k] * cols[k].g;
				cb += p[k] * cols[k].b;
			}
			double f = 1;
			if (lmax > 0 && s < LOG_LUT) {
				double *e = &lut[(int)s];
				if (*e < 0)
					*e = log1p(s) / lmax;
				f = *e;
			} else if (lmax > 0) {
				f = log1p(s) / lmax;
			}
			double a = 0.6 + 0.4 * f, dk = 1 - 0.35 * f;
			cr = cr / s * dk * a;
			cg = cg / s * dk * a;
			cb = cb / s * dk * a;
			row[x] = to_byte(a) << 24 | to_byte(cr) << 16 | to_byte(cg) << 8 | to_byte(cb);
		}
	}
}

static void *band_main(void *arg)
{
	io_band *j = arg;
	if (j->phase == 1)
		band_add(j);
	else
		band_colour(j);
	return NULL;
}

/* Both phases over up to IO_BANDS bands, one per CPU we may run on (a band
 * whose thread cannot be started runs on this thread). */
#define IO_BANDS 4
static void run_bands(const io_band *job, int ph)
{
	/* the CPUs this process may run on (taskset, a cpuset), not all */
	cpu_set_t set;
	long ncpu = sched_getaffinity(0, sizeof set, &set) ? sysconf(_SC_NPROCESSORS_ONLN)
							   : CPU_COUNT(&set);
	int nb = ncpu < 1 ? 1 : ncpu > IO_BANDS ? IO_BANDS : (int)ncpu;
	if (nb > ph)
		nb = ph;
	io_band b[IO_BANDS];
	for (int i = 0; i < nb; i++) {
		b[i] = *job;
		b[i].y_from = (int)((long)ph * i / nb);
		b[i].y_to = (int)((long)ph * (i + 1) / nb);
	}
	float nmax = 0;
	for (int phase = 1; phase <= 2; phase++) {
		pthread_t tid[IO_BANDS];
		bool started[IO_BANDS] = { false };
		for (int i = 0; i < nb; i++) {
			b[i].phase = phase;
			if (phase == 2)
				b[i].nmax = nmax;
		}
		for (int i = 1; i < nb; i++)
			started[i] = !pthread_create(&tid[i], NULL, band_main, &b[i]);
		band_main(&b[0]);
		for (int i = 1; i < nb; i++) {
			if (started[i])
				pthread_join(tid[i], NULL);
			else
				band_main(&b[i]);
		}
		for (int i = 0; i < nb && phase == 1; i++)
			if (b[i].nmax > nmax)
				nmax = b[i].nmax;
	}
}

void panel_io(const rctx *c, rect r, int band)
{
	const plot_data *d = c->d;
	int only_trace = band < 0 ? -1 : d->bands[band].trace;
	int only_dev = band < 0 ? -1 : d->bands[band].dev;
	const offset_range *zr = band < 0 ? &d->zr_all : &d->bands[band].zr;
	double lo = zr->lo, hi = zr->hi;
	if (c->f && c->f->has_io_window) {
		/* the movie's window: its own time axis, labelled */
		rctx w = *c;
		w.t0 = (double)c->f->io_t0;
		w.t1 = (double)c->f->io_t1;
		w.label_at = r.y + r.h;
		draw_time_axis(&w, r, true);
	} else {
		draw_time_axis(c, r, false);
	}
	double udiv;
	const char *uname;
	offset_unit(hi, &udiv, &uname);
	char ytitle[32];
	snprintf(ytitle, sizeof(ytitle), "Offset (%s)", uname);
	draw_value_axis(c, r, lo / udiv, hi / udiv, ytitle, value_ticks_for(c, r));
	if (d->empty)
		return;
	int pw = (int)lround(r.w / c->px), ph = (int)lround(r.h / c->px);
	if (pw < 1 || ph < 1)
		return;
	rgb cols[MAX_CH];
	const char *names[MAX_CH];
	char nb[MAX_CH][40];
	int nch = io_channels(c, only_trace, cols, names, nb);
	size_t bufsize = (size_t)pw * ph * nch * sizeof(float);
	float *buf = bigbuf_alloc(bufsize);
	cairo_surface_t *img = bigbuf_surface(pw, ph);
	if (!buf || cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		bigbuf_free(buf, bufsize);
		cairo_surface_destroy(img);
		return;
	}
	double t0, t1;
	io_time_range(c, &t0, &t1);
	int dot = (int)lround(2 * c->font / 11.0);
	if (dot < 2)
		dot = 2;
	cairo_surface_flush(img);
	io_band job = {
		.c = c, .only_trace = only_trace, .only_dev = only_dev, .lo = lo, .hi = hi,
		.t0 = t0, .t1 = t1, .pw = pw, .ph = ph, .nch = nch, .dot = dot, .buf = buf,
		.cols = cols, .px = cairo_image_surface_get_data(img),
		.stride = cairo_image_surface_get_stride(img),
	};
	run_bands(&job, ph);
	cairo_surface_mark_dirty(img);
	cairo_t *cr = c->cr;
	cairo_save(cr);
	cairo_translate(cr, r.x, r.y);
	cairo_scale(cr, c->px, c->px);
	cairo_set_source_surface(cr, img, 0, 0);
	cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
	cairo_paint(cr);
	cairo_restore(cr);
	cairo_surface_destroy(img);
	bigbuf_free(buf, bufsize);
	if (band >= 0 && d->nbands > 1) {
		set_font(c, c->font, true);
		set_rgb(cr, PAL_TEXT);
		draw_text(c, r.x + c->font * 0.5, r.y + c->font * 1.2, 0, d->bands[band].label);
	}
}
