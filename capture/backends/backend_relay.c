/* backend_relay.c — the classic interface blktrace uses: BLKTRACESETUP on
 * each device, then the per-CPU relay files debugfs/block/NAME/traceN,
 * BLKTRACESTART/STOP/TEARDOWN. Its records are complete (sequence numbers,
 * process names) and it filters in the kernel. Under kernel lockdown the
 * setup succeeds but opening the relay files fails with EPERM. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backends/backend.h"
#include "kstate/tracefs_util.h"
#include "kstate/leftovers.h"

#define RELAY_BUF (256 * 1024)

typedef struct relay_file {
	int fd;
	size_t have;
	uint8_t *buf;
} relay_file;

typedef struct relay_dev {
	int devfd;
	char name[BLKTRACE_BDEV_SIZE];
	bool set_up, started;
	relay_file *cpu;
} relay_dev;

typedef struct relay_state {
	const cap_config *cfg;
	unsigned ncpu;
	relay_dev dev[CAP_MAX_DEVICES];
	size_t ndev;
} relay_state;

static int relay_probe(br_error *err)
{
	if (access(CAP_DEBUGFS, F_OK))
		return br_error_set(err, BR_EUNSUP, errno, CAP_DEBUGFS, -1, "no debugfs");
	return 0;
}

static int setup_dev(relay_state *st, relay_dev *d, const cap_device *cd, cap_kstate *ks, br_error *err)
{
	const cap_config *cfg = st->cfg;
	d->devfd = open(cd->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (d->devfd < 0)
		return br_error_set(err, BR_ESYS, errno, cd->path, -1, "cannot open");
	struct blk_user_trace_setup buts;
	memset(&buts, 0, sizeof buts);
	buts.act_mask = cfg->act_mask;
	buts.buf_size = (uint32_t)(cfg->buf_size ? cfg->buf_size : 512 * 1024);
	buts.buf_nr = cfg->buf_count ? cfg->buf_count : 4;
	buts.start_lba = cfg->start_lba;
	buts.end_lba = cfg->end_lba ? cfg->end_lba : ~0ull;
	buts.pid = cfg->pid;
	int rc = cap_kstate_note_relay(ks, cd->path, err);
	if (rc)
		return rc;
	if (ioctl(d->devfd, BLKTRACESETUP, &buts)) {
		int e = errno;
		cap_kstate_forget_relay(ks, cd->path);
		if (e == EBUSY) {
			int owner = cap_kstate_owner(cd->path);
			if (owner)
				return br_error_set(err, BR_EINVAL, e, cd->path, -1,
						    "is already being traced by another capture (pid %d)", owner);
			return br_error_set(err, BR_EINVAL, e, cd->path, -1,
					    "is already being traced (blktrace or the blk tracer)");
		}
		return br_error_set(err, BR_ESYS, e, cd->path, -1, "BLKTRACESETUP failed");
	}
	d->set_up = true;
	snprintf(d->name, sizeof d->name, "%s", buts.name);
	d->cpu = calloc(st->ncpu, sizeof *d->cpu);
	if (!d->cpu)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	for (unsigned c = 0; c < st->ncpu; c++)
		d->cpu[c].fd = -1;
	for (unsigned c = 0; c < st->ncpu; c++) {
		char path[256];
		snprintf(path, sizeof path, CAP_DEBUGFS "/block/%s/trace%u", d->name, c);
		d->cpu[c].fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (d->cpu[c].fd < 0) {
			if (errno == ENOENT)
				continue;
			if (errno == EPERM)
				return br_error_set(err, BR_ESYS, errno, path, -1,
						    "cannot open the relay file (kernel lockdown restricts debugfs)");
			return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open");
		}
		d->cpu[c].buf = malloc(RELAY_BUF);
		if (!d->cpu[c].buf)
			return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	return 0;
}

static int relay_start(void *vst, const cap_config *cfg, cap_kstate *ks, br_error *err)
{
	relay_state *st = vst;
	st->cfg = cfg;
	st->ncpu = cfg->ncpu;
	/* A temporary mount (undone at the end): said only if relay then works,
	 * so the usual lockdown fallback stays one line. */
	int rc = cap_debugfs_ensure(NULL, ks, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < cfg->ndevices; i++) {
		relay_dev *d = &st->dev[st->ndev++];
		d->devfd = -1;
		if ((rc = setup_dev(st, d, &cfg->devices[i], ks, err)))
			return rc;
	}
	for (size_t i = 0; i < st->ndev; i++) {
		if (ioctl(st->dev[i].devfd, BLKTRACESTART))
			return br_error_set(err, BR_ESYS, errno, cfg->devices[i].path, -1, "BLKTRACESTART failed");
		st->dev[i].started = true;
	}
	return 0;
}

static int relay_fds(void *vst, struct pollfd *pfd, int max)
{
	relay_state *st = vst;
	int n = 0;
	for (size_t i = 0; i < st->ndev; i++)
		for (unsigned c = 0; c < st->ncpu && n < max; c++)
			if (st->dev[i].cpu && st->dev[i].cpu[c].fd >= 0)
				pfd[n++] = (struct pollfd){ .fd = st->dev[i].cpu[c].fd, .events = POLLIN };
	return n;
}

static int parse(relay_file *f, unsigned cpu, cap_sink *sink, br_error *err)
{
	size_t off = 0;
	int pushed = 0;
	while (f->have - off >= BR_RECORD_SIZE) {
		const uint8_t *raw = f->buf + off;
		unsigned version;
		if (br_record_probe_magic(raw, &version) != 0)
			return br_error_set(err, BR_EFORMAT, 0, NULL, -1, "relay cpu %u: not a blk_io_trace record", cpu);
		br_event ev;
		br_record_decode(raw, false, &ev);
		if (ev.pdu_len > BR_PDU_MAX)
			return br_error_set(err, BR_EFORMAT, 0, NULL, -1, "relay cpu %u: pdu of %u bytes", cpu, ev.pdu_len);
		if (f->have - off < BR_RECORD_SIZE + (size_t)ev.pdu_len)
			break;
		ev.pdu = ev.pdu_len ? raw + BR_RECORD_SIZE : NULL;
		ev.cpu = cpu;
		int rc = cap_sink_push(sink, &ev, NULL, err);
		if (rc)
			return rc;
		pushed++;
		off += BR_RECORD_SIZE + ev.pdu_len;
	}
	memmove(f->buf, f->buf + off, f->have - off);
	f->have -= off;
	return pushed;
}

static int relay_read(void *vst, cap_sink *sink, br_error *err)
{
	relay_state *st = vst;
	int total = 0;
	for (size_t i = 0; i < st->ndev; i++)
		for (unsigned c = 0; st->dev[i].cpu && c < st->ncpu; c++) {
			relay_file *f = &st->dev[i].cpu[c];
			if (f->fd < 0)
				continue;
			for (int round = 0; round < 16; round++) {
				ssize_t r = read(f->fd, f->buf + f->have, RELAY_BUF - f->have);
				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0 && errno != EAGAIN)
					return br_error_set(err, BR_ESYS, errno, NULL, -1, "relay cpu %u: read failed", c);
				if (r <= 0)
					break;
				f->have += (size_t)r;
				int n = parse(f, c, sink, err);
				if (n < 0)
					return n;
				total += n;
			}
		}
	return total;
}

static int relay_stop(void *vst, br_error *err)
{
	relay_state *st = vst;
	int first = 0;
	for (size_t i = 0; i < st->ndev; i++)
		if (st->dev[i].started) {
			if (ioctl(st->dev[i].devfd, BLKTRACESTOP) && !first)
				first = br_error_set(err, BR_ESYS, errno, st->cfg->devices[i].path, -1, "BLKTRACESTOP failed");
			st->dev[i].started = false;
		}
	return first;
}

static void relay_drops(void *vst, uint64_t *drops, unsigned ncpu)
{
	relay_state *st = vst;
	/* The kernel counts relay drops per device, not per CPU: on cpu0. */
	for (size_t i = 0; i < st->ndev && ncpu; i++) {
		char path[256];
		snprintf(path, sizeof path, CAP_DEBUGFS "/block/%s/dropped", st->dev[i].name);
		FILE *f = fopen(path, "re");
		unsigned long long n = 0;
		if (f) {
			if (fscanf(f, "%llu", &n) != 1)
				n = 0;
			fclose(f);
		}
		drops[0] += n;
	}
}

static int relay_close(void *vst, cap_kstate *ks, br_error *err)
{
	relay_state *st = vst;
	int first = 0;
	for (size_t i = 0; i < st->ndev; i++) {
		relay_dev *d = &st->dev[i];
		for (unsigned c = 0; d->cpu && c < st->ncpu; c++) {
			if (d->cpu[c].fd >= 0)
				close(d->cpu[c].fd);
			free(d->cpu[c].buf);
		}
		free(d->cpu);
		d->cpu = NULL;
		if (d->set_up) {
			if (d->started)
				ioctl(d->devfd, BLKTRACESTOP);
			if (ioctl(d->devfd, BLKTRACETEARDOWN) && !first)
				first = br_error_set(err, BR_ESYS, errno, st->cfg->devices[i].path, -1,
						     "BLKTRACETEARDOWN failed");
			else
				cap_kstate_forget_relay(ks, st->cfg->devices[i].path);
			d->set_up = false;
		}
		if (d->devfd >= 0)
			close(d->devfd);
		d->devfd = -1;
	}
	st->ndev = 0;
	return first;
}

const cap_backend_ops cap_backend_relay = {
	.name = "relay",
	.summary = "blktrace's interface: BLKTRACESETUP + debugfs relay files",
	.flags = CAP_GLOBAL_TRACER | CAP_HAS_SEQUENCE | CAP_HAS_NAMES | CAP_KERNEL_FILTER,
	.state_size = sizeof(relay_state),
	.probe = relay_probe,
	.start = relay_start,
	.fds = relay_fds,
	.read = relay_read,
	.stop = relay_stop,
	.drops = relay_drops,
	.close = relay_close,
};
