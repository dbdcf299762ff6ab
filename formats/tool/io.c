/* Compiled with -Iformats/lib, the one tool-layer file that is: the bridge
 * to the library's internal write and growth loops. */
#include "tool/io.h"

#include "common/fdout.h"
#include "common/grow.h"

int tool_write_all(int fd, const void *data, size_t len, const char *name, uint64_t offset,
		   br_error *err)
{
	return br_write_all(fd, data, len, name, offset, err);
}

void *tool_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	return br_grow(arr, cap, need, elem, first);
}
