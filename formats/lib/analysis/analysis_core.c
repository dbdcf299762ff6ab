/* The report analysis accumulator: feeds the shared statistics, the btt
 * style pairing, per-device/per-process/per-range counters and seek
 * distances, and assembles the result (blkreel/analysis.h). */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const phase_names[BR_PHASE_COUNT] = {
	"Q2G", "G2I", "Q2M", "I2D", "M2D", "D2C", "Q2C",
};

const char *br_analysis_phase_name(enum br_phase p)
{
	return (unsigned)p < BR_PHASE_COUNT ? phase_names[p] : "?";
}

static int nomem(br_error *err)
{
	return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "analysis: out of memory");
}

int br_analysis_new(br_analysis **out, const br_analysis_opts *opts, br_error *err)
{
	*out = NULL;
	br_analysis *a = calloc(1, sizeof(*a));
	if (!a)
		return nomem(err);
	if (opts)
		a->opts = *opts;
	if (!a->opts.range_bytes)
		a->opts.range_bytes = BR_ANALYSIS_DEFAULT_RANGE;
	if (!a->opts.burst_gap_ns)
		a->opts.burst_gap_ns = BR_ANALYSIS_DEFAULT_BURST_GAP;
	if (!a->opts.stats.seek_sectors)
		a->opts.stats.seek_sectors = BR_STATS_DEFAULT_SEEK_SECTORS;
	int rc = br_stats_new(&a->stats, &a->opts.stats, err);
	if (rc) {
		free(a);
		return rc;
	}
	stats_set_hooks(a->stats, &(stats_hooks){ .arg = a, .complete = an_life_complete,
						.refused = an_life_refused });
	diag_init(&a->diag);
	for (int p = 0; p < BR_PHASE_COUNT; p++)
		br_hist_clear(&a->phase[p]);
	*out = a;
	return 0;
}

void br_analysis_free(br_analysis *a)
{
	if (!a)
		return;
	br_stats_free(a->stats);
	an_groups_free(&a->devs);
	an_groups_free(&a->procs);
	free(a->ranges);
	free(a->rslot);
	free(a->dev_out);
	free(a->proc_out);
	free(a->range_out);
	free(a);
}

static void count_group(an_group *g, const br_event *ev, int kind)
{
	int dir = br_stats_sdir(ev);
	g->ios[kind][dir]++;
	g->bytes[kind][dir] += ev->bytes;
	unsigned b = an_log2(ev->bytes);
	g->size[kind][b < BR_SIZE_BINS ? b : BR_SIZE_BINS - 1]++;
	if (!g->seen[kind])
		g->first[kind] = ev->time;
	g->seen[kind] = true;
	g->last[kind] = ev->time;
}

/* Seek distance by the same rule as br_stats (distance from the end of the
 * previous IO of this kind on this device). */
static void count_seek(br_analysis *a, an_group *d, const br_event *ev, int kind)
{
	uint64_t end = ev->sector + (ev->bytes >> 9);
	if (d->has_end[kind]) {
		uint64_t last = d->last_end[kind];
		bool fwd = ev->sector > last;
		uint64_t dist = fwd ? ev->sector - last : last - ev->sector;
		if (dist > a->opts.stats.seek_sectors) {
			unsigned b = an_log2(dist);
			if (b >= BR_DIST_BINS)
				b = BR_DIST_BINS - 1;
			if (fwd)
				a->fwd[kind][b]++;
			else
				a->back[kind][b]++;
		}
	}
	d->has_end[kind] = true;
	d->last_end[kind] = end;
}

static bool wanted(const br_analysis *a, const br_event *ev)
{
	const br_stats_opts *o = &a->opts.stats;
	return !o->has_device || br_event_on_device(ev, o->device);
}

int br_analysis_add(br_analysis *a, const br_event *ev, br_error *err)
{
	if (br_event_is_notify(ev) || !wanted(a, ev))
		return 0;
	if (!a->started) {
		a->started = true;
		a->first = ev->time;
	}
	if (ev->time > a->last)
		a->last = ev->time;
	unsigned code = br_event_code(ev);
	int kind = code == __BLK_TA_COMPLETE ? BR_KIND_C
		 : code == __BLK_TA_ISSUE    ? BR_KIND_D
		 : code == __BLK_TA_QUEUE    ? BR_KIND_Q : -1;
	/* a bio refused before issue completed nothing (blkreel/stats.h) */
	if (kind == BR_KIND_C && ev->error && stats_is_refused(a->stats, ev))
		kind = -1;
	if (kind >= 0 && ev->bytes) {
		an_group *d = an_group_get(&a->devs, ev->device);
		an_group *p = an_group_get(&a->procs, ev->pid);
		if (!d || !p)
			return nomem(err);
		count_group(d, ev, kind);
		count_group(p, ev, kind);
		if (!p->out.comm[0] && ev->comm)
			strncpy(p->out.comm, ev->comm, sizeof(p->out.comm) - 1);
		count_seek(a, d, ev, kind);
		if (an_range_add(a, ev, kind))
			return nomem(err);
	}
	/* the shared pairing runs last, so a completion's hook sees this
	 * event's counts above; the diagnosis reads its state before */
	diag_event(&a->diag, a->stats, ev);
	int rc = br_stats_add(a->stats, ev, err);
	if (!rc && code == __BLK_TA_ISSUE)
		diag_issued(&a->diag, a->stats, ev);
	if (rc && a->bio_rc) {
		rc = a->bio_rc;
		a->bio_rc = 0;
		return br_error_set(err, rc, 0, NULL, -1, "analysis: the per-IO consumer stopped (%s)",
				    br_strerror(rc));
	}
	return rc;
}

static void group_out(an_group *g, int kind)
{
	br_analysis_group *o = &g->out;
	memcpy(o->ios, g->ios[kind], sizeof(o->ios));
	memcpy(o->bytes, g->bytes[kind], sizeof(o->bytes));
	memcpy(o->size_hist, g->size[kind], sizeof(o->size_hist));
	o->first_ns = g->first[kind];
	o->last_ns = g->last[kind];
}

static uint64_t group_bytes(const br_analysis_group *g)
{
	return g->bytes[0] + g->bytes[1] + g->bytes[2];
}

static int by_id(const void *x, const void *y)
{
	const br_analysis_group *a = x, *b = y;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int by_bytes_desc(const void *x, const void *y)
{
	const br_analysis_group *a = x, *b = y;
	uint64_t ta = group_bytes(a), tb = group_bytes(b);
	if (ta != tb)
		return ta < tb ? 1 : -1;
	return by_id(x, y);
}

static int groups_out(const an_groups *gs, int kind, int fallback, br_analysis_group **out,
		      size_t *n, int (*cmp)(const void *, const void *))
{
	*out = calloc(gs->n ? gs->n : 1, sizeof(br_analysis_group));
	if (!*out)
		return BR_ENOMEM;
	bool any = false;
	for (size_t k = 0; k < gs->n; k++)
		any |= gs->g[k].seen[kind];
	if (!any)
		kind = fallback;
	size_t m = 0;
	for (size_t k = 0; k < gs->n; k++) {
		an_group *g = &gs->g[k];
		if (!g->seen[kind])
			continue;
		group_out(g, kind);
		(*out)[m++] = g->out;
	}
	qsort(*out, m, sizeof(**out), cmp);
	*n = m;
	return 0;
}

int br_analysis_finish(br_analysis *a, br_error *err)
{
	if (a->finished)
		return 0;
	a->finished = true;
	int rc = br_stats_finish(a->stats, err);
	if (rc)
		return rc;
	br_analysis_result *r = &a->res;
	const br_stats_totals *t = br_stats_get_totals(a->stats);
	r->totals = t;
	int ik = t->io_kind, sk = t->seek_kind;
	uint64_t span = t->last_ns > t->first_ns ? t->last_ns - t->first_ns : 0;
	r->span_s = (double)span / 1e9;
	uint64_t bytes = t->bytes[0] + t->bytes[1] + t->bytes[2];
	uint64_t ios = t->ios[0] + t->ios[1] + t->ios[2];
	if (span) {
		r->mbps = (double)bytes / 1e6 / r->span_s;
		r->iops = (double)ios / r->span_s;
		r->seeks_per_s = (double)t->seeks / r->span_s;
	}
	memcpy(r->phase, a->phase, sizeof(r->phase));
	r->orphan_completions = t->orphan_completions;
	r->empty_completions = t->empty_completions;
	r->open_queued = t->never_issued;
	r->open_issued = t->never_completed;
	memcpy(r->seek_fwd, a->fwd[sk], sizeof(r->seek_fwd));
	memcpy(r->seek_back, a->back[sk], sizeof(r->seek_back));
	r->seq_fraction = t->seek_candidates
		? (double)(t->seek_candidates - t->seeks) / (double)t->seek_candidates : 0.0;
	r->merge_ratio = t->issued ? (double)t->queued / (double)t->issued : 0.0;
	r->has_completions = t->kind_ios[BR_KIND_C] > 0 || t->completed > 0;
	const br_stats *st = a->stats;
	_Static_assert(BR_QD_BINS == BR_STATS_QD_BINS, "one queue depth histogram");
	memcpy(r->qd_ns, st->qd_ns, sizeof(r->qd_ns));
	r->qd_avg = t->inflight_avg;
	r->qd_max = t->inflight_max;
	r->idle_ns = st->qd_ns[0];
	r->idle_periods = st->idle_periods;
	r->idle_max_ns = st->idle_max;
	if (groups_out(&a->devs, ik, ik, &a->dev_out, &r->ndevices, by_id) ||
	    groups_out(&a->procs, BR_KIND_Q, ik, &a->proc_out, &r->nprocs, by_bytes_desc) ||
	    an_ranges_finish(a, ik))
		return nomem(err);
	r->devices = a->dev_out;
	diag_finish(&a->diag, a->stats, a->phase);
	r->profile = &a->diag.p;
	r->procs = a->proc_out;
	memset(r->size_hist, 0, sizeof(r->size_hist));
	for (size_t k = 0; k < r->ndevices; k++)
		for (unsigned b = 0; b < BR_SIZE_BINS; b++)
			r->size_hist[b] += r->devices[k].size_hist[b];
	return 0;
}

const br_analysis_result *br_analysis_get(const br_analysis *a)
{
	return &a->res;
}

