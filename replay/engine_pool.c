/* engine_pool.c — pread/pwrite on worker threads, for kernels or targets
 * where io_uring is unavailable. */
#include "engine.h"
#include "pool.h"

static int pool_init(void *st, const engine_cfg *cfg, br_error *err)
{
	unsigned n = cfg->threads ? cfg->threads : (cfg->depth < 16 ? cfg->depth : 16);
	return pool_start(st, n ? n : 1, cfg->depth, cfg->complete, cfg->ctx, err);
}

static int pool_queue(void *st, replay_io *io, br_error *err)
{
	(void)err;
	pool_push(st, io);
	return 0;
}

static int pool_commit(void *st, br_error *err)
{
	(void)st;
	(void)err;
	return 0;
}

static void pool_finish(void *st)
{
	pool_stop(st);
}

static uint64_t pool_inversions(void *st)
{
	pool *p = st;
	return p->inversions;
}

const engine_ops engine_pool = {
	.name = "threads",
	.describe = "thread pool, pread/pwrite",
	.flags = ENGINE_STAMPS_ISSUE,
	.state_size = sizeof(pool),
	.init = pool_init,
	.queue = pool_queue,
	.commit = pool_commit,
	.finish = pool_finish,
	.inversions = pool_inversions,
};
