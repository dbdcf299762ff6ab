/* BR_OUT_CSV: one row per IO for spreadsheets, DuckDB or Spark:
 *   time_ns,device,op,offset,bytes,latency_ns
 * time_ns is the issue (D) time after the trace's first IO, device
 * "MAJ:MIN", op read/write/discard/flush, offset in bytes, latency_ns the
 * request's D2C as the shared statistics pair it (blkreel/stats.h: merges,
 * partial completions, requeues, flushes), empty when it never completed
 * (or, for a requeued request, on the row of its earlier D). So the mean
 * of the column is the D2C mean of --info and of blkreel-plot. Rows come
 * out in issue order: a row waits in a FIFO until it completes, or until it
 * is 60 s older than the newest event or the FIFO holds 1 Mi IOs (then its
 * latency is left empty), so memory stays bounded on any trace. The FIFO is
 * in D order, so a completion finds its row by binary search on its D time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/stats.h"
#include "common/fdout.h"
#include "common/writer_impl.h"

#define FIFO_MAX (1u << 20)
#define STALE_NS (60ull * 1000000000ull)

typedef struct row {
	uint64_t time, sector, latency;
	uint32_t device, bytes;
	uint8_t op;       /* index into op_names */
	bool done;
} row;

typedef struct csv_writer {
	br_fdout out;
	bool started;
	uint64_t origin;
	row *fifo;          /* ring of FIFO_MAX, in D time order */
	uint64_t head, tail; /* absolute positions */
	br_stats *stats;    /* the shared pairing, for each request's D2C */
} csv_writer;

static const char *const op_names[] = { "read", "write", "discard", "flush" };

/* A request the shared pairing completed: its row is the first not yet
 * done among the rows of its device issued at its D time. */
static void on_request(void *arg, const br_stats_request *req)
{
	csv_writer *w = arg;
	if (!req->has_d || !w->started || req->d_ns < w->origin)
		return;
	uint64_t t = req->d_ns - w->origin, lo = w->head, hi = w->tail;
	while (lo < hi) { /* first row with time >= t */
		uint64_t mid = lo + (hi - lo) / 2;
		if (w->fifo[mid % FIFO_MAX].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->tail && w->fifo[lo % FIFO_MAX].time == t; lo++) {
		row *r = &w->fifo[lo % FIFO_MAX];
		if (r->device == req->device && !r->done) {
			r->latency = req->c_ns >= req->d_ns ? req->c_ns - req->d_ns : 0;
			r->done = true;
			return;
		}
	}
}

static int csv_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	(void)opts;
	csv_writer *w = state;
	w->fifo = malloc(FIFO_MAX * sizeof *w->fifo);
	if (!w->fifo)
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	br_stats_opts so = { .on_request = on_request, .on_request_arg = w };
	int rc = br_stats_new(&w->stats, &so, err);
	if (!rc)
		rc = br_fdout_open(&w->out, path, 1u << 20, err);
	if (rc)
		return rc;
	static const char header[] = "time_ns,device,op,offset,bytes,latency_ns\n";
	return br_fdout_write(&w->out, header, sizeof header - 1, err);
}

static int put_row(csv_writer *w, const row *r, br_error *err)
{
	char line[160];
	int n;
	if (r->done)
		n = snprintf(line, sizeof line, "%llu,%u:%u,%s,%llu,%u,%llu\n",
			     (unsigned long long)r->time, BR_DEV_MAJOR(r->device), BR_DEV_MINOR(r->device),
			     op_names[r->op], (unsigned long long)r->sector * 512, r->bytes,
			     (unsigned long long)r->latency);
	else
		n = snprintf(line, sizeof line, "%llu,%u:%u,%s,%llu,%u,\n",
			     (unsigned long long)r->time, BR_DEV_MAJOR(r->device), BR_DEV_MINOR(r->device),
			     op_names[r->op], (unsigned long long)r->sector * 512, r->bytes);
	return br_fdout_write(&w->out, line, (size_t)n, err);
}

/* Write rows from the head that are finished, stale, or over the limit. */
static int drain(csv_writer *w, uint64_t now, bool all, br_error *err)
{
	while (w->head < w->tail) {
		row *r = &w->fifo[w->head % FIFO_MAX];
		bool stale = now - (r->time + w->origin) > STALE_NS && now > r->time + w->origin;
		if (!all && !r->done && !stale && w->tail - w->head < FIFO_MAX)
			break;
		int rc = put_row(w, r, err);
		if (rc)
			return rc;
		w->head++;
	}
	return 0;
}

static int csv_write(void *state, const br_event *ev, const uint8_t *raw, size_t raw_len,
		     br_error *err)
{
	(void)raw;
	(void)raw_len;
	csv_writer *w = state;
	if (br_event_is_notify(ev))
		return 0;
	unsigned code = br_event_code(ev);
	if (code == __BLK_TA_ISSUE) {
		if (!w->started) {
			w->started = true;
			w->origin = ev->time;
		}
		int rc = drain(w, ev->time, false, err);
		if (rc)
			return rc;
		row *r = &w->fifo[w->tail % FIFO_MAX];
		r->time = ev->time >= w->origin ? ev->time - w->origin : 0;
		r->sector = ev->sector;
		r->device = ev->device;
		r->bytes = ev->bytes;
		r->done = false;
		r->latency = 0;
		r->op = br_event_is_discard(ev) ? 2 : br_event_is_write(ev) ? 1
			: (!ev->bytes && br_event_is_flush(ev)) ? 3 : 0;
		w->tail++;
	}
	int rc = br_stats_add(w->stats, ev, err); /* a C fills its row through on_request */
	if (rc)
		return rc;
	return code == __BLK_TA_COMPLETE && w->started ? drain(w, ev->time, false, err) : 0;
}

static int csv_close(void *state, br_error *err)
{
	csv_writer *w = state;
	int rc = 0;
	if (w->out.buf) {
		rc = drain(w, 0, true, err);
		br_error ignored;
		int rc2 = br_fdout_close(&w->out, rc ? &ignored : err);
		if (!rc)
			rc = rc2;
	}
	free(w->fifo);
	br_stats_free(w->stats);
	w->fifo = NULL;
	w->stats = NULL;
	return rc;
}

const br_writer_ops br_csv_writer_ops = {
	.name = "CSV, one row per IO",
	.state_size = sizeof(csv_writer),
	.open = csv_open,
	.write = csv_write,
	.close = csv_close,
};
