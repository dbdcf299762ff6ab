#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"

static void *worker(void *arg)
{
	pool *p = arg;
	clock_min_slack();
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->head == p->tail && !p->stop)
			pthread_cond_wait(&p->more, &p->lock);
		if (p->head == p->tail)
			break;
		replay_io *io = p->q[p->tail];
		p->tail = (p->tail + 1) % p->cap;
		if (p->any_started && io->it.seq < p->started_seq)
			p->inversions++;
		else
			p->started_seq = io->it.seq;
		p->any_started = true;
		pthread_mutex_unlock(&p->lock);
		io->t_issue = tool_now_ns();
		int res = engine_sync_exec(io);
		p->complete(p->ctx, io, res, tool_now_ns());
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pool_start(pool *p, unsigned threads, unsigned depth, engine_complete_fn complete,
	       void *ctx, br_error *err)
{
	memset(p, 0, sizeof *p);
	p->cap = depth + 1;
	p->q = calloc(p->cap, sizeof *p->q);
	p->threads = calloc(threads, sizeof *p->threads);
	if (!p->q || !p->threads) {
		free(p->q);
		free(p->threads);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	p->complete = complete;
	p->ctx = ctx;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	for (unsigned i = 0; i < threads; i++) {
		int rc = pthread_create(&p->threads[i], NULL, worker, p);
		if (rc) {
			pool_stop(p);
			return br_error_set(err, BR_ESYS, rc, NULL, -1, "starting IO threads");
		}
		p->nthreads++;
	}
	return 0;
}

void pool_push(pool *p, replay_io *io)
{
	pthread_mutex_lock(&p->lock);
	p->q[p->head] = io;
	p->head = (p->head + 1) % p->cap;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
}

void pool_stop(pool *p)
{
	if (!p->q)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->more);
	free(p->q);
	free(p->threads);
	p->q = NULL;
	p->threads = NULL;
}
