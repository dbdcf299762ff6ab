#include "ring.h"

#include <stdlib.h>

int item_ring_init(item_ring *r, size_t cap)
{
	r->items = calloc(cap, sizeof *r->items);
	if (!r->items)
		return -1;
	r->mask = cap - 1;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	atomic_init(&r->done, false);
	return 0;
}

void item_ring_free(item_ring *r)
{
	free(r->items);
	r->items = NULL;
}

bool item_ring_push(item_ring *r, const replay_item *it)
{
	size_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (h - t > r->mask)
		return false;
	r->items[h & r->mask] = *it;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return true;
}

const replay_item *item_ring_peek(item_ring *r, size_t ahead)
{
	size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	if (h - t <= ahead)
		return NULL;
	return &r->items[(t + ahead) & r->mask];
}

void item_ring_pop(item_ring *r)
{
	size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
}
