/* The time buckets under the statistics: found by time (coarsening by 10x
 * when the trace outgrows BR_STATS_MAX_BUCKETS), the in-flight integral
 * per bucket and overall, and each bucket's latency histograms. The bottom
 * of stats/: the pairing (stats_io.c), the in-flight log (stats_flight.c)
 * and the accumulator (stats_core.c) call it; it calls none of them. */
#include "stats_internal.h"

#include <stdlib.h>
#include <string.h>

/* Merge groups of ten buckets; the width grows tenfold. */
static void coarsen(br_stats *s)
{
	size_t n = (s->nb + 9) / 10;
	for (size_t i = 0; i < n; i++) {
		sbucket acc = s->b[i * 10];
		for (size_t k = 1; k < 10 && i * 10 + k < s->nb; k++) {
			sbucket *x = &s->b[i * 10 + k];
			for (int a = 0; a < BR_KIND_COUNT; a++) {
				for (int d = 0; d < BR_STATS_DIRS; d++) {
					acc.bytes[a][d] += x->bytes[a][d];
					acc.ios[a][d] += x->ios[a][d];
				}
				acc.seeks[a] += x->seeks[a];
			}
			if (x->inflight_max > acc.inflight_max)
				acc.inflight_max = x->inflight_max;
			acc.inflight_area += x->inflight_area;
			if (x->lat) {
				if (!acc.lat) {
					acc.lat = x->lat;
				} else {
					br_hist_merge(&acc.lat[0], &x->lat[0]);
					br_hist_merge(&acc.lat[1], &x->lat[1]);
					free(x->lat);
				}
				x->lat = NULL;
			}
		}
		s->b[i] = acc;
	}
	for (size_t i = n; i < s->nb; i++)
		memset(&s->b[i], 0, sizeof(sbucket));
	s->nb = n;
	s->width *= 10;
	s->hit[STATS_HIT_NOW].hi = 0;
	s->hit[STATS_HIT_SWEEP].hi = 0;
}

size_t stats_bucket_find(br_stats *s, int side, uint64_t t)
{
	uint64_t rel = t > s->t.origin_ns ? t - s->t.origin_ns : 0;
	uint64_t idx = rel / s->width;
	while (idx >= BR_STATS_MAX_BUCKETS) {
		coarsen(s);
		idx = rel / s->width;
	}
	if (idx >= s->nb) /* the in-flight sweep fills the max of buckets it passes */
		s->nb = idx + 1;
	if (t >= s->t.origin_ns) {
		stats_bucket_hit *h = &s->hit[side];
		h->lo = s->t.origin_ns + idx * s->width;
		h->hi = h->lo + s->width;
		h->k = (size_t)idx;
	}
	return (size_t)idx;
}

void stats_inflight_advance(br_stats *s, uint64_t t)
{
	uint64_t last = s->last_change;
	if (t <= last) {
		return;
	}
	s->qd_ns[s->cur_inflight < BR_STATS_QD_BINS - 1 ? s->cur_inflight : BR_STATS_QD_BINS - 1] +=
		t - last;
	if (s->cur_inflight) {
		s->area_total += (double)s->cur_inflight * (double)(t - last);
		stats_bucket_at(s, STATS_HIT_SWEEP, t); /* coarsen first so indices below are final */
		const stats_bucket_hit *h = &s->hit[STATS_HIT_SWEEP];
		while (last < t) {
			size_t k;
			uint64_t bend;
			if (last >= h->lo && last < h->hi) {
				k = h->k;
				bend = h->hi;
			} else {
				k = (last - s->t.origin_ns) / s->width;
				bend = s->t.origin_ns + (k + 1) * s->width;
			}
			uint64_t seg = (t < bend ? t : bend) - last;
			s->b[k].inflight_area += (double)s->cur_inflight * (double)seg;
			if (s->b[k].inflight_max < s->cur_inflight)
				s->b[k].inflight_max = s->cur_inflight;
			last += seg;
		}
	}
	s->last_change = t;
}

void stats_inflight_change(br_stats *s, uint64_t t, int delta)
{
	if (!s->cur_inflight && delta > 0 && s->was_busy) { /* an inner idle stretch ends */
		uint64_t len = t > s->last_change ? t - s->last_change : 0;
		s->idle_periods++;
		if (len > s->idle_max)
			s->idle_max = len;
	}
	stats_inflight_advance(s, t);
	if (delta > 0) {
		s->cur_inflight++;
		s->was_busy = true;
	} else if (s->cur_inflight) {
		s->cur_inflight--;
	}
}

int stats_record_latency(br_stats *s, uint64_t t, bool has_d2c, uint64_t d2c,
			 bool has_q2c, uint64_t q2c)
{
	/* the time bucket's pair of histograms, when the series keeps them */
	br_hist *lat = NULL;
	int rc = 0;
	if (s->opts.latency_series && (has_d2c || has_q2c)) {
		size_t k = stats_bucket_at(s, STATS_HIT_NOW, t);
		if (!s->b[k].lat && (s->b[k].lat = malloc(2 * sizeof(br_hist)))) {
			br_hist_clear(&s->b[k].lat[0]);
			br_hist_clear(&s->b[k].lat[1]);
		}
		lat = s->b[k].lat;
		if (!lat)
			rc = BR_ENOMEM; /* the totals still count it */
	}
	if (has_d2c)
		lat ? stats_hist_add2(&s->t.d2c, &lat[0], d2c) : br_hist_add(&s->t.d2c, d2c);
	if (has_q2c)
		lat ? stats_hist_add2(&s->t.q2c, &lat[1], q2c) : br_hist_add(&s->t.q2c, q2c);
	return rc;
}
