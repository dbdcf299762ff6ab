/* tgz_writer.c — the compressed trace file writer (br_tgz_writer_ops).
 *
 * Records are appended to the "filling" member buffer; a full buffer becomes
 * a compression job. Buffers form a ring: the oldest submitted member is
 * always the next to be written, so output stays in order and memory is
 * bounded by the ring size (2 x threads + 1 members of ~128 KiB). */
#include "tgz_internal.h"
#include "common/fdout.h"
#include "common/writer_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdeflate.h>

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN true
#else
#define HOST_BIG_ENDIAN false
#endif

/* Room for deflate output in a member: what is left of 64 KiB after the
 * header and trailer. Raw deflate of 0xff00 bytes needs at most 65359
 * (libdeflate_deflate_compress_bound), so this always suffices. */
#define DEFLATE_ROOM (TGZ_MEMBER_MAX - TGZ_HEADER_LEN - TGZ_TRAILER_LEN)

typedef struct wslot {
	tgz_job job;            /* first: the job pointer is the slot pointer */
	uint8_t *raw;           /* TGZ_PAYLOAD_MAX bytes of records */
	size_t raw_len;
	uint8_t *out;           /* TGZ_MEMBER_MAX bytes: the finished member */
	size_t out_len;
	tgz_meta meta;
	/* the writer's compressors, one per pool worker: job.worker picks */
	struct libdeflate_compressor *const *deflaters;
	bool failed;            /* the member did not fit in 64 KiB */
} wslot;

typedef struct tgz_writer {
	int fd;
	bool owns_fd;
	char path[512];
	tgz_pool *pool;
	wslot *slots;
	unsigned nslots;
	/* One compressor per worker thread, not per ring slot: a level-6
	 * compressor holds a few hundred KiB of match-finder tables and only
	 * a running job needs one (2 instead of 5 at 2 threads; peak RSS
	 * 5.5 -> 4.6 MB, the speed measured the same). */
	struct libdeflate_compressor **deflaters;
	unsigned ndeflaters;
	unsigned head;          /* oldest submitted slot */
	unsigned inflight;      /* submitted, not yet written */
	uint64_t records;       /* records in members already cut */
	uint64_t events;
	uint64_t last_time;
	bool any;
	int64_t out_bytes;
	int error;              /* sticky: first failure */
	br_error saved;
} tgz_writer;

static void compress_run(tgz_job *job)
{
	wslot *s = (wslot *)job;
	/* raw deflate: we frame the member ourselves */
	size_t clen = libdeflate_deflate_compress(s->deflaters[job->worker], s->raw, s->raw_len,
						  s->out + TGZ_HEADER_LEN, DEFLATE_ROOM);
	if (!clen) {
		s->failed = true;
		return;
	}
	s->out_len = TGZ_HEADER_LEN + clen + TGZ_TRAILER_LEN;
	tgz_header_build(s->out, &s->meta, (uint32_t)s->out_len);
	uint8_t *t = s->out + TGZ_HEADER_LEN + clen;
	tgz_put32(t, libdeflate_crc32(0, s->raw, s->raw_len));
	tgz_put32(t + 4, (uint32_t)s->raw_len);
	s->failed = false;
}

/* Remember the first failure so every later call reports it again. */
static int fail(tgz_writer *w, br_error *err, int code, int sys_errno, const char *fmt,
		const char *what)
{
	if (!w->error) {
		w->error = br_error_set(&w->saved, code, sys_errno, w->path, w->out_bytes, fmt, what);
	}
	if (err)
		*err = w->saved;
	return w->error;
}

static int sticky(tgz_writer *w, br_error *err)
{
	if (err)
		*err = w->saved;
	return w->error;
}

static int write_all(tgz_writer *w, const uint8_t *p, size_t n, br_error *err)
{
	br_error e;
	if (br_write_all(w->fd, p, n, w->path, (uint64_t)w->out_bytes, &e)) {
		if (!w->error) {
			w->saved = e;
			w->error = e.code;
		}
		if (err)
			*err = w->saved;
		return w->error;
	}
	w->out_bytes += (int64_t)n;
	return 0;
}

static wslot *filling(tgz_writer *w)
{
	return &w->slots[(w->head + w->inflight) % w->nslots];
}

/* Wait for the oldest submitted member and write it out. */
static int write_oldest(tgz_writer *w, br_error *err)
{
	wslot *s = &w->slots[w->head];
	tgz_pool_wait(w->pool, &s->job);
	w->head = (w->head + 1) % w->nslots;
	w->inflight--;
	if (w->error)
		return sticky(w, err);
	if (s->failed)
		return fail(w, err, BR_EFORMAT, 0, "cannot compress a member: %s",
			    "deflate output does not fit in 64 KiB");
	int rc = write_all(w, s->out, s->out_len, err);
	s->raw_len = 0;
	return rc;
}

/* Cut the filling member: hand it to the pool; make room for the next. */
static int cut_member(tgz_writer *w, br_error *err)
{
	wslot *s = filling(w);
	if (!s->raw_len)
		return 0;
	w->records += s->meta.records;
	w->inflight++;
	tgz_pool_submit(w->pool, &s->job);
	if (w->inflight == w->nslots)
		return write_oldest(w, err);
	return 0;
}

static int drain(tgz_writer *w, br_error *err)
{
	int rc = 0;
	while (w->inflight) {
		int r = write_oldest(w, err);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/* Free what open allocated: the pool first (it drains its queue, so the
 * slots outlive their jobs), then the buffers; an fd still owned is closed
 * (open failed after creating the file). Safe on a partly opened writer. */
static void release(tgz_writer *w)
{
	tgz_pool_free(w->pool);
	w->pool = NULL;
	if (w->owns_fd)
		close(w->fd);
	w->owns_fd = false;
	w->fd = -1;
	for (unsigned i = 0; w->slots && i < w->nslots; i++) {
		free(w->slots[i].raw);
		free(w->slots[i].out);
	}
	free(w->slots);
	w->slots = NULL;
	for (unsigned i = 0; w->deflaters && i < w->ndeflaters; i++)
		if (w->deflaters[i])
			libdeflate_free_compressor(w->deflaters[i]);
	free(w->deflaters);
	w->deflaters = NULL;
}

static int open_parts(tgz_writer *w, const char *path, const br_writer_opts *opts,
		      br_error *err)
{
	int level = opts && opts->level ? opts->level : 6;
	if (level < 1 || level > 9)
		return br_error_set(err, BR_EINVAL, 0, w->path, -1,
				    "compression level %d not in 1..9", level);
	unsigned threads = tgz_threads_resolve(opts ? opts->threads : 0);
	/* One thread compresses inline; more get a pool and twice as many
	 * members in flight as workers, so none waits on the writer. */
	w->nslots = threads == 1 ? 1 : 2 * threads + 1;
	if (tgz_pool_create(&w->pool, threads == 1 ? 0 : threads) < 0)
		return br_error_set(err, BR_ENOMEM, 0, w->path, -1, "cannot start %u threads",
				    threads);
	w->ndeflaters = tgz_pool_workers(w->pool);
	w->deflaters = calloc(w->ndeflaters, sizeof *w->deflaters);
	w->slots = calloc(w->nslots, sizeof *w->slots);
	if (!w->deflaters || !w->slots)
		return br_error_set(err, BR_ENOMEM, 0, w->path, -1, "out of memory");
	for (unsigned i = 0; i < w->ndeflaters; i++) {
		w->deflaters[i] = libdeflate_alloc_compressor(level);
		if (!w->deflaters[i])
			return br_error_set(err, BR_ENOMEM, 0, w->path, -1, "out of memory");
	}
	for (unsigned i = 0; i < w->nslots; i++) {
		wslot *s = &w->slots[i];
		s->job.run = compress_run;
		s->deflaters = w->deflaters;
		s->raw = malloc(TGZ_PAYLOAD_MAX);
		s->out = malloc(TGZ_MEMBER_MAX);
		if (!s->raw || !s->out)
			return br_error_set(err, BR_ENOMEM, 0, w->path, -1, "out of memory");
	}
	if (strcmp(path, "-") == 0) {
		w->fd = STDOUT_FILENO;
	} else {
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (w->fd < 0)
			return br_error_set(err, BR_ESYS, errno, w->path, -1, "cannot create");
		w->owns_fd = true;
	}
	return 0;
}

static int tgz_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	tgz_writer *w = state;
	w->fd = -1;
	snprintf(w->path, sizeof w->path, "%s", strcmp(path, "-") ? path : "<stdout>");
	int rc = open_parts(w, path, opts, err);
	if (rc)
		release(w); /* br_writer_open does not call close after a failed open */
	return rc;
}

static int tgz_write(void *state, const br_event *ev, const uint8_t *raw, size_t raw_len,
		     br_error *err)
{
	tgz_writer *w = state;
	if (w->error)
		return sticky(w, err);
	if (w->any && ev->time < w->last_time)
		return br_error_set(err, BR_EORDER, 0, w->path, -1,
				    "event %llu at time %llu ns comes before the previous "
				    "event's time %llu ns",
				    (unsigned long long)w->events, (unsigned long long)ev->time,
				    (unsigned long long)w->last_time);
	if (raw_len > TGZ_PAYLOAD_MAX || raw_len < 48)
		return br_error_set(err, BR_EINVAL, 0, w->path, -1,
				    "record of %zu bytes cannot be stored", raw_len);
	wslot *s = filling(w);
	if (s->raw_len + raw_len > TGZ_PAYLOAD_MAX) {
		int rc = cut_member(w, err);
		if (rc)
			return rc;
		s = filling(w);
	}
	if (!s->raw_len) {
		s->meta = (tgz_meta){
			.version = TGZ_VERSION,
			.flags = HOST_BIG_ENDIAN ? TGZ_FLAG_BIG_ENDIAN : 0,
			.first_time = ev->time,
			.record_base = w->records,
		};
	}
	memcpy(s->raw + s->raw_len, raw, raw_len);
	s->raw_len += raw_len;
	s->meta.records++;
	s->meta.usize = (uint32_t)s->raw_len;
	s->meta.last_time = ev->time;
	w->last_time = ev->time;
	w->any = true;
	w->events++;
	return 0;
}

static int tgz_flush(void *state, br_error *err)
{
	tgz_writer *w = state;
	if (w->error)
		return sticky(w, err);
	int rc = cut_member(w, err);
	if (!rc)
		rc = drain(w, err);
	return rc;
}

static int tgz_close(void *state, br_error *err)
{
	tgz_writer *w = state;
	int rc = w->error ? sticky(w, err) : 0;
	if (!rc && w->slots && w->fd >= 0)
		rc = tgz_flush(w, err);
	/* The pool drains its queue before it stops, so slots outlive jobs. */
	tgz_pool_free(w->pool);
	w->pool = NULL;
	if (!rc && w->fd >= 0) {
		uint8_t eof[TGZ_EOF_LEN];
		tgz_eof_build(eof, w->last_time, w->records, HOST_BIG_ENDIAN);
		rc = write_all(w, eof, sizeof eof, err);
	}
	if (w->owns_fd && close(w->fd) < 0 && !rc)
		rc = fail(w, err, BR_ESYS, errno, "%s", "close failed");
	w->owns_fd = false;
	w->fd = -1;
	release(w);
	return rc;
}

const br_writer_ops br_tgz_writer_ops = {
	.name = "compressed",
	.state_size = sizeof(tgz_writer),
	.open = tgz_open,
	.write = tgz_write,
	.flush = tgz_flush,
	.close = tgz_close,
};
