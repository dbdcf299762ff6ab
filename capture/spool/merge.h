/* merge.h — the bounded reorder buffer that turns per-CPU streams (each in
 * time order) into one stream in time order, as the compressed writer needs.
 *
 * One FIFO per stream; the earliest head goes out when every stream has
 * something queued (then it is certainly the earliest), or when it is older
 * than a horizon the caller gives (a stream that stays empty cannot hold
 * back the others for ever). Events carry their pdu with them. */
#ifndef BLKREEL_CAPTURE_MERGE_H
#define BLKREEL_CAPTURE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/event.h"

#define CAP_ITEM_INLINE_PDU 16 /* split (8) and remap (16) payloads; longer ones go to the heap */

typedef struct cap_item {
	br_event ev;     /* ev.pdu points into inl or heap; ev.comm unused */
	uint8_t *heap;   /* pdu longer than the inline space */
	uint8_t inl[CAP_ITEM_INLINE_PDU];
} cap_item;

typedef struct cap_merge cap_merge;

/* nstreams streams, numbered 0..nstreams-1. NULL when out of memory. */
cap_merge *cap_merge_new(unsigned nstreams);
void cap_merge_free(cap_merge *m);

/* Queue a copy of ev (and its pdu) on stream. 0 or BR_ENOMEM/BR_EINVAL. */
int cap_merge_push(cap_merge *m, unsigned stream, const br_event *ev);

/* Take the earliest event if it is safe to emit: every stream non-empty,
 * its time <= horizon, or all is true (end of capture). The item stays
 * valid until the next pop. Returns false when nothing may go yet. */
bool cap_merge_pop(cap_merge *m, uint64_t horizon, bool all, const br_event **out);

/* The earliest time queued (a stream's head); false when none is. */
bool cap_merge_earliest(const cap_merge *m, uint64_t *time);

/* Events queued now, and the most ever queued at once. */
size_t cap_merge_queued(const cap_merge *m);
size_t cap_merge_peak(const cap_merge *m);

#endif
