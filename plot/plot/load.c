/* Reading the traces: one pass per trace feeds the shared statistics and
 * the density grid of IO marks (the reading on a thread of its own, see
 * feed); then the series at one bucket width. */
#include "plot.h"
#include "marks.h"
#include "blkreel/event_pipe.h"
#include "tool/progress.h"
#include "blkreel/reader.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const plot_panel_names[PANEL_COUNT] = {
	"io", "tput", "seek", "iops", "lat", "qd", "stats",
};

/* The figure's marks, binned on a thread of their own from the same
 * batches the statistics read. */
typedef struct marks_job {
	br_event_pipe *pipe;
	plot_marks m;
	br_error err;
	int rc;
} marks_job;

static void *marks_main(void *arg)
{
	marks_job *j = arg;
	const br_event *evs;
	int n;
	br_error_clear(&j->err);
	while ((n = br_event_pipe_next_for(j->pipe, 1, &evs, &j->err)) > 0)
		if ((j->rc = plot_marks_add(&j->m, evs, n, &j->err)) < 0) {
			br_event_pipe_cancel(j->pipe); /* the statistics stop too */
			return NULL;
		}
	/* a reader error reaches the statistics' side as well */
	j->rc = n < 0 ? 0 : plot_marks_finish(&j->m, &j->err);
	return NULL;
}

static int marks_hook(void *arg, const br_event *evs, int n, br_error *err)
{
	return plot_marks_add(arg, evs, n, err);
}

/* Reading one file of raw records is cheap (no inflating, merging or text
 * parsing): then the reading thread has room for the marks, binned from
 * the batch it just wrote while it is still in its core's cache, and the
 * statistics (the longest job) get a core of their own instead of three
 * busy threads sharing two. */
static bool reading_is_cheap(const br_reader *r)
{
	const br_input_info *in = br_reader_ninputs(r) == 1 ? br_reader_input(r, 0) : NULL;
	return in && (in->kind == BR_INPUT_STREAM || in->kind == BR_INPUT_CPUSET) && in->files == 1;
}

/* One pass over the trace: the reader decodes on a thread of its own (the
 * pipe), this one keeps the statistics and the marks are binned on a third
 * (or on the reader's, see reading_is_cheap), so the work is split over
 * two cores. */
static int feed(const plot_opts *o, plot_trace *t, br_reader *r, uint64_t start,
		tool_progress *prog, br_error *err)
{
	br_event_pipe *pipe = NULL;
	marks_job job = { .m = { .o = o, .t = t, .start = start } };
	bool inl = reading_is_cheap(r);
	br_event_pipe_hook hook = { marks_hook, &job.m };
	int rc = br_event_pipe_start_hooked(&pipe, r, inl ? 1 : 2, inl ? &hook : NULL, err);
	if (rc < 0)
		return rc;
	job.pipe = pipe;
	pthread_t marks_thread;
	int e = inl ? 0 : pthread_create(&marks_thread, NULL, marks_main, &job);
	if (e) {
		br_event_pipe_stop(pipe);
		return br_error_set(err, BR_ESYS, e, t->path, -1, "cannot start a thread");
	}
	const br_event *evs;
	uint64_t nev = 0;
	int n;
	while ((n = br_event_pipe_next_for(pipe, 0, &evs, err)) > 0) {
		nev += (uint64_t)n;
		tool_progress_tick(prog, nev, NULL);
		for (int i = 0; i < n; i++) {
			const br_event *ev = &evs[i];
			if (br_event_is_notify(ev))
				continue;
			uint64_t rel = ev->time - start;
			if (o->has_x && (rel < o->x0 || rel > o->x1))
				continue;
			if ((rc = br_stats_add(t->stats, ev, err)) < 0) {
				br_event_pipe_cancel(pipe);
				break;
			}
		}
		if (rc < 0)
			break;
	}
	if (!inl)
		pthread_join(marks_thread, NULL);
	br_event_pipe_stop(pipe);
	if (inl && rc >= 0 && n >= 0)
		job.rc = plot_marks_finish(&job.m, &job.err);
	if (rc >= 0 && n < 0)
		rc = n;
	if (rc >= 0 && job.rc < 0) {
		*err = job.err;
		rc = job.rc;
	}
	return rc < 0 ? rc : 0;
}

static int load_one(const plot_opts *o, plot_trace *t, br_error *err)
{
	/* The pipe's reader thread is busy all the time too (fetching, copying,
	 * and with one inflate thread inflating inline): one fewer inflate
	 * thread than cores keeps every thread on a core of its own, where one
	 * per core had this thread share its core with an inflater half of the
	 * time (on 2 cores: 4 threads, and this one is the critical path). */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	br_reader_opts ro = { .format = o->input_format, .skip_bad = o->skip_bad,
			      .threads = ncpu > 2 ? (unsigned)ncpu - 1 : 1 };
	if (o->has_x) {
		ro.has_from = true;
		ro.from_ns = o->x0;
		ro.has_to = true;
		ro.to_ns = o->x1;
	}
	br_reader *r = NULL;
	int rc = br_reader_open(&r, &t->path, 1, &ro, err);
	struct stat st;
	if (rc < 0 && o->allow_empty && strcmp(t->path, "-") && !stat(t->path, &st) &&
	    S_ISREG(st.st_mode) && st.st_size == 0) {
		/* an empty file is a trace without IO: with --allow-empty, draw it */
		br_error_clear(err);
		r = NULL;
		rc = 0;
	}
	if (rc < 0)
		return rc;
	uint64_t start = r ? br_reader_start_time(r) : 0;
	br_stats_opts so = {
		.has_device = o->has_dev, .device = o->dev,
		.has_origin = true, .origin_ns = start + (o->has_x ? o->x0 : 0),
		.latency_series = true,
	};
	rc = br_stats_new(&t->stats, &so, err);
	if (rc < 0)
		goto out;
	if (density_init(&t->dens, start + (o->has_x ? o->x0 : 0))) {
		rc = br_error_set(err, BR_ENOMEM, 0, t->path, -1, "out of memory");
		goto out;
	}
	tool_progress prog;
	tool_progress_init(&prog, STDERR_FILENO, !o->quiet, t->path);
	if (r)
		rc = feed(o, t, r, start, &prog, err);
	tool_progress_done(&prog);
	if (rc < 0)
		goto out;
	rc = br_stats_finish(t->stats, err);
	t->tot = br_stats_get_totals(t->stats);
out:
	br_reader_close(r);
	if (rc < 0 && !err->file[0])
		snprintf(err->file, sizeof(err->file), "%s", t->path);
	return rc < 0 ? rc : 0;
}

static void add_note(plot_data *d, const char *fmt, const char *a, const char *b)
{
	if (d->nnotes < sizeof(d->notes) / sizeof(d->notes[0]))
		snprintf(d->notes[d->nnotes++], sizeof(d->notes[0]), fmt, a, b);
}

int plot_load(const plot_opts *o, plot_data *d, br_error *err)
{
	memset(d, 0, sizeof(*d));
	d->n = o->ntraces;
	uint64_t span = 0;
	bool any_io = false, lat_ok = true;
	for (size_t i = 0; i < d->n; i++) {
		plot_trace *t = &d->tr[i];
		t->path = o->paths[i];
		t->label = o->labels[i];
		int rc = load_one(o, t, err);
		if (rc < 0)
			return rc;
		const br_stats_totals *tt = t->tot;
		uint64_t nio = tt->ios[0] + tt->ios[1] + tt->ios[2];
		if (nio)
			any_io = true;
		if (tt->events && tt->last_ns - tt->origin_ns > span)
			span = tt->last_ns - tt->origin_ns; /* from the window start */
		if (nio && !tt->kind_ios[BR_KIND_D] && !tt->kind_ios[BR_KIND_C])
			lat_ok = false;
		if (nio && tt->io_kind != BR_KIND_C)
			add_note(d, "%s: no completions (C); IOs counted on %s events", t->label,
				 br_stats_kind_name(tt->io_kind));
		if (nio && tt->seek_kind != BR_KIND_D)
			add_note(d, "%s: no issues (D); seeks counted on %s events", t->label,
				 br_stats_kind_name(tt->seek_kind));
		if (tt->bytes[BR_SDIR_OTHER]) {
			char what[96];
			snprintf(what, sizeof(what), "%llu discards (%.1f MB) are grey marks, not throughput",
				 (unsigned long long)tt->ios[BR_SDIR_OTHER], (double)tt->bytes[BR_SDIR_OTHER] / 1e6);
			add_note(d, "%s: %s", t->label, what);
		}
		if (!o->has_dev && t->ndevs > 1 && tt->remaps)
			add_note(d, "%s: IOs remapped between its devices (A events) count on each device they "
				 "reach; totals add both levels%s", t->label, "");
		if (!o->has_dev && t->ndevs > 1)
			add_note(d, "%s: several devices, one io panel each; pick one with --dev MAJ,MIN%s",
				 t->label, "");
	}
	if (!any_io) {
		if (!o->allow_empty)
			return br_error_set(err, BR_EINVAL, 0, d->n == 1 ? d->tr[0].path : NULL, -1,
					    "no IO in this range%s",
					    o->has_x ? " (see -x)" : "");
		d->empty = true;
	}
	d->lat_ok = lat_ok;
	if (!lat_ok && o->panels_explicit && (o->panels & (1u << PANEL_LAT | 1u << PANEL_QD)))
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "panels lat and qd need issue (D) or completion (C) events; "
				    "the trace has only queue (Q) events");
	d->shift = o->has_x ? o->x0 : 0;
	d->t0 = d->shift;
	d->t1 = o->has_x ? o->x1 : span;
	if (d->t1 <= d->t0)
		d->t1 = d->t0 + 1000000; /* 1 ms for a single-instant trace */
	/* one bucket width for every trace: about one bucket per 4 pixels */
	unsigned target = o->width / 4 > 20 ? o->width / 4 : 20;
	uint64_t w = 0;
	for (size_t i = 0; i < d->n; i++) {
		uint64_t wi = br_stats_pick_width(d->tr[i].stats, target);
		if (wi > w)
			w = wi;
	}
	/* the range may be narrower than a trace's span (-x) */
	uint64_t want = (d->t1 - d->t0) / target;
	while (w / 10 >= want && w / 10 > 0) {
		bool ok = true;
		for (size_t i = 0; i < d->n; i++)
			if ((w / 10) % br_stats_base_width(d->tr[i].stats))
				ok = false;
		if (!ok)
			break;
		w /= 10;
	}
	if (o->bucket_ns) {
		/* a multiple of every trace's base width */
		w = o->bucket_ns;
		for (size_t i = 0; i < d->n; i++) {
			uint64_t bw = br_stats_base_width(d->tr[i].stats);
			if (w % bw)
				w = (w / bw + 1) * bw;
		}
		if (w != o->bucket_ns) {
			char a[32];
			snprintf(a, sizeof(a), "%.9g s", (double)w / 1e9);
			add_note(d, "-b rounded up to %s, a multiple of the internal bucket%s", a, "");
		}
	}
	d->width_ns = w;
	for (size_t i = 0; i < d->n; i++) {
		int rc = br_stats_series_get(d->tr[i].stats, w, 0, d->t1 - d->shift + 1, &d->tr[i].ser, err);
		if (rc < 0)
			return rc;
	}
	plot_offset_ranges(o, d);
	return 0;
}

void plot_data_free(plot_data *d)
{
	for (size_t i = 0; i < d->n; i++) {
		br_stats_series_free(&d->tr[i].ser);
		br_stats_free(d->tr[i].stats);
		density_free(&d->tr[i].dens);
	}
	memset(d, 0, sizeof(*d));
}
