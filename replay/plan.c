#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Outstanding source IOs of the trace, keyed by (device, sector), so a
 * completion can be matched to what it completes. Linear probing with
 * backward-shift deletion. */
typedef struct pending {
	uint64_t key;        /* 0 = empty */
	uint32_t items;      /* replay items it became */
} pending;

struct plan_state {
	const plan_cfg *cfg;
	plan_totals tot;
	pending *tab;
	size_t cap, used;
	uint64_t done_items;       /* replay items whose trace completion was seen */

};

static uint64_t key_of(uint32_t dev, uint64_t sector)
{
	uint64_t k = ((uint64_t)dev << 40) ^ sector ^ 0x9e3779b97f4a7c15ull;
	return k ? k : 1;
}

static size_t slot_of(const plan_state *p, uint64_t k)
{
	return (size_t)((k * 0xff51afd7ed558ccdull) >> 17) & (p->cap - 1);
}

static int tab_grow(plan_state *p)
{
	size_t ocap = p->cap;
	pending *old = p->tab;
	p->cap = ocap ? ocap * 2 : 1024;
	p->tab = calloc(p->cap, sizeof *p->tab);
	if (!p->tab) {
		p->tab = old;
		p->cap = ocap;
		return -1;
	}
	for (size_t i = 0; i < ocap; i++) {
		if (!old[i].key)
			continue;
		size_t s = slot_of(p, old[i].key);
		while (p->tab[s].key)
			s = (s + 1) & (p->cap - 1);
		p->tab[s] = old[i];
	}
	free(old);
	return 0;
}

static void tab_add(plan_state *p, uint64_t k, uint32_t items)
{
	if ((p->used + 1) * 2 > p->cap && tab_grow(p))
		return; /* out of memory: the completion just goes unmatched */
	size_t s = slot_of(p, k);
	while (p->tab[s].key && p->tab[s].key != k)
		s = (s + 1) & (p->cap - 1);
	if (p->tab[s].key == k) {
		p->tab[s].items += items;
		return;
	}
	p->tab[s].key = k;
	p->tab[s].items = items;
	p->used++;
}

/* Remove k; returns its item count, or -1 when absent. */
static int64_t tab_take(plan_state *p, uint64_t k)
{
	if (!p->cap)
		return -1;
	size_t s = slot_of(p, k);
	while (p->tab[s].key && p->tab[s].key != k)
		s = (s + 1) & (p->cap - 1);
	if (!p->tab[s].key)
		return -1;
	uint32_t items = p->tab[s].items;
	p->used--;
	size_t hole = s;
	for (size_t j = (s + 1) & (p->cap - 1); p->tab[j].key; j = (j + 1) & (p->cap - 1)) {
		size_t home = slot_of(p, p->tab[j].key);
		/* can the entry at j move into the hole? */
		bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
		if (movable) {
			p->tab[hole] = p->tab[j];
			hole = j;
		}
	}
	p->tab[hole].key = 0;
	return items;
}

plan_state *plan_new(const plan_cfg *cfg)
{
	plan_state *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->cfg = cfg;
	if (tab_grow(p)) {
		free(p);
		return NULL;
	}
	return p;
}

void plan_free(plan_state *p)
{
	if (!p)
		return;
	free(p->tab);
	free(p);
}

const plan_totals *plan_totals_get(const plan_state *p)
{
	return &p->tot;
}

char *plan_dev_name(uint32_t dev, char *buf, size_t size)
{
	snprintf(buf, size, "%u,%u", BR_DEV_MAJOR(dev), BR_DEV_MINOR(dev));
	return buf;
}

static int target_for(const plan_cfg *cfg, uint32_t dev)
{
	for (size_t i = 0; i < cfg->nmaps; i++)
		if (cfg->maps[i].any || cfg->maps[i].dev == dev)
			return cfg->maps[i].target;
	return -1;
}

static void note_device(plan_totals *t, uint32_t dev)
{
	for (size_t i = 0; i < t->ndevices; i++)
		if (t->devices[i] == dev)
			return;
	if (t->ndevices < PLAN_MAX_DEVICES)
		t->devices[t->ndevices++] = dev;
}

/* Where on the target an IO of the trace lands (before alignment). */
static uint64_t fit(const plan_cfg *cfg, const target *tg, uint16_t ti, uint64_t off, uint32_t len)
{
	uint64_t size = tg->size;
	uint64_t avail = size > cfg->offset ? size - cfg->offset : 0;
	if (cfg->fit == FIT_NONE || avail == 0)
		return off + cfg->offset;
	uint64_t rel;
	if (cfg->fit == FIT_WRAP) {
		rel = off % avail;
	} else {
		uint64_t end = cfg->max_end[ti] > cfg->offset ? cfg->max_end[ti] - cfg->offset : 0;
		rel = (end > avail) ? (uint64_t)((unsigned __int128)off * avail / end) : off;
		rel &= ~(uint64_t)511;
	}
	if (rel + len > avail)
		rel = avail >= len ? ((avail - len) & ~(uint64_t)511) : 0;
	return cfg->offset + rel;
}

static void align_item(const plan_cfg *cfg, plan_totals *t, replay_item *it)
{
	const target *tg = &cfg->targets[it->target];
	if (it->kind == RK_FLUSH || it->kind == RK_DISCARD)
		return;
	if (!tg->direct) {
		it->buffered = true;
		return;
	}
	uint64_t a = tg->align;
	if (it->off % a == 0 && it->len % a == 0)
		return;
	t->unaligned++;
	if (cfg->buffered) {
		it->buffered = true;
		return;
	}
	uint64_t start = it->off / a * a;
	uint64_t end = (it->off + it->len + a - 1) / a * a;
	if (end > tg->size && start >= a) {
		start -= a;
		end -= a;
	}
	it->off = start;
	it->len = (uint32_t)(end - start);
}

static int make_items(plan_state *p, const br_event *ev, replay_item out[2])
{
	const plan_cfg *cfg = p->cfg;
	plan_totals *t = &p->tot;
	note_device(t, ev->device);
	int ti = target_for(cfg, ev->device);
	if (ti < 0) {
		t->unmapped++;
		return 0;
	}
	bool flush = br_event_is_flush(ev);
	replay_item base = {
		.t_trace = ev->time, .trace_off = ev->sector * 512, .len = ev->bytes,
		.trace_dev = ev->device, .pid = ev->pid, .target = (uint16_t)ti,
	};
	int n = 0;
	if (ev->bytes == 0) {
		if (!flush) {
			t->skipped_empty++;
			return 0;
		}
		out[n] = base;
		out[n++].kind = RK_FLUSH;
	} else {
		if (flush && br_event_is_write(ev)) {
			out[n] = base;
			out[n].len = 0;
			out[n++].kind = RK_FLUSH;
			t->preflush++;
		}
		replay_item it = base;
		it.kind = br_event_is_discard(ev) ? RK_DISCARD
			  : br_event_is_write(ev) ? RK_WRITE : RK_READ;
		it.fua = it.kind == RK_WRITE && (ev->action & BLK_TC_ACT(BLK_TC_FUA));
		t->fua += it.fua;
		bool planned = !cfg->reads_only || it.kind == RK_READ;
		uint64_t raw_end = it.trace_off + it.len + cfg->offset;
		if (planned && raw_end > t->max_end[ti])
			t->max_end[ti] = raw_end;
		const target *tg = &cfg->targets[ti];
		if (cfg->fit == FIT_NONE && planned && raw_end > tg->size && !t->overflow) {
			t->overflow = true;
			t->first_overflow = it;
			t->first_overflow.seq = t->items + (uint64_t)n;
			t->first_overflow.off = it.trace_off + cfg->offset;
		}
		it.off = fit(cfg, tg, (uint16_t)ti, it.trace_off, it.len);
		align_item(cfg, t, &it);
		out[n++] = it;
	}
	if (cfg->reads_only) {
		int kept = 0;
		for (int i = 0; i < n; i++) {
			if (out[i].kind == RK_READ)
				out[kept++] = out[i];
			else
				t->not_written[out[i].kind]++;
		}
		n = kept;
	}
	for (int i = 0; i < n; i++) {
		out[i].seq = t->items++;
		out[i].deps = p->done_items;
		t->planned[out[i].kind]++;
		t->bytes[out[i].kind] += out[i].len;
		if (out[i].len > t->max_len)
			t->max_len = out[i].len;
	}
	if (n && !t->first_t)
		t->first_t = ev->time;
	if (n)
		t->last_t = ev->time;
	tab_add(p, key_of(ev->device, ev->sector), (uint32_t)n);
	return n;
}

int plan_feed(plan_state *p, const br_event *ev, replay_item out[2])
{
	plan_totals *t = &p->tot;
	t->events++;
	if (br_event_is_notify(ev)) {
		t->notify++;
		return 0;
	}
	unsigned code = br_event_code(ev);
	if (code == __BLK_TA_QUEUE)
		t->queued++;
	else if (code == __BLK_TA_ISSUE)
		t->issued++;
	if (code == __BLK_TA_COMPLETE) {
		t->completed++;
		int64_t items = tab_take(p, key_of(ev->device, ev->sector));
		if (items >= 0)
			p->done_items += (uint64_t)items;
		return 0;
	}
	unsigned want = p->cfg->source_q ? __BLK_TA_QUEUE : __BLK_TA_ISSUE;
	if (code != want)
		return 0;
	return make_items(p, ev, out);
}
