/* BR_OUT_PERFETTO: the Chrome Trace Event JSON that Perfetto's UI and
 * chrome://tracing open (NAME.perfetto.json).
 *
 *  - one "process" per device ("device 8,16"), one "thread" per in-flight
 *    slot: each IO (a bio with a Q, as the shared analysis pairs it, btt's
 *    per-IO view) is a complete slice from its Q to its C, on the lowest
 *    slot of its device that is free since its Q, so slices never overlap;
 *  - inside it, its phases as nested slices between the times it has:
 *    Q2G, G2I, I2D, D2C for an IO that became a request, Q2M, M2D, D2C for
 *    one merged into another (and e.g. Q2D where a trace has no G/I);
 *  - flushes (issued flush requests) as instant events on a "flushes" track;
 *  - counters per device from the shared statistics (br_stats): IOs in
 *    flight (time-weighted average and maximum per bucket) and MB/s read
 *    and written, about 2000 buckets over the span, after the slices.
 * Times are µs with ns precision after the first event written. Memory is
 * flat: the analysis keeps only IOs in flight, each device its slots' end
 * times and a bounded series; slices are written as their IOs complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/analysis.h"
#include "common/grow.h"
#include "blkreel/json.h"
#include "blkreel/stats.h"
#include "common/comm_table.h"
#include "common/fdout.h"
#include "common/writer_impl.h"

#define COUNTER_BUCKETS 2000
#define STDIO_BUFFER (64u << 10)

typedef struct pf_device {
	uint32_t device;
	unsigned id;            /* the JSON pid: 1, 2, ... in order of appearance */
	br_stats *stats;
	uint64_t *slot_end;     /* per slot: C time of its last slice (absolute ns) */
	size_t nslots, cap;
	bool flush_track;
} pf_device;

/* The document goes br_json -> a stdio FILE (fopencookie) -> br_fdout, so
 * a failed write is reported with the file's name and byte offset. */
typedef struct pf_writer {
	br_fdout out;
	FILE *file;               /* the cookie stream onto out */
	br_json json;
	br_error sink_err;        /* the first write error of the FILE */
	bool sink_failed;
	br_analysis *an;
	br_comm_table *comms;
	uint32_t last_comm_pid;
	bool started;
	uint64_t origin;
	const br_event *current;  /* the event being fed to the analysis (its C) */
	pf_device *dev;
	size_t ndev, devcap;
	uint64_t slices;
	br_error *cb_err;         /* where the analysis callback reports */
} pf_writer;

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	pf_writer *w = cookie;
	if (w->sink_failed || br_fdout_write(&w->out, buf, len, &w->sink_err)) {
		w->sink_failed = true;
		errno = w->sink_err.sys_errno ? w->sink_err.sys_errno : EIO;
		return -1;
	}
	return (ssize_t)len;
}

/* After a batch of records: 0, or the write error that stopped the FILE. */
static int sink_status(pf_writer *w, br_error *err)
{
	if (!ferror(w->file))
		return 0;
	if (w->sink_failed)
		*err = w->sink_err;
	else
		br_error_set(err, BR_ESYS, errno, w->out.name, -1, "write failed");
	return err->code;
}

/* The start of a traceEvents record, left open for its other members. */
static void record(pf_writer *w, const char *ph, const char *cat, const char *name, unsigned pid)
{
	br_json *j = &w->json;
	br_json_object(j);
	br_json_kstr(j, "ph", ph);
	if (cat)
		br_json_kstr(j, "cat", cat);
	br_json_kstr(j, "name", name);
	br_json_kuint(j, "pid", pid);
}

/* ns after the origin as µs with ns precision: 12.345 */
static void k_us(pf_writer *w, const char *key, uint64_t abs_ns)
{
	br_json_kdecimal(&w->json, key, abs_ns > w->origin ? abs_ns - w->origin : 0, 3);
}

static void k_dur(pf_writer *w, uint64_t from, uint64_t to)
{
	br_json_kdecimal(&w->json, "dur", to > from ? to - from : 0, 3);
}

/* A metadata record naming a process or thread: args {"name": name}. */
static void meta_name(pf_writer *w, const char *what, unsigned pid, size_t tid, const char *name)
{
	br_json *j = &w->json;
	record(w, "M", NULL, what, pid);
	if (tid)
		br_json_kuint(j, "tid", tid);
	br_json_key(j, "args");
	br_json_object(j);
	br_json_kstr(j, "name", name);
	br_json_end(j);
	br_json_end(j);
}

static pf_device *device_of(pf_writer *w, uint32_t device, br_error *err)
{
	for (size_t i = 0; i < w->ndev; i++)
		if (w->dev[i].device == device)
			return &w->dev[i];
	if (w->ndev == w->devcap) {
		pf_device *d = br_grow(w->dev, &w->devcap, w->ndev + 1, sizeof *d, 8);
		if (!d)
			return br_error_set(err, BR_ENOMEM, 0, w->out.name, -1, "out of memory"), NULL;
		w->dev = d;
	}
	pf_device *d = &w->dev[w->ndev];
	*d = (pf_device){ .device = device, .id = (unsigned)w->ndev + 1 };
	br_stats_opts so = { .has_device = true, .device = device, .has_origin = true,
			     .origin_ns = w->origin };
	if (br_stats_new(&d->stats, &so, err))
		return NULL;
	w->ndev++;
	char name[32];
	snprintf(name, sizeof name, "device %u,%u", BR_DEV_MAJOR(device), BR_DEV_MINOR(device));
	meta_name(w, "process_name", d->id, 0, name);
	br_json *j = &w->json;
	record(w, "M", NULL, "process_sort_index", d->id);
	br_json_key(j, "args");
	br_json_object(j);
	br_json_kuint(j, "sort_index", d->id);
	br_json_end(j);
	br_json_end(j);
	return d;
}

/* The lowest slot free since q (its last slice ended at or before q). */
static int take_slot(pf_writer *w, pf_device *d, uint64_t q, uint64_t c, size_t *slot, br_error *err)
{
	for (size_t i = 0; i < d->nslots; i++) {
		if (d->slot_end[i] <= q) {
			d->slot_end[i] = c;
			*slot = i;
			return 0;
		}
	}
	if (d->nslots == d->cap) {
		uint64_t *s = br_grow(d->slot_end, &d->cap, d->nslots + 1, sizeof *s, 16);
		if (!s)
			return br_error_set(err, BR_ENOMEM, 0, w->out.name, -1, "out of memory");
		d->slot_end = s;
	}
	*slot = d->nslots;
	d->slot_end[d->nslots++] = c;
	/* tid 1 is the flushes track; slots are 2, 3, ... */
	char name[40];
	snprintf(name, sizeof name, "IO slot %zu", *slot + 1);
	meta_name(w, "thread_name", d->id, *slot + 2, name);
	return 0;
}

static const char *op_name(const br_event *ev)
{
	if (br_event_is_discard(ev))
		return "discard";
	if (br_event_is_write(ev))
		return "write";
	if (!ev->bytes && br_event_is_flush(ev))
		return "flush";
	return "read";
}

/* One completed IO: its slice and its phases. */
static int on_bio(void *arg, const br_analysis_bio *bio)
{
	pf_writer *w = arg;
	br_error *err = w->cb_err;
	pf_device *d = device_of(w, bio->device, err);
	if (!d)
		return err->code;
	size_t slot = 0;
	int rc = take_slot(w, d, bio->q_ns, bio->c_ns, &slot, err);
	if (rc)
		return rc;
	br_json *j = &w->json;
	record(w, "X", "io", w->current ? op_name(w->current) : "io", d->id);
	br_json_kuint(j, "tid", slot + 2);
	k_us(w, "ts", bio->q_ns);
	k_dur(w, bio->q_ns, bio->c_ns);
	br_json_key(j, "args");
	br_json_object(j);
	br_json_kuint(j, "sector", bio->sector);
	br_json_kuint(j, "bytes", bio->sectors * 512);
	br_json_kuint(j, "pid", bio->pid);
	const char *comm = br_comm_table_get(w->comms, bio->pid);
	br_json_kstr(j, "comm", comm ? comm : "");
	br_json_end(j);
	br_json_end(j);
	w->slices++;
	/* the phases between the times this IO has, in order */
	const struct {
		char letter;
		uint64_t t;
	} marks[] = { { 'Q', bio->q_ns }, { 'G', bio->g_ns }, { 'I', bio->i_ns },
		      { 'M', bio->m_ns }, { 'D', bio->d_ns }, { 'C', bio->c_ns } };
	size_t prev = 0;
	for (size_t k = 1; k < sizeof marks / sizeof marks[0]; k++) {
		if (!marks[k].t || marks[k].t < marks[prev].t || marks[k].t > bio->c_ns)
			continue;
		const char name[] = { marks[prev].letter, '2', marks[k].letter, 0 };
		record(w, "X", "phase", name, d->id);
		br_json_kuint(j, "tid", slot + 2);
		k_us(w, "ts", marks[prev].t);
		k_dur(w, marks[prev].t, marks[k].t);
		br_json_end(j);
		prev = k;
	}
	return sink_status(w, err);
}

static int pf_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	(void)opts;
	pf_writer *w = state;
	if (!(w->comms = br_comm_table_new()))
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	br_analysis_opts ao = { .on_bio = on_bio, .on_bio_arg = w };
	int rc = br_analysis_new(&w->an, &ao, err);
	if (!rc)
		rc = br_fdout_open(&w->out, path, 1u << 20, err);
	if (rc)
		return rc;
	w->file = fopencookie(w, "w", (cookie_io_functions_t){ .write = sink_write });
	if (!w->file || setvbuf(w->file, NULL, _IOFBF, STDIO_BUFFER))
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	br_json *j = &w->json;
	br_json_init(j, w->file, BR_JSON_LINES);
	br_json_object(j);
	br_json_kstr(j, "displayTimeUnit", "ns");
	br_json_key(j, "otherData");
	br_json_object(j);
	br_json_kstr(j, "generator", "blkreel " BLKREEL_VERSION);
	br_json_kstr(j, "time_origin", "the first event written");
	br_json_end(j);
	br_json_key(j, "traceEvents");
	br_json_array(j);
	return sink_status(w, err);
}

static int pf_write(void *state, const br_event *ev, const uint8_t *raw, size_t raw_len, br_error *err)
{
	(void)raw;
	(void)raw_len;
	pf_writer *w = state;
	if (br_event_is_notify(ev)) {
		if (br_event_code(ev) == __BLK_TN_PROCESS && ev->pdu_len)
			return br_comm_table_set(w->comms, ev->pid, (const char *)ev->pdu, ev->pdu_len)
				? br_error_set(err, BR_ENOMEM, 0, w->out.name, -1, "out of memory") : 0;
		return 0;
	}
	if (!w->started) {
		w->started = true;
		w->origin = ev->time;
	}
	if (ev->comm && ev->pid != w->last_comm_pid && !br_comm_table_get(w->comms, ev->pid)) {
		if (br_comm_table_set(w->comms, ev->pid, ev->comm, strlen(ev->comm)))
			return br_error_set(err, BR_ENOMEM, 0, w->out.name, -1, "out of memory");
		w->last_comm_pid = ev->pid;
	}
	pf_device *d = device_of(w, ev->device, err);
	if (!d)
		return err->code;
	int rc = br_stats_add(d->stats, ev, err);
	if (rc)
		return rc;
	if (br_event_code(ev) == __BLK_TA_ISSUE && !ev->bytes && br_event_is_flush(ev)) {
		if (!d->flush_track) {
			d->flush_track = true;
			meta_name(w, "thread_name", d->id, 1, "flushes");
		}
		br_json *j = &w->json;
		br_json_object(j);
		br_json_kstr(j, "ph", "i");
		br_json_kstr(j, "s", "t");
		br_json_kstr(j, "cat", "flush");
		br_json_kstr(j, "name", "flush");
		br_json_kuint(j, "pid", d->id);
		br_json_kuint(j, "tid", 1);
		k_us(w, "ts", ev->time);
		br_json_key(j, "args");
		br_json_object(j);
		br_json_kuint(j, "sector", ev->sector);
		br_json_end(j);
		br_json_end(j);
		if ((rc = sink_status(w, err)))
			return rc;
	}
	w->current = ev;
	w->cb_err = err;
	rc = br_analysis_add(w->an, ev, err);
	w->current = NULL;
	return rc;
}

/* The counters of one device, from its finished statistics. */
static int counters(pf_writer *w, pf_device *d, br_error *err)
{
	int rc = br_stats_finish(d->stats, err);
	if (rc)
		return rc;
	const br_stats_totals *tot = br_stats_get_totals(d->stats);
	if (!tot->events)
		return 0;
	br_stats_series ser;
	rc = br_stats_series_get(d->stats, br_stats_pick_width(d->stats, COUNTER_BUCKETS), 0, 0, &ser, err);
	if (rc)
		return rc;
	br_json *j = &w->json;
	for (size_t i = 0; i < ser.n; i++) {
		const br_stats_bucket *b = &ser.b[i];
		uint64_t t = tot->origin_ns + b->start_ns;
		record(w, "C", NULL, "in flight", d->id);
		k_us(w, "ts", t);
		br_json_key(j, "args");
		br_json_object(j);
		br_json_kfixed(j, "avg", b->inflight_avg, 3);
		br_json_kuint(j, "max", b->inflight_max);
		br_json_end(j);
		br_json_end(j);
		record(w, "C", NULL, "MB/s", d->id);
		k_us(w, "ts", t);
		br_json_key(j, "args");
		br_json_object(j);
		br_json_kfixed(j, "read", br_stats_bucket_mbps(b, BR_SDIR_READ), 3);
		br_json_kfixed(j, "write", br_stats_bucket_mbps(b, BR_SDIR_WRITE), 3);
		br_json_end(j);
		br_json_end(j);
	}
	br_stats_series_free(&ser);
	return sink_status(w, err);
}

static int pf_close(void *state, br_error *err)
{
	pf_writer *w = state;
	int rc = 0;
	if (w->an) {
		w->cb_err = err;
		rc = br_analysis_finish(w->an, err);
	}
	for (size_t i = 0; i < w->ndev && !rc; i++)
		rc = counters(w, &w->dev[i], err);
	if (!rc && w->file) {
		br_json_end(&w->json); /* traceEvents */
		br_json_end(&w->json);
		rc = br_json_finish(&w->json, w->out.name, err);
		if (rc && w->sink_failed)
			*err = w->sink_err; /* the name and offset of the failed write */
	}
	if (w->file) {
		/* after an error this only moves bytes into out; the file is
		 * removed */
		int closed = fclose(w->file);
		w->file = NULL;
		if (closed && !rc) {
			if (w->sink_failed)
				*err = w->sink_err;
			else
				br_error_set(err, BR_ESYS, errno, w->out.name, -1, "write failed");
			rc = err->code;
		}
	}
	if (w->out.buf) {
		br_error ignored;
		int rc2 = br_fdout_close(&w->out, rc ? &ignored : err);
		if (!rc)
			rc = rc2;
	}
	for (size_t i = 0; i < w->ndev; i++) {
		br_stats_free(w->dev[i].stats);
		free(w->dev[i].slot_end);
	}
	free(w->dev);
	br_analysis_free(w->an);
	br_comm_table_free(w->comms);
	w->dev = NULL;
	w->an = NULL;
	w->comms = NULL;
	return rc;
}

const br_writer_ops br_perfetto_writer_ops = {
	.name = "Chrome Trace Event JSON (Perfetto)",
	.state_size = sizeof(pf_writer),
	.open = pf_open,
	.write = pf_write,
	.close = pf_close,
};
