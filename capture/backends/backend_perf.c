/* backend_perf.c — the block tracepoints through perf_event_open: one
 * ring buffer per CPU (the other tracepoints of that CPU are redirected
 * into it), samples carrying tid, time, cpu and the raw tracepoint record,
 * mapped onto blk_io_trace actions. The kernel filters by device; nothing
 * machine-wide is changed, so captures can run side by side and a kill -9
 * leaves nothing behind. plug/unplug are not traced: their tracepoints
 * carry no device, so they cannot be attributed. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/perf_sample.h"
#include "backends/tp_format.h"
#include "kstate/tracefs_util.h"
#include "spool/names.h"

#define DEFAULT_RING_BYTES (16u << 20) /* per CPU: ~160k events, 0.3 s at this machine's peak rate */

typedef struct perf_cpu {
	int fds[PERF_NTP];    /* fds[leader] owns the ring; -1 when not opened */
	int leader;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t data_size;     /* power of two */
	uint64_t lost;
} perf_cpu;

typedef struct perf_state {
	unsigned ncpu;
	size_t map_size;
	perf_decoder dec;     /* the tracepoints in use, their layouts, the check */
	perf_cpu *cpu;
	uint8_t *scratch;     /* a record that wraps around the ring end */
} perf_state;

static long perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int perf_probe(br_error *err)
{
	tp_format f;
	if (access(CAP_TRACEFS "/events/block", F_OK) && access("/sys/kernel/tracing", F_OK) == 0)
		return 0; /* tracefs not mounted yet: start mounts it */
	int rc = tp_format_load("block_rq_issue", &f, err);
	if (rc)
		return rc;
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = f.id;
	a.disabled = 1;
	long fd = perf_open(&a, 0);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, NULL, -1,
				    "perf_event_open on block tracepoints refused (perf_event_paranoid?)");
	close((int)fd);
	return 0;
}

/* Which tracepoints can yield an event the action mask keeps: when the mask
 * names only action categories (queue, issue, complete, ...), the others
 * need not be opened at all. */
static bool tp_wanted(uint16_t mask, uint32_t action)
{
	const uint16_t io_bits = BLK_TC_READ | BLK_TC_WRITE | BLK_TC_FLUSH | BLK_TC_SYNC | BLK_TC_AHEAD |
				 BLK_TC_META | BLK_TC_DISCARD | BLK_TC_FUA;
	if (mask == 0xffff || (mask & io_bits))
		return true;
	return ((action >> 16) & mask) != 0;
}

static int build_filter(const cap_config *cfg, char *buf, size_t size)
{
	size_t n = 0;
	for (size_t i = 0; i < cfg->ndevices; i++) {
		int w = snprintf(buf + n, size - n, "%sdev == %u", i ? " || " : "", cfg->devices[i].dev);
		if (w < 0 || (size_t)w >= size - n)
			return -1;
		n += (size_t)w;
	}
	return 0;
}

static int open_cpu(perf_state *st, unsigned c, const char *filter, br_error *err)
{
	perf_cpu *pc = &st->cpu[c];
	pc->leader = -1;
	for (size_t t = 0; t < PERF_NTP; t++)
		pc->fds[t] = -1;
	for (size_t t = 0; t < PERF_NTP; t++) {
		if (!st->dec.use[t])
			continue;
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = st->dec.fmt[t].id;
		a.sample_period = 1;
		/* As little as the mapping needs: the tracepoint is named by the raw
		 * record's common_type, the CPU by the ring it lands in. */
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
		a.disabled = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		/* wake us per 256 KiB (~2.5k events): small batches merge in cache */
		a.wakeup_watermark = (uint32_t)(st->map_size / 4 < (256u << 10) ? st->map_size / 4 : (256u << 10));
		/* Process names of programs exec'd during the capture, which may
		 * be gone from /proc by the time their records are read. */
		a.comm = pc->leader < 0;
		a.comm_exec = pc->leader < 0;
		long fd = perf_open(&a, (int)c);
		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				return 1; /* an offline CPU */
			return br_error_set(err, BR_ESYS, errno, NULL, -1, "perf_event_open(%s, cpu %u)",
					    perf_tp_defs[t].name, c);
		}
		pc->fds[t] = (int)fd;
		if (st->dec.fmt[t].dev.offset >= 0 && ioctl((int)fd, PERF_EVENT_IOC_SET_FILTER, filter))
			return br_error_set(err, BR_ESYS, errno, NULL, -1, "setting filter '%s' on %s",
					    filter, perf_tp_defs[t].name);
		if (pc->leader < 0) {
			pc->leader = (int)t;
			void *m = mmap(NULL, st->map_size + (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
				       MAP_SHARED, (int)fd, 0);
			if (m == MAP_FAILED)
				return br_error_set(err, BR_ESYS, errno, NULL, -1,
						    "mapping a %zu KiB perf ring for cpu %u (perf_event_mlock_kb?)",
						    st->map_size >> 10, c);
			pc->meta = m;
			pc->data = (uint8_t *)m + pc->meta->data_offset;
			pc->data_size = pc->meta->data_size;
		} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, pc->fds[pc->leader])) {
			return br_error_set(err, BR_ESYS, errno, NULL, -1, "PERF_EVENT_IOC_SET_OUTPUT");
		}
	}
	return 0;
}

static int perf_start(void *vst, const cap_config *cfg, cap_kstate *ks, br_error *err)
{
	perf_state *st = vst;
	st->dec.cfg = cfg;
	int rc = cap_tracefs_ensure(cfg->log, ks, err);
	if (rc)
		return rc;
	if (cfg->ncpu > 1024)
		return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "more than 1024 CPUs");
	bool any = false;
	for (size_t t = 0; t < PERF_NTP; t++) {
		st->dec.use[t] = tp_wanted(cfg->act_mask, perf_tp_defs[t].action);
		if (st->dec.use[t] && tp_format_load(perf_tp_defs[t].name, &st->dec.fmt[t], err))
			st->dec.use[t] = false; /* an older kernel without this tracepoint */
		any |= st->dec.use[t];
	}
	if (!any)
		return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "no block tracepoints for this action mask");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t want = cfg->buf_size ? cfg->buf_size * (cfg->buf_count ? cfg->buf_count : 1) : DEFAULT_RING_BYTES;
	st->map_size = page;
	while (st->map_size < want)
		st->map_size *= 2;
	char filter[CAP_MAX_DEVICES * 24];
	if (build_filter(cfg, filter, sizeof filter))
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "device filter too long");
	st->ncpu = cfg->ncpu;
	st->cpu = calloc(st->ncpu, sizeof *st->cpu);
	st->scratch = malloc(65536);
	if (!st->cpu || !st->scratch)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	for (unsigned c = 0; c < st->ncpu; c++) {
		st->cpu[c].leader = -1;
		for (size_t t = 0; t < PERF_NTP; t++)
			st->cpu[c].fds[t] = -1;
	}
	for (unsigned c = 0; c < st->ncpu; c++)
		if ((rc = open_cpu(st, c, filter, err)) < 0)
			return rc;
	for (unsigned c = 0; c < st->ncpu; c++)
		for (size_t t = 0; t < PERF_NTP; t++)
			if (st->cpu[c].fds[t] >= 0 && ioctl(st->cpu[c].fds[t], PERF_EVENT_IOC_ENABLE, 0))
				return br_error_set(err, BR_ESYS, errno, NULL, -1, "PERF_EVENT_IOC_ENABLE");
	perf_decoder_check_start(&st->dec);
	return 0;
}

static int perf_fds(void *vst, struct pollfd *pfd, int max)
{
	perf_state *st = vst;
	int n = 0;
	for (unsigned c = 0; c < st->ncpu && n < max; c++)
		if (st->cpu[c].leader >= 0)
			pfd[n++] = (struct pollfd){ .fd = st->cpu[c].fds[st->cpu[c].leader], .events = POLLIN };
	return n;
}

static int on_record(perf_state *st, unsigned c, const struct perf_event_header *h, cap_sink *sink, br_error *err)
{
	const uint8_t *body = (const uint8_t *)(h + 1);
	size_t len = h->size - sizeof *h;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return perf_decoder_sample(&st->dec, c, body, len, sink, err);
	case PERF_RECORD_LOST:
		if (len >= 16) {
			uint64_t lost;
			memcpy(&lost, body + 8, 8);
			st->cpu[c].lost += lost;
		}
		return 0;
	case PERF_RECORD_COMM:
		if (len > 8) {
			uint32_t pid_tid[2];
			char comm[CAP_COMM_LEN];
			memcpy(pid_tid, body, 8);
			size_t n = strnlen((const char *)body + 8, len - 8);
			if (n >= sizeof comm)
				n = sizeof comm - 1;
			memcpy(comm, body + 8, n);
			comm[n] = 0;
			cap_sink_comm(sink, pid_tid[1], comm);
		}
		return 0;
	default:
		return 0;
	}
}

static int read_cpu(perf_state *st, unsigned c, cap_sink *sink, br_error *err)
{
	perf_cpu *pc = &st->cpu[c];
	uint64_t head = __atomic_load_n(&pc->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->meta->data_tail;
	int n = 0, rc = 0;
	size_t mask = pc->data_size - 1;
	while (tail < head) {
		const struct perf_event_header *h = (const void *)(pc->data + (tail & mask));
		struct perf_event_header hdr;
		size_t off = tail & mask;
		/* the header itself may straddle the end of the ring */
		if (off + sizeof hdr <= pc->data_size) {
			memcpy(&hdr, h, sizeof hdr);
		} else {
			size_t first = pc->data_size - off;
			memcpy(&hdr, pc->data + off, first);
			memcpy((uint8_t *)&hdr + first, pc->data, sizeof hdr - first);
		}
		if (hdr.size < sizeof hdr)
			break; /* cannot happen with a sane kernel; do not loop */
		if (off + hdr.size > pc->data_size) {
			size_t first = pc->data_size - off;
			memcpy(st->scratch, pc->data + off, first);
			memcpy(st->scratch + first, pc->data, hdr.size - first);
			h = (const void *)st->scratch;
		}
		rc = on_record(st, c, h, sink, err);
		if (rc < 0)
			break;
		tail += hdr.size;
		n++;
	}
	__atomic_store_n(&pc->meta->data_tail, tail, __ATOMIC_RELEASE);
	return rc < 0 ? rc : n;
}

static int perf_read(void *vst, cap_sink *sink, br_error *err)
{
	perf_state *st = vst;
	int total = 0;
	for (unsigned c = 0; c < st->ncpu; c++) {
		if (!st->cpu[c].meta)
			continue;
		int n = read_cpu(st, c, sink, err);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

static int perf_stop(void *vst, br_error *err)
{
	perf_state *st = vst;
	int first = 0;
	/* Counted before the disable: a completion after it has no record. */
	perf_decoder_check_end(&st->dec);
	for (unsigned c = 0; c < st->ncpu; c++)
		for (size_t t = 0; t < PERF_NTP; t++)
			if (st->cpu[c].fds[t] >= 0 && ioctl(st->cpu[c].fds[t], PERF_EVENT_IOC_DISABLE, 0) && !first)
				first = br_error_set(err, BR_ESYS, errno, NULL, -1, "PERF_EVENT_IOC_DISABLE");
	return first;
}

/* Its unrecorded completions are those the kernel ran where it does not
 * deliver to sampling events (capture/README.md). */
static const cap_dev_check *perf_completions(void *vst)
{
	const perf_state *st = vst;
	return perf_decoder_check(&st->dec);
}

static void perf_drops(void *vst, uint64_t *drops, unsigned ncpu)
{
	perf_state *st = vst;
	for (unsigned c = 0; c < st->ncpu && c < ncpu; c++)
		drops[c] += st->cpu[c].lost;
}

static int perf_close(void *vst, cap_kstate *ks, br_error *err)
{
	(void)ks;
	(void)err;
	perf_state *st = vst;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (unsigned c = 0; st->cpu && c < st->ncpu; c++) {
		if (st->cpu[c].meta)
			munmap(st->cpu[c].meta, st->map_size + page);
		for (size_t t = 0; t < PERF_NTP; t++)
			if (st->cpu[c].fds[t] >= 0)
				close(st->cpu[c].fds[t]);
	}
	free(st->cpu);
	free(st->scratch);
	st->cpu = NULL;
	st->scratch = NULL;
	return 0;
}

const cap_backend_ops cap_backend_perf = {
	.name = "perf",
	.summary = "block tracepoints via perf_event_open, per-CPU rings (no machine-wide state)",
	.flags = 0,
	.state_size = sizeof(perf_state),
	.probe = perf_probe,
	.start = perf_start,
	.fds = perf_fds,
	.read = perf_read,
	.stop = perf_stop,
	.drops = perf_drops,
	.completions = perf_completions,
	.close = perf_close,
};
