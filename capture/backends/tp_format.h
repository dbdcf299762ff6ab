/* tp_format.h — the layout of a tracepoint's raw record, read from its
 * tracefs "format" file (field offsets move between kernel versions: rwbs
 * grew from 8 to 10 bytes, for one). */
#ifndef BLKREEL_CAPTURE_TP_FORMAT_H
#define BLKREEL_CAPTURE_TP_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/error.h"

typedef struct tp_field {
	int offset; /* -1 when the tracepoint has no such field */
	int size;
} tp_field;

typedef struct tp_format {
	uint64_t id;                      /* perf_event_attr.config */
	tp_field dev, sector, nr_sector, bytes, error, rwbs, comm, new_sector, old_dev, old_sector;
} tp_format;

/* Read events/block/NAME/{id,format} under the tracefs mount. */
int tp_format_load(const char *name, tp_format *f, br_error *err);

/* Fetch an unsigned field of 4 or 8 bytes from raw (host order); 0 when absent
 * or outside the record. */
uint64_t tp_get(const uint8_t *raw, uint32_t len, tp_field fld);
/* Copy a char array field (NUL-terminated, at most size-1 chars). */
void tp_get_str(const uint8_t *raw, uint32_t len, tp_field fld, char *out, size_t size);

#endif
