/* capture_core.c — the core of one capture (capture_core.h): backend
 * chosen and started, the tracing loop, and on every path the kernel put
 * back and the files finished. */
#include "capture_core.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "blkreel/units.h"
#include "command.h"
#include "devices.h"
#include "signals.h"
#include "kstate/tracefs_util.h"
#include "kstate/tracer_lock.h"
#include "kstate/leftovers.h"
#include "tool/clock.h"
#include "tool/progress.h"
#include "tool/say.h"

#define PROG "blkreel-capture"

#define POLL_MS 20 /* small read batches keep the reorder buffer in cache */
#define MAX_POLL 1024
double cap_own_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

/* Start one backend, with the tracer lock when it uses machine-wide state.
 * On failure nothing of it is left (lock released, kernel restored). */
static int try_backend(cap_capture *s, const cap_backend_ops *be, br_error *err)
{
	int rc = be->probe(err);
	if (rc)
		return rc;
	s->lock_fd = -1;
	if (be->flags & CAP_GLOBAL_TRACER) {
		int fd = cap_tracer_lock(err);
		if (fd < 0)
			return fd;
		s->lock_fd = fd;
	}
	s->st = calloc(1, be->state_size ? be->state_size : 1);
	if (!s->st) {
		cap_tracer_unlock(s->lock_fd);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	cap_kstate_init(&s->ks, be->name);
	rc = be->start(s->st, &s->cfg, &s->ks, err);
	if (rc) {
		br_error e2;
		be->close(s->st, &s->ks, &e2);
		if (cap_kstate_restore(&s->ks, &e2))
			tool_say_error(PROG, "restoring after a failed start", &e2);
		free(s->st);
		s->st = NULL;
		cap_tracer_unlock(s->lock_fd);
		s->lock_fd = -1;
		return rc;
	}
	s->be = be;
	s->started = true;
	return 0;
}

static int choose_backend(cap_capture *s, br_error *err)
{
	const capture_cli *cli = s->cli;
	if (cli->backend) {
		const cap_backend_ops *be = cap_backend_find(cli->backend);
		if (!be)
			return br_error_set(err, BR_EINVAL, 0, NULL, -1,
					    "no backend named '%s' (--list-backends lists them)", cli->backend);
		int rc = try_backend(s, be, err);
		if (rc) {
			char msg[BR_ERROR_MSG_MAX + 64];
			snprintf(msg, sizeof msg, "backend %s: %s", be->name, err->msg);
			snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, msg);
		}
		return rc;
	}
	int last = 0;
	br_error lasterr;
	br_error_clear(&lasterr);
	for (size_t i = 0; i < cap_nbackends; i++) {
		const cap_backend_ops *be = cap_backends[i];
		br_error e;
		br_error_clear(&e);
		int rc = try_backend(s, be, &e);
		if (rc == 0)
			return 0;
		char msg[1200];
		br_error_format(&e, msg, sizeof msg);
		if (i + 1 < cap_nbackends && !cli->quiet)
			tool_say(PROG, "%s backend unavailable (%s); trying %s", be->name,
				msg, cap_backends[i + 1]->name);
		/* Each failure was said above; the last one is the final word. */
		lasterr = e;
		last = rc;
	}
	*err = lasterr;
	return last;
}

/* Records the backend got but could not use (bpf_bad): lost like drops. */
static uint64_t bad_records(const cap_capture *s)
{
	return s->be && s->be->bad_records ? s->be->bad_records(s->st) : 0;
}

/* "cpu0=N cpu1=M", then " bad=K" for a backend that counts bad records;
 * *total: every event lost, bad records included. since: counts already
 * said (the notes of a rotated capture's closed files), or NULL. */
static void drops_text_since(const cap_capture *s, uint64_t bad, const uint64_t *since, uint64_t since_bad,
			     char *buf, size_t size, uint64_t *total)
{
	size_t n = 0;
	*total = 0;
	buf[0] = 0;
	for (unsigned c = 0; c < s->cfg.ncpu && n + 32 < size; c++) {
		uint64_t d = s->drops[c] - (since ? since[c] : 0);
		n += (size_t)snprintf(buf + n, size - n, "%scpu%u=%llu", c ? " " : "", c, (unsigned long long)d);
		*total += d;
	}
	bad -= since_bad;
	if (s->has_bad_count && n + 32 < size)
		snprintf(buf + n, size - n, " bad=%llu", (unsigned long long)bad);
	*total += bad;
}

static void drops_text(const cap_capture *s, uint64_t bad, char *buf, size_t size, uint64_t *total)
{
	drops_text_since(s, bad, NULL, 0, buf, size, total);
}

/* Events lost: records dropped or bad, and completions no record shows.
 * A dropped or bad record may have been one of those completions, so only
 * the completions beyond them add to the count. */
static uint64_t events_lost(uint64_t dropped, uint64_t unrecorded)
{
	return unrecorded > dropped ? unrecorded : dropped;
}

/* " missed=N" when the kernel skipped runs of our programs, " unrecorded=M"
 * when the devices completed requests no record shows, else "". Only then,
 * and after the backend's name, so the record's usual text stays as it was.
 * Misses are not counted as lost: a skipped run may as well have been for a
 * device we do not trace (another disk's completion in the interrupt that
 * nested); unrecorded completions are (see drops_text's total). */
static void kernel_counts_text(uint64_t missed, uint64_t unrecorded, char *buf, size_t size)
{
	buf[0] = 0;
	int n = 0;
	if (missed)
		n = snprintf(buf, size, " missed=%llu", (unsigned long long)missed);
	if (unrecorded && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " unrecorded=%llu", (unsigned long long)unrecorded);
}

/* The backend's completion check while it keeps one (backend.h). */
static const cap_dev_check *completion_check(const cap_capture *s)
{
	return s->be->completions ? s->be->completions(s->st) : NULL;
}

/* Records lost so far: each CPU's ring drops, read into s->drops, and
 * the backend's bad records. */
static uint64_t dropped_now(cap_capture *s)
{
	memset(s->drops, 0, s->cfg.ncpu * sizeof *s->drops);
	s->be->drops(s->st, s->drops, s->cfg.ncpu);
	uint64_t total = bad_records(s);
	for (unsigned c = 0; c < s->cfg.ncpu; c++)
		total += s->drops[c];
	return total;
}

static void status_line(cap_capture *s, tool_progress *p, bool force)
{
	if (p->fd < 0)
		return;
	cap_sink_stats st;
	cap_sink_stats_get(s->sink, &st);
	uint64_t total = dropped_now(s);
	char bytes[32], extra[96];
	br_format_bytes(cap_outputs_bytes(&s->out), bytes, sizeof bytes);
	snprintf(extra, sizeof extra, "%s written, %llu dropped", bytes, (unsigned long long)total);
	tool_progress_draw(p, st.written + st.recorded, extra, force);
}

/* --rotate: the note that closes a file: what was lost while it was
 * written (ring drops, bad records, events not written for want of room,
 * completions no record shows: unrecorded_notes.h). The last file's note
 * (cap_capture_close) adds what only the end can count: the rest of the
 * completions, runs the kernel skipped. The notes of a set add up to the
 * whole capture's. */
static void file_note(void *arg, uint64_t cut, char *buf, size_t size)
{
	cap_capture *s = arg;
	memset(s->drops, 0, s->cfg.ncpu * sizeof *s->drops);
	s->be->drops(s->st, s->drops, s->cfg.ncpu);
	uint64_t bad = bad_records(s), total;
	s->has_bad_count = s->be->bad_records != NULL;
	char drops[512];
	drops_text_since(s, bad, s->noted_drops, s->noted_bad, drops, sizeof drops, &total);
	cap_sink_stats st;
	cap_sink_stats_get(s->sink, &st);
	char unwritten[48] = "", unrecorded[48];
	if (st.unwritten > s->noted_unwritten)
		snprintf(unwritten, sizeof unwritten, " unwritten=%llu",
			 (unsigned long long)(st.unwritten - s->noted_unwritten));
	kernel_counts_text(0, cap_unrecorded_file(&s->unrecorded_notes, cut), unrecorded, sizeof unrecorded);
	snprintf(buf, size, "blkreel: drops %s (backend %s)%s%s", drops, s->be->name, unwritten, unrecorded);
	memcpy(s->noted_drops, s->drops, s->cfg.ncpu * sizeof *s->drops);
	s->noted_bad = bad;
	s->noted_unwritten = st.unwritten;
}

/* A spool the state file names that is gone was finished: forget it. */
static void forget_finished_spools(cap_capture *s)
{
	for (size_t i = s->ks.n; i-- > 0;)
		if (s->ks.ch[i].kind == KS_SPOOL && access(s->ks.ch[i].path, F_OK))
			cap_kstate_drop(&s->ks, i);
}

/* --rotate: each new spool goes in the state file before it is created
 * (once the backend has one), so that --cleanup finishes it after a kill. */
static void spool_opened(void *arg, const char *spool)
{
	cap_capture *s = arg;
	snprintf(s->out.spool_path, sizeof s->out.spool_path, "%s", spool);
	if (!s->started || s->cli->flight_ns) /* a flight ring is not output: nothing to finish */
		return;
	forget_finished_spools(s);
	br_error err;
	if (cap_kstate_note_spool(&s->ks, spool, &err))
		tool_say_error(PROG, "warning: cannot record the spool in the state file", &err);
}

#define ROOM_CHECK_NS (250ull * 1000 * 1000)
/* Room to go back to writing after --on-full drop: the reserve and 1 %
 * more free, and the capture 5 % under --max-disk. */
#define ROOM_RESUME_FREE 0.01
#define ROOM_RESUME_MAX 0.95

/* Is the capture out of room (--max-disk, --reserve)? why: said when so.
 * resume: the stricter test for going back to writing. */
static bool out_of_room(const cap_capture *s, bool resume, char *why, size_t size)
{
	const capture_cli *cli = s->cli;
	uint64_t need = cap_outputs_disk_need(&s->out);
	double max = (double)cli->max_disk * (resume ? ROOM_RESUME_MAX : 1.0);
	char a[32], b[32];
	if (cli->max_disk && (double)need >= max) {
		br_format_bytes(need, a, sizeof a);
		br_format_bytes(cli->max_disk, b, sizeof b);
		snprintf(why, size, "the capture takes %s on disk, with the room to finish its file (--max-disk %s)", a, b);
		return true;
	}
	struct statvfs vfs;
	if (cli->reserve <= 0 || statvfs(s->out.spool_path, &vfs) || !vfs.f_blocks)
		return false;
	double total = (double)vfs.f_blocks * (double)vfs.f_frsize;
	double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
	double want = total * (cli->reserve + (resume ? ROOM_RESUME_FREE : 0));
	if (avail >= want)
		return false;
	br_format_bytes((uint64_t)avail, a, sizeof a);
	br_format_bytes((uint64_t)total, b, sizeof b);
	snprintf(why, size, "the output filesystem has %s free of %s, under its reserve (--reserve %.4g %%)", a, b,
		 cli->reserve * 100);
	return true;
}

/* Every ROOM_CHECK_NS: out of room stops the capture (a negative code)
 * or, with --on-full drop, makes it count events instead of writing them
 * until there is room again (then a new file starts, with --rotate). */
static int check_room(cap_capture *s, uint64_t now, br_error *err)
{
	if (now - s->room_checked < ROOM_CHECK_NS || !(s->out.spooling || s->out.rotate))
		return 0;
	s->room_checked = now;
	if (s->out.rotate)
		forget_finished_spools(s);
	char why[256];
	if (!s->discarding) {
		if (!out_of_room(s, false, why, sizeof why))
			return 0;
		if (!s->cli->on_full_drop) {
			s->out_of_room = true;
			return br_error_set(err, BR_ESYS, ENOSPC, s->out.spool_path, -1,
					    "out of room: %s; the files keep what was captured", why);
		}
		s->discarding = true;
		cap_sink_discard(s->sink, true);
		tool_say(PROG, "out of room: %s; events are counted, not written, until there is room (--on-full drop)",
			 why);
		return 0;
	}
	if (out_of_room(s, true, why, sizeof why))
		return 0;
	s->discarding = false;
	cap_sink_discard(s->sink, false);
	cap_sink_stats st;
	cap_sink_stats_get(s->sink, &st);
	tool_say(PROG, "room again: writing resumes (%llu events not written so far)",
		 (unsigned long long)st.unwritten);
	return cap_sink_new_file(s->sink, true, err);
}

/* One line of what the capture is doing: the status file and SIGUSR2. */
static void status_text(cap_capture *s, uint64_t now, char *buf, size_t size)
{
	cap_sink_stats st;
	cap_sink_stats_get(s->sink, &st);
	uint64_t dropped = dropped_now(s);
	uint64_t events = st.written + st.recorded;
	double dt = s->status_at ? (double)(now - s->status_at) / 1e9 : (double)(now - s->t0) / 1e9;
	double rate = dt > 0 ? (double)(events - s->status_events) / dt : 0;
	char disk[32];
	br_format_bytes(cap_outputs_bytes(&s->out), disk, sizeof disk);
	int n = snprintf(buf, size,
			 "blkreel-capture status: %.1f s, %llu events (%.0f/s), %llu dropped, %llu unwritten, %s on disk",
			 (double)(now - s->t0) / 1e9, (unsigned long long)events, rate, (unsigned long long)dropped,
			 (unsigned long long)st.unwritten, disk);
	if (s->out.rotate && !s->flight && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ", %u files started", st.files + 1);
	if (s->flight && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", %u triggers, %u flight files", cap_flight_triggers(s->flight),
			 cap_flight_outputs(s->flight));
	s->status_events = events;
}

/* --status-file: the line, rewritten whole (a reader never sees half). */
static void write_status_file(cap_capture *s, const char *line)
{
	char tmp[1100];
	snprintf(tmp, sizeof tmp, "%.1000s.tmp", s->cli->status_file);
	FILE *f = fopen(tmp, "we");
	if (!f)
		return;
	bool ok = fprintf(f, "%s\n", line) > 0;
	if (fclose(f) || !ok || rename(tmp, s->cli->status_file))
		unlink(tmp);
}

/* The trace time up to which the flight ring holds everything: the last
 * event written, or in a raw ring (events made only when a trigger's file
 * is) the last drain less the reorder window. */
static uint64_t flight_written(const cap_capture *s, const cap_sink_stats *st)
{
	if (!s->raw_ring)
		return st->last_time;
	uint64_t now = cap_sink_raw_now(s->sink);
	return now > CAP_REORDER_WINDOW_NS ? now - CAP_REORDER_WINDOW_NS : 0;
}

/* What a running capture is asked for: SIGUSR1 (a flight trigger), SIGUSR2
 * (a status line), SIGHUP with --rotate or --flight (the next file), a
 * flight trigger's window complete, the status file's second. */
static int handle_requests(cap_capture *s, uint64_t now, br_error *err)
{
	cap_sink_stats st;
	cap_sink_stats_get(s->sink, &st);
	if (s->raw_ring && st.recorded)
		cap_flight_seen(s->flight, now);
	if (cap_signal_take(SIGUSR1)) {
		/* a raw ring's records carry the drains' clock: the trigger is now */
		if (s->flight && (st.written || st.recorded))
			cap_flight_trigger(s->flight, s->raw_ring ? now : st.last_time, "SIGUSR1");
		else
			tool_say(PROG, "SIGUSR1 ignored: %s", s->flight ? "nothing traced yet" : "not a --flight capture");
	}
	bool status_due = s->cli->status_file && now - s->status_at >= 1000000000ull;
	bool asked = cap_signal_take(SIGUSR2) > 0;
	if (asked || status_due) {
		char line[512];
		status_text(s, now, line, sizeof line);
		if (s->cli->status_file)
			write_status_file(s, line);
		if (asked)
			fprintf(stderr, "%s\n", line);
		s->status_at = now;
	}
	if (cap_signal_take(SIGHUP) && s->out.rotate) {
		tool_say(PROG, "SIGHUP: the next file starts now");
		int rc = cap_sink_new_file(s->sink, true, err);
		if (rc)
			return rc;
	}
	if (s->flight)
		return cap_flight_poll(s->flight, s->sink, s->out.rotate, flight_written(s, &st), false, err);
	return 0;
}

static void flight_observe(void *arg, const br_event *ev)
{
	cap_flight_event(arg, ev);
}

/* The capture loop. Returns 0 when it ended normally (command, -w, signal)
 * or a negative br_code (read or write failure: stop and keep the file). */
int cap_capture_loop(cap_capture *s, br_error *err)
{
	const capture_cli *cli = s->cli;
	tool_progress prog;
	tool_progress_init(&prog, STDERR_FILENO, cli->progress && !cli->quiet, "capturing");
	struct pollfd pfd[MAX_POLL];
	int npfd = s->be->fds(s->st, pfd, MAX_POLL);
	uint64_t deadline = cli->stop_after_ns ? s->t0 + cli->stop_after_ns : 0;
	int rc = 0;
	while (!cap_signal_pending() && !(s->stop && atomic_load(s->stop))) {
		if (poll(pfd, (nfds_t)npfd, POLL_MS) < 0 && errno != EINTR) {
			rc = br_error_set(err, BR_ESYS, errno, NULL, -1, "poll failed");
			break;
		}
		/* the files' notes count the completions no record shows */
		bool sampling = s->out.rotate && cap_unrecorded_round_begin(&s->unrecorded_notes, completion_check(s),
									   &s->cfg, tool_now_ns());
		if ((rc = s->be->read(s->st, s->sink, err)) < 0)
			break;
		if (sampling) {
			cap_sink_stats st;
			cap_sink_stats_get(s->sink, &st);
			cap_unrecorded_round_end(&s->unrecorded_notes, completion_check(s), &s->cfg, st.newest);
		}
		if ((rc = cap_sink_drain(s->sink, false, err)) < 0)
			break;
		if (s->child > 0 && cap_command_done(s->child, &s->child_status)) {
			s->child_done = true;
			break;
		}
		uint64_t now = tool_now_ns();
		if (deadline && now >= deadline)
			break;
		if ((rc = check_room(s, now, err)) < 0)
			break;
		if ((rc = handle_requests(s, now, err)) < 0)
			break;
		status_line(s, &prog, false);
	}
	tool_progress_done(&prog);
	return rc < 0 ? rc : 0;
}

/* Stop the kernel producing and read what it still holds. */
static int drain(cap_capture *s, br_error *err)
{
	int rc = s->be->stop(s->st, err);
	for (int idle = 0; rc == 0 && idle < 3;) {
		int n = s->be->read(s->st, s->sink, err);
		if (n < 0)
			return n;
		if (n == 0) {
			idle++;
			nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
		} else {
			idle = 0;
		}
	}
	if (rc)
		return rc;
	return cap_sink_drain(s->sink, true, err);
}

/* Put the kernel back and release the lock; runs on every path once a
 * backend started. Returns the first error. */
static int release_backend(cap_capture *s)
{
	if (!s->started)
		return 0;
	int first = 0;
	br_error e;
	if (s->be->close(s->st, &s->ks, &e)) {
		tool_say_error(PROG, "closing the backend", &e);
		first = -1;
	}
	if (cap_kstate_restore(&s->ks, &e)) {
		tool_say_error(PROG, "restoring kernel state (see --cleanup)", &e);
		first = -1;
	}
	cap_tracer_unlock(s->lock_fd);
	s->lock_fd = -1;
	free(s->st);
	s->st = NULL;
	s->started = false;
	return first;
}

int cap_capture_setup(cap_capture *s, br_error *err)
{
	const capture_cli *cli = s->cli;
	cap_config *c = &s->cfg;
	for (unsigned i = 0; i < cli->ndevices; i++) {
		int rc = cap_device_resolve(cli->devices[i], &c->devices[i], err);
		if (rc)
			return rc;
		for (unsigned j = 0; j < i; j++)
			if (c->devices[j].dev == c->devices[i].dev)
				return br_error_set(err, BR_EINVAL, 0, cli->devices[i], -1, "given twice");
	}
	c->ndevices = cli->ndevices;
	c->act_mask = cli->act_mask;
	c->pid = cli->pid;
	c->start_lba = cli->start_lba;
	c->end_lba = cli->end_lba;
	c->buf_size = cli->buf_size;
	c->buf_count = cli->buf_count;
	c->ncpu = cap_possible_cpus();
	c->log = cli->quiet ? NULL : stderr;
	c->hooks = cli->hooks;
	/* the counts read now, and (--rotate) what the closed files' notes said */
	s->drops = calloc(2 * (size_t)c->ncpu, sizeof *s->drops);
	if (!s->drops)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	s->noted_drops = s->drops + c->ncpu;
	return 0;
}

/* What the completion check measured, and where the completions went:
 * the kernel does not run BPF programs or perf sampling events for the
 * block completions it runs in softirq on top of some tasks (measured
 * 2026-12-02; capture/README.md), while ftrace's ring buffer records them. */
static void unrecorded_warning(const cap_capture *s)
{
	uint64_t dropped = s->dropped + s->bad;
	const char *be = s->be->name;
	bool ftrace = strcmp(be, "tracefs") == 0;
	char where[320];
	if (ftrace)
		snprintf(where, sizeof where, "the blk tracer did not record them");
	else
		snprintf(where, sizeof where,
			 "the kernel did not hand %s to the %s backend (completions it ran in a softirq where it calls "
			 "no BPF program or perf sampling event); the tracefs backend (ftrace's ring buffer) would have "
			 "seen them",
			 dropped ? "the rest" : "them", be);
	char held[128] = "";
	if (dropped)
		snprintf(held, sizeof held, "the %llu records the rings dropped or could not parse may hold some of them; ",
			 (unsigned long long)dropped);
	fprintf(stderr,
		"blkreel-capture: warning: the %s completed %llu requests that no C record shows (%s sysfs stat "
		"counted them); %s%s\n",
		s->cfg.ndevices == 1 ? "device" : "traced devices", (unsigned long long)s->unrecorded,
		s->cfg.ndevices == 1 ? "its" : "their", held, where);
}

static void summary(cap_capture *s, double secs)
{
	cap_sink_stats st;
	cap_sink_stats_get(s->sink, &st);
	if (s->out.raw)
		st = s->out.raw_stats; /* the events were made from the raw spool */
	char bytes[32], drops[512];
	uint64_t total;
	br_format_bytes(s->bytes_written, bytes, sizeof bytes);
	drops_text(s, s->bad, drops, sizeof drops, &total);
	/* a raw ring's events are made only for a trigger's file: recorded */
	fprintf(stderr, "blkreel-capture: %s backend, %.2f s: %llu events%s (%llu process names",
		s->be->name, secs, (unsigned long long)(s->raw_ring ? st.recorded : st.written),
		s->raw_ring ? " recorded" : "", (unsigned long long)st.names);
	if (st.filtered)
		fprintf(stderr, ", %llu filtered out", (unsigned long long)st.filtered);
	if (st.late)
		fprintf(stderr, ", %llu late beyond the reorder window", (unsigned long long)st.late);
	if (st.early)
		fprintf(stderr, ", %llu written early to bound the reorder buffer", (unsigned long long)st.early);
	fprintf(stderr, ") -> %s (%s", strcmp(s->out.gz_path, "-") ? s->out.gz_path : "stdout", bytes);
	if (s->out.split_base[0])
		fprintf(stderr, "; per-CPU set %s.blktrace.*", s->out.split_base);
	const cap_rotate_result *rot = &s->out.rotated;
	if (s->flight)
		fprintf(stderr, " in %u files for %u triggers", rot->extracted, cap_flight_triggers(s->flight));
	if (s->cli->rotate_ns || s->cli->rotate_bytes) {
		fprintf(stderr, " in %u files", rot->written);
		if (rot->written)
			fprintf(stderr, ", %05u to %05u", rot->first, rot->last);
		if (rot->removed)
			fprintf(stderr, "; %u older removed (--keep)", rot->removed);
		if (rot->failed)
			fprintf(stderr, "; %u not finished: their spools stay for --cleanup", rot->failed);
	}
	char kcounts[80];
	kernel_counts_text(s->missed, s->unrecorded, kcounts, sizeof kcounts);
	total = events_lost(total, s->unrecorded) + s->unwritten;
	if (s->unwritten) {
		size_t dl = strlen(drops);
		snprintf(drops + dl, sizeof drops - dl, " unwritten=%llu", (unsigned long long)s->unwritten);
	}
	fprintf(stderr, ")\nblkreel-capture: drops: %s%s%s%s\n", drops, kcounts,
		s->bad ? " (bad: ring records that did not parse, left out)" : "", total ? " - events were lost" : "");
	if (s->missed)
		fprintf(stderr,
			"blkreel-capture: warning: the kernel skipped %llu runs of our programs (BPF's recursion guard: a "
			"program already running on that CPU); events of the traced devices may be among them\n",
			(unsigned long long)s->missed);
	if (s->unrecorded)
		unrecorded_warning(s);
	fprintf(stderr, "blkreel-capture: own CPU %.2f s while tracing, %.2f s after it (%.2f s to finish the file%s)\n",
		s->cpu_tracing, s->cpu_after, s->wall_after, s->out.raw ? " from raw records" : "");
}

/* Everything up to tracing: checks, outputs, backend, sink. 0, or 1 with
 * the reason said and nothing left behind. */
int cap_capture_open(cap_capture *s)
{
	const capture_cli *cli = s->cli;
	br_error err;
	br_error_clear(&err);
	for (size_t i = 0; i < cap_nbackends; i++)
		if (!cap_backend_valid(cap_backends[i])) {
			tool_say(PROG, "backend %s lacks a required hook", cap_backends[i]->name);
			return 1;
		}
	if (!cli->quiet && cap_kstate_leftovers(NULL) > 0) {
		cap_kstate_leftovers(stderr);
		tool_say(PROG, "run 'blkreel-capture --cleanup' to restore it");
	}
	if (cap_outputs_open(&s->out, cli, s->cfg.devices[0].name, spool_opened, s, &err)) {
		tool_say_error(PROG, "cannot create the output", &err);
		return 1;
	}
	cap_signals_install(s->out.rotate != NULL);
	if (choose_backend(s, &err)) {
		tool_say_error(PROG, NULL, &err);
		cap_outputs_abort(&s->out);
		return 1;
	}
	/* The spool is noted too, so that after a kill -9 --cleanup can finish it
	 * (and, where the kernel's buffers outlive us, first read what they still
	 * hold the way we would have: the config says how). */
	bool spools = s->out.spooling || (s->out.rotate && !cli->flight_ns);
	if (spools && s->be->salvage && cap_kstate_note_config(&s->ks, &s->cfg, &err))
		tool_say_error(PROG, "warning: cannot record the capture's config in the state file", &err);
	if (spools && cap_kstate_note_spool(&s->ks, s->out.spool_path, &err))
		tool_say_error(PROG, "warning: cannot record the spool in the state file", &err);
	if (s->out.spooling && s->out.split_base[0] && cap_kstate_note_split(&s->ks, s->out.split_base, &err))
		tool_say_error(PROG, "warning: cannot record the --split set in the state file (after a kill -9, "
			  "--cleanup makes only the .gz: blkreel-parse --split makes the set from it)", &err);
	/* To a file, a backend that can spools its records raw while tracing
	 * and the events are made after it (raw_spool.h). */
	uint8_t header[512];
	bool flight_raw = cli->flight_ns && s->out.rotate;
	size_t hlen = (s->out.spooling || flight_raw) && s->be->raw_header ?
			      s->be->raw_header(s->st, header, sizeof header) : 0;
	if (hlen) {
		/* --flight: the ring's files hold the raw records too; a trigger's
		 * file is made from them (nothing is decoded while tracing but what
		 * the --trigger-on rules read) */
		int rc = flight_raw ? cap_rotate_set_raw_header(s->out.rotate, header, hlen, &err) :
				      cap_spool_append(s->out.spool, header, hlen, NULL, 0, 0, 0, &err);
		if (rc) {
			tool_say_error(PROG, NULL, &err);
			release_backend(s);
			cap_outputs_abort(&s->out);
			cap_kstate_forget_spool(&s->ks);
			return 1;
		}
		s->out.raw = !flight_raw;
		s->raw_ring = flight_raw;
	}
	cap_sink_opts so = {
		.cfg = &s->cfg,
		.filter = !(s->be->flags & CAP_KERNEL_FILTER),
		.sequence = !(s->be->flags & CAP_HAS_SEQUENCE),
		.names = !(s->be->flags & CAP_HAS_NAMES),
		.comm = s->be->comm,
		.comm_state = s->st,
		.out = { s->out.live[0], s->out.live[1] },
		.nout = s->out.nlive,
		.spool = s->out.raw ? NULL : s->out.spool,
		.raw = s->out.raw ? s->out.spool : NULL,
		.raw_ring = s->raw_ring,
		.window_ns = CAP_REORDER_WINDOW_NS,
		.rotate = s->out.rotate,
		.file_note = s->out.rotate ? file_note : NULL,
		.file_note_arg = s,
	};
	if (cli->flight_ns) {
		cap_flight_opts fo = { .base = s->out.base, .before_ns = cli->flight_ns, .after_ns = cli->flight_after_ns,
				       .rules = cli->rules, .nrules = cli->nrules, .log = cli->quiet ? NULL : stderr };
		if (cap_flight_new(&s->flight, &fo, &err)) {
			tool_say_error(PROG, NULL, &err);
			release_backend(s);
			cap_outputs_abort(&s->out);
			cap_kstate_forget_spool(&s->ks);
			return 1;
		}
		/* a raw ring decodes records only for rules (cap_flight_seen
		 * keeps the trace's start without them) */
		if (!s->raw_ring || cli->nrules) {
			so.observe = flight_observe;
			so.observe_arg = s->flight;
			so.observe_actions = cap_flight_actions(s->flight);
		}
	}
	if (cap_sink_new(&s->sink, &so, &err)) {
		tool_say_error(PROG, NULL, &err);
		release_backend(s);
		cap_outputs_abort(&s->out);
		cap_kstate_forget_spool(&s->ks);
		return 1;
	}
	if (!cli->quiet) {
		fprintf(stderr, "blkreel-capture: tracing");
		for (size_t i = 0; i < s->cfg.ndevices; i++)
			fprintf(stderr, " %s", s->cfg.devices[i].name);
		fprintf(stderr, " with the %s backend\n", s->be->name);
	}
	return 0;
}

/* Tracing: start the command, run the loop. false when it ended on an error. */
/* After tracing, whatever happened: drain, write the drops record, put the
 * kernel back, finish the files, say what was captured. false on any
 * failure; *total_drops gets the events lost. */
bool cap_capture_close(cap_capture *s, double secs, uint64_t loop_end, uint64_t *total_drops)
{
	const capture_cli *cli = s->cli;
	br_error err;
	br_error_clear(&err);
	bool ok = true;
	if (drain(s, &err)) {
		tool_say_error(PROG, "draining the buffers", &err);
		ok = false;
	}
	memset(s->drops, 0, s->cfg.ncpu * sizeof *s->drops);
	s->be->drops(s->st, s->drops, s->cfg.ncpu);
	s->has_bad_count = s->be->bad_records != NULL;
	s->bad = bad_records(s);
	s->missed = s->be->missed ? s->be->missed(s->st) : 0;
	char drops[512], note[700], kcounts[80], unwritten[48] = "";
	drops_text(s, s->bad, drops, sizeof drops, total_drops);
	s->dropped = *total_drops - s->bad;
	cap_sink_stats sst;
	cap_sink_stats_get(s->sink, &sst);
	s->unwritten = sst.unwritten;
	*total_drops += s->unwritten;
	/* the last file of a rotated capture: what the closed ones did not say */
	uint64_t unused;
	if (s->out.rotate)
		drops_text_since(s, s->bad, s->noted_drops, s->noted_bad, drops, sizeof drops, &unused);
	if (s->unwritten > s->noted_unwritten)
		snprintf(unwritten, sizeof unwritten, " unwritten=%llu",
			 (unsigned long long)(s->unwritten - s->noted_unwritten));
	/* Every completion the device counted that no C record shows, whatever
	 * lost it (the kernel, a ring overflow, a bad record): the file says so,
	 * and readers take up to that many IOs without a C as completed. The
	 * last file of a rotated capture says what the others did not. */
	const cap_dev_check *check = completion_check(s);
	s->unrecorded = check ? cap_dev_check_unrecorded(check, &s->cfg) : 0;
	uint64_t file_unrecorded = s->unrecorded;
	if (s->out.rotate)
		file_unrecorded = cap_unrecorded_last(&s->unrecorded_notes, s->unrecorded, &s->unrecorded);
	*total_drops = events_lost(*total_drops, s->unrecorded);
	kernel_counts_text(s->missed, file_unrecorded, kcounts, sizeof kcounts);
	snprintf(note, sizeof note, "blkreel: drops %s (backend %s)%s%s", drops, s->be->name, unwritten, kcounts);
	if (ok && cap_sink_message(s->sink, note, &err)) {
		tool_say_error(PROG, NULL, &err);
		ok = false;
	}
	/* a trigger still waiting for its window is written with what there is */
	if (s->flight) {
		cap_sink_stats fst;
		cap_sink_stats_get(s->sink, &fst);
		if (cap_flight_poll(s->flight, s->sink, s->out.rotate, flight_written(s, &fst), true, &err)) {
			tool_say_error(PROG, "writing the flight recorder's file", &err);
			ok = false;
		}
	}
	const char *be_name = s->be->name;
	if (release_backend(s))
		ok = false;
	s->bytes_written = cap_outputs_bytes(&s->out);
	if ((s->out.spooling || s->out.rotate) && !cli->quiet)
		tool_say(PROG, "tracing stopped; compressing into %s", s->out.gz_path);
	bool rotated = s->out.rotate != NULL;
	if (cap_outputs_close(&s->out, &err)) {
		tool_say_error(PROG, "finishing the output", &err);
		ok = false;
	}
	s->cpu_after = cap_own_cpu() - s->cpu_tracing;
	s->wall_after = (double)(tool_now_ns() - loop_end) / 1e9;
	if (rotated) /* a spool that could not be finished stays noted, for --cleanup */
		forget_finished_spools(s);
	else
		cap_kstate_forget_spool(&s->ks);
	if (rotated)
		s->bytes_written = s->out.rotated.bytes;
	struct stat fst;
	if (strcmp(s->out.gz_path, "-") && stat(s->out.gz_path, &fst) == 0)
		s->bytes_written = (uint64_t)fst.st_size;
	if (!cli->quiet) {
		s->be = &(cap_backend_ops){ .name = be_name };
		summary(s, secs);
		s->be = NULL;
	}
	return ok;
}
