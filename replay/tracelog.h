/* tracelog.h — the replay's own trace (-o FILE): a Q when the timing thread
 * hands an IO over, a D when it goes to the kernel, a C when it completes,
 * written in our compressed format on a thread of its own. Records from
 * several threads are merged by time after a short hold (250 ms), so the
 * writer sees non-decreasing times; a record that arrives later than that
 * is clamped to the last time written (counted). */
#ifndef REPLAY_TRACELOG_H
#define REPLAY_TRACELOG_H

#include <stdint.h>
#include "blkreel/error.h"
#include "io.h"
#include "target.h"

typedef struct tracelog tracelog;

/* time_base: added to monotonic ns to give the output's clock. */
int tracelog_open(tracelog **out, const char *path, uint64_t time_base, br_error *err);
/* code: __BLK_TA_QUEUE / __BLK_TA_ISSUE / __BLK_TA_COMPLETE. */
void tracelog_add(tracelog *tl, const replay_io *io, const target *tg, unsigned code,
		  uint64_t t, int res);
/* Write the rest, close; the first error (NULL tracelog is fine). */
int tracelog_close(tracelog *tl, uint64_t *events, uint64_t *clamped, br_error *err);

#endif
