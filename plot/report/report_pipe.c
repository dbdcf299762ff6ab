/* A reader thread filling a ring of event batches (events plus a copy of
 * their payloads) that the analysis drains on the calling thread. */
#include "report_pipe.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NBATCH 4
#define BATCH_EVENTS 8192
#define ARENA (BATCH_EVENTS * 32 + BR_PDU_MAX)

typedef struct batch {
	br_event ev[BATCH_EVENTS];
	uint8_t arena[ARENA];
	int n;                    /* events in it */
} batch;

struct report_pipe {
	br_reader *r;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	batch *b;
	unsigned filled, drained; /* batches produced / consumed (mod NBATCH in use) */
	bool done, stop;
	bool holding;             /* the consumer has batch `drained` */
	int rc;                   /* reader's final code (0 = clean end) */
	br_error err;
};

static void *reader_main(void *arg)
{
	report_pipe *p = arg;
	br_error err;
	br_error_clear(&err);
	int rc = 1;
	while (rc == 1) {
		pthread_mutex_lock(&p->mu);
		while (p->filled - p->drained == NBATCH && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		bool stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			break;
		batch *b = &p->b[p->filled % NBATCH];
		size_t used = 0;
		b->n = 0;
		while (b->n < BATCH_EVENTS && used + BR_PDU_MAX <= ARENA) {
			br_event *ev = &b->ev[b->n];
			rc = br_reader_next(p->r, ev, &err);
			if (rc != 1)
				break;
			if (ev->pdu_len && ev->pdu) {
				memcpy(b->arena + used, ev->pdu, ev->pdu_len);
				ev->pdu = b->arena + used;
				used += (ev->pdu_len + 7u) & ~7u;
			}
			b->n++;
		}
		pthread_mutex_lock(&p->mu);
		if (b->n)
			p->filled++;
		if (rc != 1) {
			p->done = true;
			p->rc = rc;
			p->err = err;
		}
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	return NULL;
}

int report_pipe_start(report_pipe **out, br_reader *r, br_error *err)
{
	*out = NULL;
	report_pipe *p = calloc(1, sizeof *p);
	batch *b = p ? malloc(NBATCH * sizeof *b) : NULL;
	if (!b) {
		free(p);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	p->b = b;
	p->r = r;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	int e = pthread_create(&p->thread, NULL, reader_main, p);
	if (e) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		free(b);
		free(p);
		return br_error_set(err, BR_ESYS, e, NULL, -1, "cannot start the reader thread");
	}
	*out = p;
	return 0;
}

int report_pipe_next(report_pipe *p, const br_event **evs, br_error *err)
{
	pthread_mutex_lock(&p->mu);
	if (p->holding) { /* the batch handed out last time is given back now */
		p->drained++;
		p->holding = false;
	}
	while (p->drained == p->filled && !p->done)
		pthread_cond_wait(&p->cv, &p->mu);
	int n = 0;
	if (p->drained < p->filled) {
		batch *b = &p->b[p->drained % NBATCH];
		*evs = b->ev;
		n = b->n;
		p->holding = true;
	} else if (p->rc < 0) {
		*err = p->err;
		n = p->rc;
	}
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return n;
}

void report_pipe_stop(report_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->b);
	free(p);
}
