/* The table of open IOs used for Q→D→C pairing: entries in one array with a
 * free list, chained in two hash indexes (by start and by end sector), so
 * back merges (find by end) and front merges (find by start) are O(1). */
#include "stats_internal.h"

#include <stdlib.h>
#include <string.h>

static inline uint32_t hkey(uint32_t dev, uint64_t sec, uint32_t mask)
{
	uint64_t h = (sec ^ ((uint64_t)dev << 40)) * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32) & mask;
}

int pair_init(pair_table *t)
{
	memset(t, 0, sizeof(*t));
	t->mask = 1023;
	t->head_s = malloc((t->mask + 1) * sizeof(uint32_t));
	t->head_e = malloc((t->mask + 1) * sizeof(uint32_t));
	if (!t->head_s || !t->head_e) {
		pair_destroy(t);
		return BR_ENOMEM;
	}
	memset(t->head_s, 0xff, (t->mask + 1) * sizeof(uint32_t));
	memset(t->head_e, 0xff, (t->mask + 1) * sizeof(uint32_t));
	t->free_head = PAIR_NIL;
	return 0;
}

void pair_destroy(pair_table *t)
{
	free(t->io);
	free(t->head_s);
	free(t->head_e);
	memset(t, 0, sizeof(*t));
}

static void link_s(pair_table *t, uint32_t i)
{
	uint32_t h = hkey(t->io[i].dev, t->io[i].start, t->mask);
	t->io[i].next_s = t->head_s[h];
	t->head_s[h] = i;
}

static void link_e(pair_table *t, uint32_t i)
{
	uint32_t h = hkey(t->io[i].dev, t->io[i].end, t->mask);
	t->io[i].next_e = t->head_e[h];
	t->head_e[h] = i;
}

static void unlink_s(pair_table *t, uint32_t i)
{
	uint32_t *p = &t->head_s[hkey(t->io[i].dev, t->io[i].start, t->mask)];
	while (*p != i)
		p = &t->io[*p].next_s;
	*p = t->io[i].next_s;
}

static void unlink_e(pair_table *t, uint32_t i)
{
	uint32_t *p = &t->head_e[hkey(t->io[i].dev, t->io[i].end, t->mask)];
	while (*p != i)
		p = &t->io[*p].next_e;
	*p = t->io[i].next_e;
}

/* Double the index when it gets more than 3/4 full. */
static int grow_index(pair_table *t)
{
	uint32_t n = (t->mask + 1) * 2;
	uint32_t *s = malloc(n * sizeof(uint32_t)), *e = malloc(n * sizeof(uint32_t));
	if (!s || !e) {
		free(s);
		free(e);
		return BR_ENOMEM;
	}
	free(t->head_s);
	free(t->head_e);
	t->head_s = s;
	t->head_e = e;
	t->mask = n - 1;
	memset(s, 0xff, n * sizeof(uint32_t));
	memset(e, 0xff, n * sizeof(uint32_t));
	/* relink every live entry: live ones have nbios/flags; freed ones are
	 * marked with dev == UINT32_MAX */
	for (uint32_t i = 0; i < t->used; i++) {
		if (t->io[i].flags == UINT32_MAX)
			continue;
		link_s(t, i);
		link_e(t, i);
	}
	return 0;
}

uint32_t pair_new(pair_table *t, uint32_t dev, uint64_t start, uint64_t end)
{
	if (t->live + 1 > (t->mask + 1) / 4 * 3 && grow_index(t))
		return PAIR_NIL;
	uint32_t i;
	if (t->free_head != PAIR_NIL) {
		i = t->free_head;
		t->free_head = t->io[i].next_s;
	} else {
		if (t->used == t->cap) {
			uint32_t nc = t->cap ? t->cap * 2 : 1024;
			open_io *n = realloc(t->io, nc * sizeof(open_io));
			if (!n)
				return PAIR_NIL;
			t->io = n;
			t->cap = nc;
		}
		i = t->used++;
	}
	open_io *o = &t->io[i];
	memset(o, 0, sizeof(*o));
	o->dev = dev;
	o->start = start;
	o->end = end;
	link_s(t, i);
	link_e(t, i);
	t->live++;
	return i;
}

void pair_free(pair_table *t, uint32_t i)
{
	unlink_s(t, i);
	unlink_e(t, i);
	t->io[i].flags = UINT32_MAX;
	t->io[i].next_s = t->free_head;
	t->free_head = i;
	t->live--;
}

uint32_t pair_find_start(const pair_table *t, uint32_t dev, uint64_t start,
			 uint32_t mask, uint32_t want, uint32_t except)
{
	for (uint32_t i = t->head_s[hkey(dev, start, t->mask)]; i != PAIR_NIL; i = t->io[i].next_s) {
		const open_io *o = &t->io[i];
		if (o->start == start && o->dev == dev && (o->flags & mask) == want && i != except)
			return i;
	}
	return PAIR_NIL;
}

uint32_t pair_find_empty(const pair_table *t, uint32_t dev, uint64_t sec,
			 uint32_t mask, uint32_t want)
{
	for (uint32_t i = t->head_s[hkey(dev, sec, t->mask)]; i != PAIR_NIL; i = t->io[i].next_s) {
		const open_io *o = &t->io[i];
		if (o->start == sec && o->end == sec && o->dev == dev && (o->flags & mask) == want)
			return i;
	}
	return PAIR_NIL;
}

uint32_t pair_find_empty_oldest(const pair_table *t, uint32_t dev, uint64_t sec,
				uint32_t mask, uint32_t want)
{
	uint32_t best = PAIR_NIL;
	for (uint32_t i = t->head_s[hkey(dev, sec, t->mask)]; i != PAIR_NIL; i = t->io[i].next_s) {
		const open_io *o = &t->io[i];
		if (o->start != sec || o->end != sec || o->dev != dev || (o->flags & mask) != want)
			continue;
		/* q is 0 without a Q, so those count as oldest; chains are
		 * newest first, hence <= to keep the oldest of equal times */
		if (best == PAIR_NIL || o->q <= t->io[best].q)
			best = i;
	}
	return best;
}

uint32_t pair_find_end(const pair_table *t, uint32_t dev, uint64_t end,
		       uint32_t mask, uint32_t want, uint32_t except)
{
	for (uint32_t i = t->head_e[hkey(dev, end, t->mask)]; i != PAIR_NIL; i = t->io[i].next_e) {
		const open_io *o = &t->io[i];
		if (o->end == end && o->dev == dev && (o->flags & mask) == want && i != except)
			return i;
	}
	return PAIR_NIL;
}

void pair_rekey(pair_table *t, uint32_t i, uint32_t dev, uint64_t start, uint64_t end)
{
	unlink_s(t, i);
	unlink_e(t, i);
	t->io[i].dev = dev;
	t->io[i].start = start;
	t->io[i].end = end;
	link_s(t, i);
	link_e(t, i);
}
