/* Series at a display bucket width, built from the base buckets. */
#include "stats_internal.h"

#include <stdlib.h>
#include <string.h>

uint64_t br_stats_pick_width(const br_stats *s, unsigned target)
{
	uint64_t span = s->t.last_ns - s->t.first_ns;
	if (!target)
		target = 1;
	uint64_t raw = span / target;
	uint64_t w = 1;
	static const unsigned steps[] = { 1, 2, 5 };
	for (;;) {
		bool done = false;
		for (int i = 0; i < 3 && !done; i++)
			if (w * steps[i] >= raw) {
				w *= steps[i];
				done = true;
			}
		if (done)
			break;
		w *= 10;
	}
	if (w < s->width)
		w = s->width;
	if (w % s->width)
		w = (w / s->width + 1) * s->width;
	return w;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

int br_stats_series_get(const br_stats *s, uint64_t width, uint64_t from, uint64_t to,
			br_stats_series *out, br_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!s->finished)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "statistics: series before finish");
	if (!s->started)
		return 0;
	uint64_t bw = s->width;
	if (width < bw)
		width = bw;
	if (width % bw)
		width = (width / bw + 1) * bw;
	from -= from % bw;
	/* the observation starts at the origin when one was given (a time
	 * window), else at the first event */
	uint64_t first = s->opts.has_origin ? 0 : s->t.first_ns - s->t.origin_ns;
	uint64_t last = s->t.last_ns - s->t.origin_ns + 1; /* exclusive */
	uint64_t end = to && to < last ? to : last;
	if (from < first - first % bw)
		from = first - first % bw;
	if (end <= from)
		return 0;
	size_t n = (size_t)((end - from + width - 1) / width);
	out->b = calloc(n, sizeof(*out->b));
	out->hists = s->opts.latency_series ? calloc(2 * n, sizeof(br_hist)) : NULL;
	if (!out->b || (s->opts.latency_series && !out->hists)) {
		br_stats_series_free(out);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "statistics: out of memory");
	}
	out->n = n;
	out->width_ns = width;
	int kind = s->t.io_kind, sk = s->t.seek_kind;
	for (size_t i = 0; i < n; i++) {
		br_stats_bucket *o = &out->b[i];
		o->start_ns = from + i * width;
		o->width_ns = width;
		uint64_t o_end = o->start_ns + width;
		o->covered_ns = overlap(o->start_ns, o_end, first, end);
		if (!o->covered_ns)
			o->covered_ns = 1;
		size_t k0 = o->start_ns / bw, k1 = (o_end + bw - 1) / bw;
		if (k1 > s->nb)
			k1 = s->nb;
		double area = 0;
		for (size_t k = k0; k < k1; k++) {
			const sbucket *x = &s->b[k];
			for (int d = 0; d < BR_STATS_DIRS; d++) {
				o->bytes[d] += x->bytes[kind][d];
				o->ios[d] += x->ios[kind][d];
			}
			o->seeks += x->seeks[sk];
			area += x->inflight_area;
			if (x->inflight_max > o->inflight_max)
				o->inflight_max = x->inflight_max;
			if (x->lat && out->hists) {
				br_hist_merge(&out->hists[2 * i], &x->lat[0]);
				br_hist_merge(&out->hists[2 * i + 1], &x->lat[1]);
			}
		}
		o->inflight_avg = area / (double)o->covered_ns;
		if (out->hists) {
			o->d2c = out->hists[2 * i].count ? &out->hists[2 * i] : NULL;
			o->q2c = out->hists[2 * i + 1].count ? &out->hists[2 * i + 1] : NULL;
		}
	}
	/* fold a partial last bucket into the one before it: a few events over
	 * a sliver of time would read as a spike */
	if (n >= 2 && out->b[n - 1].covered_ns < width) {
		br_stats_bucket *p = &out->b[n - 2], *l = &out->b[n - 1];
		double area = p->inflight_avg * (double)p->covered_ns + l->inflight_avg * (double)l->covered_ns;
		for (int d = 0; d < BR_STATS_DIRS; d++) {
			p->bytes[d] += l->bytes[d];
			p->ios[d] += l->ios[d];
		}
		p->seeks += l->seeks;
		p->covered_ns += l->covered_ns;
		p->width_ns += l->covered_ns;
		p->inflight_avg = area / (double)p->covered_ns;
		if (l->inflight_max > p->inflight_max)
			p->inflight_max = l->inflight_max;
		if (out->hists) {
			br_hist_merge(&out->hists[2 * (n - 2)], &out->hists[2 * (n - 1)]);
			br_hist_merge(&out->hists[2 * (n - 2) + 1], &out->hists[2 * (n - 1) + 1]);
			p->d2c = out->hists[2 * (n - 2)].count ? &out->hists[2 * (n - 2)] : NULL;
			p->q2c = out->hists[2 * (n - 2) + 1].count ? &out->hists[2 * (n - 2) + 1] : NULL;
		}
		out->n = n - 1;
	}
	return 0;
}

void br_stats_series_free(br_stats_series *ser)
{
	if (!ser)
		return;
	free(ser->b);
	free(ser->hists);
	memset(ser, 0, sizeof(*ser));
}

double br_stats_bucket_mbps(const br_stats_bucket *b, int sdir)
{
	uint64_t bytes = 0;
	if (sdir < 0) /* total: reads and writes (discards move no data) */
		bytes = b->bytes[BR_DIR_READ] + b->bytes[BR_DIR_WRITE];
	else
		bytes = b->bytes[sdir];
	return (double)bytes / 1e6 / ((double)b->covered_ns / 1e9);
}

double br_stats_bucket_iops(const br_stats_bucket *b)
{
	uint64_t n = b->ios[0] + b->ios[1] + b->ios[2];
	return (double)n / ((double)b->covered_ns / 1e9);
}

double br_stats_bucket_seeks(const br_stats_bucket *b)
{
	return (double)b->seeks / ((double)b->covered_ns / 1e9);
}
