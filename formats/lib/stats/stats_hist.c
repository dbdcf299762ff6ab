/* Log-linear histogram of nanosecond values (see blkreel/stats.h). */
#include "stats_internal.h"

#include <string.h>

#define SUB (1u << BR_HIST_SUB_BITS)

void br_hist_clear(br_hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned br_hist_bin(uint64_t v)
{
	if (v < SUB)
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	if (msb >= BR_HIST_MAX_BITS)
		return BR_HIST_BINS - 1;
	unsigned shift = msb - BR_HIST_SUB_BITS;
	unsigned sub = (unsigned)(v >> shift) & (SUB - 1);
	return ((msb - BR_HIST_SUB_BITS + 1) << BR_HIST_SUB_BITS) + sub;
}

void br_hist_bin_range(unsigned bin, uint64_t *lo, uint64_t *hi)
{
	if (bin < SUB) {
		*lo = bin;
		*hi = (uint64_t)bin + 1;
		return;
	}
	unsigned g = bin >> BR_HIST_SUB_BITS, sub = bin & (SUB - 1);
	unsigned shift = g - 1;
	*lo = ((uint64_t)SUB + sub) << shift;
	*hi = *lo + ((uint64_t)1 << shift);
}

/* br_hist_add with v's bin already known */
static inline void hist_add_at(br_hist *h, uint64_t v, unsigned bin)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->sum += (double)v;
	h->bins[bin]++;
}

void br_hist_add(br_hist *h, uint64_t v)
{
	hist_add_at(h, v, br_hist_bin(v));
}

void stats_hist_add2(br_hist *a, br_hist *b, uint64_t v)
{
	unsigned bin = br_hist_bin(v);
	hist_add_at(a, v, bin);
	hist_add_at(b, v, bin);
}

void br_hist_add_n(br_hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count += n;
	h->sum += (double)v * (double)n;
	/* bins are 32-bit: a bin full to the brim stays full rather than
	 * wrapping to a small count (quantiles then err towards max) */
	uint32_t *bin = &h->bins[br_hist_bin(v)];
	uint64_t room = UINT32_MAX - *bin;
	*bin += (uint32_t)(n < room ? n : room);
}

void br_hist_merge(br_hist *into, const br_hist *from)
{
	if (!from->count)
		return;
	if (!into->count || from->min < into->min)
		into->min = from->min;
	if (!into->count || from->max > into->max)
		into->max = from->max;
	into->count += from->count;
	into->sum += from->sum;
	for (unsigned i = 0; i < BR_HIST_BINS; i++)
		into->bins[i] += from->bins[i];
}

uint64_t br_hist_quantile(const br_hist *h, double q)
{
	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* the rank-th smallest value, rank in 1..count (nearest-rank rule) */
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < BR_HIST_BINS; i++) {
		seen += h->bins[i];
		if (seen >= rank) {
			uint64_t lo, hi;
			br_hist_bin_range(i, &lo, &hi);
			uint64_t mid = lo + (hi - lo - 1) / 2;
			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

double br_hist_mean(const br_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

uint64_t br_hist_count_le(const br_hist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		return 0;
	if (v >= h->max)
		return h->count;
	uint64_t n = 0;
	for (unsigned i = 0, last = br_hist_bin(v); i <= last; i++)
		n += h->bins[i];
	return n;
}
