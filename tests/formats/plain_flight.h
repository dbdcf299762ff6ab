/* plain_flight.h — the number of requests in flight over a real capture,
 * counted the plainest way, for tests to hold the shared statistics to:
 * +1 on every D, -1 on every R and on every C that carries sectors or ends
 * a flush request ("C FN", keyed at sector 0 where flushes are issued).
 * An end takes the newest open D at its device and sector: an older one
 * still open there lost its completion (a later write to the sector, or
 * the next flush of a machinery that runs one at a time, cannot be it). A D that
 * no end ever takes never completed: it is left out entirely, as the
 * statistics leave lost IOs out (blkreel/stats.h, "In flight"). Needs no
 * pairing of Q, merges or splits at all. */
#ifndef PLAIN_FLIGHT_H
#define PLAIN_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "blkreel/event.h"

typedef struct pf_ev {
	uint64_t t, key;
	uint32_t seq;
	int8_t delta;         /* +1 D, -1 end */
	bool keep;
} pf_ev;

typedef struct plain_flight {
	pf_ev *e;
	size_t n, cap;
	uint64_t first, last;
	bool started;
	/* results */
	double avg;
	uint32_t max;
	uint64_t lost;
} plain_flight;

static void pf_add(plain_flight *p, const br_event *ev)
{
	if (!p->started) {
		p->started = true;
		p->first = ev->time;
	}
	p->last = ev->time;
	unsigned code = br_event_code(ev);
	bool flush_rq = br_event_is_flush(ev) && !br_event_is_write(ev) && !ev->bytes;
	int delta = 0;
	if (code == __BLK_TA_ISSUE)
		delta = +1;
	else if ((code == __BLK_TA_COMPLETE && (ev->bytes || flush_rq)) || code == __BLK_TA_REQUEUE)
		delta = -1;
	if (!delta)
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 4096;
		p->e = realloc(p->e, p->cap * sizeof *p->e);
	}
	uint64_t sec = flush_rq ? 0 : ev->sector;
	p->e[p->n] = (pf_ev){ .t = ev->time, .key = sec ^ ((uint64_t)ev->device << 44),
			      .seq = (uint32_t)p->n, .delta = (int8_t)delta };
	p->n++;
}

static int pf_by_key(const void *x, const void *y)
{
	const pf_ev *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int pf_by_seq(const void *x, const void *y)
{
	const pf_ev *a = x, *b = y;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Match ends to D's per key (the newest open one), then integrate what is kept. */
static void pf_finish(plain_flight *p)
{
	qsort(p->e, p->n, sizeof *p->e, pf_by_key);
	for (size_t i = 0; i < p->n;) {
		size_t j = i;
		while (j < p->n && p->e[j].key == p->e[i].key)
			j++;
		for (size_t k = i; k < j; k++) {
			if (p->e[k].delta > 0)
				continue;
			size_t m = k; /* the newest open D before this end */
			for (size_t x = k; x-- > i;)
				if (p->e[x].delta > 0 && !p->e[x].keep) {
					m = x;
					break;
				}
			if (m < k) {
				p->e[m].keep = true;
				p->e[k].keep = true;
			}
		}
		i = j;
	}
	qsort(p->e, p->n, sizeof *p->e, pf_by_seq);
	double area = 0;
	uint32_t depth = 0;
	uint64_t last = p->first;
	p->max = 0;
	p->lost = 0;
	for (size_t k = 0; k < p->n; k++) {
		const pf_ev *e = &p->e[k];
		if (!e->keep) {
			p->lost += e->delta > 0;
			continue;
		}
		area += (double)depth * (double)(e->t - last);
		last = e->t;
		depth = (uint32_t)((int)depth + e->delta);
		if (depth > p->max)
			p->max = depth;
	}
	area += (double)depth * (double)(p->last - last);
	p->avg = p->last > p->first ? area / (double)(p->last - p->first) : 0;
	free(p->e);
	p->e = NULL;
}

#endif
