#include "spool/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hooks.h"
#include "spool/merge.h"
#include "spool/names.h"
#include "spool/raw_spool.h"
#include "tool/clock.h"

struct cap_sink {
	cap_sink_opts o;
	cap_merge *merge;
	cap_names *names;
	uint32_t *seq;       /* [cpu * (ndevices + 1) + device index] */
	unsigned ndev_slots;
	uint64_t max_time, last_written;
	bool any_written;
	uint64_t pushed_at_drain; /* st.pushed at the last drain */
	uint64_t idle_wall, idle_max; /* an idle round: when, and the newest event time then */
	bool idle_pending;
	uint64_t safe;            /* event times up to this are all pushed */
	bool discard;             /* --on-full drop: count, do not write */
	unsigned name_epoch;      /* raw ring: files started (their names are written again) */
	uint64_t raw_now;         /* raw: the last drain's time */
#ifdef BLKREEL_TEST_HOOKS
	bool no_merge;            /* the bench's no_merge hook (hooks.h): written as pushed */
#endif
	cap_sink_stats st;
};

int cap_sink_new(cap_sink **out, const cap_sink_opts *o, br_error *err)
{
	*out = NULL;
	cap_sink *s = calloc(1, sizeof *s);
	if (!s)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	s->o = *o;
	s->ndev_slots = (unsigned)o->cfg->ndevices + 1; /* last: any other device */
#ifdef BLKREEL_TEST_HOOKS
	s->no_merge = o->cfg->hooks && o->cfg->hooks->no_merge;
#endif
	s->merge = cap_merge_new(o->cfg->ncpu);
	s->names = cap_names_new();
	s->seq = calloc((size_t)o->cfg->ncpu * s->ndev_slots, sizeof *s->seq);
	if (!s->merge || !s->names || !s->seq) {
		cap_sink_free(s);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	*out = s;
	return 0;
}

void cap_sink_free(cap_sink *s)
{
	if (!s)
		return;
	cap_merge_free(s->merge);
	cap_names_free(s->names);
	free(s->seq);
	free(s);
}

/* The kernel's rule (blk_add_trace*): an event passes the mask when any of
 * its category bits is set in it; pid and LBA range as blktrace applies them. */
static bool wanted(const cap_config *c, const br_event *ev)
{
	if (br_event_is_notify(ev))
		return true;
	if (c->act_mask != 0xffff && ((ev->action >> 16) & c->act_mask) == 0)
		return false;
	if (c->pid && ev->pid != c->pid)
		return false;
	if (ev->sector && (ev->sector < c->start_lba || (c->end_lba && ev->sector > c->end_lba)))
		return false;
	return true;
}

static void learn_name(cap_sink *s, uint32_t pid, const char *hint)
{
	cap_name *e = cap_names_get(s->names, pid);
	if (!e || e->named)
		return;
	char name[CAP_COMM_LEN];
	if (hint && *hint)
		cap_names_set(e, hint);
	else if (s->o.names_from_hints)
		return;
	else if (pid == 0)
		cap_names_set(e, "swapper"); /* the idle task: completions in irq context */
	else if (cap_names_from_proc(pid, name))
		cap_names_set(e, name);
	else if (s->o.comm && s->o.comm(s->o.comm_state, pid, name, sizeof name))
		cap_names_set(e, name);
}

static int emit(cap_sink *s, const br_event *in, br_error *err);

typedef int (*sink_out_fn)(cap_sink *s, const br_event *ev, br_error *err);

/* ev into the reorder merge, on its CPU's stream. Beyond max queued, the
 * earliest goes to out at once (counted in *early, when given), so memory
 * stays bounded at any event rate. */
static int enqueue(cap_sink *s, const br_event *ev, size_t max, sink_out_fn out, uint64_t *early, br_error *err)
{
	unsigned stream = ev->cpu < s->o.cfg->ncpu ? ev->cpu : 0;
	if (cap_merge_push(s->merge, stream, ev))
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory queueing events (%zu queued)",
				    cap_merge_queued(s->merge));
	if (ev->time > s->max_time)
		s->max_time = ev->time;
	const br_event *first;
	if (cap_merge_queued(s->merge) <= max || !cap_merge_pop(s->merge, UINT64_MAX, true, &first))
		return 0;
	if (early)
		(*early)++;
	return out(s, first, err);
}

int cap_sink_push(cap_sink *s, const br_event *ev, const char *comm_hint, br_error *err)
{
	s->st.pushed++;
	if (s->o.filter && !wanted(s->o.cfg, ev)) {
		s->st.filtered++;
		return 0;
	}
	if (s->o.names && !br_event_is_notify(ev))
		learn_name(s, ev->pid, comm_hint);
#ifdef BLKREEL_TEST_HOOKS
	if (s->no_merge) /* measurement only: the file is out of time order (times raised, counted late) */
		return emit(s, ev, err);
#endif
	size_t max = s->o.max_queued ? s->o.max_queued : CAP_SINK_MAX_QUEUED;
	return enqueue(s, ev, max, emit, &s->st.early, err);
}

void cap_sink_comm(cap_sink *s, uint32_t pid, const char *comm)
{
	cap_name *e = cap_names_get(s->names, pid);
	if (e)
		cap_names_set(e, comm);
}

static cap_spool *event_spool(cap_sink *s)
{
	return s->o.rotate ? cap_rotate_spool(s->o.rotate) : s->o.spool;
}

/* Raw mode: the spool the frames go to. */
static cap_spool *raw_spool(cap_sink *s)
{
	return s->o.raw_ring ? cap_rotate_spool(s->o.rotate) : s->o.raw;
}

static int write_all(cap_sink *s, const br_event *ev, br_error *err)
{
	cap_spool *spool = event_spool(s);
	if (spool) {
		int rc = cap_spool_write(spool, ev, err);
		if (rc)
			return rc;
	}
	for (unsigned i = 0; i < s->o.nout; i++) {
		int rc = br_writer_write(s->o.out[i], ev, err);
		if (rc)
			return rc;
	}
	return s->o.record ? s->o.record(s->o.record_arg, ev, err) : 0;
}

static uint32_t next_sequence(cap_sink *s, const br_event *ev)
{
	unsigned d = 0;
	while (d < s->o.cfg->ndevices && s->o.cfg->devices[d].dev != ev->device)
		d++;
	unsigned cpu = ev->cpu < s->o.cfg->ncpu ? ev->cpu : 0;
	return ++s->seq[cpu * s->ndev_slots + d];
}

/* The closing file's note as its last record, then the next file. */
static int next_file(cap_sink *s, uint64_t time, bool with_note, br_error *err)
{
	if (with_note && s->o.file_note) {
		char text[1024];
		text[0] = 0;
		s->o.file_note(s->o.file_note_arg, time, text, sizeof text);
		int rc = text[0] ? cap_sink_message(s, text, err) : 0;
		if (rc)
			return rc;
	}
	int rc = cap_rotate_next(s->o.rotate, time, err);
	cap_names_unannounce(s->names);
	s->name_epoch++;
	s->st.files++;
	return rc;
}

int cap_sink_new_file(cap_sink *s, bool with_note, br_error *err)
{
	if (!s->o.rotate || cap_spool_records(cap_rotate_spool(s->o.rotate)) == 0)
		return 0;
	return next_file(s, s->o.raw_ring ? s->raw_now : s->last_written, with_note, err);
}

void cap_sink_discard(cap_sink *s, bool on)
{
	s->discard = on;
}

static int emit(cap_sink *s, const br_event *in, br_error *err)
{
	br_event ev = *in;
	/* A quiet stream may deliver an event older than one already written
	 * (beyond the reorder window). The file must stay in time order, so it
	 * goes out at the last written time, and is counted. */
	if (s->any_written && ev.time < s->last_written) {
		ev.time = s->last_written;
		s->st.late++;
	}
	bool notify = br_event_is_notify(&ev);
	if (s->o.sequence && !notify)
		ev.sequence = next_sequence(s, &ev);
	if (s->discard) {
		s->st.unwritten++;
		s->last_written = ev.time;
		s->any_written = true;
		return 0;
	}
	if (s->o.rotate && cap_rotate_due(s->o.rotate, ev.time)) {
		int rc = next_file(s, ev.time, true, err);
		if (rc)
			return rc;
	}
	if (s->o.names && !notify) {
		cap_name *e = cap_names_get(s->names, ev.pid);
		if (e && e->named && !e->announced) {
			br_event note = ev;
			note.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_PROCESS;
			note.sequence = 0;
			note.sector = 0;
			note.bytes = 0;
			note.error = 0;
			note.pdu = (const uint8_t *)e->comm; /* TASK_COMM_LEN bytes, as the kernel sends */
			note.pdu_len = CAP_COMM_LEN;
			int rc = write_all(s, &note, err);
			if (rc)
				return rc;
			e->announced = true;
			s->st.names++;
		}
	}
	int rc = write_all(s, &ev, err);
	if (rc)
		return rc;
	s->last_written = ev.time;
	s->any_written = true;
	s->st.written++;
	if (s->o.observe)
		s->o.observe(s->o.observe_arg, &ev);
	return 0;
}

/* A round without records: the buffers were empty, so every event up to
 * the newest seen was in them already, give or take a record being written
 * on another CPU at that moment, which the rounds of the next
 * CAP_SINK_SETTLE_NS bring in. */
static void note_idle(cap_sink *s, uint64_t now)
{
	bool idle = s->st.pushed == s->pushed_at_drain;
	s->pushed_at_drain = s->st.pushed;
	if (s->idle_pending && now - s->idle_wall >= CAP_SINK_SETTLE_NS) {
		if (s->idle_max > s->safe)
			s->safe = s->idle_max;
		s->idle_pending = false;
	}
	if (idle && !s->idle_pending) {
		s->idle_pending = true;
		s->idle_wall = now;
		s->idle_max = s->max_time;
	}
}

int cap_sink_drain(cap_sink *s, bool all, br_error *err)
{
	return cap_sink_drain_at(s, all, tool_now_ns(), err);
}

/* The merged stream's events that are safe now (all: every one), each to
 * fn: written (emit) or, in raw mode, only observed. */
static int pop_safe(cap_sink *s, bool all, uint64_t now, sink_out_fn fn, br_error *err)
{
	note_idle(s, now);
	uint64_t horizon = s->max_time > s->o.window_ns ? s->max_time - s->o.window_ns : 0;
	if (s->safe > horizon)
		horizon = s->safe;
	const br_event *ev;
	while (cap_merge_pop(s->merge, horizon, all, &ev)) {
		int rc = fn(s, ev, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int observe_only(cap_sink *s, const br_event *ev, br_error *err)
{
	(void)err;
	s->o.observe(s->o.observe_arg, ev);
	return 0;
}

bool cap_sink_raw_watching(const cap_sink *s, uint32_t *actions)
{
	*actions = s->o.observe_actions;
	return cap_sink_is_raw(s) && s->o.observe;
}

int cap_sink_watch_push(cap_sink *s, const br_event *ev, br_error *err)
{
	s->st.pushed++; /* a read round that brought none is idle (note_idle) */
	if (s->o.filter && !wanted(s->o.cfg, ev))
		return 0;
	/* a capture held off the CPU reads a backlog at once: the rules, which
	 * take a request's events in any order, make do with less order than
	 * a file needs, and memory stays small */
	size_t max = s->o.max_queued ? s->o.max_queued : CAP_SINK_WATCH_MAX_QUEUED;
	return enqueue(s, ev, max, observe_only, NULL, err);
}

int cap_sink_drain_at(cap_sink *s, bool all, uint64_t now, br_error *err)
{
	if (cap_sink_is_raw(s)) {
		raw_drain d = { .now = now, .all = all };
		s->raw_now = now;
		int rc = cap_sink_raw_frame(s, RAW_DRAIN, &d, sizeof d, 0, err);
		if (rc == 0)
			rc = cap_spool_tick(raw_spool(s), now, err);
		/* a read round ends here: the ring's next file may start (the
		 * records' clock, CLOCK_MONOTONIC, is the drain's) */
		if (rc == 0 && s->o.raw_ring && cap_rotate_due(s->o.rotate, now))
			rc = next_file(s, now, true, err);
		if (rc == 0 && s->o.observe)
			rc = pop_safe(s, all, now, observe_only, err);
		return rc;
	}
	int rc = pop_safe(s, all, now, emit, err);
	if (rc)
		return rc;
	cap_spool *spool = event_spool(s);
	return spool ? cap_spool_tick(spool, now, err) : 0;
}

void cap_sink_resume(cap_sink *s, const br_event *ev)
{
	if (!s->any_written || ev->time > s->last_written)
		s->last_written = ev->time;
	s->any_written = true;
	if (ev->time > s->max_time)
		s->max_time = ev->time;
	if (br_event_is_notify(ev)) {
		if ((ev->action & 0xffff) == __BLK_TN_PROCESS && ev->pdu_len) {
			cap_name *e = cap_names_get(s->names, ev->pid);
			if (e) {
				char comm[CAP_COMM_LEN + 1];
				size_t n = ev->pdu_len < CAP_COMM_LEN ? ev->pdu_len : CAP_COMM_LEN;
				memcpy(comm, ev->pdu, n);
				comm[n] = 0;
				cap_names_set(e, comm);
				e->announced = true;
			}
		}
		return;
	}
	unsigned d = 0;
	while (d < s->o.cfg->ndevices && s->o.cfg->devices[d].dev != ev->device)
		d++;
	unsigned cpu = ev->cpu < s->o.cfg->ncpu ? ev->cpu : 0;
	uint32_t *seq = &s->seq[cpu * s->ndev_slots + d];
	if (ev->sequence > *seq)
		*seq = ev->sequence;
}

bool cap_sink_is_raw(const cap_sink *s)
{
	return s->o.raw != NULL || s->o.raw_ring;
}

unsigned cap_sink_name_epoch(const cap_sink *s)
{
	return s->name_epoch;
}

uint64_t cap_sink_raw_now(const cap_sink *s)
{
	return s->raw_now;
}

int cap_sink_raw_frame(cap_sink *s, unsigned type, const void *payload, size_t len, uint64_t events,
		       br_error *err)
{
	if (s->discard && type == RAW_BATCH) {
		s->st.unwritten += events;
		return 0;
	}
	raw_frame f = { .type = type, .len = (uint32_t)len };
	s->st.recorded += events;
	return cap_spool_append(raw_spool(s), &f, sizeof f, payload, len, raw_pad8((uint32_t)len) - len, events, err);
}

int cap_sink_raw_pid(cap_sink *s, uint32_t pid, bool *named, br_error *err)
{
	*named = false;
	cap_name *e = cap_names_get(s->names, pid);
	if (!e)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	if (!e->named)
		learn_name(s, pid, NULL);
	if (!e->named)
		return 0;
	*named = true;
	if (e->announced) /* in the spool already */
		return 0;
	raw_name n = { .pid = pid };
	memcpy(n.comm, e->comm, sizeof n.comm);
	e->announced = true;
	s->st.names++;
	return cap_sink_raw_frame(s, RAW_NAME, &n, sizeof n, 0, err);
}

int cap_sink_message(cap_sink *s, const char *text, br_error *err)
{
	if (cap_sink_is_raw(s))
		return cap_sink_raw_frame(s, RAW_MESSAGE, text, strnlen(text, 1024), 0, err);
	br_event ev = { 0 };
	/* after everything written, before anything still queued (the first
	 * file of a flight ring's window says its drops before its events) */
	ev.time = s->any_written ? s->last_written : s->max_time;
	uint64_t queued;
	if (!s->any_written && cap_merge_earliest(s->merge, &queued) && queued < ev.time)
		ev.time = queued;
	ev.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE;
	ev.device = s->o.cfg->ndevices ? s->o.cfg->devices[0].dev : 0;
	ev.pdu = (const uint8_t *)text;
	ev.pdu_len = (uint16_t)strnlen(text, 1024);
	return write_all(s, &ev, err);
}

void cap_sink_stats_get(const cap_sink *s, cap_sink_stats *st)
{
	*st = s->st;
	st->last_time = s->last_written;
	st->newest = s->max_time;
	st->peak_queued = cap_merge_peak(s->merge);
}
