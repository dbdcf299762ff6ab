/* pool.h — worker threads that run IOs synchronously (engine_sync_exec),
 * FIFO, each stamping t_issue just before its system call. The thread-pool
 * engine is this; the io_uring engine uses one worker for operations it
 * cannot queue (discard on a block device). */
#ifndef REPLAY_POOL_H
#define REPLAY_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "engine.h"

typedef struct pool {
	pthread_mutex_t lock;
	pthread_cond_t more;
	replay_io **q;          /* FIFO of depth+1 entries */
	unsigned cap, head, tail;
	bool stop;
	pthread_t *threads;
	unsigned nthreads;
	engine_complete_fn complete;
	void *ctx;
	uint64_t started_seq;   /* highest plan sequence started */
	uint64_t inversions;    /* started after a later one had started */
	bool any_started;
} pool;

int pool_start(pool *p, unsigned threads, unsigned depth, engine_complete_fn complete,
	       void *ctx, br_error *err);
/* Never blocks: the core keeps at most depth IOs in flight. */
void pool_push(pool *p, replay_io *io);
/* Drain the queue, join the workers, free. */
void pool_stop(pool *p);

#endif
