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
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/analysis.h"
#include "blkreel/stats.h"
#include "common/comm_table.h"
#include "common/fdout.h"
#include "common/writer_impl.h"

#define COUNTER_BUCKETS 2000

typedef struct pf_device {
	uint32_t device;
	unsigned id;            /* the JSON pid: 1, 2, ... in order of appearance */
	br_stats *stats;
	uint64_t *slot_end;     /* per slot: C time of its last slice (absolute ns) */
	size_t nslots, cap;
	bool flush_track;
} pf_device;

typedef struct pf_writer {
	br_fdout out;
	br_analysis *an;
	br_comm_table *comms;
	uint32_t last_comm_pid;
	bool started, first_record;
	uint64_t origin;
	const br_event *current;  /* the event being fed to the analysis (its C) */
	pf_device *dev;
	size_t ndev, devcap;
	uint64_t slices;
	br_error *cb_err;         /* where the analysis callback reports */
} pf_writer;

static int emit(pf_writer *w, br_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One JSON object of traceEvents (the separator is written before it). */
static int emit(pf_writer *w, br_error *err, const char *fmt, ...)
{
	char line[1024];
	size_t n = 0;
	if (!w->first_record)
		line[n++] = ',';
	w->first_record = false;
	line[n++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line + n, sizeof line - n, fmt, ap);
	va_end(ap);
	if (k < 0)
		return br_error_set(err, BR_EINVAL, 0, w->out.name, -1, "cannot format a JSON record");
	n += (size_t)k < sizeof line - n ? (size_t)k : sizeof line - n - 1;
	return br_fdout_write(&w->out, line, n, err);
}

/* ns after the origin as JSON µs: "12.345" */
static const char *us(char *buf, uint64_t abs_ns, uint64_t origin)
{
	uint64_t t = abs_ns > origin ? abs_ns - origin : 0;
	snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64, t / 1000, t % 1000);
	return buf;
}

static const char *dur(char *buf, uint64_t from, uint64_t to)
{
	uint64_t d = to > from ? to - from : 0;
	snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64, d / 1000, d % 1000);
	return buf;
}

/* A process name as a JSON string body (control bytes dropped). */
static void json_text(char *out, size_t size, const char *s)
{
	size_t n = 0;
	for (; s && *s && n + 7 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c >= 0x20 && c != 0x7f) {
			out[n++] = (char)c;
		}
	}
	out[n] = 0;
}

static pf_device *device_of(pf_writer *w, uint32_t device, br_error *err)
{
	for (size_t i = 0; i < w->ndev; i++)
		if (w->dev[i].device == device)
			return &w->dev[i];
	if (w->ndev == w->devcap) {
		size_t cap = w->devcap ? 2 * w->devcap : 8;
		pf_device *d = realloc(w->dev, cap * sizeof *d);
		if (!d)
			return br_error_set(err, BR_ENOMEM, 0, w->out.name, -1, "out of memory"), NULL;
		w->dev = d;
		w->devcap = cap;
	}
	pf_device *d = &w->dev[w->ndev];
	*d = (pf_device){ .device = device, .id = (unsigned)w->ndev + 1 };
	br_stats_opts so = { .has_device = true, .device = device, .has_origin = true,
			     .origin_ns = w->origin };
	if (br_stats_new(&d->stats, &so, err))
		return NULL;
	w->ndev++;
	if (emit(w, err,
		 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"device %u,%u\"}}",
		 d->id, BR_DEV_MAJOR(device), BR_DEV_MINOR(device)) ||
	    emit(w, err, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"args\":{\"sort_index\":%u}}",
		 d->id, d->id))
		return NULL;
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
		size_t cap = d->cap ? 2 * d->cap : 16;
		uint64_t *s = realloc(d->slot_end, cap * sizeof *s);
		if (!s)
			return br_error_set(err, BR_ENOMEM, 0, w->out.name, -1, "out of memory");
		d->slot_end = s;
		d->cap = cap;
	}
	*slot = d->nslots;
	d->slot_end[d->nslots++] = c;
	/* tid 1 is the flushes track; slots are 2, 3, ... */
	return emit(w, err,
		    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%zu,\"args\":{\"name\":\"IO slot %zu\"}}",
		    d->id, *slot + 2, *slot + 1);
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
	char comm[64], t[32], l[32];
	json_text(comm, sizeof comm, br_comm_table_get(w->comms, bio->pid));
	rc = emit(w, err,
		  "{\"ph\":\"X\",\"cat\":\"io\",\"name\":\"%s\",\"pid\":%u,\"tid\":%zu,\"ts\":%s,\"dur\":%s,"
		  "\"args\":{\"sector\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"pid\":%u,\"comm\":\"%s\"}}",
		  w->current ? op_name(w->current) : "io", d->id, slot + 2, us(t, bio->q_ns, w->origin),
		  dur(l, bio->q_ns, bio->c_ns), bio->sector, bio->sectors * 512, bio->pid, comm);
	if (rc)
		return rc;
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
		rc = emit(w, err,
			  "{\"ph\":\"X\",\"cat\":\"phase\",\"name\":\"%c2%c\",\"pid\":%u,\"tid\":%zu,\"ts\":%s,\"dur\":%s}",
			  marks[prev].letter, marks[k].letter, d->id, slot + 2,
			  us(t, marks[prev].t, w->origin), dur(l, marks[prev].t, marks[k].t));
		if (rc)
			return rc;
		prev = k;
	}
	return 0;
}

static int pf_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	(void)opts;
	pf_writer *w = state;
	w->first_record = true;
	if (!(w->comms = br_comm_table_new()))
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	br_analysis_opts ao = { .on_bio = on_bio, .on_bio_arg = w };
	int rc = br_analysis_new(&w->an, &ao, err);
	if (!rc)
		rc = br_fdout_open(&w->out, path, 1u << 20, err);
	if (rc)
		return rc;
	static const char head[] = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"blkreel "
				   BLKREEL_VERSION "\",\"time_origin\":\"the first event written\"},"
				   "\"traceEvents\":[";
	return br_fdout_write(&w->out, head, sizeof head - 1, err);
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
		char t[32];
		if (!d->flush_track) {
			d->flush_track = true;
			rc = emit(w, err,
				  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":1,\"args\":{\"name\":\"flushes\"}}",
				  d->id);
			if (rc)
				return rc;
		}
		rc = emit(w, err,
			  "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"flush\",\"name\":\"flush\",\"pid\":%u,\"tid\":1,\"ts\":%s,"
			  "\"args\":{\"sector\":%" PRIu64 "}}",
			  d->id, us(t, ev->time, w->origin), ev->sector);
		if (rc)
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
	for (size_t i = 0; i < ser.n && !rc; i++) {
		const br_stats_bucket *b = &ser.b[i];
		char t[32];
		us(t, tot->origin_ns + b->start_ns, w->origin);
		rc = emit(w, err,
			  "{\"ph\":\"C\",\"name\":\"in flight\",\"pid\":%u,\"ts\":%s,\"args\":{\"avg\":%.3f,\"max\":%u}}",
			  d->id, t, b->inflight_avg, b->inflight_max);
		if (!rc)
			rc = emit(w, err,
				  "{\"ph\":\"C\",\"name\":\"MB/s\",\"pid\":%u,\"ts\":%s,\"args\":{\"read\":%.3f,\"write\":%.3f}}",
				  d->id, t, br_stats_bucket_mbps(b, BR_SDIR_READ), br_stats_bucket_mbps(b, BR_SDIR_WRITE));
	}
	br_stats_series_free(&ser);
	return rc;
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
	if (!rc && w->out.buf) {
		char tail[160];
		int n = snprintf(tail, sizeof tail, "\n]}\n");
		rc = br_fdout_write(&w->out, tail, (size_t)n, err);
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
