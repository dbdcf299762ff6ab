#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int stats_init(replay_stats *s, uint64_t span_ns)
{
	memset(s, 0, sizeof *s);
	br_hist_clear(&s->late);
	br_hist_clear(&s->early);
	br_hist_clear(&s->gap_err);
	br_hist_clear(&s->lat[0]);
	br_hist_clear(&s->lat[1]);
	s->nwin = span_ns / STATS_WINDOW_NS + 2;
	s->win_target = calloc(s->nwin, sizeof *s->win_target);
	s->win_actual = calloc(s->nwin, sizeof *s->win_actual);
	if (!s->win_target || !s->win_actual) {
		stats_free(s);
		return -1;
	}
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void stats_free(replay_stats *s)
{
	free(s->win_target);
	free(s->win_actual);
	s->win_target = s->win_actual = NULL;
}

static void window_add(uint32_t *w, size_t n, uint64_t start, uint64_t t)
{
	if (t < start)
		t = start;
	size_t i = (size_t)((t - start) / STATS_WINDOW_NS);
	w[i < n ? i : n - 1]++;
}

void stats_issue(replay_stats *s, const replay_io *io)
{
	s->issued[io->it.kind]++;
	s->issued_bytes[io->it.kind] += io->it.len;
	if (io->t_issue >= io->t_target)
		br_hist_add(&s->late, io->t_issue - io->t_target);
	else
		br_hist_add(&s->early, io->t_target - io->t_issue);
	if (s->prev_issue) {
		int64_t got = (int64_t)(io->t_issue - s->prev_issue);
		int64_t want = (int64_t)(io->t_target - s->prev_target);
		int64_t d = got - want;
		br_hist_add(&s->gap_err, (uint64_t)(d < 0 ? -d : d));
	}
	s->prev_issue = io->t_issue;
	s->prev_target = io->t_target;
	if (io->t_issue > s->last_issue)
		s->last_issue = io->t_issue;
	window_add(s->win_target, s->nwin, s->t_start, io->t_target);
	window_add(s->win_actual, s->nwin, s->t_start, io->t_issue);
}

static unsigned errno_slot(int e)
{
	switch (e) {
	case EIO: return 0;
	case ENOSPC: return 1;
	case EINVAL: return 2;
	case EOPNOTSUPP: return 3;
	case EAGAIN: return 4;
	case EBADF: return 5;
	default: return 6;
	}
}

void stats_complete(replay_stats *s, const replay_io *io, int res, uint64_t t_done)
{
	unsigned k = io->it.kind;
	s->completed[k]++;
	uint64_t lat = t_done > io->t_issue ? t_done - io->t_issue : 0;
	s->busy_ns += lat;
	if (t_done > s->last_done)
		s->last_done = t_done;
	bool bad = res < 0;
	bool shrt = !bad && (k == RK_READ || k == RK_WRITE) && (uint32_t)res != io->it.len;
	if (bad || shrt) {
		s->failed[k]++;
		if (shrt)
			s->errno_count[7]++;
		else
			s->errno_count[errno_slot(-res)]++;
		if (!s->first_errno) {
			s->first_errno = shrt ? -1 : -res;
			s->first_failed = io->it;
		}
		return;
	}
	if (k == RK_READ)
		br_hist_add(&s->lat[0], lat);
	else if (k == RK_WRITE)
		br_hist_add(&s->lat[1], lat);
}
