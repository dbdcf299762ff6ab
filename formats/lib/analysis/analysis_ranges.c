/* Hot offset ranges: bytes and IOs per fixed-size range of each device,
 * and how the IO to a range comes in bursts (a pause of burst_gap or more
 * starts a new one), so a report can say "every 5 s". One entry per range
 * touched: bounded by device size, not by trace length. */
#include "analysis_internal.h"
#include "common/grow.h"

#include <stdlib.h>
#include <string.h>

static size_t rslot(uint32_t dev, uint64_t idx, size_t n)
{
	uint64_t h = (idx ^ ((uint64_t)dev << 40)) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & (n - 1);
}

static int rehash(br_analysis *a, size_t n)
{
	uint32_t *s = calloc(n, sizeof(uint32_t));
	if (!s)
		return BR_ENOMEM;
	for (size_t k = 0; k < a->nranges; k++) {
		size_t p = rslot(a->ranges[k].dev, a->ranges[k].idx, n);
		while (s[p])
			p = (p + 1) & (n - 1);
		s[p] = (uint32_t)k + 1;
	}
	free(a->rslot);
	a->rslot = s;
	a->nrslots = n;
	return 0;
}

static an_range *range_get(br_analysis *a, uint32_t dev, uint64_t idx)
{
	if (a->rlast) {
		an_range *r = &a->ranges[a->rlast - 1];
		if (r->idx == idx && r->dev == dev)
			return r;
	}
	if (a->nrslots) {
		for (size_t p = rslot(dev, idx, a->nrslots);; p = (p + 1) & (a->nrslots - 1)) {
			uint32_t v = a->rslot[p];
			if (!v)
				break;
			an_range *r = &a->ranges[v - 1];
			if (r->idx == idx && r->dev == dev) {
				a->rlast = v;
				return r;
			}
		}
	}
	if (a->nranges == a->rcap) {
		an_range *n = br_grow(a->ranges, &a->rcap, a->nranges + 1, sizeof(an_range), 64);
		if (!n)
			return NULL;
		a->ranges = n;
	}
	if ((a->nranges + 1) * 2 > a->nrslots && rehash(a, a->nrslots ? a->nrslots * 2 : 128))
		return NULL;
	an_range *r = &a->ranges[a->nranges];
	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->idx = idx;
	size_t p = rslot(dev, idx, a->nrslots);
	while (a->rslot[p])
		p = (p + 1) & (a->nrslots - 1);
	a->rslot[p] = (uint32_t)++a->nranges;
	a->rlast = a->nranges;
	return r;
}

int an_range_add(br_analysis *a, const br_event *ev, int kind)
{
	uint64_t idx = (ev->sector << 9) / a->opts.range_bytes;
	an_range *r = range_get(a, ev->device, idx);
	if (!r)
		return BR_ENOMEM;
	r->bytes[kind][br_stats_sdir(ev)] += ev->bytes;
	if (!r->ios[kind] || ev->time - r->last[kind] >= a->opts.burst_gap_ns) {
		if (!r->bursts[kind])
			r->burst_first[kind] = ev->time;
		r->burst_last[kind] = ev->time;
		r->bursts[kind]++;
	}
	r->ios[kind]++;
	r->last[kind] = ev->time;
	return 0;
}

static int by_bytes(const void *x, const void *y)
{
	const br_analysis_range *a = x, *b = y;
	uint64_t ta = a->bytes[0] + a->bytes[1] + a->bytes[2];
	uint64_t tb = b->bytes[0] + b->bytes[1] + b->bytes[2];
	if (ta != tb)
		return ta < tb ? 1 : -1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->start_byte < b->start_byte ? -1 : a->start_byte > b->start_byte;
}

int an_ranges_finish(br_analysis *a, int kind)
{
	size_t n = 0;
	a->range_out = calloc(a->nranges ? a->nranges : 1, sizeof(br_analysis_range));
	if (!a->range_out)
		return BR_ENOMEM;
	for (size_t k = 0; k < a->nranges; k++) {
		const an_range *r = &a->ranges[k];
		if (!r->ios[kind])
			continue;
		br_analysis_range *o = &a->range_out[n++];
		o->device = r->dev;
		o->start_byte = r->idx * a->opts.range_bytes;
		o->len = a->opts.range_bytes;
		memcpy(o->bytes, r->bytes[kind], sizeof(o->bytes));
		o->ios = r->ios[kind];
		o->bursts = r->bursts[kind];
		o->burst_interval_ns = r->bursts[kind] > 1
			? (double)(r->burst_last[kind] - r->burst_first[kind]) / (double)(r->bursts[kind] - 1)
			: 0.0;
	}
	qsort(a->range_out, n, sizeof(*a->range_out), by_bytes);
	a->res.ranges = a->range_out;
	a->res.nranges = n;
	return 0;
}
