/* reader_take.h (internal) — the reader's bulk path for the event pipe.
 *
 * With one stream (a compressed file, one raw file) events come out of the
 * stream's read-ahead batch in order, so a run of them can be copied out at
 * once instead of through the merge, event by event. */
#ifndef BLKREEL_READER_TAKE_H
#define BLKREEL_READER_TAKE_H

#include <stddef.h>
#include <stdint.h>
#include "blkreel/reader.h"

/* Copy up to max of the next events into out as br_reader_next would hand
 * them out: both apply one set of rules (judge and hand_out in reader.c:
 * the window, events of other devices passed over, the kept ones counted
 * and given their process name). Their payloads go into
 * arena (room bytes; each payload takes its length rounded up to 8) with
 * out[i].pdu pointing there; *used is the arena bytes taken. Returns how
 * many were copied, or 0 when the next event needs br_reader_next (several
 * streams, the end of a read-ahead batch, the window's edge, held notify
 * records, an error or the end). */
int reader_take(br_reader *r, br_event *out, int max, uint8_t *arena, size_t room,
		size_t *used);

#endif
