/* ring.h — single-producer single-consumer ring of replay_items between the
 * planner (main thread) and the timing thread. Fixed size: memory stays flat
 * however long the trace. */
#ifndef REPLAY_RING_H
#define REPLAY_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "io.h"

typedef struct item_ring {
	replay_item *items;
	size_t mask;                   /* capacity - 1 (power of two) */
	_Atomic size_t head;           /* next to write (producer) */
	_Atomic size_t tail;           /* next to read (consumer) */
	atomic_bool done;              /* producer finished (or gave up) */
} item_ring;

int item_ring_init(item_ring *r, size_t capacity_pow2);
void item_ring_free(item_ring *r);

/* Producer: false when full. */
bool item_ring_push(item_ring *r, const replay_item *it);
/* Consumer: NULL when empty; the item stays valid until item_ring_pop. */
const replay_item *item_ring_peek(item_ring *r, size_t ahead);
void item_ring_pop(item_ring *r);

#endif
