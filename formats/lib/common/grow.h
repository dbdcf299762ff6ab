/* grow.h (internal) — the one way an array grows: doubling, so n pushes
 * cost O(n) copies in all. The tools reach it through tool/io.h. */
#ifndef BLKREEL_GROW_H
#define BLKREEL_GROW_H

#include <stddef.h>

/* Room for at least need (>= 1) elements of elem bytes in arr, which has
 * room for *cap: arr itself when it has, else arr reallocated to the first
 * doubling of *cap (first when *cap is 0) that holds need, with *cap
 * updated. NULL when out of memory; arr and *cap are then as they were. */
void *br_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif
