/* Per-device and per-process accumulators, found by id in a small open
 * hash (one entry per device or process: bounded by the machine, not by
 * the trace's length). */
#include "analysis_internal.h"
#include "common/grow.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint32_t id, size_t nslots)
{
	return (size_t)((id * 2654435761u) & (nslots - 1));
}

an_group *an_group_find(const an_groups *gs, uint32_t id)
{
	if (gs->last < gs->n && gs->g[gs->last].out.id == id)
		return &gs->g[gs->last];
	if (!gs->nslots)
		return NULL;
	for (size_t s = slot_of(id, gs->nslots);; s = (s + 1) & (gs->nslots - 1)) {
		uint32_t v = gs->slot[s];
		if (!v)
			return NULL;
		if (gs->g[v - 1].out.id == id)
			return &gs->g[v - 1];
	}
}

static int rehash(an_groups *gs, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(uint32_t));
	if (!slot)
		return BR_ENOMEM;
	for (size_t k = 0; k < gs->n; k++) {
		size_t s = slot_of(gs->g[k].out.id, nslots);
		while (slot[s])
			s = (s + 1) & (nslots - 1);
		slot[s] = (uint32_t)k + 1;
	}
	free(gs->slot);
	gs->slot = slot;
	gs->nslots = nslots;
	return 0;
}

an_group *an_group_get(an_groups *gs, uint32_t id)
{
	an_group *g = an_group_find(gs, id);
	if (g) {
		gs->last = (size_t)(g - gs->g);
		return g;
	}
	if (gs->n == gs->cap) {
		an_group *n = br_grow(gs->g, &gs->cap, gs->n + 1, sizeof(an_group), 16);
		if (!n)
			return NULL;
		gs->g = n;
	}
	if ((gs->n + 1) * 2 > gs->nslots && rehash(gs, gs->nslots ? gs->nslots * 2 : 32))
		return NULL;
	g = &gs->g[gs->n];
	memset(g, 0, sizeof(*g));
	g->out.id = id;
	size_t s = slot_of(id, gs->nslots);
	while (gs->slot[s])
		s = (s + 1) & (gs->nslots - 1);
	gs->slot[s] = (uint32_t)++gs->n;
	gs->last = gs->n - 1;
	return g;
}

void an_groups_free(an_groups *gs)
{
	free(gs->g);
	free(gs->slot);
	memset(gs, 0, sizeof(*gs));
}

void an_group_latency(an_groups *gs, uint32_t id, const an_lat *l)
{
	an_group *g = an_group_find(gs, id);
	if (!g)
		return;
	g->out.q2c_sum_ns += l->q2c_sum;
	g->out.q2c_n += l->q2c_n;
	g->out.d2c_sum_ns += l->d2c_sum;
	g->out.d2c_n += l->d2c_n;
}
