/* hist.h — log-linear histogram of nanosecond values (about 1.6 % relative
 * resolution, 0 ns .. 2^63 ns) for percentiles without keeping samples.
 * Constant memory; merge-able. (General enough for formats/ one day: btt-like
 * latency percentiles in other tools would want the same.) */
#ifndef REPLAY_HIST_H
#define REPLAY_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_BUCKETS (64 << HIST_SUB_BITS)

typedef struct hist {
	uint64_t count;
	uint64_t max;
	uint64_t min;
	long double sum;
	uint32_t b[HIST_BUCKETS];
} hist;

void hist_init(hist *h);
void hist_add(hist *h, uint64_t v);
void hist_merge(hist *into, const hist *from);
/* Value at quantile q (0..1): an upper bound of the bucket holding it, never
 * above max. 0 for an empty histogram. */
uint64_t hist_quantile(const hist *h, double q);
/* How many values are <= v (bucket resolution). */
uint64_t hist_count_le(const hist *h, uint64_t v);
double hist_mean(const hist *h);

#endif
