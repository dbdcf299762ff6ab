#include "hist.h"

#include <string.h>

void hist_init(hist *h)
{
	memset(h, 0, sizeof *h);
	h->min = UINT64_MAX;
}

static unsigned bucket_of(uint64_t v)
{
	if (v < (1u << HIST_SUB_BITS))
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned shift = msb - HIST_SUB_BITS;
	unsigned sub = (unsigned)(v >> shift) & ((1u << HIST_SUB_BITS) - 1);
	return ((shift + 1) << HIST_SUB_BITS) | sub;
}

/* Largest value that falls in bucket b. */
static uint64_t bucket_top(unsigned b)
{
	unsigned group = b >> HIST_SUB_BITS;
	uint64_t sub = b & ((1u << HIST_SUB_BITS) - 1);
	if (group == 0)
		return sub;
	unsigned shift = group - 1;
	uint64_t base = ((uint64_t)1 << HIST_SUB_BITS) | sub;
	return ((base + 1) << shift) - 1;
}

void hist_add(hist *h, uint64_t v)
{
	unsigned b = bucket_of(v);
	if (b >= HIST_BUCKETS)
		b = HIST_BUCKETS - 1;
	h->b[b]++;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	if (v < h->min)
		h->min = v;
}

void hist_merge(hist *into, const hist *from)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->b[i] += from->b[i];
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	if (from->min < into->min)
		into->min = from->min;
}

uint64_t hist_quantile(const hist *h, double q)
{
	if (!h->count)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if (rank >= h->count)
		rank = h->count - 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen > rank) {
			uint64_t top = bucket_top(i);
			if (top > h->max)
				top = h->max;
			if (top < h->min)
				top = h->min;
			return top;
		}
	}
	return h->max;
}

uint64_t hist_count_le(const hist *h, uint64_t v)
{
	unsigned last = bucket_of(v);
	uint64_t n = 0;
	for (unsigned i = 0; i <= last && i < HIST_BUCKETS; i++)
		n += h->b[i];
	return n;
}

double hist_mean(const hist *h)
{
	return h->count ? (double)(h->sum / h->count) : 0.0;
}
