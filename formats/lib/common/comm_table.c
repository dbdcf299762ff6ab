#include "comm_table.h"

#include <stdlib.h>
#include <string.h>

#include "blkreel/error.h"

typedef struct entry {
	uint32_t pid;
	const char *name; /* NULL = empty slot */
} entry;

typedef struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char data[];
} arena_block;

struct br_comm_table {
	entry *slots;
	size_t cap, count; /* cap is a power of two */
	arena_block *arena;
};

static const char *intern(br_comm_table *t, const char *name, size_t len)
{
	if (!t->arena || t->arena->cap - t->arena->used < len + 1) {
		size_t cap = len + 1 > 16384 ? len + 1 : 16384;
		arena_block *b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->next = t->arena;
		b->used = 0;
		b->cap = cap;
		t->arena = b;
	}
	char *p = t->arena->data + t->arena->used;
	memcpy(p, name, len);
	p[len] = 0;
	t->arena->used += len + 1;
	return p;
}

static size_t slot_of(uint32_t pid, size_t cap)
{
	return (size_t)((pid * 2654435761u) & (cap - 1));
}

br_comm_table *br_comm_table_new(void)
{
	br_comm_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->cap = 256;
	t->slots = calloc(t->cap, sizeof *t->slots);
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void br_comm_table_free(br_comm_table *t)
{
	if (!t)
		return;
	for (arena_block *b = t->arena, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(t->slots);
	free(t);
}

static int grow(br_comm_table *t)
{
	size_t cap = t->cap * 2;
	entry *s = calloc(cap, sizeof *s);
	if (!s)
		return BR_ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].name)
			continue;
		size_t j = slot_of(t->slots[i].pid, cap);
		while (s[j].name)
			j = (j + 1) & (cap - 1);
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
	return 0;
}

int br_comm_table_set(br_comm_table *t, uint32_t pid, const char *name, size_t len)
{
	len = strnlen(name, len);
	if ((t->count + 1) * 2 > t->cap && grow(t))
		return BR_ENOMEM;
	size_t j = slot_of(pid, t->cap);
	while (t->slots[j].name && t->slots[j].pid != pid)
		j = (j + 1) & (t->cap - 1);
	if (t->slots[j].name && strlen(t->slots[j].name) == len &&
	    memcmp(t->slots[j].name, name, len) == 0)
		return 0;
	const char *p = intern(t, name, len);
	if (!p)
		return BR_ENOMEM;
	if (!t->slots[j].name)
		t->count++;
	t->slots[j].pid = pid;
	t->slots[j].name = p;
	return 0;
}

const char *br_comm_table_get(const br_comm_table *t, uint32_t pid)
{
	size_t j = slot_of(pid, t->cap);
	while (t->slots[j].name) {
		if (t->slots[j].pid == pid)
			return t->slots[j].name;
		j = (j + 1) & (t->cap - 1);
	}
	return NULL;
}
