/* BR_OUT_CSV: one row per IO for spreadsheets, DuckDB or Spark:
 *   time_ns,device,op,offset,bytes,latency_ns
 * time_ns is the issue (D) time after the trace's first IO, device
 * "MAJ:MIN", op read/write/discard/flush, offset in bytes, latency_ns the
 * time to the matching completion (same device and sector), empty when
 * none was seen. Rows come out in issue order: an IO waits in a FIFO until
 * it completes, or until it is 60 s older than the newest event or the
 * FIFO holds 1 Mi IOs (then its latency is left empty), so memory stays
 * bounded on any trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdout.h"
#include "writer_impl.h"

#define FIFO_MAX (1u << 20)
#define STALE_NS (60ull * 1000000000ull)

typedef struct row {
	uint64_t time, sector, latency;
	uint32_t device, bytes;
	uint8_t op;       /* index into op_names */
	bool done;
} row;

typedef struct slot { /* (device, sector) → absolute FIFO position + 1; 0 = empty */
	uint64_t sector;
	uint32_t device;
	uint64_t pos1;
} slot;

typedef struct csv_writer {
	br_fdout out;
	bool started;
	uint64_t origin;
	row *fifo;          /* ring of FIFO_MAX */
	uint64_t head, tail; /* absolute positions */
	slot *table;        /* 2 * FIFO_MAX slots, linear probing; stale entries are
	                       recognised by position and reused */
} csv_writer;

static const char *const op_names[] = { "read", "write", "discard", "flush" };

static int csv_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	(void)opts;
	csv_writer *w = state;
	w->fifo = malloc(FIFO_MAX * sizeof *w->fifo);
	w->table = calloc(2 * FIFO_MAX, sizeof *w->table);
	if (!w->fifo || !w->table) {
		free(w->fifo);
		free(w->table);
		w->fifo = NULL;
		w->table = NULL;
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	}
	int rc = br_fdout_open(&w->out, path, 1u << 20, err);
	if (rc)
		return rc;
	static const char header[] = "time_ns,device,op,offset,bytes,latency_ns\n";
	return br_fdout_write(&w->out, header, sizeof header - 1, err);
}

static size_t hash(uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 40)) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 43) & (2 * FIFO_MAX - 1);
}

static bool live(const csv_writer *w, const slot *s)
{
	return s->pos1 && s->pos1 - 1 >= w->head && s->pos1 - 1 < w->tail;
}

static slot *lookup(csv_writer *w, uint32_t dev, uint64_t sector, bool insert)
{
	for (size_t i = hash(dev, sector), n = 0; n < 2 * FIFO_MAX; i = (i + 1) & (2 * FIFO_MAX - 1), n++) {
		slot *s = &w->table[i];
		if (!live(w, s))
			return insert ? s : (s->pos1 ? (slot *)NULL : NULL);
		if (s->device == dev && s->sector == sector)
			return s;
	}
	return NULL;
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
		slot *s = lookup(w, ev->device, ev->sector, true);
		w->tail++;
		if (s) {
			s->device = ev->device;
			s->sector = ev->sector;
			s->pos1 = w->tail;
		}
		return 0;
	}
	if (code == __BLK_TA_COMPLETE && w->started) {
		slot *s = lookup(w, ev->device, ev->sector, false);
		if (s && live(w, s)) {
			row *r = &w->fifo[(s->pos1 - 1) % FIFO_MAX];
			if (!r->done) {
				uint64_t issued = r->time + w->origin;
				r->latency = ev->time >= issued ? ev->time - issued : 0;
				r->done = true;
			}
		}
		return drain(w, ev->time, false, err);
	}
	return 0;
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
	free(w->table);
	w->fifo = NULL;
	w->table = NULL;
	return rc;
}

const br_writer_ops br_csv_writer_ops = {
	.name = "CSV, one row per IO",
	.state_size = sizeof(csv_writer),
	.open = csv_open,
	.write = csv_write,
	.close = csv_close,
};
