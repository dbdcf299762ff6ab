#include "tracelog.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "blkreel/writer.h"
#include "clock.h"
#include "tool/io.h"

#define HOLD_NS 250000000ull

struct tracelog {
	br_writer *w;
	pthread_mutex_t lock;
	pthread_t thread;
	bool stop;
	br_event *in;            /* incoming, unsorted (under lock) */
	size_t nin, capin;
	br_event *hold, *tmp;    /* sorted, waiting for the hold to pass */
	size_t nhold, caphold, captmp;
	uint64_t time_base;
	uint64_t last_written, clamped;
	uint32_t seq;
	int rc;
	br_error err;
};

static int by_time(const void *a, const void *b)
{
	const br_event *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->sequence < y->sequence ? -1 : x->sequence > y->sequence;
}

static int reserve(br_event **buf, size_t *cap, size_t need)
{
	br_event *b = tool_grow(*buf, cap, need, sizeof *b, 4096);
	if (!b)
		return -1;
	*buf = b;
	return 0;
}

/* Merge the sorted batch into hold, then write what is older than limit. */
static void drain(tracelog *tl, br_event *batch, size_t n, uint64_t limit)
{
	if (n)
		qsort(batch, n, sizeof *batch, by_time);
	if (reserve(&tl->tmp, &tl->captmp, tl->nhold + n) || reserve(&tl->hold, &tl->caphold, tl->nhold + n)) {
		if (!tl->rc)
			tl->rc = br_error_set(&tl->err, BR_ENOMEM, 0, NULL, -1, "replay trace: out of memory");
		return;
	}
	size_t i = 0, j = 0, k = 0;
	while (i < tl->nhold || j < n)
		tl->tmp[k++] = (j >= n || (i < tl->nhold && by_time(&tl->hold[i], &batch[j]) <= 0))
				       ? tl->hold[i++] : batch[j++];
	br_event *sw = tl->hold;
	tl->hold = tl->tmp;
	tl->tmp = sw;
	size_t cs = tl->caphold;
	tl->caphold = tl->captmp;
	tl->captmp = cs;
	tl->nhold = k;
	size_t w = 0;
	while (w < tl->nhold && tl->hold[w].time <= limit) {
		br_event *ev = &tl->hold[w++];
		if (ev->time < tl->last_written) {
			ev->time = tl->last_written;
			tl->clamped++;
		}
		tl->last_written = ev->time;
		if (!tl->rc)
			tl->rc = br_writer_write(tl->w, ev, &tl->err);
	}
	if (w && w < tl->nhold)
		memmove(tl->hold, tl->hold + w, (tl->nhold - w) * sizeof *tl->hold);
	tl->nhold -= w;
}

static void *writer_main(void *arg)
{
	tracelog *tl = arg;
	br_event *batch = NULL;
	size_t capb = 0;
	pthread_mutex_lock(&tl->lock);
	for (;;) {
		bool stop = tl->stop;
		br_event *in = tl->in;
		size_t n = tl->nin;
		tl->in = batch;
		tl->nin = 0;
		size_t c = tl->capin;
		tl->capin = capb;
		capb = c;
		batch = in;
		pthread_mutex_unlock(&tl->lock);
		uint64_t limit = stop ? UINT64_MAX : tool_now_ns() + tl->time_base - HOLD_NS;
		drain(tl, batch, n, limit);
		if (stop)
			break;
		struct timespec ts = { 0, 20000000 };
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&tl->lock);
	}
	free(batch);
	return NULL;
}

int tracelog_open(tracelog **out, const char *path, uint64_t time_base, br_error *err)
{
	tracelog *tl = calloc(1, sizeof *tl);
	if (!tl)
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	br_writer_opts wo = { .level = BR_LEVEL_FAST, .threads = 1 };
	int rc = br_writer_open(&tl->w, BR_OUT_COMPRESSED, path, &wo, err);
	if (rc) {
		free(tl);
		return rc;
	}
	tl->time_base = time_base;
	pthread_mutex_init(&tl->lock, NULL);
	rc = pthread_create(&tl->thread, NULL, writer_main, tl);
	if (rc) {
		br_writer_abort(tl->w);
		free(tl);
		return br_error_set(err, BR_ESYS, rc, path, -1, "starting the trace writer thread");
	}
	*out = tl;
	return 0;
}

static uint32_t category(const replay_io *io)
{
	uint32_t c = 0;
	switch (io->it.kind) {
	case RK_READ: c = BLK_TC_READ; break;
	case RK_WRITE: c = BLK_TC_WRITE | (io->it.fua ? BLK_TC_FUA | BLK_TC_SYNC : 0); break;
	case RK_FLUSH: c = BLK_TC_WRITE | BLK_TC_FLUSH; break;
	case RK_DISCARD: c = BLK_TC_WRITE | BLK_TC_DISCARD; break;
	}
	return BLK_TC_ACT(c);
}

void tracelog_add(tracelog *tl, const replay_io *io, const target *tg, unsigned code,
		  uint64_t t, int res)
{
	if (!tl)
		return;
	br_event ev = {
		.time = t + tl->time_base,
		.sector = io->it.off / 512,
		.bytes = io->it.len,
		.action = category(io) | code,
		.pid = io->it.pid,
		.device = tg->blockdev ? BR_MKDEV(major(tg->rdev), minor(tg->rdev)) : io->it.trace_dev,
		.error = (uint16_t)(res < 0 ? -res : 0),
	};
	pthread_mutex_lock(&tl->lock);
	ev.sequence = tl->seq++;
	if (reserve(&tl->in, &tl->capin, tl->nin + 1) == 0)
		tl->in[tl->nin++] = ev;
	pthread_mutex_unlock(&tl->lock);
}

int tracelog_close(tracelog *tl, uint64_t *events, uint64_t *clamped, br_error *err)
{
	if (!tl)
		return 0;
	pthread_mutex_lock(&tl->lock);
	tl->stop = true;
	pthread_mutex_unlock(&tl->lock);
	pthread_join(tl->thread, NULL);
	int rc = tl->rc;
	if (rc && err)
		*err = tl->err;
	if (events)
		*events = br_writer_events(tl->w);
	if (clamped)
		*clamped = tl->clamped;
	if (rc) {
		br_writer_abort(tl->w);
	} else {
		rc = br_writer_close(tl->w, err);
	}
	pthread_mutex_destroy(&tl->lock);
	free(tl->in);
	free(tl->hold);
	free(tl->tmp);
	free(tl);
	return rc;
}
