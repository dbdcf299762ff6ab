/* run.c — the replay from start to end: setup (setup.c), the checking scan,
 * the streaming planner feeding the timing thread, then the report. Every
 * path closes what it opened. */
#include "run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "blkreel/reader.h"
#include "clock.h"
#include "report.h"
#include "run_ctx.h"
#include "scan.h"
#include "spool.h"
#include "tool/say.h"

#define PROG "blkreel-replay"
#define RING_ITEMS 65536

static int fail(const br_error *err)
{
	return tool_say_error(PROG, NULL, err);
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The streaming planner: read the trace again, push items to the timing
 * thread. fill_only: stop when the ring is full (before the clock starts). */
typedef struct feeder {
	br_reader *r;
	plan_state *p;
	replay_item pend[2];
	int npend, ipend;
	bool eof;
} feeder;

static bool stop_asked(const run_ctx *c)
{
	return c->hooks && c->hooks->stop && c->hooks->stop(c->hooks->arg);
}

/* The live line; a round of an A/B run also shows its IOPS so far. */
static void draw_progress(run_ctx *c)
{
	uint64_t issued = atomic_load(&c->s.issued);
	if (!c->hooks || c->progress.fd < 0) {
		tool_progress_draw(&c->progress, issued, NULL, false);
		return;
	}
	uint64_t now = tool_now_ns();
	double secs = now > c->s.t_start ? (double)(now - c->s.t_start) / 1e9 : 0;
	char extra[48];
	snprintf(extra, sizeof extra, "%.0f IOPS", secs > 0 ? (double)atomic_load(&c->s.completed) / secs : 0);
	tool_progress_draw(&c->progress, issued, extra, false);
}

static int feed(run_ctx *c, feeder *f, bool fill_only, br_error *err)
{
	replay_state *s = &c->s;
	for (;;) {
		while (f->ipend < f->npend) {
			if (item_ring_push(&s->ring, &f->pend[f->ipend])) {
				f->ipend++;
				continue;
			}
			if (fill_only)
				return 0;
			if (atomic_load(&s->abort))
				return 0;
			if (stop_asked(c))
				atomic_store(&s->abort, true);
			tool_progress_tick(&c->progress, atomic_load(&s->issued), NULL);
			struct timespec ts = { 0, 200000 };
			nanosleep(&ts, NULL);
		}
		if (f->eof)
			return 0;
		br_event ev;
		int rc = br_reader_next(f->r, &ev, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			f->eof = true;
			return 0;
		}
		f->npend = plan_feed(f->p, &ev, f->pend);
		f->ipend = 0;
	}
}

static int replay(run_ctx *c, br_error *err)
{
	replay_state *s = &c->s;
	feeder f = { 0 };
	int rc = br_reader_open(&f.r, c->inputs, c->o->ninputs, NULL, err);
	if (rc)
		return rc;
	f.p = plan_new(&c->cfg);
	if (!f.p) {
		br_reader_close(f.r);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	rc = feed(c, &f, true, err);
	pthread_t timing;
	bool started = false;
	double cpu0 = cpu_seconds();
	if (!rc) {
		s->trace_t0 = c->scan.first_t;
		s->t_start = tool_now_ns() + 2000000;
		s->stats.t_start = s->t_start;
		if (c->o->output)
			rc = tracelog_open(&s->tl, c->o->output, c->scan.first_t - s->t_start, err);
	}
	if (!rc) {
		int e = pthread_create(&timing, NULL, replay_timing_main, s);
		if (e)
			rc = br_error_set(err, BR_ESYS, e, NULL, -1, "starting the timing thread");
		started = !e;
	}
	if (!rc)
		rc = feed(c, &f, false, err);
	if (rc)
		atomic_store(&s->abort, true);
	atomic_store(&s->ring.done, true);
	if (started) {
		/* redraw the progress line every 50 ms, but go on the moment the
		 * timing thread ends */
		for (;;) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 50000000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			if (pthread_timedjoin_np(timing, NULL, &until) == 0)
				break;
			if (stop_asked(c))
				atomic_store(&s->abort, true);
			draw_progress(c);
		}
	}
	tool_progress_done(&c->progress);
	plan_free(f.p);
	br_reader_close(f.r);
	c->cpu_used = cpu_seconds() - cpu0;
	if (!rc && s->rc) {
		*err = s->err;
		rc = s->rc;
	}
	return rc;
}

static void finish_report(run_ctx *c, int *status)
{
	replay_state *s = &c->s;
	replay_result r = {
		.o = c->o, .engine = s->eng->name, .engine_desc = s->eng->describe,
		.plan = &c->scan, .st = &s->stats, .targets = c->targets, .ntargets = c->ntargets,
		.depth = s->depth, .depth_plan = &c->depth, .cpu_s = c->cpu_used, .aborted = atomic_load(&s->abort),
	};
	r.duration_ns = s->stats.last_issue > s->t_start ? s->stats.last_issue - s->t_start : 0;
	r.wall_ns = s->stats.last_done > s->t_start ? s->stats.last_done - s->t_start : 0;
	r.inversions = s->inversions + (s->eng->inversions ? s->eng->inversions(s->eng_state) : 0);
	if (s->eng->refusals)
		s->eng->refusals(s->eng_state, &r.refused, &r.refused_to_workers, &r.would_split);
	br_error err;
	br_error_clear(&err);
	if (s->tl) {
		int rc = tracelog_close(s->tl, &r.out_events, &r.out_clamped, &err);
		s->tl = NULL;
		if (rc)
			*status = fail(&err);
	}
	/* the scan's counts are the plan; what was left out is in them too */
	fidelity f;
	report_compute(&r, &f);
	if (c->hooks && c->hooks->fid)
		*c->hooks->fid = f;
	if (!c->o->quiet)
		report_text(stdout, &r, &f);
	if (c->o->report && report_json(c->o->report, &r, &f, &err))
		*status = fail(&err);
	if (f.failed) {
		tool_say(PROG, "%llu IO%s failed%s (see the report)", (unsigned long long)f.failed,
			 f.failed == 1 ? "" : "s",
			 c->o->stop_on_error && r.aborted ? "; stopped there (--stop-on-error)" : "");
		*status = 1;
	}
	if (r.aborted)
		*status = 1;
}

static void release(run_ctx *c)
{
	replay_state *s = &c->s;
	if (c->engine_up) {
		s->eng->finish(s->eng_state);
		c->engine_up = false;
	}
	if (s->tl) {
		tracelog_close(s->tl, NULL, NULL, NULL);
		s->tl = NULL;
	}
	free(s->eng_state);
	if (c->ring_up)
		item_ring_free(&s->ring);
	if (c->stats_up)
		stats_free(&s->stats);
	free(s->ios);
	free(s->free_slots);
	free(c->bufmem);
	for (size_t i = 0; i < c->ntargets; i++)
		target_close(&c->targets[i]);
	if (c->spool[0])
		unlink(c->spool);
	free(c->inputs);
}

static int prepare(run_ctx *c, br_error *err)
{
	const replay_opts *o = c->o;
	c->inputs = calloc(o->ninputs, sizeof *c->inputs);
	if (!c->inputs)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	for (size_t i = 0; i < o->ninputs; i++) {
		c->inputs[i] = o->inputs[i];
		if (strcmp(o->inputs[i], "-") == 0) {
			int rc = spool_stdin(c->spool, sizeof c->spool, err);
			if (rc)
				return rc;
			c->inputs[i] = c->spool;
		}
	}
	int rc = setup_targets(c, err);
	if (rc)
		return rc;
	c->cfg = (plan_cfg){
		.source_q = o->source_q, .maps = c->maps, .nmaps = o->nmaps, .targets = c->targets,
		.ntargets = c->ntargets, .fit = o->fit, .offset = o->offset, .buffered = o->buffered,
		.reads_only = !o->write,
	};
	rc = scan_trace(c->inputs, o->ninputs, &c->cfg, &c->scan, err);
	if (rc)
		return rc;
	memcpy(c->cfg.max_end, c->scan.max_end, sizeof c->cfg.max_end);
	rc = scan_check(&c->scan, &c->cfg, err);
	if (!rc)
		rc = setup_check_content(c, err);
	if (rc)
		return rc;
	if (c->scan.ndevices > 1 && o->nmaps == 1 && o->maps[0].any)
		tool_say(PROG, "warning: the trace has %zu devices; -d replays all of them onto %s "
			 "(--map keeps them apart)", c->scan.ndevices, o->maps[0].path);
	replay_state *s = &c->s;
	c->depth = depth_choose(o->max_inflight, o->no_stall, c->scan.trace_inflight_max,
				c->scan.completed, c->targets, c->ntargets,
				(unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	s->depth = c->depth.depth;
	if (c->depth.above_queue)
		tool_say(PROG, "warning: --max-inflight %u is more than %s's queue holds (%u requests); "
			 "the device refuses IOs beyond it, and those sent again reach it out of order",
			 o->max_inflight, c->depth.queue_of, c->depth.queue);
	s->targets = c->targets;
	s->ntargets = c->ntargets;
	s->speed = o->speed;
	s->no_stall = o->no_stall;
	s->closed = o->closed;
	s->write = o->write;
	s->stop_on_error = o->stop_on_error;
	s->spin_ns = o->spin_ns;
	if (c->depth.queue) {
		unsigned cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
		s->nowait_room = c->depth.queue > cpus ? c->depth.queue - cpus : 1;
	}
	uint64_t span = c->scan.last_t - c->scan.first_t;
	if (stats_init(&s->stats, (uint64_t)((double)span / o->speed) + 1000000000ull))
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	c->stats_up = true;
	if (item_ring_init(&s->ring, RING_ITEMS))
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	c->ring_up = true;
	rc = setup_buffers(c, err);
	if (rc)
		return rc;
	struct iovec *iov = calloc(s->depth, sizeof *iov);
	if (!iov)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	rc = setup_engine(c, iov, err);
	free(iov);
	return rc;
}

int replay_run(const replay_opts *o)
{
	return replay_run_hooked(o, NULL);
}

int replay_run_hooked(const replay_opts *o, const replay_hooks *h)
{
	run_ctx *c = calloc(1, sizeof *c);
	if (!c) {
		tool_say(PROG, "out of memory");
		return TOOL_EXIT_FAIL;
	}
	c->o = o;
	c->hooks = h;
	br_error err;
	br_error_clear(&err);
	int status = 0;
	int rc = prepare(c, &err);
	if (!rc && h && h->check_only) {
		/* checked, nothing replayed */
	} else if (!rc && h && h->started && (rc = h->started(h->arg, &err)) != 0) {
		status = fail(&err);
	} else if (!rc) {
		tool_progress_init(&c->progress, STDERR_FILENO, o->progress,
				 h && h->label ? h->label : "blkreel-replay");
		rc = replay(c, &err);
		if (rc)
			status = fail(&err);
		/* the engine has every completion once finished */
		c->s.eng->finish(c->s.eng_state);
		c->engine_up = false;
		if (h && h->finished)
			h->finished(h->arg);
		if (h && h->ran)
			*h->ran = true;
		finish_report(c, &status);
	} else {
		status = fail(&err);
	}
	release(c);
	free(c);
	return status;
}
