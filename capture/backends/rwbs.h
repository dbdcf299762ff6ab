/* rwbs.h — the kernel tracepoints' RWBS string ("WS", "FWFSM", "RA", "D",
 * "FF") back to blk_io_trace category bits, the way blktrace's own probes
 * set them from the request flags (a flush or "N" op counts as a read;
 * a discard as a write plus discard). */
#ifndef BLKREEL_CAPTURE_RWBS_H
#define BLKREEL_CAPTURE_RWBS_H

#include <stdint.h>

/* BLK_TC_* bits (not shifted) for rwbs. */
uint32_t cap_rwbs_categories(const char *rwbs);

#endif
