/* engine.h — how IOs reach the target: a small ops table per engine.
 *
 * Contract (the core calls hooks only from the timing thread, in order):
 *   init     set up for depth IOs in flight and the slot buffers; start any
 *            threads; deliver each completion through cfg->complete, from
 *            the engine's own thread(s), never from queue/commit.
 *   queue    take one IO (its slot stays owned by the engine until the
 *            completion callback); may only stage it.
 *   commit   hand everything staged to the kernel. When the engine does not
 *            set ENGINE_STAMPS_ISSUE, the core stamps t_issue just before
 *            commit; otherwise the engine stamps it just before the syscall.
 *   finish   wait for every IO in flight to complete, stop threads, free.
 *   inversions (optional; call before finish) IOs that reached the kernel
 *            after one planned later.
 *   refusals (optional; call after finish) IOs the device refused at first
 *            (a full queue) and that were sent again to wait for a request;
 *            IOs sent through the kernel's worker threads (those, and IOs
 *            beyond the queue or that the device would split, sent that way
 *            from the start); of these, the ones it would split. Only IOs
 *            through the workers can reach the device out of order.
 *   poll     (optional) deliver the completions that are already there, from
 *            the calling timing thread, without blocking; returns how many.
 *            Lets a timing thread that must wait for completions anyway
 *            (--closed, the in-flight cap) see them at once instead of
 *            after the engine's own thread wakes up.
 * All hooks but finish return 0 or a negative br_code with err set. */
#ifndef REPLAY_ENGINE_H
#define REPLAY_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "blkreel/error.h"
#include "io.h"

/* Completion: res is bytes done (or 0 for flush/discard) or -errno. */
typedef void (*engine_complete_fn)(void *ctx, replay_io *io, int res, uint64_t t_done);

typedef struct engine_cfg {
	unsigned depth;              /* slots / max in flight */
	struct iovec *bufs;          /* one aligned buffer per slot */
	unsigned threads;            /* thread-pool engine: workers */
	engine_complete_fn complete;
	void *ctx;
} engine_cfg;

enum {
	ENGINE_STAMPS_ISSUE = 1 << 0,   /* sets io->t_issue itself */
	ENGINE_ASYNC = 1 << 1,          /* kernel-side queueing (io_uring) */
};

typedef struct engine_ops {
	const char *name;
	const char *describe;
	unsigned flags;
	size_t state_size;
	int (*init)(void *st, const engine_cfg *cfg, br_error *err);
	int (*queue)(void *st, replay_io *io, br_error *err);
	int (*commit)(void *st, br_error *err);
	void (*finish)(void *st);
	/* optional: IOs that started after a later one (threads can race) */
	uint64_t (*inversions)(void *st);
	/* optional: completions already there, delivered from the caller */
	unsigned (*poll)(void *st);
	/* optional: IOs refused by a full queue and resubmitted */
	void (*refusals)(void *st, uint64_t *refused, uint64_t *to_workers, uint64_t *would_split);
} engine_ops;

/* Engines in order of preference, NULL-terminated. */
extern const engine_ops *const engine_list[];
const engine_ops *engine_find(const char *name);
/* 0 when every required hook is there. */
int engine_check(const engine_ops *ops);

extern const engine_ops engine_uring;
extern const engine_ops engine_pool;

/* The synchronous form of an IO (pread/pwrite/fdatasync/discard), used by
 * the thread pool and for ops io_uring lacks. Returns bytes or -errno. */
int engine_sync_exec(replay_io *io);

#endif
