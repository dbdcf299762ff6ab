#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

void *br_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	if (need <= *cap && arr)
		return arr;
	size_t n = *cap ? *cap : first ? first : 1;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (n > SIZE_MAX / elem)
		return NULL;
	void *p = realloc(arr, n * elem);
	if (!p)
		return NULL;
	*cap = n;
	return p;
}
