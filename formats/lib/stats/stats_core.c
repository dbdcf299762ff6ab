/* The statistics accumulator (blkreel/stats.h): per-kind throughput, IOPS
 * and seeks into the time buckets (stats_buckets.c), each event handed to
 * the pairing (stats_io.c), the totals at the end. The top of stats/. */
#include "stats_internal.h"
#include "common/grow.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_BASE_WIDTH 10000ull /* 10 us */

int br_stats_new(br_stats **out, const br_stats_opts *opts, br_error *err)
{
	*out = NULL;
	br_stats *s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	if (opts)
		s->opts = *opts;
	if (!s->opts.seek_sectors)
		s->opts.seek_sectors = BR_STATS_DEFAULT_SEEK_SECTORS;
	s->width = s->opts.base_width_ns ? s->opts.base_width_ns : DEFAULT_BASE_WIDTH;
	s->b = calloc(BR_STATS_MAX_BUCKETS, sizeof(sbucket));
	if (!s->b || pair_init(&s->pt))
		goto nomem;
	s->t.seek_sectors = s->opts.seek_sectors;
	*out = s;
	return 0;
nomem:
	br_stats_free(s);
	return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "statistics: out of memory");
}

void br_stats_free(br_stats *s)
{
	if (!s)
		return;
	if (s->b)
		for (size_t i = 0; i < BR_STATS_MAX_BUCKETS; i++)
			free(s->b[i].lat);
	free(s->b);
	free(s->devs);
	free(s->flog.e);
	free(s->qlog.e);
	pair_destroy(&s->pt);
	free(s);
}

static dev_state *dev_get(br_stats *s, uint32_t dev)
{
	if (s->ndevs && s->devs[s->lastdev].dev == dev)
		return &s->devs[s->lastdev];
	for (size_t i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == dev) {
			s->lastdev = i;
			return &s->devs[i];
		}
	if (s->ndevs == s->devcap) {
		dev_state *n = br_grow(s->devs, &s->devcap, s->ndevs + 1, sizeof(*n), 8);
		if (!n)
			return NULL;
		s->devs = n;
	}
	dev_state *d = &s->devs[s->ndevs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	s->lastdev = s->ndevs++;
	return d;
}

int br_stats_add(br_stats *s, const br_event *ev, br_error *err)
{
	if (br_event_is_notify(ev))
		return 0;
	if (s->opts.has_device && !br_event_on_device(ev, s->opts.device))
		return 0;
	if (!s->started) {
		s->started = true;
		s->t.first_ns = ev->time;
		s->t.origin_ns = s->opts.has_origin && s->opts.origin_ns <= ev->time ? s->opts.origin_ns
										  : ev->time;
		s->last_change = ev->time;
	}
	s->t.events++;
	if (ev->time > s->t.last_ns)
		s->t.last_ns = ev->time;

	unsigned code = br_event_code(ev);
	int kind = code == __BLK_TA_COMPLETE ? BR_KIND_C
		 : code == __BLK_TA_ISSUE    ? BR_KIND_D
		 : code == __BLK_TA_QUEUE    ? BR_KIND_Q : -1;
	if (kind >= 0 && ev->bytes) {
		size_t k = stats_bucket_at(s, STATS_HIT_NOW, ev->time);
		dev_state *d = dev_get(s, ev->device);
		if (k == SIZE_MAX || !d)
			return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "statistics: out of memory");
		int dir = br_stats_sdir(ev);
		s->b[k].bytes[kind][dir] += ev->bytes;
		s->b[k].ios[kind][dir]++;
		s->t.kind_ios[kind]++;
		uint64_t end = ev->sector + (ev->bytes >> 9);
		if (d->seen[kind]) {
			uint64_t last = d->last_end[kind];
			uint64_t dist = ev->sector > last ? ev->sector - last : last - ev->sector;
			if (dist > s->opts.seek_sectors) {
				s->b[k].seeks[kind]++;
				s->seeks[kind]++;
			}
			s->seek_cand[kind]++;
		} else {
			s->seek_cand[kind]++;
		}
		d->seen[kind] = true;
		d->last_end[kind] = end;
	}
	return stats_pair_event(s, ev, err);
}

int br_stats_finish(br_stats *s, br_error *err)
{
	(void)err;
	if (s->finished)
		return 0;
	s->finished = true;
	if (s->started) {
		stats_flight_sweep(s, s->t.last_ns, true);
		stats_inflight_advance(s, s->t.last_ns);
	}
	br_stats_totals *t = &s->t;
	t->io_kind = t->kind_ios[BR_KIND_C] ? BR_KIND_C : t->kind_ios[BR_KIND_D] ? BR_KIND_D : BR_KIND_Q;
	t->seek_kind = t->kind_ios[BR_KIND_D] ? BR_KIND_D : t->kind_ios[BR_KIND_Q] ? BR_KIND_Q : BR_KIND_C;
	memset(t->ios, 0, sizeof(t->ios));
	memset(t->bytes, 0, sizeof(t->bytes));
	for (size_t k = 0; k < s->nb; k++)
		for (int d = 0; d < BR_SDIR_COUNT; d++) {
			t->ios[d] += s->b[k].ios[t->io_kind][d];
			t->bytes[d] += s->b[k].bytes[t->io_kind][d];
		}
	t->seeks = s->seeks[t->seek_kind];
	t->seek_candidates = s->seek_cand[t->seek_kind];
	t->never_issued = t->never_completed = 0;
	for (uint32_t i = 0; i < s->pt.used; i++) {
		uint32_t f = s->pt.r[i].flags;
		if (f & RQ_FREE)
			continue;
		if (f & RQ_D)
			t->never_completed++;
		else
			t->never_issued++;
	}
	uint64_t span = t->last_ns - t->first_ns;
	t->inflight_avg = span ? s->area_total / (double)span : 0.0;
	t->ndevices = s->ndevs;
	return 0;
}

const br_stats_totals *br_stats_get_totals(const br_stats *s)
{
	return &s->t;
}

uint64_t br_stats_base_width(const br_stats *s)
{
	return s->width;
}

const char *br_stats_kind_name(enum br_stats_kind k)
{
	return k == BR_KIND_C ? "C" : k == BR_KIND_D ? "D" : "Q";
}
