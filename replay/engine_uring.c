/* engine_uring.c — io_uring with registered buffers: the timing thread fills
 * submission entries and submits; a reaper thread waits on the completion
 * queue, so submissions never wait behind completions. A timing thread that
 * has to wait for completions anyway may also take them off the queue
 * itself (poll); cq_lock makes the two consumers take turns. Discards on a
 * block device (no io_uring op in liburing 2.3) go to one helper thread. */
#include "engine.h"

#include <errno.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "pool.h"

typedef struct uring_state {
	struct io_uring ring;
	bool ring_up, registered, reaper_up;
	pthread_t reaper;
	pthread_mutex_t cq_lock;  /* held while taking entries off the completion queue */
	bool stop_seen;           /* the reaper's stop marker was taken (under cq_lock) */
	engine_complete_fn complete;
	void *ctx;
	pool helper;
	bool helper_up;
	unsigned staged;
	replay_io *sync[64];      /* block-device discards, handed over at commit */
	unsigned nsync;
} uring_state;

/* Take every completion entry there is; under cq_lock. */
static unsigned drain(uring_state *s)
{
	unsigned n = 0;
	struct io_uring_cqe *cqe;
	while (io_uring_peek_cqe(&s->ring, &cqe) == 0) {
		replay_io *io = io_uring_cqe_get_data(cqe);
		int res = cqe->res;
		io_uring_cqe_seen(&s->ring, cqe);
		if (!io) {
			s->stop_seen = true; /* the stop marker */
			continue;
		}
		s->complete(s->ctx, io, res, now_ns());
		n++;
	}
	return n;
}

static void *reap(void *arg)
{
	uring_state *s = arg;
	clock_min_slack();
	for (;;) {
		/* waits for an entry without taking it: the timing thread may take it first */
		struct io_uring_cqe *cqe;
		int rc = io_uring_wait_cqe(&s->ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			break;
		pthread_mutex_lock(&s->cq_lock);
		drain(s);
		bool stop = s->stop_seen;
		pthread_mutex_unlock(&s->cq_lock);
		if (stop)
			break;
	}
	return NULL;
}

static unsigned uring_poll(void *st)
{
	uring_state *s = st;
	if (pthread_mutex_trylock(&s->cq_lock) != 0)
		return 0; /* the reaper is at it */
	unsigned n = drain(s);
	pthread_mutex_unlock(&s->cq_lock);
	return n;
}

static int uring_init(void *st, const engine_cfg *cfg, br_error *err)
{
	uring_state *s = st;
	memset(s, 0, sizeof *s);
	s->complete = cfg->complete;
	s->ctx = cfg->ctx;
	pthread_mutex_init(&s->cq_lock, NULL);
	unsigned entries = 8;
	while (entries < cfg->depth + 1)
		entries *= 2;
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = entries * 2 };
	int rc = io_uring_queue_init_params(entries, &s->ring, &p);
	if (rc < 0)
		return br_error_set(err, BR_ESYS, -rc, NULL, -1, "io_uring_queue_init");
	s->ring_up = true;
	rc = io_uring_register_buffers(&s->ring, cfg->bufs, cfg->depth);
	s->registered = rc == 0; /* else plain reads/writes (e.g. RLIMIT_MEMLOCK) */
	rc = pool_start(&s->helper, 1, cfg->depth, cfg->complete, cfg->ctx, err);
	if (rc) {
		io_uring_queue_exit(&s->ring);
		return rc;
	}
	s->helper_up = true;
	rc = pthread_create(&s->reaper, NULL, reap, s);
	if (rc) {
		pool_stop(&s->helper);
		io_uring_queue_exit(&s->ring);
		return br_error_set(err, BR_ESYS, rc, NULL, -1, "starting the completion thread");
	}
	s->reaper_up = true;
	return 0;
}

static int uring_commit(void *st, br_error *err)
{
	uring_state *s = st;
	for (unsigned i = 0; i < s->nsync; i++)
		pool_push(&s->helper, s->sync[i]);
	s->nsync = 0;
	if (!s->staged)
		return 0;
	int rc;
	do
		rc = io_uring_submit(&s->ring);
	while (rc == -EINTR || rc == -EAGAIN);
	if (rc < 0)
		return br_error_set(err, BR_ESYS, -rc, NULL, -1, "io_uring_submit");
	s->staged = 0;
	return 0;
}

static bool is_blockdev(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISBLK(st.st_mode);
}

static int uring_queue(void *st, replay_io *io, br_error *err)
{
	uring_state *s = st;
	if (io->it.kind == RK_DISCARD && is_blockdev(io->fd)) {
		if (s->nsync == sizeof s->sync / sizeof s->sync[0]) {
			int rc = uring_commit(s, err);
			if (rc)
				return rc;
		}
		s->sync[s->nsync++] = io;
		return 0;
	}
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	if (!sqe) {
		int rc = uring_commit(s, err);
		if (rc)
			return rc;
		sqe = io_uring_get_sqe(&s->ring);
		if (!sqe)
			return br_error_set(err, BR_ESYS, EBUSY, NULL, -1, "io_uring queue full");
	}
	bool fixed = s->registered && !io->it.buffered;
	switch (io->it.kind) {
	case RK_READ:
		if (fixed)
			io_uring_prep_read_fixed(sqe, io->fd, io->buf, io->it.len, io->it.off,
						 (int)io->slot);
		else
			io_uring_prep_read(sqe, io->fd, io->buf, io->it.len, io->it.off);
		break;
	case RK_WRITE:
		if (fixed)
			io_uring_prep_write_fixed(sqe, io->fd, io->buf, io->it.len, io->it.off,
						  (int)io->slot);
		else
			io_uring_prep_write(sqe, io->fd, io->buf, io->it.len, io->it.off);
		if (io->it.fua)
			sqe->rw_flags = RWF_DSYNC;
		break;
	case RK_FLUSH:
		io_uring_prep_fsync(sqe, io->fd, IORING_FSYNC_DATASYNC);
		break;
	case RK_DISCARD:
		io_uring_prep_fallocate(sqe, io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					io->it.off, io->it.len);
		break;
	default:
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "unknown IO kind %u", io->it.kind);
	}
	io_uring_sqe_set_data(sqe, io);
	s->staged++;
	return 0;
}

static void uring_finish(void *st)
{
	uring_state *s = st;
	if (s->helper_up)
		pool_stop(&s->helper);
	if (s->reaper_up) {
		/* every IO has completed (the core waits); a NOP without data
		 * tells the reaper to stop */
		struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
		if (!sqe) {
			io_uring_submit(&s->ring);
			sqe = io_uring_get_sqe(&s->ring);
		}
		if (sqe) {
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data(sqe, NULL);
			io_uring_submit(&s->ring);
			pthread_join(s->reaper, NULL);
		} else {
			pthread_cancel(s->reaper);
			pthread_join(s->reaper, NULL);
		}
	}
	if (s->ring_up) {
		io_uring_queue_exit(&s->ring);
		pthread_mutex_destroy(&s->cq_lock);
	}
	s->ring_up = s->reaper_up = s->helper_up = false;
}

const engine_ops engine_uring = {
	.name = "io_uring",
	.describe = "io_uring, registered buffers",
	.flags = ENGINE_ASYNC,
	.state_size = sizeof(uring_state),
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.finish = uring_finish,
	.poll = uring_poll,
};
