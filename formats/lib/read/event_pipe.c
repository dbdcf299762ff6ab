/* A reader thread filling a ring of event batches that the consumer drains
 * on its own thread (see blkreel/event_pipe.h). */
#include "blkreel/event_pipe.h"
#include "reader_take.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Small batches that stay in the CPU caches between the two threads (64 KB
 * of events each); enough of them that the reader can run ahead. */
#define NBATCH 8
#define BATCH_EVENTS 1024
/* payloads are rare and small (remaps: 16 bytes); a batch closes early
 * rather than overflow */
#define ARENA (BATCH_EVENTS * 32 + BR_PDU_MAX)

typedef struct batch {
	br_event ev[BATCH_EVENTS];
	uint8_t arena[ARENA];
	int n;                    /* events in it */
} batch;

struct br_event_pipe {
	br_reader *r;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t space;     /* the reader waits here for free batches */
	pthread_cond_t data;      /* consumers wait here for filled ones */
	batch *b;
	unsigned long filled;     /* batches produced (ring slot = count % NBATCH) */
	unsigned nconsumers;
	br_event_pipe_hook hook;  /* run on the reader thread, every batch */
	/* per consumer: batches given back, and whether it holds batch
	 * `drained`; a batch is free once every consumer gave it back */
	unsigned long drained[BR_EVENT_PIPE_MAX_CONSUMERS];
	bool holding[BR_EVENT_PIPE_MAX_CONSUMERS];
	bool reader_waiting;
	unsigned consumers_waiting;
	bool done, stop;
	int rc;                   /* reader's final code (0 = clean end) */
	br_error err;
};

/* Batches not yet given back by every consumer (call with mu held). */
static unsigned long in_use(const br_event_pipe *p)
{
	unsigned long least = p->drained[0];
	for (unsigned c = 1; c < p->nconsumers; c++)
		if (p->drained[c] < least)
			least = p->drained[c];
	return p->filled - least;
}

/* Fill b from the reader; returns the reader's last code (1 = more). */
static int fill(br_event_pipe *p, batch *b, br_error *err)
{
	int rc = 1;
	size_t used = 0;
	b->n = 0;
	while (b->n < BATCH_EVENTS && used + BR_PDU_MAX <= ARENA) {
		size_t took;
		int k = reader_take(p->r, b->ev + b->n, BATCH_EVENTS - b->n, b->arena + used,
				    ARENA - used, &took);
		if (k > 0) {
			b->n += k;
			used += took;
			continue;
		}
		br_event *ev = &b->ev[b->n];
		rc = br_reader_next(p->r, ev, err);
		if (rc != 1)
			break;
		if (ev->pdu_len && ev->pdu) {
			/* the reader's buffer is reused by its next call */
			memcpy(b->arena + used, ev->pdu, ev->pdu_len);
			ev->pdu = b->arena + used;
			used += (ev->pdu_len + 7u) & ~7u;
		}
		b->n++;
	}
	return rc;
}

static void *reader_main(void *arg)
{
	br_event_pipe *p = arg;
	br_error err;
	br_error_clear(&err);
	int rc = 1;
	while (rc == 1) {
		pthread_mutex_lock(&p->mu);
		if (in_use(p) == NBATCH) {
			/* full: sleep until half the ring is free, so one wake-up
			 * fills several batches (a thread switch per batch costs
			 * more than a batch on a busy machine) */
			p->reader_waiting = true;
			while (in_use(p) > NBATCH / 2 && !p->stop)
				pthread_cond_wait(&p->space, &p->mu);
			p->reader_waiting = false;
		}
		bool stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			break;
		/* slot `filled` is neither held nor waited for by the consumer */
		batch *b = &p->b[p->filled % NBATCH];
		rc = fill(p, b, &err);
		if (b->n && p->hook.fn) {
			int hr = p->hook.fn(p->hook.arg, b->ev, b->n, &err);
			if (hr < 0)
				rc = hr; /* the batch goes out, then the hook's error */
		}
		pthread_mutex_lock(&p->mu);
		if (b->n)
			p->filled++;
		if (rc != 1) {
			p->done = true;
			p->rc = rc;
			p->err = err;
		}
		if (p->consumers_waiting)
			pthread_cond_broadcast(&p->data);
		pthread_mutex_unlock(&p->mu);
	}
	return NULL;
}

int br_event_pipe_start(br_event_pipe **out, br_reader *r, br_error *err)
{
	return br_event_pipe_start_shared(out, r, 1, err);
}

int br_event_pipe_start_shared(br_event_pipe **out, br_reader *r, unsigned nconsumers,
			       br_error *err)
{
	return br_event_pipe_start_hooked(out, r, nconsumers, NULL, err);
}

int br_event_pipe_start_hooked(br_event_pipe **out, br_reader *r, unsigned nconsumers,
			       const br_event_pipe_hook *hook, br_error *err)
{
	*out = NULL;
	if (!r)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "an event pipe needs a reader");
	if (nconsumers < 1 || nconsumers > BR_EVENT_PIPE_MAX_CONSUMERS)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "an event pipe has 1 to %d consumers, not %u",
				    BR_EVENT_PIPE_MAX_CONSUMERS, nconsumers);
	br_event_pipe *p = calloc(1, sizeof *p);
	batch *b = p ? malloc(NBATCH * sizeof *b) : NULL;
	if (!b) {
		free(p);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	p->b = b;
	p->r = r;
	p->nconsumers = nconsumers;
	if (hook)
		p->hook = *hook;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->space, NULL);
	pthread_cond_init(&p->data, NULL);
	int e = pthread_create(&p->thread, NULL, reader_main, p);
	if (e) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->space);
		pthread_cond_destroy(&p->data);
		free(b);
		free(p);
		return br_error_set(err, BR_ESYS, e, NULL, -1, "cannot start the reader thread");
	}
	*out = p;
	return 0;
}

int br_event_pipe_next(br_event_pipe *p, const br_event **evs, br_error *err)
{
	return br_event_pipe_next_for(p, 0, evs, err);
}

int br_event_pipe_next_for(br_event_pipe *p, unsigned consumer, const br_event **evs,
			   br_error *err)
{
	unsigned c = consumer;
	if (c >= p->nconsumers)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "event pipe consumer %u of %u", c,
				    p->nconsumers);
	pthread_mutex_lock(&p->mu);
	if (p->holding[c]) { /* the batch handed out last time is given back now */
		p->drained[c]++;
		p->holding[c] = false;
		if (p->reader_waiting && in_use(p) <= NBATCH / 2)
			pthread_cond_signal(&p->space);
	}
	while (p->drained[c] == p->filled && !p->done && !p->stop) {
		p->consumers_waiting++;
		pthread_cond_wait(&p->data, &p->mu);
		p->consumers_waiting--;
	}
	int n = 0;
	if (p->drained[c] < p->filled && !p->stop) {
		batch *b = &p->b[p->drained[c] % NBATCH];
		*evs = b->ev;
		n = b->n;
		p->holding[c] = true;
	} else if (p->rc < 0 && !p->stop) {
		*err = p->err;
		n = p->rc;
	}
	pthread_mutex_unlock(&p->mu);
	return n;
}

void br_event_pipe_cancel(br_event_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->space);
	pthread_cond_broadcast(&p->data);
	pthread_mutex_unlock(&p->mu);
}

void br_event_pipe_stop(br_event_pipe *p)
{
	if (!p)
		return;
	br_event_pipe_cancel(p);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->space);
	pthread_cond_destroy(&p->data);
	free(p->b);
	free(p);
}
