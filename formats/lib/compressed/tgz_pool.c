/* tgz_pool.c — worker threads that run (de)compression jobs.
 *
 * A single FIFO under one mutex: jobs are whole 64 KiB members, so a job
 * costs hundreds of microseconds and the lock is never the bottleneck. The
 * pool does not order results; callers keep their jobs in a ring and wait
 * for the oldest, which gives ordered output with bounded memory. */
#include "tgz_internal.h"

#include <stdlib.h>
#include <unistd.h> /* sysconf */

typedef struct worker_arg {
	struct tgz_pool *pool;
	unsigned index;
} worker_arg;

struct tgz_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;     /* a job was queued, or shutdown */
	pthread_cond_t done;     /* some job finished */
	tgz_job *head, *tail;
	bool stop;
	unsigned nthreads;
	pthread_t *threads;
	worker_arg *args;
};

unsigned tgz_threads_resolve(unsigned threads)
{
	if (threads)
		return threads;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static void *worker_main(void *arg)
{
	const worker_arg *a = arg;
	tgz_pool *p = a->pool;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->work, &p->lock);
		if (!p->head)
			break; /* stop requested and nothing left */
		tgz_job *j = p->head;
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->lock);
		j->worker = a->index;
		j->run(j);
		pthread_mutex_lock(&p->lock);
		j->done = true;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int tgz_pool_create(tgz_pool **out, unsigned nthreads)
{
	*out = NULL;
	tgz_pool *p = calloc(1, sizeof *p);
	if (!p)
		return BR_ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if (nthreads) {
		p->threads = calloc(nthreads, sizeof *p->threads);
		p->args = calloc(nthreads, sizeof *p->args);
		if (!p->threads || !p->args) {
			tgz_pool_free(p);
			return BR_ENOMEM;
		}
		for (unsigned i = 0; i < nthreads; i++) {
			p->args[i] = (worker_arg){ .pool = p, .index = i };
			if (pthread_create(&p->threads[i], NULL, worker_main, &p->args[i]) != 0) {
				tgz_pool_free(p);
				return BR_ENOMEM;
			}
			p->nthreads++;
		}
	}
	*out = p;
	return 0;
}

unsigned tgz_pool_workers(const tgz_pool *p)
{
	return p->nthreads ? p->nthreads : 1;
}

void tgz_pool_submit(tgz_pool *p, tgz_job *job)
{
	job->next = NULL;
	job->done = false;
	if (!p->nthreads) {
		job->worker = 0;
		job->run(job);
		job->done = true;
		return;
	}
	pthread_mutex_lock(&p->lock);
	if (p->tail)
		p->tail->next = job;
	else
		p->head = job;
	p->tail = job;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
}

void tgz_pool_wait(tgz_pool *p, tgz_job *job)
{
	if (!p->nthreads)
		return;
	pthread_mutex_lock(&p->lock);
	while (!job->done)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void tgz_pool_free(tgz_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	free(p->args);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
