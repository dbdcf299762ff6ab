#include "scan.h"

#include "blkreel/stats.h"

#include <stdio.h>
#include <string.h>

int scan_trace(const char *const *inputs, size_t ninputs, const plan_cfg *cfg,
	       plan_totals *out, br_error *err)
{
	br_reader *r;
	int rc = br_reader_open(&r, inputs, ninputs, NULL, err);
	if (rc)
		return rc;
	plan_state *p = plan_new(cfg);
	if (!p) {
		br_reader_close(r);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	/* the trace's own in-flight comes from the shared pairing (flushes,
	 * merges, end-of-bio records handled once, for every tool) */
	br_stats *stats = NULL;
	rc = br_stats_new(&stats, NULL, err);
	br_event ev;
	replay_item items[2];
	while (!rc && (rc = br_reader_next(r, &ev, err)) == 1) {
		plan_feed(p, &ev, items);
		rc = br_stats_add(stats, &ev, err);
	}
	if (!rc)
		rc = br_stats_finish(stats, err);
	*out = *plan_totals_get(p);
	if (!rc) {
		const br_stats_totals *st = br_stats_get_totals(stats);
		out->trace_inflight_max = st->inflight_max;
		out->trace_inflight_avg = st->inflight_avg;
	}
	br_stats_free(stats);
	plan_free(p);
	br_reader_close(r);
	return rc < 0 ? rc : 0;
}

static void device_list(const plan_totals *t, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < t->ndevices && used + 16 < size; i++) {
		char d[24];
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "",
					 plan_dev_name(t->devices[i], d, sizeof d));
	}
}

int scan_check(const plan_totals *t, const plan_cfg *cfg, br_error *err)
{
	uint64_t planned = 0, not_written = 0;
	for (int k = 0; k < RK_COUNT; k++) {
		planned += t->planned[k];
		not_written += t->not_written[k];
	}
	if (t->events == 0)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "the trace has no events: nothing to replay");
	if (planned)
		goto fits;
	if (t->events == t->notify)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "the trace has only notify records (process names, messages): "
				    "nothing to replay");
	if (!t->queued && !t->issued)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "the trace has no issue (D) or queue (Q) events%s: nothing to replay",
				    t->completed ? ", only completions" : "");
	if (!cfg->source_q && !t->issued)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "the trace has no issue (D) events (a bio-based device?); "
				    "--source Q replays its %llu queued requests",
				    (unsigned long long)t->queued);
	if (cfg->source_q && !t->queued)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "the trace has no queue (Q) events; leave out --source Q");
	if (t->unmapped && !not_written) {
		char devs[512];
		device_list(t, devs, sizeof devs);
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "no IO of the trace is on a mapped device (the trace has %s); "
				    "use --map MAJ,MIN=PATH or -d", devs);
	}
	if (not_written)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "the trace has no reads to replay (%llu writes, flushes or discards "
				    "need --write)", (unsigned long long)not_written);
	return br_error_set(err, BR_EINVAL, 0, NULL, -1, "nothing to replay");
fits:
	if (t->overflow) {
		const replay_item *it = &t->first_overflow;
		const target *tg = &cfg->targets[it->target];
		char dev[24];
		return br_error_set(err, BR_EINVAL, 0, tg->path, -1,
				    "the trace does not fit: its first IO beyond the end is a %s at "
				    "+%.6f s on %s, sector %llu, %u bytes, ending at byte %llu of a "
				    "%llu-byte target; nothing was issued (--wrap or --scale to fit, "
				    "--offset to move)",
				    replay_kind_name(it->kind), (double)(it->t_trace - t->first_t) / 1e9,
				    plan_dev_name(it->trace_dev, dev, sizeof dev),
				    (unsigned long long)(it->trace_off / 512), it->len,
				    (unsigned long long)(it->off + it->len), (unsigned long long)tg->size);
	}
	for (size_t i = 0; i < cfg->ntargets; i++)
		if (t->max_len > cfg->targets[i].size + 0 && t->max_end[i])
			return br_error_set(err, BR_EINVAL, 0, cfg->targets[i].path, -1,
					    "an IO of %u bytes is larger than the whole target",
					    t->max_len);
	return 0;
}
