/* backend_tracefs.c — the ftrace "blk" tracer: per-device trace/enable,
 * current_tracer = blk, options bin = 1 and context-info = 0, one
 * non-blocking reader per per_cpu/cpuN/trace_pipe. Records are version-7
 * blk_io_trace, but with sequence 0 and no process-name records (the core
 * fills both in), and one tracer per machine (the core holds the lock). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "tracefs_util.h"

#define T CAP_TRACEFS
#define PIPE_BUF_BYTES (64 * 1024)
#define MAX_STREAMS 1024

typedef struct tfs_cpu {
	int fd;
	size_t have;            /* bytes of a partial record carried over */
	uint64_t overrun0, dropped0;
	uint64_t lost_lines;    /* "CPU:N [LOST M EVENTS]" seen in the pipe */
	uint8_t *buf;
} tfs_cpu;

typedef struct tfs_state {
	const cap_config *cfg;
	unsigned ncpu;
	tfs_cpu *cpu;
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
	if (cfg->buf_size) {
		unsigned count = cfg->buf_count ? cfg->buf_count : 4;
		char kb[32];
		snprintf(kb, sizeof kb, "%llu", (unsigned long long)((cfg->buf_size * count + 1023) / 1024));
		if ((rc = cap_kstate_write(ks, T "/buffer_size_kb", kb, err)))
			return rc;
	}
	/* Switching the tracer also empties the ring buffers: nothing older than
	 * this capture is read. */
	if ((rc = cap_kstate_write(ks, T "/current_tracer", "blk", err)) ||
	    (rc = cap_kstate_write(ks, T "/options/bin", "1", err)) ||
	    (rc = cap_kstate_write(ks, T "/options/context-info", "0", err)))
		return rc;

	st->ncpu = cfg->ncpu;
	st->cpu = calloc(st->ncpu, sizeof *st->cpu);
	if (!st->cpu)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	for (unsigned c = 0; c < st->ncpu; c++)
		st->cpu[c].fd = -1;
	for (unsigned c = 0; c < st->ncpu; c++) {
		char path[128];
		snprintf(path, sizeof path, T "/per_cpu/cpu%u/trace_pipe", c);
		tfs_cpu *p = &st->cpu[c];
		p->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (p->fd < 0) {
			if (errno == ENOENT)
				continue; /* a possible CPU that is not present */
			return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open");
		}
		p->buf = malloc(PIPE_BUF_BYTES);
		if (!p->buf)
			return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
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

/* Push every whole record in p->buf[0..p->have); keep a partial one. */
static int parse(tfs_state *st, unsigned c, cap_sink *sink, br_error *err)
{
	tfs_cpu *p = &st->cpu[c];
	size_t off = 0;
	int pushed = 0;
	while (p->have - off >= BR_RECORD_SIZE) {
		const uint8_t *raw = p->buf + off;
		unsigned version;
		if (memcmp(raw, "CPU:", 4) == 0) {
			/* After an overrun trace_pipe says so in text, even in bin mode:
			 * "CPU:0 [LOST 123 EVENTS]\n". Count it; the stats file agrees. */
			const uint8_t *nl = memchr(raw, '\n', p->have - off);
			if (!nl)
				break;
			const char *lost = memmem(raw, (size_t)(nl - raw), "[LOST ", 6);
			if (lost)
				p->lost_lines += strtoull(lost + 6, NULL, 10);
			off += (size_t)(nl - raw) + 1;
			continue;
		}
		if (br_record_probe_magic(raw, &version) != 0)
			return br_error_set(err, BR_EFORMAT, 0, T "/per_cpu/cpuN/trace_pipe", -1,
					    "cpu %u: not a blk_io_trace record (is options/bin still 1?)", c);
		br_event ev;
		br_record_decode(raw, false, &ev);
		if (ev.pdu_len > BR_PDU_MAX)
			return br_error_set(err, BR_EFORMAT, 0, NULL, -1, "cpu %u: pdu of %u bytes", c, ev.pdu_len);
		if (p->have - off < BR_RECORD_SIZE + (size_t)ev.pdu_len)
			break;
		ev.pdu = ev.pdu_len ? raw + BR_RECORD_SIZE : NULL;
		ev.cpu = c;
		int rc = cap_sink_push(sink, &ev, NULL, err);
		if (rc)
			return rc;
		pushed++;
		off += BR_RECORD_SIZE + ev.pdu_len;
	}
	memmove(p->buf, p->buf + off, p->have - off);
	p->have -= off;
	return pushed;
}

static int tfs_read(void *vst, cap_sink *sink, br_error *err)
{
	tfs_state *st = vst;
	int total = 0;
	for (unsigned c = 0; c < st->ncpu; c++) {
		tfs_cpu *p = &st->cpu[c];
		if (p->fd < 0)
			continue;
		/* A bounded number of reads per CPU per round, so one busy CPU
		 * cannot starve the others (or the status line). */
		for (int round = 0; round < 64; round++) {
			ssize_t r = read(p->fd, p->buf + p->have, PIPE_BUF_BYTES - p->have);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN)
					break;
				return br_error_set(err, BR_ESYS, errno, T "/per_cpu/cpuN/trace_pipe", -1,
						    "cpu %u: read failed", c);
			}
			if (r == 0)
				break;
			p->have += (size_t)r;
			int n = parse(st, c, sink, err);
			if (n < 0)
				return n;
			total += n;
		}
	}
	return total;
}

static int tfs_stop(void *vst, br_error *err)
{
	tfs_state *st = vst;
	int first = 0;
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

static void tfs_drops(void *vst, uint64_t *drops, unsigned ncpu)
{
	tfs_state *st = vst;
	for (unsigned c = 0; c < st->ncpu && c < ncpu; c++) {
		if (st->cpu[c].fd < 0)
			continue;
		char path[128];
		snprintf(path, sizeof path, T "/per_cpu/cpu%u/stats", c);
		uint64_t o = cap_stats_value(path, "overrun"), d = cap_stats_value(path, "dropped events");
		uint64_t n = (o - st->cpu[c].overrun0) + (d - st->cpu[c].dropped0);
		/* the stats file is the complete count; the pipe's notes are a floor */
		drops[c] += n > st->cpu[c].lost_lines ? n : st->cpu[c].lost_lines;
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
	for (unsigned c = 0; st->cpu && c < st->ncpu; c++) {
		if (st->cpu[c].fd >= 0)
			close(st->cpu[c].fd);
		free(st->cpu[c].buf);
	}
	free(st->cpu);
	st->cpu = NULL;
	return 0;
}

const cap_backend_ops cap_backend_tracefs = {
	.name = "tracefs",
	.summary = "ftrace blk tracer, per-CPU trace_pipe in binary mode (one per machine)",
	.flags = CAP_GLOBAL_TRACER,
	.state_size = sizeof(tfs_state),
	.probe = tfs_probe,
	.start = tfs_start,
	.fds = tfs_fds,
	.read = tfs_read,
	.stop = tfs_stop,
	.drops = tfs_drops,
	.comm = tfs_comm,
	.close = tfs_close,
};
