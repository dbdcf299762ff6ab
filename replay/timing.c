/* timing.c — the dedicated timing thread. Each IO's target is computed on
 * an absolute schedule from the replay's start (never from the previous
 * IO), so lateness does not accumulate; it sleeps to shortly before the
 * target with 1 ns timer slack, then spins. IOs already due are handed to
 * the engine together in one submit. Completions arrive on other threads,
 * so a slow completion never holds back a submission (only the --max-inflight
 * cap does, by design). */
#include "replay_state.h"

#include <sched.h>
#include <string.h>
#include <time.h>

#include "blkreel/event.h"
#include "clock.h"
#include "pattern.h"

#define BATCH_MAX 32

static void nap(long ns)
{
	struct timespec ts = { 0, ns };
	nanosleep(&ts, NULL);
}

static uint64_t target_of(const replay_state *s, const replay_item *it, uint64_t shift)
{
	uint64_t rel = it->t_trace > s->trace_t0 ? it->t_trace - s->trace_t0 : 0;
	return s->t_start + (uint64_t)((double)rel / s->speed) + shift;
}

static unsigned take_slot(replay_state *s)
{
	pthread_mutex_lock(&s->stats.lock);
	unsigned slot = s->free_slots[--s->nfree];
	pthread_mutex_unlock(&s->stats.lock);
	return slot;
}

typedef struct batch {
	replay_io *io[BATCH_MAX];
	unsigned n;
} batch;

static int commit(replay_state *s, batch *b)
{
	if (!b->n)
		return 0;
	if (!(s->eng->flags & ENGINE_STAMPS_ISSUE)) {
		uint64_t t = tool_now_ns();
		for (unsigned i = 0; i < b->n; i++) {
			b->io[i]->t_issue = t;
			stats_issue(&s->stats, b->io[i]);
			tracelog_add(s->tl, b->io[i], &s->targets[b->io[i]->it.target], __BLK_TA_ISSUE,
				     t, 0);
		}
	}
	b->n = 0;
	return s->eng->commit(s->eng_state, &s->err);
}

/* While waiting for completions: take those already there when the engine
 * lets us (no wait for its thread to wake up), else give the CPU away now
 * and then. */
static void await_completions(replay_state *s, unsigned *spins)
{
	if (s->eng->poll && s->eng->poll(s->eng_state))
		return;
	if (++*spins >= 2000)
		sched_yield();
}

/* Wait until fewer than depth IOs are in flight. */
static void wait_slot(replay_state *s)
{
	unsigned spins = 0;
	while (atomic_load(&s->inflight) >= s->depth)
		await_completions(s, &spins);
}

/* --closed: wait for the completions the original had seen. Returns false
 * when nothing is in flight that could bring them (counted, not waited). */
static bool wait_deps(replay_state *s, uint64_t deps)
{
	unsigned spins = 0;
	while (atomic_load(&s->completed) < deps) {
		if (atomic_load(&s->inflight) == 0)
			return false;
		await_completions(s, &spins);
	}
	return true;
}

/* A slot for it, with a write's pattern stamped in. */
static replay_io *prepare(replay_state *s, const replay_item *it)
{
	unsigned slot = take_slot(s);
	replay_io *io = &s->ios[slot];
	io->it = *it;
	const struct target *tg = &s->targets[it->target];
	io->fd = it->buffered ? tg->fd_buf : tg->fd;
	if (it->kind == RK_WRITE) {
		if (io->clean_len < it->len) {
			pattern_init_buffer(io->buf, it->len);
			io->clean_len = it->len;
		}
		pattern_stamp(io->buf, it->len, it->trace_off, it->seq);
	} else if (it->kind == RK_READ) {
		io->clean_len = 0;
	}
	return io;
}

/* The IOs next in the ring, prepared (slot taken, pattern stamped) while
 * the timing thread waited for the first one's moment: stamping a 512 KiB
 * write costs 35-55 us (measured here), so a burst of large writes due
 * together, stamped one after another on their schedule, went out
 * milliseconds late. io[k] is the item at ring position k. */
#define PREP_MAX 32
typedef struct prepared {
	replay_io *io[PREP_MAX];
	unsigned n;
} prepared;

/* Prepare what comes next until shortly before due (the spin), never
 * holding so many slots that those in flight and those prepared reach
 * depth. */
static void prepare_ahead(replay_state *s, prepared *p, uint64_t due)
{
	while (p->n < PREP_MAX && atomic_load(&s->inflight) + p->n + 1 < s->depth &&
	       tool_now_ns() + s->spin_ns < due) {
		const replay_item *it = item_ring_peek(&s->ring, p->n);
		if (!it)
			break;
		p->io[p->n++] = prepare(s, it);
	}
}

/* The IO for it, the item at ring position 0: prepared before, or now. */
static replay_io *take_prepared(replay_state *s, prepared *p, const replay_item *it)
{
	if (!p->n)
		return prepare(s, it);
	replay_io *io = p->io[0];
	p->n--;
	memmove(p->io, p->io + 1, p->n * sizeof p->io[0]);
	return io;
}

static int issue_one(replay_state *s, replay_io *io, uint64_t due, batch *b)
{
	const replay_item *it = &io->it;
	const struct target *tg = &s->targets[it->target];
	io->t_target = due;
	unsigned n = atomic_fetch_add(&s->inflight, 1) + 1;
	if (n > s->stats.inflight_max)
		s->stats.inflight_max = n;
	/* what the device cannot take at once is sent so that the kernel waits
	 * for it, instead of refusing it (a refused bio in a capture) */
	io->would_split = tg->blockdev && !it->buffered && target_would_split(tg, it->off, it->len);
	io->beyond_queue = s->nowait_room && n > s->nowait_room;
	io->t_submit = tool_now_ns();
	if (s->no_stall)
		io->t_target = io->t_submit;
	tracelog_add(s->tl, io, tg, __BLK_TA_QUEUE, io->t_submit, 0);
	b->io[b->n++] = io;
	atomic_fetch_add(&s->issued, 1);
	return s->eng->queue(s->eng_state, io, &s->err);
}

static int run_schedule(replay_state *s)
{
	batch b = { .n = 0 };
	prepared p = { .n = 0 };
	uint64_t shift = 0;
	for (;;) {
		if (atomic_load(&s->abort))
			break;
		const replay_item *it = item_ring_peek(&s->ring, 0);
		if (!it) {
			if (atomic_load(&s->ring.done) && !item_ring_peek(&s->ring, 0))
				break;
			int rc = commit(s, &b);
			if (rc)
				return rc;
			nap(20000);
			continue;
		}
		uint64_t due = target_of(s, it, shift);
		if (s->closed && it->deps > atomic_load(&s->completed)) {
			int rc = commit(s, &b);
			if (rc)
				return rc;
			if (!wait_deps(s, it->deps))
				s->stats.deps_unmet++;
			uint64_t now = tool_now_ns();
			if (now > due) {
				shift += now - due;
				due = now;
			}
		}
		if (atomic_load(&s->inflight) >= s->depth) {
			int rc = commit(s, &b);
			if (rc)
				return rc;
			wait_slot(s);
		}
		if (!s->no_stall && due > tool_now_ns()) {
			int rc = commit(s, &b);
			if (rc)
				return rc;
			prepare_ahead(s, &p, due);
			clock_wait_until(due, s->spin_ns);
		}
		replay_io *io = take_prepared(s, &p, it);
		item_ring_pop(&s->ring);
		int rc = issue_one(s, io, due, &b);
		if (rc)
			return rc;
		/* go on batching only while the next IO is already due */
		const replay_item *next = item_ring_peek(&s->ring, 0);
		bool more = next && b.n < BATCH_MAX && atomic_load(&s->inflight) < s->depth &&
			   (s->no_stall || target_of(s, next, shift) <= tool_now_ns()) &&
			   !(s->closed && next->deps > atomic_load(&s->completed));
		if (!more && (rc = commit(s, &b)))
			return rc;
	}
	return commit(s, &b);
}

void *replay_timing_main(void *arg)
{
	replay_state *s = arg;
	clock_min_slack();
	s->rc = run_schedule(s);
	if (s->rc)
		atomic_store(&s->abort, true);
	/* every IO handed over completes before the engine is finished */
	while (atomic_load(&s->inflight) > 0)
		nap(100000);
	return NULL;
}

void replay_complete(void *ctx, replay_io *io, int res, uint64_t t_done)
{
	replay_state *s = ctx;
	const struct target *tg = &s->targets[io->it.target];
	bool stamps = s->eng->flags & ENGINE_STAMPS_ISSUE;
	if (stamps)
		tracelog_add(s->tl, io, tg, __BLK_TA_ISSUE, io->t_issue, 0);
	tracelog_add(s->tl, io, tg, __BLK_TA_COMPLETE, t_done, res);
	pthread_mutex_lock(&s->stats.lock);
	if (stamps)
		stats_issue(&s->stats, io);
	stats_complete(&s->stats, io, res, t_done);
	s->free_slots[s->nfree++] = io->slot; /* the slot may be reused from here */
	pthread_mutex_unlock(&s->stats.lock);
	if (res < 0 && s->stop_on_error)
		atomic_store(&s->abort, true);
	atomic_fetch_add(&s->completed, 1);
	atomic_fetch_sub(&s->inflight, 1);
}
