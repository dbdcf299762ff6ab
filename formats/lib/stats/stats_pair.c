/* The table of open requests of the one pairing engine (stats_io.c): an
 * array with a free list, two chained hash indexes (by start and by end
 * sector) for O(1) merges, and a pool of bios listed under each request.
 * Sized by what is in flight only. */
#include "stats_internal.h"

#include <stdlib.h>
#include <string.h>

static inline uint32_t hkey(uint32_t dev, uint64_t sec, uint32_t mask)
{
	uint64_t h = (sec ^ ((uint64_t)dev << 40)) * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32) & mask;
}

static int alloc_index(pair_table *t, uint32_t n)
{
	uint32_t *s = malloc(n * sizeof(uint32_t)), *e = malloc(n * sizeof(uint32_t));
	if (!s || !e) {
		free(s);
		free(e);
		return BR_ENOMEM;
	}
	memset(s, 0xff, n * sizeof(uint32_t));
	memset(e, 0xff, n * sizeof(uint32_t));
	free(t->head_s);
	free(t->head_e);
	t->head_s = s;
	t->head_e = e;
	t->mask = n - 1;
	return 0;
}

int pair_init(pair_table *t)
{
	memset(t, 0, sizeof(*t));
	t->free_head = PAIR_NIL;
	t->bfree = PAIR_NIL;
	if (alloc_index(t, 1024)) {
		pair_destroy(t);
		return BR_ENOMEM;
	}
	return 0;
}

void pair_destroy(pair_table *t)
{
	free(t->r);
	free(t->b);
	free(t->head_s);
	free(t->head_e);
	memset(t, 0, sizeof(*t));
}

static void link_both(pair_table *t, uint32_t i)
{
	pair_req *r = &t->r[i];
	uint32_t hs = hkey(r->dev, r->start, t->mask), he = hkey(r->dev, r->end, t->mask);
	r->next_s = t->head_s[hs];
	t->head_s[hs] = i;
	r->next_e = t->head_e[he];
	t->head_e[he] = i;
}

static void unlink_both(pair_table *t, uint32_t i)
{
	pair_req *r = &t->r[i];
	uint32_t *p = &t->head_s[hkey(r->dev, r->start, t->mask)];
	while (*p != i)
		p = &t->r[*p].next_s;
	*p = r->next_s;
	p = &t->head_e[hkey(r->dev, r->end, t->mask)];
	while (*p != i)
		p = &t->r[*p].next_e;
	*p = r->next_e;
}

static int grow_index(pair_table *t)
{
	if (alloc_index(t, (t->mask + 1) * 2))
		return BR_ENOMEM;
	for (uint32_t i = 0; i < t->used; i++)
		if (!(t->r[i].flags & RQ_FREE))
			link_both(t, i);
	return 0;
}

uint32_t pair_new(pair_table *t, uint32_t dev, uint64_t start, uint64_t end)
{
	if (t->live + 1 > (t->mask + 1) / 4 * 3 && grow_index(t))
		return PAIR_NIL;
	uint32_t i;
	if (t->free_head != PAIR_NIL) {
		i = t->free_head;
		t->free_head = t->r[i].next_s;
	} else {
		if (t->used == t->cap) {
			uint32_t nc = t->cap ? t->cap * 2 : 1024;
			pair_req *n = realloc(t->r, nc * sizeof(pair_req));
			if (!n)
				return PAIR_NIL;
			t->r = n;
			t->cap = nc;
		}
		i = t->used++;
	}
	pair_req *r = &t->r[i];
	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->start = start;
	r->end = end;
	r->bios = r->last_bio = PAIR_NIL;
	link_both(t, i);
	t->live++;
	return i;
}

void pair_free(pair_table *t, uint32_t i)
{
	pair_req *r = &t->r[i];
	unlink_both(t, i);
	if (r->bios != PAIR_NIL) { /* give the whole list back at once */
		t->b[r->last_bio].next = t->bfree;
		t->bfree = r->bios;
	}
	r->flags = RQ_FREE;
	r->next_s = t->free_head;
	t->free_head = i;
	t->live--;
}

void pair_rekey(pair_table *t, uint32_t i, uint32_t dev, uint64_t start, uint64_t end)
{
	unlink_both(t, i);
	t->r[i].dev = dev;
	t->r[i].start = start;
	t->r[i].end = end;
	link_both(t, i);
}

uint32_t pair_find_start(const pair_table *t, uint32_t dev, uint64_t start, uint32_t mask,
		       uint32_t want, uint32_t except)
{
	for (uint32_t i = t->head_s[hkey(dev, start, t->mask)]; i != PAIR_NIL; i = t->r[i].next_s) {
		const pair_req *r = &t->r[i];
		if (r->start == start && r->dev == dev && (r->flags & mask) == want && i != except)
			return i;
	}
	return PAIR_NIL;
}

uint32_t pair_find_empty(const pair_table *t, uint32_t dev, uint64_t sec, uint32_t mask, uint32_t want)
{
	for (uint32_t i = t->head_s[hkey(dev, sec, t->mask)]; i != PAIR_NIL; i = t->r[i].next_s) {
		const pair_req *r = &t->r[i];
		if (r->start == sec && r->end == sec && r->dev == dev && (r->flags & mask) == want)
			return i;
	}
	return PAIR_NIL;
}

uint32_t pair_find_empty_oldest(const pair_table *t, uint32_t dev, uint64_t sec, uint32_t mask,
			      uint32_t want)
{
	uint32_t best = PAIR_NIL;
	for (uint32_t i = t->head_s[hkey(dev, sec, t->mask)]; i != PAIR_NIL; i = t->r[i].next_s) {
		const pair_req *r = &t->r[i];
		/* q is 0 without a Q, so those count as oldest; chains are
		 * newest first, hence <= to keep the oldest of equal times */
		if (r->start == sec && r->end == sec && r->dev == dev && (r->flags & mask) == want &&
		    (best == PAIR_NIL || r->q <= t->r[best].q))
			best = i;
	}
	return best;
}

uint32_t pair_find_end(const pair_table *t, uint32_t dev, uint64_t end, uint32_t mask,
		     uint32_t want, uint32_t except)
{
	for (uint32_t i = t->head_e[hkey(dev, end, t->mask)]; i != PAIR_NIL; i = t->r[i].next_e) {
		const pair_req *r = &t->r[i];
		if (r->end == end && r->dev == dev && (r->flags & mask) == want && i != except)
			return i;
	}
	return PAIR_NIL;
}

int pair_bio_add(pair_table *t, uint32_t i, uint64_t q, uint32_t pid, uint32_t flags)
{
	uint32_t k;
	if (t->bfree != PAIR_NIL) {
		k = t->bfree;
		t->bfree = t->b[k].next;
	} else {
		if (t->bused == t->bcap) {
			uint32_t nc = t->bcap ? t->bcap * 2 : 1024;
			pair_bio *n = realloc(t->b, nc * sizeof(pair_bio));
			if (!n)
				return BR_ENOMEM;
			t->b = n;
			t->bcap = nc;
		}
		k = t->bused++;
	}
	pair_bio *b = &t->b[k];
	b->q = q;
	b->m = 0;
	b->pid = pid;
	b->flags = flags;
	b->next = PAIR_NIL;
	pair_req *r = &t->r[i];
	if (r->bios == PAIR_NIL)
		r->bios = k;
	else
		t->b[r->last_bio].next = k;
	r->last_bio = k;
	return 0;
}

void pair_bio_move(pair_table *t, uint32_t from, uint32_t to)
{
	pair_req *f = &t->r[from], *d = &t->r[to];
	if (f->bios == PAIR_NIL)
		return;
	if (d->bios == PAIR_NIL)
		d->bios = f->bios;
	else
		t->b[d->last_bio].next = f->bios;
	d->last_bio = f->last_bio;
	f->bios = f->last_bio = PAIR_NIL;
}
