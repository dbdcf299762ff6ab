/* engine_uring.c — io_uring with registered buffers: the timing thread fills
 * submission entries and submits; a reaper thread waits on the completion
 * queue, so submissions never wait behind completions. A timing thread that
 * has to wait for completions anyway may also take them off the queue
 * itself (poll); cq_lock makes the two consumers take turns. Discards on a
 * block device (no io_uring op in liburing 2.3) go to one helper thread.
 *
 * Order: reads and writes through O_DIRECT on a block device carry
 * RWF_NOWAIT. Without it, an IO that finds no free request in the device's
 * queue is handed by io_uring to its worker threads, which race, so the
 * device sees it out of order; nothing tells the submitter. That happens
 * even under the in-flight cap: a completion reaches us before the kernel
 * has put its request back. With RWF_NOWAIT the kernel returns -EAGAIN
 * instead; the IO is resubmitted at once (whoever drained the completion
 * does it, under sq_lock), and after NOWAIT_TRIES refusals without the
 * flag, through the workers. Both are counted: only such IOs can reach the
 * device out of order. */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "clock.h"
#include "pool.h"

typedef struct uring_state {
	struct io_uring ring;
	bool ring_up, registered, reaper_up;
	pthread_t reaper;
	pthread_mutex_t cq_lock;  /* held while taking entries off the completion queue */
	pthread_mutex_t sq_lock;  /* held while filling or submitting the submission queue */
	bool stop_seen;           /* the reaper's stop marker was taken (under cq_lock) */
	engine_complete_fn complete;
	void *ctx;
	pool helper;
	bool helper_up;
	unsigned staged;
	replay_io *sync[64];      /* block-device discards, handed over at commit */
	unsigned nsync;
	uint8_t *tries;           /* per slot: refusals (-EAGAIN) of the IO in it */
	bool *nowait_sent;        /* per slot: its IO went with RWF_NOWAIT */
	replay_io **parked;       /* refused IOs waiting to be sent again, by seq (cq_lock) */
	unsigned nparked;
	int8_t nowait_fd[256];    /* per fd: 1 RWF_NOWAIT applies, 0 not, -1 unknown */
	uint64_t refused;         /* IOs the device refused at least once (under cq_lock) */
	uint64_t to_workers;      /* of those, sent without RWF_NOWAIT (under cq_lock) */
} uring_state;

enum { NOWAIT_TRIES = 8, RETRY_AFTER_NS = 100000 };

static bool is_blockdev(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISBLK(st.st_mode);
}

/* RWF_NOWAIT only where a refusal can only mean a full queue: O_DIRECT on a
 * block device (buffered or file IO would also refuse a page-cache miss). */
static bool nowait_applies(uring_state *s, replay_io *io)
{
	if ((io->it.kind != RK_READ && io->it.kind != RK_WRITE) || io->fd < 0)
		return false;
	int8_t *known = (size_t)io->fd < sizeof s->nowait_fd ? &s->nowait_fd[io->fd] : NULL;
	if (known && *known >= 0)
		return *known;
	int fl = fcntl(io->fd, F_GETFL);
	bool ok = fl >= 0 && (fl & O_DIRECT) && is_blockdev(io->fd);
	if (known)
		*known = ok;
	return ok;
}

static int prep(uring_state *s, replay_io *io, bool nowait, br_error *err);
static int submit_locked(uring_state *s, br_error *err);

/* The device refused io (-EAGAIN): hold it until a completion has freed a
 * request (or RETRY_AFTER_NS passed), in plan order; under cq_lock. */
static void park(uring_state *s, replay_io *io)
{
	if (s->tries[io->slot]++ == 0)
		s->refused++;
	unsigned i = s->nparked++;
	while (i > 0 && s->parked[i - 1]->it.seq > io->it.seq) {
		s->parked[i] = s->parked[i - 1];
		i--;
	}
	s->parked[i] = io;
}

/* Send the parked IOs again, oldest first; under cq_lock. */
static void resubmit_parked(uring_state *s)
{
	if (!s->nparked)
		return;
	br_error err;
	unsigned n = s->nparked, done = 0;
	s->nparked = 0;
	pthread_mutex_lock(&s->sq_lock);
	for (; done < n; done++) {
		replay_io *io = s->parked[done];
		bool nowait = s->tries[io->slot] < NOWAIT_TRIES;
		if (prep(s, io, nowait, &err))
			break;
		s->to_workers += !nowait;
	}
	/* a failed submit leaves them staged: the timing thread's next commit
	 * sends them, or reports why it cannot */
	submit_locked(s, &err);
	pthread_mutex_unlock(&s->sq_lock);
	for (; done < n; done++) /* no room in the submission queue: it failed */
		s->complete(s->ctx, s->parked[done], -EAGAIN, tool_now_ns());
}

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
		if (res == -EAGAIN && s->nowait_sent[io->slot]) {
			park(s, io);
			continue;
		}
		s->complete(s->ctx, io, res, tool_now_ns());
		n++;
	}
	if (n)
		resubmit_parked(s); /* a request has been freed, or is about to be */
	return n;
}

static void *reap(void *arg)
{
	uring_state *s = arg;
	clock_min_slack();
	for (;;) {
		/* waits for an entry without taking it: the timing thread may take
		 * it first. With IOs parked, it wakes up to retry them anyway:
		 * nothing else may be in flight to complete. */
		struct io_uring_cqe *cqe;
		pthread_mutex_lock(&s->cq_lock);
		bool parked = s->nparked > 0;
		pthread_mutex_unlock(&s->cq_lock);
		struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = RETRY_AFTER_NS };
		int rc = parked ? io_uring_wait_cqe_timeout(&s->ring, &cqe, &ts)
				: io_uring_wait_cqe(&s->ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0 && rc != -ETIME)
			break;
		pthread_mutex_lock(&s->cq_lock);
		if (!drain(s) && rc == -ETIME)
			resubmit_parked(s);
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

/* Undo a partial init: what finish would not see. */
static int init_failed(uring_state *s, int rc)
{
	if (s->ring_up)
		io_uring_queue_exit(&s->ring);
	s->ring_up = false;
	pthread_mutex_destroy(&s->cq_lock);
	pthread_mutex_destroy(&s->sq_lock);
	free(s->tries);
	free(s->nowait_sent);
	free(s->parked);
	s->tries = NULL;
	s->nowait_sent = NULL;
	s->parked = NULL;
	return rc;
}

static int uring_init(void *st, const engine_cfg *cfg, br_error *err)
{
	uring_state *s = st;
	memset(s, 0, sizeof *s);
	s->complete = cfg->complete;
	s->ctx = cfg->ctx;
	pthread_mutex_init(&s->cq_lock, NULL);
	pthread_mutex_init(&s->sq_lock, NULL);
	memset(s->nowait_fd, -1, sizeof s->nowait_fd);
	s->tries = calloc(cfg->depth ? cfg->depth : 1, 1);
	s->nowait_sent = calloc(cfg->depth ? cfg->depth : 1, sizeof *s->nowait_sent);
	s->parked = calloc(cfg->depth ? cfg->depth : 1, sizeof *s->parked);
	if (!s->tries || !s->nowait_sent || !s->parked)
		return init_failed(s, br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "io_uring engine state"));
	unsigned entries = 8;
	while (entries < cfg->depth + 1)
		entries *= 2;
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = entries * 2 };
	int rc = io_uring_queue_init_params(entries, &s->ring, &p);
	if (rc < 0)
		return init_failed(s, br_error_set(err, BR_ESYS, -rc, NULL, -1, "io_uring_queue_init"));
	s->ring_up = true;
	rc = io_uring_register_buffers(&s->ring, cfg->bufs, cfg->depth);
	s->registered = rc == 0; /* else plain reads/writes (e.g. RLIMIT_MEMLOCK) */
	rc = pool_start(&s->helper, 1, cfg->depth, cfg->complete, cfg->ctx, err);
	if (rc)
		return init_failed(s, rc);
	s->helper_up = true;
	rc = pthread_create(&s->reaper, NULL, reap, s);
	if (rc) {
		pool_stop(&s->helper);
		return init_failed(s, br_error_set(err, BR_ESYS, rc, NULL, -1, "starting the completion thread"));
	}
	s->reaper_up = true;
	return 0;
}

/* Submit what is staged; under sq_lock. */
static int submit_locked(uring_state *s, br_error *err)
{
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

static int uring_commit(void *st, br_error *err)
{
	uring_state *s = st;
	for (unsigned i = 0; i < s->nsync; i++)
		pool_push(&s->helper, s->sync[i]);
	s->nsync = 0;
	pthread_mutex_lock(&s->sq_lock);
	int rc = submit_locked(s, err);
	pthread_mutex_unlock(&s->sq_lock);
	return rc;
}

/* Fill a submission entry for io; under sq_lock. */
static int prep(uring_state *s, replay_io *io, bool nowait, br_error *err)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	if (!sqe) {
		int rc = submit_locked(s, err);
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
	if (nowait)
		sqe->rw_flags |= RWF_NOWAIT;
	s->nowait_sent[io->slot] = nowait;
	io_uring_sqe_set_data(sqe, io);
	s->staged++;
	return 0;
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
	s->tries[io->slot] = 0; /* the slot's previous IO has completed */
	bool nowait = nowait_applies(s, io);
	pthread_mutex_lock(&s->sq_lock);
	int rc = prep(s, io, nowait, err);
	pthread_mutex_unlock(&s->sq_lock);
	return rc;
}

static void uring_refusals(void *st, uint64_t *refused, uint64_t *to_workers)
{
	const uring_state *s = st; /* after finish: the reaper has stopped */
	*refused = s->refused;
	*to_workers = s->to_workers;
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
	if (s->ring_up)
		io_uring_queue_exit(&s->ring);
	pthread_mutex_destroy(&s->cq_lock);
	pthread_mutex_destroy(&s->sq_lock);
	free(s->tries);
	free(s->nowait_sent);
	free(s->parked);
	s->tries = NULL;
	s->nowait_sent = NULL;
	s->parked = NULL;
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
	.refusals = uring_refusals,
};
