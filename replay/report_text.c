#include "report.h"

#include "blkreel/units.h"

static const char *ns_str(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	return buf;
}

static void targets_line(FILE *out, const replay_result *r)
{
	for (size_t i = 0; i < r->ntargets; i++) {
		const target *t = &r->targets[i];
		char sz[32];
		fprintf(out, "target %s: %s, %s, %s", t->path, t->blockdev ? "block device" : "file",
			br_format_bytes(t->size, sz, sizeof sz),
			t->direct ? "O_DIRECT" : "buffered");
		if (t->direct)
			fprintf(out, " (alignment %u)", t->align);
		if (t->direct_note)
			fprintf(out, " (%s)", t->direct_note);
		fputc('\n', out);
	}
	fprintf(out, "engine %s (%s), at most %u in flight", r->engine, r->engine_desc, r->depth);
	const depth_plan *dp = r->depth_plan;
	if (dp && dp->capped)
		fprintf(out, " (the request queue of %s holds %u; %u kept free for completions "
			"in progress)", dp->queue_of, dp->queue, dp->spare);
	else if (dp && dp->above_queue)
		fprintf(out, " (more than the %u requests %s's queue holds: order may suffer)",
			dp->queue, dp->queue_of);
	fprintf(out, "%s%s\n", r->o->no_stall ? ", as fast as possible" : "",
		r->o->closed ? ", closed loop" : "");
}

static void counts(FILE *out, const replay_result *r)
{
	const plan_totals *p = r->plan;
	const replay_stats *st = r->st;
	fprintf(out, "%-10s %10s %10s %10s %12s\n", "IOs", "planned", "issued", "failed", "bytes");
	for (int k = 0; k < RK_COUNT; k++) {
		char b[32];
		fprintf(out, "  %-8s %10llu %10llu %10llu %12s\n", replay_kind_name(k),
			(unsigned long long)p->planned[k], (unsigned long long)st->issued[k],
			(unsigned long long)st->failed[k],
			br_format_bytes(st->issued_bytes[k], b, sizeof b));
	}
	if (p->fua || p->preflush)
		fprintf(out, "  writes with FUA (RWF_DSYNC): %llu; writes with a preflush (flush, then write): %llu\n",
			(unsigned long long)p->fua, (unsigned long long)p->preflush);
	uint64_t nw = p->not_written[RK_WRITE] + p->not_written[RK_FLUSH] + p->not_written[RK_DISCARD];
	if (nw)
		fprintf(out, "  not replayed without --write: %llu writes, %llu flushes, %llu discards\n",
			(unsigned long long)p->not_written[RK_WRITE],
			(unsigned long long)p->not_written[RK_FLUSH],
			(unsigned long long)p->not_written[RK_DISCARD]);
	if (p->unmapped)
		fprintf(out, "  skipped: %llu IOs of devices without a target\n",
			(unsigned long long)p->unmapped);
	if (p->skipped_empty)
		fprintf(out, "  skipped: %llu requests without data or flush\n",
			(unsigned long long)p->skipped_empty);
	if (p->unaligned)
		fprintf(out, "  not aligned for O_DIRECT: %llu, %s\n", (unsigned long long)p->unaligned,
			r->o->buffered ? "sent buffered" : "widened to the alignment");
	if (st->failed[0] + st->failed[1] + st->failed[2] + st->failed[3]) {
		static const char *names[] = { "EIO", "ENOSPC", "EINVAL", "EOPNOTSUPP", "EAGAIN",
					       "EBADF", "other", "short" };
		fprintf(out, "  failures:");
		for (int i = 0; i < 8; i++)
			if (st->errno_count[i])
				fprintf(out, " %s %llu", names[i], (unsigned long long)st->errno_count[i]);
		fprintf(out, "; first: %s of %u bytes at byte %llu (trace offset %llu)\n",
			replay_kind_name(st->first_failed.kind), st->first_failed.len,
			(unsigned long long)st->first_failed.off,
			(unsigned long long)st->first_failed.trace_off);
	}
	if (st->deps_unmet)
		fprintf(out, "  --closed: %llu IOs went ahead without all the completions their original had seen\n",
			(unsigned long long)st->deps_unmet);
}

static void timing(FILE *out, const replay_result *r, const fidelity *f)
{
	char a[32], b[32], c[32], d[32], e[32];
	if (r->o->no_stall) {
		fprintf(out, "Timing: as fast as possible: %.6f s, %.0f IOPS (trace span %.6f s)\n",
			(double)r->wall_ns / 1e9, f->iops, f->span_s * r->o->speed);
	} else {
		fprintf(out, "Timing (speed %g)\n", r->o->speed);
		fprintf(out, "  span           trace %.6f s, replay %.6f s, drift %+.3f %%\n", f->span_s,
			f->duration_s, f->drift_pct);
		fprintf(out, "  issue error    p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n",
			ns_str(f->err_p50, a, sizeof a), ns_str(f->err_p90, b, sizeof b),
			ns_str(f->err_p99, c, sizeof c), ns_str(f->err_p999, d, sizeof d),
			ns_str(f->err_max, e, sizeof e));
		fprintf(out, "  within         10 us %.1f %%  100 us %.1f %%  1 ms %.1f %%  early %.1f %%\n",
			f->pct_10us, f->pct_100us, f->pct_1ms, f->pct_early);
		fprintf(out, "  inter-arrival  error p50 %s  p99 %s  max %s\n",
			ns_str(f->gap_p50, a, sizeof a), ns_str(f->gap_p99, b, sizeof b),
			ns_str(f->gap_max, c, sizeof c));
		fprintf(out, "  IOPS/100 ms    %zu windows, mean error %.1f %%, worst %.1f %% (at %.1f s)\n",
			f->windows, f->win_err_mean_pct, f->win_err_worst_pct, f->win_worst_at_s);
	}
	if (r->plan->completed)
		fprintf(out, "  in flight      avg %.2f max %llu (trace: avg %.2f max %llu)\n",
			f->inflight_avg, (unsigned long long)f->inflight_max, f->trace_inflight_avg,
			(unsigned long long)f->trace_inflight_max);
	else
		fprintf(out, "  in flight      avg %.2f max %llu (trace: no completions to tell)\n",
			f->inflight_avg, (unsigned long long)f->inflight_max);
	fprintf(out, "  order          %llu inversions as handed to the kernel (a capture shows the device's order)\n",
		(unsigned long long)r->inversions);
	if (r->refused || r->refused_to_workers)
		fprintf(out, "  refused        %llu IOs refused before issue (a bio completed with -EAGAIN: "
			"a full queue, or another wait the block layer would not take) and sent again to "
			"wait; %llu IOs sent to wait through "
			"io_uring's workers in all (%llu larger than the device takes at once): only "
			"these can reach the device out of order\n",
			(unsigned long long)r->refused, (unsigned long long)r->refused_to_workers,
			(unsigned long long)r->would_split);
	static const char *dir[2] = { "read", "write" };
	for (int i = 0; i < 2; i++)
		if (f->lat[i].n)
			fprintf(out, "  %-5s latency  p50 %s  p99 %s  max %s\n", dir[i],
				ns_str(f->lat[i].p50, a, sizeof a), ns_str(f->lat[i].p99, b, sizeof b),
				ns_str(f->lat[i].max, c, sizeof c));
	fprintf(out, "  CPU            %.1f us per IO (user+system, all threads, spinning included)\n",
		f->cpu_us_per_io);
}

void report_text(FILE *out, const replay_result *r, const fidelity *f)
{
	targets_line(out, r);
	counts(out, r);
	timing(out, r, f);
	if (r->o->output)
		fprintf(out, "replay trace: %s, %llu events%s\n", r->o->output,
			(unsigned long long)r->out_events, r->out_clamped ? " (some times clamped)" : "");
	if (r->aborted)
		fprintf(out, "stopped early (--stop-on-error or a failure)\n");
}
