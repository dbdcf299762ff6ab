/* backend_tracefs.c — the ftrace "blk" tracer: per-device trace/enable,
 * current_tracer = blk, one non-blocking reader per
 * per_cpu/cpuN/trace_pipe_raw, whose ring buffer pages ftrace_page.c
 * decodes (trace_pipe would format each record in the kernel: far dearer).
 * Records come without sequence numbers and without process-name records
 * (the core fills both in); one tracer per machine (the core holds the lock). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/ftrace_page.h"
#include "dev_completions.h"
#include "kstate/tracefs_util.h"
#include "kstate/leftovers.h"

#define T CAP_TRACEFS
#define MAX_PAGE (64 * 1024) /* ring buffer sub-buffers are 4 KiB by default */
#define MAX_STREAMS 1024
#define MAX_PAGES_PER_ROUND 256

typedef struct tfs_cpu {
	int fd;
	uint64_t overrun0, dropped0;
} tfs_cpu;

typedef struct tfs_state {
	const cap_config *cfg;
	unsigned ncpu;
	tfs_cpu *cpu;
	size_t page_size;
	uint8_t *page;
	uint32_t devices[CAP_MAX_DEVICES];
	ftrace_page_stats stats;
	/* the devices' completions against the C records read (tfs_unrecorded) */
	cap_dev_check check;
	bool checking;
} tfs_state;

static int tfs_probe(br_error *err)
{
	if (access(T "/available_tracers", R_OK) && access("/sys/kernel", F_OK) == 0) {
		/* not mounted yet: start mounts it, so only a missing tracer is final */
		return 0;
	}
	char buf[512] = "";
	FILE *f = fopen(T "/available_tracers", "re");
	if (!f)
		return br_error_set(err, BR_EUNSUP, errno, T "/available_tracers", -1, "cannot read");
	bool blk = false;
	while (fscanf(f, "%511s", buf) == 1)
		if (strcmp(buf, "blk") == 0)
			blk = true;
	fclose(f);
	if (!blk)
		return br_error_set(err, BR_EUNSUP, 0, NULL, -1,
				    "the kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)");
	return 0;
}

static int check_idle(FILE *log, br_error *err)
{
	char cur[64];
	int rc = cap_kstate_read(T "/current_tracer", cur, sizeof cur, err);
	if (rc)
		return rc;
	if (strcmp(cur, "nop") != 0) {
		int owner = cap_kstate_owner(T "/current_tracer");
		if (owner)
			return br_error_set(err, BR_EINVAL, 0, NULL, -1,
					    "another capture (pid %d) is using the tracer", owner);
		if (cap_kstate_leftovers(log) > 0)
			return br_error_set(err, BR_EINVAL, 0, NULL, -1,
					    "current_tracer is '%s', left by a capture that was killed; "
					    "run 'blkreel-capture --cleanup'", cur);
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "current_tracer is '%s', not nop: something else is using the tracer", cur);
	}
	/* Other trace events would be mixed into the binary stream in their own layout. */
	FILE *f = fopen(T "/set_event", "re");
	if (f) {
		char line[128];
		bool any = fgets(line, sizeof line, f) != NULL;
		fclose(f);
		if (any)
			return br_error_set(err, BR_EINVAL, 0, T "/set_event", -1,
					    "trace events are enabled (%.*s); they would corrupt the blk stream",
					    (int)strcspn(line, "\n"), line);
	}
	return 0;
}

static int open_readers(tfs_state *st, br_error *err);

static int tfs_start(void *vst, const cap_config *cfg, cap_kstate *ks, br_error *err)
{
	tfs_state *st = vst;
	st->cfg = cfg;
	int rc = cap_tracefs_ensure(cfg->log, ks, err);
	if (rc)
		return rc;
	if ((rc = tfs_probe(err)) || (rc = check_idle(cfg->log, err)))
		return rc;
	for (size_t i = 0; i < cfg->ndevices; i++) {
		char path[320], cur[16];
		snprintf(path, sizeof path, "%s/trace/enable", cfg->devices[i].sysfs);
		if ((rc = cap_kstate_read(path, cur, sizeof cur, err)))
			return rc;
		if (strcmp(cur, "0") != 0) {
			int owner = cap_kstate_owner(path);
			if (owner)
				return br_error_set(err, BR_EINVAL, 0, cfg->devices[i].path, -1,
						    "is already being traced by another capture (pid %d)", owner);
			return br_error_set(err, BR_EINVAL, 0, cfg->devices[i].path, -1,
					    "is already being traced (%s is %s; blktrace or another tool?)", path, cur);
		}
	}
	char on[16];
	if ((rc = cap_kstate_read(T "/tracing_on", on, sizeof on, err)))
		return rc;
	if (strcmp(on, "1") && (rc = cap_kstate_write(ks, T "/tracing_on", "1", err)))
		return rc;
	for (size_t i = 0; i < cfg->ndevices; i++) {
		char path[320];
		snprintf(path, sizeof path, "%s/trace/enable", cfg->devices[i].sysfs);
		if ((rc = cap_kstate_write(ks, path, "1", err)))
			return rc;
	}
	{
		/* The default ring (1.4 MiB per CPU) overruns within 25 ms at a
		 * million events/s: ask for 16 MiB per CPU unless told (restored). */
		unsigned long long want_kb = 16384;
		if (cfg->buf_size)
			want_kb = (cfg->buf_size * (cfg->buf_count ? cfg->buf_count : 4) + 1023) / 1024;
		char kb[32];
		snprintf(kb, sizeof kb, "%llu", want_kb);
		if ((rc = cap_kstate_write(ks, T "/buffer_size_kb", kb, err)))
			return rc;
	}
	/* Switching the tracer also empties the ring buffers: nothing older than
	 * this capture is read. */
	if ((rc = cap_kstate_write(ks, T "/current_tracer", "blk", err)))
		return rc;
	/* Counted once the tracer records (the switch emptied the rings
	 * before it started): a completion after the count has a record in
	 * the ring, unless it overran (counted as a drop). */
	cap_dev_check_start(&st->check, cfg, NULL);
	st->checking = true;
	return open_readers(st, err);
}

/* One non-blocking reader per CPU ring, reading whole sub-buffers. */
static int open_readers(tfs_state *st, br_error *err)
{
	const cap_config *cfg = st->cfg;
	st->ncpu = cfg->ncpu;
	for (size_t i = 0; i < cfg->ndevices; i++)
		st->devices[i] = cfg->devices[i].dev;
	/* reads must be whole sub-buffers: their size, where the kernel says */
	char kb[32];
	br_error ignored;
	st->page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (cap_kstate_read(T "/buffer_subbuf_size_kb", kb, sizeof kb, &ignored) == 0 && atoi(kb) > 0)
		st->page_size = (size_t)atoi(kb) * 1024;
	if (st->page_size > MAX_PAGE)
		return br_error_set(err, BR_EUNSUP, 0, T "/buffer_subbuf_size_kb", -1, "sub-buffers of %zu bytes",
				    st->page_size);
	st->cpu = calloc(st->ncpu, sizeof *st->cpu);
	st->page = malloc(st->page_size);
	if (!st->cpu || !st->page)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	for (unsigned c = 0; c < st->ncpu; c++)
		st->cpu[c].fd = -1;
	for (unsigned c = 0; c < st->ncpu; c++) {
		char path[128];
		snprintf(path, sizeof path, T "/per_cpu/cpu%u/trace_pipe_raw", c);
		tfs_cpu *p = &st->cpu[c];
		p->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (p->fd < 0) {
			if (errno == ENOENT)
				continue; /* a possible CPU that is not present */
			return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open");
		}
		snprintf(path, sizeof path, T "/per_cpu/cpu%u/stats", c);
		p->overrun0 = cap_stats_value(path, "overrun");
		p->dropped0 = cap_stats_value(path, "dropped events");
	}
	return 0;
}

static int tfs_fds(void *vst, struct pollfd *pfd, int max)
{
	tfs_state *st = vst;
	int n = 0;
	for (unsigned c = 0; c < st->ncpu && n < max; c++)
		if (st->cpu[c].fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = st->cpu[c].fd, .events = POLLIN };
	return n;
}

typedef struct push_arg {
	tfs_state *st;
	cap_sink *sink;
	unsigned cpu;
	int pushed;
} push_arg;

static int push_one(void *varg, const br_event *ev, br_error *err)
{
	push_arg *a = varg;
	br_event e = *ev;
	e.cpu = a->cpu; /* the buffer it came from: what the split set keys on */
	a->pushed++;
	if (a->st->checking && br_event_code(ev) == __BLK_TA_COMPLETE && !br_event_is_notify(ev))
		cap_dev_check_record(&a->st->check, a->st->cfg, ev->device);
	return cap_sink_push(a->sink, &e, NULL, err);
}

static int tfs_read(void *vst, cap_sink *sink, br_error *err)
{
	tfs_state *st = vst;
	int total = 0;
	st->check.behind = false;
	for (unsigned c = 0; c < st->ncpu; c++) {
		tfs_cpu *p = &st->cpu[c];
		if (p->fd < 0)
			continue;
		/* A bounded number of pages per CPU per round, so one busy CPU
		 * cannot starve the others (or the status line). */
		int round;
		for (round = 0; round < MAX_PAGES_PER_ROUND; round++) {
			ssize_t r = read(p->fd, st->page, st->page_size);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN)
					break;
				return br_error_set(err, BR_ESYS, errno, T "/per_cpu/cpuN/trace_pipe_raw", -1,
						    "cpu %u: read failed", c);
			}
			if (r == 0)
				break;
			push_arg a = { st, sink, c, 0 };
			int rc = ftrace_page_decode(st->page, (size_t)r, st->devices, st->cfg->ndevices, push_one, &a,
						    &st->stats, err);
			if (rc)
				return rc;
			total += a.pushed;
		}
		if (round == MAX_PAGES_PER_ROUND)
			st->check.behind = true;
	}
	return total;
}

static int tfs_stop(void *vst, br_error *err)
{
	tfs_state *st = vst;
	int first = 0;
	/* Counted before the devices stop: a completion after it has no record. */
	if (st->checking)
		cap_dev_check_end(&st->check, st->cfg);
	for (size_t i = 0; i < st->cfg->ndevices; i++) {
		char path[320];
		snprintf(path, sizeof path, "%s/trace/enable", st->cfg->devices[i].sysfs);
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "0", 1) != 1) {
			if (!first)
				first = br_error_set(err, BR_ESYS, errno, path, -1, "cannot write 0");
		}
		if (fd >= 0)
			close(fd);
	}
	return first;
}

static const cap_dev_check *tfs_completions(void *vst)
{
	const tfs_state *st = vst;
	return st->checking ? &st->check : NULL;
}

static void tfs_drops(void *vst, uint64_t *drops, unsigned ncpu)
{
	tfs_state *st = vst;
	for (unsigned c = 0; c < st->ncpu && c < ncpu; c++) {
		if (st->cpu[c].fd < 0)
			continue;
		char path[128];
		snprintf(path, sizeof path, T "/per_cpu/cpu%u/stats", c);
		uint64_t o = cap_stats_value(path, "overrun"), d = cap_stats_value(path, "dropped events");
		drops[c] += (o - st->cpu[c].overrun0) + (d - st->cpu[c].dropped0);
	}
}

/* saved_cmdlines: "PID NAME" per line, the tracer's own pid → name cache
 * (names of processes that exited before we looked in /proc). */
static bool tfs_comm(void *vst, uint32_t pid, char *name, size_t size)
{
	(void)vst;
	FILE *f = fopen(T "/saved_cmdlines", "re");
	if (!f)
		return false;
	char line[128];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		char *sp;
		unsigned long p = strtoul(line, &sp, 10);
		if (p == pid && *sp == ' ') {
			sp[strcspn(sp, "\n")] = 0;
			snprintf(name, size, "%s", sp + 1);
			found = name[0] && strcmp(name, "<...>") != 0;
		}
	}
	fclose(f);
	return found;
}

static int tfs_close(void *vst, cap_kstate *ks, br_error *err)
{
	(void)ks;
	(void)err;
	tfs_state *st = vst;
	/* The readers go first: the kernel refuses to switch tracers while a
	 * trace_pipe is open, and the core restores current_tracer next. */
	for (unsigned c = 0; st->cpu && c < st->ncpu; c++)
		if (st->cpu[c].fd >= 0)
			close(st->cpu[c].fd);
	free(st->cpu);
	free(st->page);
	st->cpu = NULL;
	st->page = NULL;
	return 0;
}

/* The blk tracer stays on when its capture is killed, and its ring keeps
 * what the dead reader had not read yet: stop the devices, read it all. */
static int tfs_salvage(const cap_config *cfg, cap_sink *sink, br_error *err)
{
	tfs_state st;
	memset(&st, 0, sizeof st);
	st.cfg = cfg;
	br_error ignored;
	tfs_stop(&st, &ignored); /* a device gone meanwhile: read what is there */
	int rc = open_readers(&st, err);
	for (int idle = 0; rc >= 0 && idle < 2;) {
		int n = tfs_read(&st, sink, err);
		if (n < 0)
			rc = n;
		else
			idle = n ? 0 : idle + 1;
	}
	if (rc >= 0)
		rc = cap_sink_drain(sink, true, err);
	tfs_close(&st, NULL, NULL);
	return rc < 0 ? rc : 0;
}

const cap_backend_ops cap_backend_tracefs = {
	.name = "tracefs",
	.summary = "ftrace blk tracer, per-CPU trace_pipe_raw ring pages (one per machine)",
	.flags = CAP_GLOBAL_TRACER,
	.state_size = sizeof(tfs_state),
	.probe = tfs_probe,
	.start = tfs_start,
	.fds = tfs_fds,
	.read = tfs_read,
	.stop = tfs_stop,
	.drops = tfs_drops,
	.completions = tfs_completions,
	.comm = tfs_comm,
	.close = tfs_close,
	.salvage = tfs_salvage,
};
