#include "flight/watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/units.h"

/* A request seen issued (or queued) this long ago without its completion
 * no longer counts: its completion was lost, not slow. */
#define STALE_NS (60ull * 1000 * 1000 * 1000)

typedef struct slot {
	uint64_t key;   /* device << 40 ^ sector, + 1 (0 = empty) */
	uint64_t time;
	bool dead;      /* removed: probing goes on past it */
} slot;

/* Open addressing, linear probing, tombstones; rebuilt when it fills. */
typedef struct table {
	slot *v;
	size_t cap, used, live;
} table;

struct watch {
	watch_rule *rules;
	size_t n;
	bool want_d, want_q, want_idle;
	table issued, queued;
	/* completions seen before the issue / queueing they end (records
	 * handed over as read, not merged into time order): their times */
	table early_d, early_q;
	uint64_t last_io, swept;
	bool any_io;
};

static uint64_t key_of(uint32_t device, uint64_t sector)
{
	return (((uint64_t)device << 40) ^ sector) + 1;
}

static size_t hash(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int table_init(table *t, size_t cap)
{
	t->v = calloc(cap, sizeof *t->v);
	t->cap = cap;
	t->used = t->live = 0;
	return t->v ? 0 : -1;
}

static slot *find(table *t, uint64_t key)
{
	for (size_t i = hash(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (!t->v[i].key)
			return NULL;
		if (t->v[i].key == key && !t->v[i].dead)
			return &t->v[i];
	}
}

static int rebuild(table *t, size_t cap, uint64_t now)
{
	table n;
	if (table_init(&n, cap))
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		slot *s = &t->v[i];
		if (!s->key || s->dead || s->time + STALE_NS < now)
			continue;
		size_t j = hash(s->key, n.cap);
		while (n.v[j].key)
			j = (j + 1) & (n.cap - 1);
		n.v[j] = *s;
		n.used++;
		n.live++;
	}
	free(t->v);
	*t = n;
	return 0;
}

static void put(table *t, uint64_t key, uint64_t time)
{
	slot *s = find(t, key);
	if (s) { /* the same sector again before its completion: the newer one */
		s->time = time;
		return;
	}
	if ((t->used + 1) * 2 > t->cap) {
		size_t cap = (t->live + 1) * 4 > t->cap ? t->cap * 2 : t->cap;
		if (rebuild(t, cap, time))
			return; /* out of memory: this request is not watched */
	}
	size_t i = hash(key, t->cap);
	while (t->v[i].key && !t->v[i].dead)
		i = (i + 1) & (t->cap - 1);
	if (!t->v[i].key)
		t->used++;
	t->v[i] = (slot){ key, time, false };
	t->live++;
}

/* The time it was put, and removed; false when not there. */
static bool take(table *t, uint64_t key, uint64_t *time)
{
	slot *s = find(t, key);
	if (!s)
		return false;
	*time = s->time;
	s->dead = true;
	t->live--;
	return true;
}

int watch_rule_parse(const char *text, watch_rule *out)
{
	static const struct {
		const char *name;
		watch_kind kind;
	} names[] = { { "d2c", WATCH_D2C }, { "q2c", WATCH_Q2C }, { "inflight", WATCH_INFLIGHT }, { "idle", WATCH_IDLE } };
	const char *gt = strchr(text, '>');
	if (!gt || !gt[1])
		return -1;
	memset(out, 0, sizeof *out);
	size_t i;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == (size_t)(gt - text) && strncmp(text, names[i].name, (size_t)(gt - text)) == 0)
			break;
	if (i == sizeof names / sizeof names[0])
		return -1;
	out->kind = names[i].kind;
	if (out->kind == WATCH_INFLIGHT) {
		if (br_parse_uint(gt + 1, 1, 1u << 20, &out->limit))
			return -1;
	} else if (br_parse_duration_ns(gt + 1, &out->limit) || out->limit == 0) {
		return -1;
	}
	snprintf(out->text, sizeof out->text, "%s", text);
	return 0;
}

watch *watch_new(const watch_rule *rules, size_t n)
{
	watch *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->rules = malloc((n ? n : 1) * sizeof *rules);
	if (!w->rules || table_init(&w->issued, 1024) || table_init(&w->queued, 1024) ||
	    table_init(&w->early_d, 256) || table_init(&w->early_q, 256)) {
		watch_free(w);
		return NULL;
	}
	memcpy(w->rules, rules, n * sizeof *rules);
	w->n = n;
	for (size_t i = 0; i < n; i++) {
		w->want_d |= rules[i].kind == WATCH_D2C || rules[i].kind == WATCH_INFLIGHT;
		w->want_q |= rules[i].kind == WATCH_Q2C;
		w->want_idle |= rules[i].kind == WATCH_IDLE;
	}
	return w;
}

void watch_free(watch *w)
{
	if (!w)
		return;
	free(w->issued.v);
	free(w->queued.v);
	free(w->early_d.v);
	free(w->early_q.v);
	free(w->rules);
	free(w);
}

uint32_t watch_actions(const watch *w)
{
	uint32_t m = 0;
	if (w->want_d)
		m |= 1u << __BLK_TA_ISSUE | 1u << __BLK_TA_REQUEUE | 1u << __BLK_TA_COMPLETE;
	if (w->want_q)
		m |= 1u << __BLK_TA_QUEUE | 1u << __BLK_TA_COMPLETE;
	return w->want_idle ? 0 : m; /* idle: any IO event ends a gap */
}

size_t watch_inflight(const watch *w)
{
	return w->issued.live;
}

static bool fire(const watch *w, watch_kind kind, uint64_t value, uint64_t time, const br_event *ev, watch_hit *hit)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->rules[i].kind == kind && value > w->rules[i].limit) {
			*hit = (watch_hit){ &w->rules[i], time, value, ev->device, ev->sector };
			if (kind == WATCH_IDLE) /* true from the moment the gap reached the limit */
				hit->time = time - value + w->rules[i].limit;
			return true;
		}
	return false;
}

bool watch_event(watch *w, const br_event *ev, watch_hit *hit)
{
	if (br_event_is_notify(ev))
		return false;
	bool fired = false;
	if (w->want_idle && w->any_io && ev->time > w->last_io)
		fired = fire(w, WATCH_IDLE, ev->time - w->last_io, ev->time, ev, hit);
	w->any_io = true;
	if (ev->time > w->last_io)
		w->last_io = ev->time;
	/* stale requests go every STALE_NS, so inflight does not creep up */
	if (ev->time > w->swept + STALE_NS) {
		w->swept = ev->time;
		rebuild(&w->issued, w->issued.cap, ev->time);
		rebuild(&w->queued, w->queued.cap, ev->time);
		rebuild(&w->early_d, w->early_d.cap, ev->time);
		rebuild(&w->early_q, w->early_q.cap, ev->time);
	}
	uint64_t key = key_of(ev->device, ev->sector), then;
	switch (ev->action & 0xffff) {
	case __BLK_TA_QUEUE:
		if (!w->want_q)
			break;
		if (take(&w->early_q, key, &then) && then >= ev->time) {
			if (!fired)
				fired = fire(w, WATCH_Q2C, then - ev->time, then, ev, hit);
			break;
		}
		put(&w->queued, key, ev->time);
		break;
	case __BLK_TA_ISSUE:
		if (!w->want_d)
			break;
		if (take(&w->early_d, key, &then) && then >= ev->time) {
			if (!fired)
				fired = fire(w, WATCH_D2C, then - ev->time, then, ev, hit);
			break;
		}
		put(&w->issued, key, ev->time);
		if (!fired)
			fired = fire(w, WATCH_INFLIGHT, w->issued.live, ev->time, ev, hit);
		break;
	case __BLK_TA_REQUEUE:
		if (w->want_d)
			take(&w->issued, key, &then);
		break;
	case __BLK_TA_COMPLETE:
		if (w->want_d) {
			if (!take(&w->issued, key, &then))
				put(&w->early_d, key, ev->time);
			else if (!fired && ev->time >= then)
				fired = fire(w, WATCH_D2C, ev->time - then, ev->time, ev, hit);
		}
		if (w->want_q) {
			if (!take(&w->queued, key, &then))
				put(&w->early_q, key, ev->time);
			else if (!fired && ev->time >= then)
				fired = fire(w, WATCH_Q2C, ev->time - then, ev->time, ev, hit);
		}
		break;
	}
	return fired;
}

void watch_hit_text(const watch_hit *hit, char *buf, size_t size)
{
	static const char *what[] = { "d2c", "q2c", "requests in flight", "no IO for" };
	if (hit->rule->kind == WATCH_IDLE)
		snprintf(buf, size, "%s %.3f ms on %u,%u", what[hit->rule->kind], (double)hit->value / 1e6,
			 BR_DEV_MAJOR(hit->device), BR_DEV_MINOR(hit->device));
	else if (hit->rule->kind == WATCH_INFLIGHT)
		snprintf(buf, size, "%llu %s on %u,%u", (unsigned long long)hit->value, what[hit->rule->kind],
			 BR_DEV_MAJOR(hit->device), BR_DEV_MINOR(hit->device));
	else
		snprintf(buf, size, "%s %.3f ms on %u,%u sector %llu", what[hit->rule->kind], (double)hit->value / 1e6,
			 BR_DEV_MAJOR(hit->device), BR_DEV_MINOR(hit->device), (unsigned long long)hit->sector);
}
