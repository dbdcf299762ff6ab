#include "spool/merge.h"

#include <stdlib.h>
#include <string.h>

typedef struct fifo {
	cap_item *items;
	size_t cap, head, len; /* ring: items[(head + i) % cap] */
} fifo;

struct cap_merge {
	unsigned n;
	size_t queued, peak;
	cap_item out;          /* the item handed out by the last pop */
	fifo q[];
};

cap_merge *cap_merge_new(unsigned nstreams)
{
	cap_merge *m = calloc(1, sizeof *m + nstreams * sizeof(fifo));
	if (m)
		m->n = nstreams;
	return m;
}

void cap_merge_free(cap_merge *m)
{
	if (!m)
		return;
	for (unsigned s = 0; s < m->n; s++) {
		fifo *f = &m->q[s];
		for (size_t i = 0; i < f->len; i++)
			free(f->items[(f->head + i) % f->cap].heap);
		free(f->items);
	}
	free(m->out.heap);
	free(m);
}

static int fifo_grow(fifo *f)
{
	size_t ncap = f->cap ? f->cap * 2 : 1024;
	cap_item *n = malloc(ncap * sizeof *n);
	if (!n)
		return BR_ENOMEM;
	/* Unroll the ring so the copies start at 0; pdu pointers into inl
	 * move with their item and are re-pointed when popped. */
	for (size_t i = 0; i < f->len; i++)
		n[i] = f->items[(f->head + i) % f->cap];
	free(f->items);
	f->items = n;
	f->cap = ncap;
	f->head = 0;
	return 0;
}

int cap_merge_push(cap_merge *m, unsigned stream, const br_event *ev)
{
	if (stream >= m->n)
		return BR_EINVAL;
	fifo *f = &m->q[stream];
	if (f->len == f->cap && fifo_grow(f))
		return BR_ENOMEM;
	cap_item *it = &f->items[(f->head + f->len) % f->cap];
	it->ev = *ev;
	it->ev.comm = NULL;
	it->heap = NULL;
	if (ev->pdu_len > CAP_ITEM_INLINE_PDU) {
		it->heap = malloc(ev->pdu_len);
		if (!it->heap)
			return BR_ENOMEM;
		memcpy(it->heap, ev->pdu, ev->pdu_len);
	} else if (ev->pdu_len) {
		memcpy(it->inl, ev->pdu, ev->pdu_len);
	}
	f->len++;
	if (++m->queued > m->peak)
		m->peak = m->queued;
	return 0;
}

bool cap_merge_pop(cap_merge *m, uint64_t horizon, bool all, const br_event **out)
{
	fifo *best = NULL;
	bool every = true;
	for (unsigned s = 0; s < m->n; s++) {
		fifo *f = &m->q[s];
		if (!f->len) {
			every = false;
			continue;
		}
		if (!best || f->items[f->head].ev.time < best->items[best->head].ev.time)
			best = f;
	}
	if (!best)
		return false;
	cap_item *it = &best->items[best->head];
	if (!all && !every && it->ev.time > horizon)
		return false;
	free(m->out.heap);
	m->out = *it;
	m->out.ev.pdu = m->out.heap ? m->out.heap : (m->out.ev.pdu_len ? m->out.inl : NULL);
	best->head = (best->head + 1) % best->cap;
	best->len--;
	m->queued--;
	*out = &m->out.ev;
	return true;
}

bool cap_merge_earliest(const cap_merge *m, uint64_t *time)
{
	bool any = false;
	for (unsigned s = 0; s < m->n; s++) {
		const fifo *f = &m->q[s];
		if (f->len && (!any || f->items[f->head].ev.time < *time)) {
			*time = f->items[f->head].ev.time;
			any = true;
		}
	}
	return any;
}

size_t cap_merge_queued(const cap_merge *m) { return m->queued; }
size_t cap_merge_peak(const cap_merge *m) { return m->peak; }
