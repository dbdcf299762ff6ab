#include "spool/raw_convert.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/bpf_decode.h"
#include "backends/bpf/capture_record.h"
#include "capture_config.h"
#include "spool/names.h"
#include "spool/raw_spool.h"

_Static_assert(RAW_FRAME_MAX == BPF_BATCH_MAX, "a batch the capture keeps fits a spool frame");

#define CHUNK (1u << 20)
#define MAX_CPUS 1024

bool cap_raw_spool_is(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char m[RAW_MAGIC_LEN];
	bool is = read(fd, m, sizeof m) == (ssize_t)sizeof m && memcmp(m, RAW_MAGIC, RAW_MAGIC_LEN) == 0;
	close(fd);
	return is;
}

typedef struct conv {
	const char *path;
	int fd;
	bool punch;
	uint8_t *buf;
	size_t have, off;    /* bytes in buf; parsed up to off */
	int64_t pos;         /* file offset of buf[0] */
	int64_t punched;
	bool eof;
	cap_config cfg;
	bool staging;
	bpf_decoder *dec;
	cap_names *names;
	cap_sink *sink;
	uint32_t last_pid;   /* the hint of the last event, looked up once */
	const char *last_hint;
	bool have_last;
} conv;

/* At least want bytes from c->off on (false: the file ended first). */
static int fill(conv *c, size_t want, br_error *err)
{
	if (c->have - c->off >= want)
		return 1;
	memmove(c->buf, c->buf + c->off, c->have - c->off);
	c->have -= c->off;
	c->pos += (int64_t)c->off;
	c->off = 0;
	while (c->have < want && !c->eof) {
		ssize_t r = read(c->fd, c->buf + c->have, CHUNK + RAW_FRAME_MAX - c->have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return br_error_set(err, BR_ESYS, errno, c->path, c->pos + (int64_t)c->have,
					    "cannot read the spool");
		if (r == 0)
			c->eof = true;
		c->have += (size_t)r;
		/* what is in memory goes back to the disk at once (ignored where
		 * unsupported): on a full disk the compressed file needs the room */
		int64_t end = c->pos + (int64_t)c->have;
		if (c->punch && end > c->punched &&
		    fallocate(c->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, c->punched, end - c->punched) == 0)
			c->punched = end;
	}
	return c->have - c->off >= want;
}

static int damaged(conv *c, size_t at, br_error *err, const char *what)
{
	return br_error_set(err, BR_EFORMAT, 0, c->path, c->pos + (int64_t)at, "damaged raw spool: %s", what);
}

static int read_header(conv *c, br_error *err)
{
	int rc = fill(c, RAW_MAGIC_LEN, err);
	if (rc < 0)
		return rc;
	if (rc == 0 || memcmp(c->buf, RAW_MAGIC, RAW_MAGIC_LEN))
		return br_error_set(err, BR_EFORMAT, 0, c->path, 0, "not a raw spool (no %s magic)", RAW_MAGIC);
	if ((rc = fill(c, sizeof(raw_header), err)) <= 0)
		return rc < 0 ? rc : damaged(c, c->have, err, "header cut short");
	raw_header h;
	memcpy(&h, c->buf, sizeof h);
	if (h.version != RAW_VERSION)
		return damaged(c, 12, err, "unknown version");
	if (h.ncpu == 0 || h.ncpu > MAX_CPUS)
		return damaged(c, 16, err, "CPU count out of range");
	if (h.ndevices == 0 || h.ndevices > BCR_MAX_DEVS || h.ndevices > CAP_MAX_DEVICES)
		return damaged(c, 20, err, "device count out of range");
	if (h.header_bytes != raw_pad8((uint32_t)sizeof h + 4 * h.ndevices))
		return damaged(c, 8, err, "header length does not match its device count");
	if ((rc = fill(c, h.header_bytes, err)) <= 0)
		return rc < 0 ? rc : damaged(c, c->have, err, "header cut short");
	uint32_t devs[BCR_MAX_DEVS];
	memcpy(devs, c->buf + sizeof h, 4 * h.ndevices);
	if (c->dec) { /* a later file of a ring: the same capture's */
		bool same = h.ncpu == c->cfg.ncpu && h.ndevices == c->cfg.ndevices &&
			    (bool)(h.flags & RAW_STAGING) == c->staging;
		for (unsigned i = 0; same && i < h.ndevices; i++)
			same = c->cfg.devices[i].dev == devs[i];
		if (!same)
			return damaged(c, 16, err, "header of another capture than the file before it");
		c->off = h.header_bytes;
		return 0;
	}
	c->cfg.ncpu = h.ncpu;
	c->cfg.ndevices = h.ndevices;
	c->cfg.act_mask = 0xffff;
	for (unsigned i = 0; i < h.ndevices; i++)
		c->cfg.devices[i].dev = devs[i];
	c->staging = h.flags & RAW_STAGING;
	c->off = h.header_bytes;
	if (!(c->dec = bpf_decoder_new(h.ncpu, devs, h.ndevices, c->staging)))
		return br_error_set(err, BR_ENOMEM, 0, c->path, -1, "out of memory");
	return 0;
}

static int push_event(void *arg, const br_event *ev, br_error *err)
{
	conv *c = arg;
	if (!c->have_last || ev->pid != c->last_pid) {
		cap_name *e = cap_names_get(c->names, ev->pid);
		if (!e)
			return br_error_set(err, BR_ENOMEM, 0, c->path, -1, "out of memory");
		c->last_hint = e->named ? e->comm : NULL;
		c->last_pid = ev->pid;
		c->have_last = true;
	}
	return cap_sink_push(c->sink, ev, c->last_hint, err);
}

static int frame(conv *c, const raw_frame *f, const uint8_t *p, size_t at, br_error *err)
{
	switch (f->type) {
	case RAW_BATCH: {
		bpf_bad b = { 0 };
		int rc = bpf_decode_batch(c->dec, p, f->len, push_event, c, &b, err);
		if (rc < 0)
			return rc;
		return b.n ? damaged(c, at + sizeof *f + b.first_at, err, "a record of the BPF batch does not parse") : 0;
	}
	case RAW_ROUND: {
		raw_round r;
		if (f->len < sizeof r)
			return damaged(c, at, err, "round frame too short");
		memcpy(&r, p, sizeof r);
		if (r.ncpu != c->cfg.ncpu || f->len != sizeof r + r.ncpu)
			return damaged(c, at, err, "round frame for another CPU count");
		return bpf_decode_round(c->dec, r.flushed_before, p + sizeof r, r.stopped != 0, push_event, c, err);
	}
	case RAW_DRAIN: {
		raw_drain d;
		if (f->len != sizeof d)
			return damaged(c, at, err, "drain frame of the wrong length");
		memcpy(&d, p, sizeof d);
		return cap_sink_drain_at(c->sink, d.all != 0, d.now, err);
	}
	case RAW_NAME: {
		raw_name n;
		if (f->len != sizeof n)
			return damaged(c, at, err, "name frame of the wrong length");
		memcpy(&n, p, sizeof n);
		char comm[CAP_COMM_LEN + 1];
		memcpy(comm, n.comm, CAP_COMM_LEN);
		comm[CAP_COMM_LEN] = 0;
		cap_name *e = cap_names_get(c->names, n.pid);
		if (!e)
			return br_error_set(err, BR_ENOMEM, 0, c->path, -1, "out of memory");
		cap_names_set(e, comm);
		c->have_last = false;
		return 0;
	}
	case RAW_MESSAGE: {
		if (f->len > 1024)
			return damaged(c, at, err, "message frame too long");
		char text[1025];
		memcpy(text, p, f->len);
		text[f->len] = 0;
		return cap_sink_message(c->sink, text, err);
	}
	default:
		return damaged(c, at, err, "unknown frame type");
	}
}

static int new_sink(conv *c, br_writer *const *out, unsigned n, cap_record_fn record, void *arg, br_error *err)
{
	cap_sink_opts so = {
		.cfg = &c->cfg,
		.sequence = true,
		.names = true,
		.names_from_hints = true,
		.out = { n > 0 ? out[0] : NULL, n > 1 ? out[1] : NULL },
		.nout = n > 2 ? 2 : n,
		.window_ns = CAP_REORDER_WINDOW_NS,
		.record = record,
		.record_arg = arg,
	};
	if (!(c->names = cap_names_new()))
		return br_error_set(err, BR_ENOMEM, 0, c->path, -1, "out of memory");
	return cap_sink_new(&c->sink, &so, err);
}

/* The frames of the open file, up to its end or a torn last frame. */
static int frames(conv *c, br_error *err)
{
	int rc;
	for (;;) {
		if ((rc = fill(c, sizeof(raw_frame), err)) <= 0)
			break; /* the end, or a torn frame header */
		raw_frame f;
		memcpy(&f, c->buf + c->off, sizeof f);
		if (f.type < RAW_BATCH || f.type > RAW_MESSAGE)
			return damaged(c, c->off, err, "unknown frame type");
		if (f.len > RAW_FRAME_MAX)
			return damaged(c, c->off, err, "frame length out of range");
		size_t whole = sizeof f + raw_pad8(f.len);
		if ((rc = fill(c, whole, err)) <= 0)
			break; /* a torn last frame: the capture was killed writing it */
		size_t at = c->off;
		c->off += whole;
		if ((rc = frame(c, &f, c->buf + at + sizeof f, at, err)) < 0)
			return rc;
	}
	return rc < 0 ? rc : 0;
}

/* Everything held goes: a spool cut short (kill -9) has no final drain. */
static int finish(conv *c, br_error *err)
{
	int rc = bpf_decode_finish(c->dec, push_event, c, err);
	return rc < 0 ? rc : cap_sink_drain_at(c->sink, true, 0, err);
}

static int open_file(conv *c, const char *path, br_error *err)
{
	if (c->fd >= 0)
		close(c->fd);
	c->path = path;
	c->have = c->off = 0;
	c->pos = c->punched = 0;
	c->eof = false;
	c->fd = open(path, (c->punch ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (c->fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open the spool");
	return 0;
}

static void conv_done(conv *c, cap_sink_stats *st)
{
	memset(st, 0, sizeof *st);
	if (c->sink)
		cap_sink_stats_get(c->sink, st);
	cap_sink_free(c->sink);
	cap_names_free(c->names);
	bpf_decoder_free(c->dec);
	free(c->buf);
	if (c->fd >= 0)
		close(c->fd);
}

/* paths[0..n-1] in order through one decoder and sink, into out[0..nout-1]
 * and record. */
static int64_t convert(const char *const *paths, size_t n, bool punch, br_writer *const *out, unsigned nout,
		       cap_record_fn record, void *arg, cap_sink_stats *stats, br_error *err)
{
	conv c = { .fd = -1, .punch = punch };
	int rc = n ? 0 : br_error_set(err, BR_EINVAL, 0, NULL, -1, "no raw spool to convert");
	if (rc == 0 && !(c.buf = malloc(CHUNK + RAW_FRAME_MAX)))
		rc = br_error_set(err, BR_ENOMEM, 0, paths[0], -1, "out of memory");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if ((rc = open_file(&c, paths[i], err)) || (rc = read_header(&c, err)))
			break;
		if (i == 0 && (rc = new_sink(&c, out, nout, record, arg, err)))
			break;
		rc = frames(&c, err);
	}
	if (rc == 0)
		rc = finish(&c, err);
	cap_sink_stats st;
	conv_done(&c, &st);
	if (stats)
		*stats = st;
	return rc < 0 ? rc : (int64_t)st.written;
}

int64_t cap_raw_convert(const char *path, bool punch, br_writer *const *out, unsigned n, cap_sink_stats *stats,
			br_error *err)
{
	return convert(&path, 1, punch, out, n, NULL, NULL, stats, err);
}

int64_t cap_raw_convert_files(const char *const *paths, size_t n, cap_record_fn record, void *arg, br_error *err)
{
	return convert(paths, n, false, NULL, 0, record, arg, NULL, err);
}
