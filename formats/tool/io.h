/* tool/io.h — writing a whole buffer and growing an array, for the tools.
 * The loops themselves are the library's (formats/lib/common: br_write_all,
 * br_grow), which its own writers use too: one copy of each, which the
 * tools reach through here without seeing the library's internal headers. */
#ifndef BLKREEL_TOOL_IO_H
#define BLKREEL_TOOL_IO_H

#include <stddef.h>
#include <stdint.h>

#include "blkreel/error.h"

/* write(2) all of data to fd, retrying on EINTR and short writes; a failure
 * names the file and the byte offset it happened at (offset = where data
 * starts in the file). 0 or BR_ESYS. */
int tool_write_all(int fd, const void *data, size_t len, const char *name, uint64_t offset,
		   br_error *err);

/* Room for at least need (>= 1) elements of elem bytes in arr (room for
 * *cap), doubling from first: the array to use from now on, or NULL when
 * out of memory (arr and *cap then as they were). */
void *tool_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif
