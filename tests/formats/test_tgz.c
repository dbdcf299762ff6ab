/* test_tgz.c — the compressed trace file: writer → reader round trips at 1
 * and several threads, gzip compatibility, seeking by time, and damaged or
 * hostile input (docs/compressed-format.md). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "blkreel/event.h"
#include "compressed/tgz_internal.h" /* header parse, source, writer ops */
#include "common/writer_impl.h"

/* ---- synthetic traces ----------------------------------------------------- */

typedef struct trace {
	uint8_t *raw;          /* the blk_io_trace stream */
	size_t len;
	size_t n;
	uint64_t *times;
	size_t *offs;          /* offset of each record in raw */
} trace;

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* n events, times in steps of step ns (some equal), pdus of various sizes
 * and a notify record now and then. */
static trace make_trace(size_t n, uint64_t step, uint32_t seed)
{
	trace t = { .n = n };
	t.raw = malloc(n * (48 + 300) + 1);
	t.times = calloc(n + 1, sizeof *t.times);
	t.offs = calloc(n + 1, sizeof *t.offs);
	uint64_t time = 1000000;
	for (size_t i = 0; i < n; i++) {
		br_event ev = { 0 };
		uint8_t pdu[300];
		if (rnd(&seed) % 4)
			time += step;
		ev.time = time;
		ev.sector = rnd(&seed) * 8ull;
		ev.bytes = 4096;
		ev.pid = 100 + rnd(&seed) % 5;
		ev.device = BR_MKDEV(8, 0);
		ev.cpu = rnd(&seed) % 2;
		ev.sequence = (uint32_t)i;
		uint32_t k = rnd(&seed) % 20;
		if (k == 0) {
			ev.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_PROCESS;
			ev.pdu_len = 16;
			memset(pdu, 0, 16);
			snprintf((char *)pdu, 16, "proc%u", ev.pid);
		} else if (k == 1) {
			ev.action = BLK_TC_ACT(BLK_TC_WRITE) | __BLK_TA_REMAP;
			ev.pdu_len = 16;
			for (int j = 0; j < 16; j++)
				pdu[j] = (uint8_t)rnd(&seed);
		} else if (k == 2) {
			ev.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE;
			ev.pdu_len = (uint16_t)(1 + rnd(&seed) % 299);
			for (int j = 0; j < ev.pdu_len; j++)
				pdu[j] = (uint8_t)('a' + rnd(&seed) % 26);
		} else {
			ev.action = BLK_TC_ACT(BLK_TC_READ) | (__BLK_TA_QUEUE + k % 8);
		}
		t.times[i] = time;
		t.offs[i] = t.len;
		br_record_encode(&ev, t.raw + t.len);
		memcpy(t.raw + t.len + 48, pdu, ev.pdu_len);
		t.len += 48 + ev.pdu_len;
	}
	t.offs[n] = t.len;
	return t;
}

static void free_trace(trace *t)
{
	free(t->raw);
	free(t->times);
	free(t->offs);
}

/* Write t through the compressed writer; flush_every > 0 flushes that often. */
static int write_trace(const trace *t, const char *path, unsigned threads, int level,
		       size_t flush_every, br_error *err)
{
	void *st = calloc(1, br_tgz_writer_ops.state_size);
	br_writer_opts o = { .level = level, .threads = threads };
	int rc = br_tgz_writer_ops.open(st, path, &o, err);
	for (size_t i = 0; rc == 0 && i < t->n; i++) {
		br_event ev;
		br_record_decode(t->raw + t->offs[i], false, &ev);
		rc = br_tgz_writer_ops.write(st, &ev, t->raw + t->offs[i],
					     t->offs[i + 1] - t->offs[i], err);
		if (rc == 0 && flush_every && i % flush_every == flush_every - 1)
			rc = br_tgz_writer_ops.flush(st, err);
	}
	int rc2 = br_tgz_writer_ops.close(st, rc ? NULL : err);
	free(st);
	return rc ? rc : rc2;
}

typedef struct readback {
	int rc;                /* last next() result */
	br_error err;
	uint8_t *raw;
	size_t len, n;
	uint64_t first_time;   /* of the first event returned */
	br_input_info info;
	br_damage damage[8];
	size_t ndamage;
} readback;

/* Open path with the compressed source, optionally seek, read everything. */
static readback read_path(const char *path, unsigned threads, bool salvage, bool seek,
			  uint64_t seek_t)
{
	readback rb = { 0 };
	br_input in;
	rb.raw = malloc(64 << 20);
	rb.rc = br_input_open(&in, path, &rb.err);
	if (rb.rc < 0)
		return rb;
	const uint8_t *d;
	ssize_t got = br_input_peek(&in, BR_INPUT_PEEK_MAX, &d, &rb.err);
	if (got < 0 || !br_tgz_probe(d, (size_t)got)) {
		rb.rc = got < 0 ? (int)got : BR_EFORMAT;
		br_input_close(&in);
		return rb;
	}
	br_reader_opts o = { .threads = threads, .salvage = salvage };
	br_source *src;
	rb.rc = br_tgz_source_open(&src, &in, &o, &rb.err);
	if (rb.rc < 0) {
		br_input_close(&in);
		return rb;
	}
	if (seek && src->ops->seek_time)
		cr_assert_eq(src->ops->seek_time(src, seek_t, &rb.err), 0);
	br_event ev;
	while ((rb.rc = src->ops->next(src, &ev, &rb.err)) == 1) {
		if (rb.n == 0)
			rb.first_time = ev.time;
		br_record_encode(&ev, rb.raw + rb.len);
		if (ev.pdu_len)
			memcpy(rb.raw + rb.len + 48, ev.pdu, ev.pdu_len);
		rb.len += 48 + ev.pdu_len;
		rb.n++;
	}
	src->ops->info(src, &rb.info);
	rb.ndamage = rb.info.ndamage < 8 ? rb.info.ndamage : 8;
	for (size_t i = 0; i < rb.ndamage; i++)
		rb.damage[i] = rb.info.damage[i];
	src->ops->close(src);
	return rb;
}

/* Member offsets and headers of a file we wrote (walks BC sizes). */
typedef struct member_map {
	size_t n;
	int64_t off[4096];
	tgz_hdr hdr[4096];
} member_map;

static member_map *map_members(const uint8_t *f, size_t len)
{
	member_map *m = calloc(1, sizeof *m);
	size_t pos = 0, need;
	const char *why;
	while (pos < len && m->n < 4096) {
		tgz_hdr h;
		cr_assert_gt(tgz_header_parse(f + pos, len - pos, &h, &need, &why), 0);
		m->off[m->n] = (int64_t)pos;
		m->hdr[m->n++] = h;
		pos += h.member_size;
	}
	cr_assert_eq(pos, len);
	return m;
}


TestSuite(tgz, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

/* ---- round trips --------------------------------------------------------- */

static const struct rt_case {
	size_t n;
	unsigned wthreads, rthreads;
	int level;
	size_t flush_every;
} rt_cases[] = {
	{ 0, 1, 1, 6, 0 },
	{ 1, 1, 1, 6, 0 },
	{ 5000, 1, 1, 6, 0 },
	{ 5000, 2, 2, 6, 0 },
	{ 20000, 4, 3, 1, 0 },
	{ 20000, 2, 1, 9, 0 },
	{ 20000, 1, 4, 6, 0 },
	{ 3000, 2, 2, 6, 7 },    /* many small members from flushes */
	{ 3000, 1, 0, 6, 1 },    /* one record per member; 0 = online CPUs */
};

Test(tgz, round_trip)
{
	for (size_t c = 0; c < sizeof rt_cases / sizeof rt_cases[0]; c++) {
		const struct rt_case *k = &rt_cases[c];
		trace t = make_trace(k->n, 1000, (uint32_t)(c + 1));
		const char *f = tu_path("rt.blktrace.gz");
		br_error err;
		cr_assert_eq(write_trace(&t, f, k->wthreads, k->level, k->flush_every, &err), 0,
			     "case %zu: %s", c, err.msg);
		readback rb = read_path(f, k->rthreads, false, false, 0);
		cr_assert_eq(rb.rc, 0, "case %zu: %d %s", c, rb.rc, rb.err.msg);
		cr_assert_eq(rb.n, t.n, "case %zu", c);
		cr_assert_eq(rb.len, t.len, "case %zu", c);
		cr_assert(memcmp(rb.raw, t.raw, t.len) == 0, "case %zu: bytes differ", c);
		cr_assert(rb.info.indexed);
		cr_assert_eq(rb.info.kind, BR_INPUT_COMPRESSED);
		cr_assert_eq(rb.info.raw_bytes, t.len);
		cr_assert_eq(rb.ndamage, 0);

		/* gzip -dc gives the raw stream */
		char *out = NULL;
		size_t olen = 0;
		cr_assert_eq(tu_runf(&out, &olen, NULL, "gzip -dc '%s'", f), 0, "case %zu", c);
		cr_assert_eq(olen, t.len, "case %zu", c);
		cr_assert(olen == 0 || memcmp(out, t.raw, olen) == 0, "case %zu", c);
		free(out);

		/* every member holds whole records and at most 0xff00 bytes */
		size_t flen;
		uint8_t *fb = tu_read_file(f, &flen);
		member_map *m = map_members(fb, flen);
		uint64_t recs = 0;
		for (size_t i = 0; i < m->n; i++) {
			bool unsup;
			cr_assert_null(tgz_hdr_check(&m->hdr[i], &unsup));
			cr_assert_leq(m->hdr[i].meta.usize, 0xff00);
			cr_assert_eq(m->hdr[i].meta.record_base, recs);
			recs += m->hdr[i].meta.records;
		}
		cr_assert_eq(recs, t.n);
		cr_assert(m->hdr[m->n - 1].meta.flags & TGZ_FLAG_EOF);
		cr_assert_eq(m->hdr[m->n - 1].member_size, TGZ_EOF_LEN);
		free(m);
		free(fb);
		free(rb.raw);
		free_trace(&t);
	}
}

Test(tgz, writer_rejects_time_going_back)
{
	const char *f = tu_path("order.gz");
	void *st = calloc(1, br_tgz_writer_ops.state_size);
	br_error err;
	br_writer_opts o = { 0 };
	cr_assert_eq(br_tgz_writer_ops.open(st, f, &o, &err), 0);
	uint8_t raw[48];
	br_event ev = { .time = 5000, .action = BLK_TC_ACT(BLK_TC_READ) | __BLK_TA_QUEUE };
	br_record_encode(&ev, raw);
	cr_assert_eq(br_tgz_writer_ops.write(st, &ev, raw, 48, &err), 0);
	ev.time = 4000;
	br_record_encode(&ev, raw);
	cr_assert_eq(br_tgz_writer_ops.write(st, &ev, raw, 48, &err), BR_EORDER);
	cr_assert(strstr(err.msg, "4000") && strstr(err.msg, "5000"), "%s", err.msg);
	cr_assert_eq(br_tgz_writer_ops.close(st, &err), 0);
	free(st);
	readback rb = read_path(f, 1, false, false, 0);
	cr_assert_eq(rb.rc, 0);
	cr_assert_eq(rb.n, 1);
	free(rb.raw);
}

Test(tgz, flush_leaves_a_readable_prefix)
{
	trace t = make_trace(4000, 1000, 7);
	const char *f = tu_path("live.gz");
	void *st = calloc(1, br_tgz_writer_ops.state_size);
	br_error err;
	br_writer_opts o = { .threads = 2 };
	cr_assert_eq(br_tgz_writer_ops.open(st, f, &o, &err), 0);
	for (size_t i = 0; i < 2500; i++) {
		br_event ev;
		br_record_decode(t.raw + t.offs[i], false, &ev);
		cr_assert_eq(br_tgz_writer_ops.write(st, &ev, t.raw + t.offs[i],
						     t.offs[i + 1] - t.offs[i], &err), 0);
	}
	cr_assert_eq(br_tgz_writer_ops.flush(st, &err), 0);
	/* the file now lacks only the end-of-file member */
	char *out = NULL;
	size_t olen = 0;
	cr_assert_eq(tu_runf(&out, &olen, NULL, "gzip -dc '%s'", f), 0);
	cr_assert_eq(olen, t.offs[2500]);
	cr_assert(memcmp(out, t.raw, olen) == 0);
	free(out);
	readback rb = read_path(f, 2, false, false, 0);
	cr_assert_eq(rb.rc, BR_ETRUNC, "%d %s", rb.rc, rb.err.msg);
	cr_assert_eq(rb.n, 2500);
	free(rb.raw);
	cr_assert_eq(br_tgz_writer_ops.close(st, &err), 0);
	free(st);
	free_trace(&t);
}

/* ---- a writer killed mid-file --------------------------------------------- */

/* In a child: write t through the compressed writer with 2 threads, never
 * closing it. stop_after > 0: SIGKILL ourselves after that many events, with
 * members still being compressed. 0: write slowly until killed from outside. */
static void child_write_until_killed(const trace *t, const char *path, size_t stop_after)
{
	void *st = calloc(1, br_tgz_writer_ops.state_size);
	br_error err;
	br_writer_opts o = { .threads = 2 };
	if (!st || br_tgz_writer_ops.open(st, path, &o, &err))
		_exit(3);
	for (size_t i = 0; i < t->n; i++) {
		if (stop_after && i == stop_after)
			raise(SIGKILL);
		if (!stop_after && i % 256 == 0)
			usleep(200);
		br_event ev;
		br_record_decode(t->raw + t->offs[i], false, &ev);
		if (br_tgz_writer_ops.write(st, &ev, t->raw + t->offs[i],
					    t->offs[i + 1] - t->offs[i], &err))
			_exit(4);
	}
	for (;;)
		pause(); /* all written, never closed: the kill still comes mid-file */
}

/* What a killed writer left must read back, by us and by gzip, as an exact
 * prefix of what it was given, cut at a member boundary. Returns the
 * records we read. */
static size_t check_killed_prefix(const trace *t, const char *f)
{
	readback rb = read_path(f, 2, false, false, 0);
	cr_assert_eq(rb.rc, BR_ETRUNC, "%d %s", rb.rc, rb.err.msg);
	cr_assert_leq(rb.len, t->len);
	cr_assert(memcmp(rb.raw, t->raw, rb.len) == 0, "records read back differ");
	cr_assert_eq(rb.len, t->offs[rb.n], "the prefix ends inside a record");
	size_t n = rb.n;
	free(rb.raw);
	/* salvage reads the same records and names the cut */
	rb = read_path(f, 2, true, false, 0);
	cr_assert_eq(rb.rc, 0, "%s", rb.err.msg);
	cr_assert_eq(rb.n, n);
	free(rb.raw);
	/* gzip reads every whole member (and maybe part of a cut one): a prefix */
	char *out = NULL;
	size_t olen = 0;
	tu_runf(&out, &olen, NULL, "gzip -dc '%s' 2>/dev/null", f);
	cr_assert_geq(olen, t->offs[n]);
	cr_assert_leq(olen, t->len);
	cr_assert(olen == 0 || memcmp(out, t->raw, olen) == 0, "gzip's output differs");
	free(out);
	return n;
}

Test(tgz, killed_writer_leaves_a_readable_prefix)
{
	trace t = make_trace(60000, 1000, 21);
	const char *f = tu_path("killed.gz");
	const size_t stop = 50000;
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		child_write_until_killed(&t, f, stop);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
	size_t n = check_killed_prefix(&t, f);
	/* Only the members in the ring can be lost: 2 x 2 + 1 submitted and the
	 * one filling, each at most 0xff00 bytes of records. */
	cr_assert_geq(t.offs[n] + 6 * (size_t)TGZ_PAYLOAD_MAX, t.offs[stop],
		      "only %zu of %zu records survived", n, stop);
	free_trace(&t);
}

Test(tgz, writer_killed_from_outside_leaves_a_readable_prefix)
{
	trace t = make_trace(200000, 1000, 22);
	const char *f = tu_path("killed2.gz");
	for (int round = 0; round < 3; round++) {
		unlink(f);
		pid_t pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0)
			child_write_until_killed(&t, f, 0);
		/* kill at a different point each round: after 64, 300, 900 KiB */
		off_t want = (off_t)(64 << 10) * (1 + round * round * 3 + round);
		struct stat sb;
		for (int i = 0; i < 20000 && (stat(f, &sb) < 0 || sb.st_size < want); i++)
			usleep(500);
		kill(pid, SIGKILL);
		int status;
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			  "round %d: the writer ended on its own (status %d)", round, status);
		cr_assert_gt(check_killed_prefix(&t, f), 0, "round %d", round);
	}
	free_trace(&t);
}

/* ---- seeking ------------------------------------------------------------- */

static void check_seek(bool pipe_input, unsigned threads)
{
	trace t = make_trace(60000, 1000, 3);
	const char *f = tu_path("seek.gz");
	br_error err;
	cr_assert_eq(write_trace(&t, f, 2, 6, 0, &err), 0, "%s", err.msg);
	size_t flen;
	uint8_t *fb = tu_read_file(f, &flen);
	member_map *m = map_members(fb, flen);
	cr_assert_gt(m->n, 10);
	const size_t targets[] = { 0, 1, 12345, 40000, 59999 };
	for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
		uint64_t want = t.times[targets[k]] + (k == 2 ? 1 : 0);
		size_t first = 0;
		while (first < t.n && t.times[first] < want)
			first++;
		uint64_t skippable = 0;
		for (size_t i = 0; i < m->n; i++)
			if (!(m->hdr[i].meta.flags & TGZ_FLAG_EOF) && m->hdr[i].meta.last_time < want)
				skippable++;
		readback rb;
		if (pipe_input) {
			char cmd[700];
			snprintf(cmd, sizeof cmd, "cat '%s'", f);
			FILE *p = popen(cmd, "r");
			char path[64];
			snprintf(path, sizeof path, "/dev/fd/%d", fileno(p));
			rb = read_path(path, threads, false, true, want);
			pclose(p);
		} else {
			rb = read_path(f, threads, false, true, want);
		}
		cr_assert_eq(rb.rc, 0, "%s", rb.err.msg);
		cr_assert_eq(rb.info.members_skipped, skippable, "target %zu", targets[k]);
		/* what comes out: notify records before the target may appear, the
		 * rest is exactly the stream from the first event >= want */
		uint8_t *p = rb.raw;
		size_t left = rb.len;
		while (left) {
			br_event ev;
			br_record_decode(p, false, &ev);
			if (ev.time >= want)
				break;
			cr_assert(br_event_is_notify(&ev));
			p += 48 + ev.pdu_len;
			left -= 48 + ev.pdu_len;
		}
		cr_assert_eq(left, t.len - t.offs[first], "target %zu", targets[k]);
		cr_assert(memcmp(p, t.raw + t.offs[first], left) == 0);
		free(rb.raw);
	}
	free(m);
	free(fb);
	free_trace(&t);
}

Test(tgz, seek_time_file_inline) { check_seek(false, 1); }
Test(tgz, seek_time_file_threads) { check_seek(false, 3); }
Test(tgz, seek_time_pipe) { check_seek(true, 2); }

Test(tgz, first_time_from_header)
{
	trace t = make_trace(100, 1000, 9);
	const char *f = tu_path("ft.gz");
	cr_assert_eq(write_trace(&t, f, 1, 6, 0, NULL), 0);
	br_input in;
	br_error err;
	cr_assert_eq(br_input_open(&in, f, &err), 0);
	br_source *src;
	cr_assert_eq(br_tgz_source_open(&src, &in, NULL, &err), 0);
	cr_assert_eq(src->ops->first_time(src), (int64_t)t.times[0]);
	src->ops->close(src);
	free_trace(&t);
}

/* ---- damage -------------------------------------------------------------- */

/* Write a trace, let edit() change the bytes, read it back. */
typedef struct damaged {
	trace t;
	uint8_t *f;
	size_t flen;
	member_map *m;
} damaged;

static damaged make_damaged(size_t n)
{
	damaged d;
	d.t = make_trace(n, 1000, 11);
	const char *f = tu_path("dmg.gz");
	cr_assert_eq(write_trace(&d.t, f, 2, 6, 0, NULL), 0);
	d.f = tu_read_file(f, &d.flen);
	d.m = map_members(d.f, d.flen);
	return d;
}

static readback read_bytes(const uint8_t *b, size_t len, unsigned threads, bool salvage)
{
	const char *f = tu_path("edited.gz");
	cr_assert_eq(tu_write_file(f, b, len), 0);
	return read_path(f, threads, salvage, false, 0);
}

static void free_damaged(damaged *d)
{
	free(d->f);
	free(d->m);
	free_trace(&d->t);
}

Test(tgz, flipped_byte_in_middle_member)
{
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		damaged d = make_damaged(20000);
		size_t k = d.m->n / 2;
		const tgz_hdr *h = &d.m->hdr[k];
		d.f[d.m->off[k] + h->hdr_len + 100] ^= 0x10;
		readback rb = read_bytes(d.f, d.flen, threads, false);
		cr_assert_eq(rb.rc, BR_ECORRUPT, "%d %s", rb.rc, rb.err.msg);
		cr_assert_eq(rb.err.offset, d.m->off[k]);
		char range[80];
		snprintf(range, sizeof range, "%llu..%llu ns",
			 (unsigned long long)h->meta.first_time, (unsigned long long)h->meta.last_time);
		cr_assert(strstr(rb.err.msg, range), "%s", rb.err.msg);
		cr_assert(strstr(rb.err.file, "edited.gz"));
		cr_assert_eq(rb.n, h->meta.record_base, "records before the damage all came out");
		free(rb.raw);

		rb = read_bytes(d.f, d.flen, threads, true);
		cr_assert_eq(rb.rc, 0, "%s", rb.err.msg);
		cr_assert_eq(rb.ndamage, 1);
		cr_assert_eq(rb.damage[0].offset, d.m->off[k]);
		cr_assert_eq(rb.damage[0].length, h->member_size);
		cr_assert(rb.damage[0].range_known);
		cr_assert_eq(rb.damage[0].records, h->meta.records);
		cr_assert_eq(rb.damage[0].first_time, h->meta.first_time);
		cr_assert_eq(rb.damage[0].last_time, h->meta.last_time);
		cr_assert_eq(rb.n, d.t.n - h->meta.records);
		/* everything but the lost member, byte for byte */
		size_t lo = d.t.offs[h->meta.record_base];
		size_t hi = d.t.offs[h->meta.record_base + h->meta.records];
		cr_assert_eq(rb.len, d.t.len - (hi - lo));
		cr_assert(memcmp(rb.raw, d.t.raw, lo) == 0);
		cr_assert(memcmp(rb.raw + lo, d.t.raw + hi, d.t.len - hi) == 0);
		free(rb.raw);
		free_damaged(&d);
	}
}

Test(tgz, damaged_header_resyncs)
{
	damaged d = make_damaged(20000);
	size_t k = 3;
	const tgz_hdr *h = &d.m->hdr[k];
	d.f[d.m->off[k] + 30] ^= 0x01; /* inside BR: FHCRC catches it */
	readback rb = read_bytes(d.f, d.flen, 2, false);
	cr_assert_eq(rb.rc, BR_ECORRUPT, "%s", rb.err.msg);
	cr_assert_eq(rb.err.offset, d.m->off[k]);
	free(rb.raw);
	rb = read_bytes(d.f, d.flen, 2, true);
	cr_assert_eq(rb.rc, 0, "%s", rb.err.msg);
	cr_assert_eq(rb.ndamage, 1);
	cr_assert_eq(rb.damage[0].offset, d.m->off[k]);
	cr_assert_eq(rb.damage[0].length, h->member_size);
	cr_assert(!rb.damage[0].range_known);
	cr_assert_eq(rb.damage[0].records, h->meta.records); /* from record_base */
	cr_assert_eq(rb.n, d.t.n - h->meta.records);
	free(rb.raw);
	free_damaged(&d);
}

Test(tgz, truncations)
{
	damaged d = make_damaged(20000);
	size_t k = d.m->n / 2;
	/* cut in the middle of a member */
	size_t cut = (size_t)d.m->off[k] + d.m->hdr[k].member_size / 2;
	readback rb = read_bytes(d.f, cut, 2, false);
	cr_assert_eq(rb.rc, BR_ETRUNC, "%s", rb.err.msg);
	cr_assert_eq(rb.err.offset, d.m->off[k]);
	cr_assert_eq(rb.n, d.m->hdr[k].meta.record_base);
	free(rb.raw);
	rb = read_bytes(d.f, cut, 2, true);
	cr_assert_eq(rb.rc, 0);
	cr_assert_eq(rb.ndamage, 1);
	cr_assert_eq(rb.damage[0].records, d.m->hdr[k].meta.records);
	free(rb.raw);
	/* cut inside a header */
	rb = read_bytes(d.f, (size_t)d.m->off[k] + 20, 1, false);
	cr_assert_eq(rb.rc, BR_ETRUNC, "%s", rb.err.msg);
	cr_assert_eq(rb.err.offset, d.m->off[k]);
	free(rb.raw);
	/* the end-of-file member missing */
	rb = read_bytes(d.f, d.flen - TGZ_EOF_LEN, 2, false);
	cr_assert_eq(rb.rc, BR_ETRUNC, "%s", rb.err.msg);
	cr_assert_eq(rb.err.offset, (int64_t)(d.flen - TGZ_EOF_LEN));
	cr_assert_eq(rb.n, d.t.n);
	free(rb.raw);
	rb = read_bytes(d.f, d.flen - TGZ_EOF_LEN, 2, true);
	cr_assert_eq(rb.rc, 0);
	cr_assert_eq(rb.ndamage, 1);
	cr_assert_eq(rb.n, d.t.n);
	free(rb.raw);
	free_damaged(&d);
}

Test(tgz, hostile_headers)
{
	damaged d = make_damaged(3000);
	size_t k = 1;
	int64_t o = d.m->off[k];
	static const struct {
		size_t at;
		uint8_t val;
	} edits[] = {
		{ 10, 0xff }, { 11, 0xff },   /* absurd XLEN */
		{ 16, 0xff }, { 17, 0xff },   /* absurd BC size */
		{ 16, 0x00 }, { 17, 0x00 },   /* BC size 1 */
		{ 20, 0x7f },                 /* BR LEN */
		{ 3, 0xff },                  /* reserved flags */
		{ 2, 0x07 },                  /* compression method */
	};
	for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
		uint8_t *b = malloc(d.flen);
		memcpy(b, d.f, d.flen);
		b[o + (int64_t)edits[e].at] = edits[e].val;
		readback rb = read_bytes(b, d.flen, 2, false);
		cr_assert_lt(rb.rc, 0, "edit %zu", e);
		cr_assert_eq(rb.err.offset, o, "edit %zu: %s", e, rb.err.msg);
		free(rb.raw);
		rb = read_bytes(b, d.flen, 2, true);
		cr_assert_eq(rb.rc, 0, "edit %zu: %s", e, rb.err.msg);
		cr_assert_eq(rb.n, d.t.n - d.m->hdr[k].meta.records, "edit %zu: n %zu ndamage %zu off %lld len %lld", e, rb.n, rb.ndamage, (long long)rb.damage[0].offset, (long long)rb.damage[0].length);
		free(rb.raw);
		free(b);
	}
	free_damaged(&d);
}

Test(tgz, garbage_never_crashes)
{
	uint32_t s = 77;
	uint8_t *b = malloc(200000);
	for (int round = 0; round < 30; round++) {
		size_t len = rnd(&s) % 200000;
		for (size_t i = 0; i < len; i++)
			b[i] = (uint8_t)rnd(&s);
		if (len >= 4) {
			/* a gzip magic with FEXTRA + BC so it is taken for ours */
			memcpy(b, "\x1f\x8b\x08\x06\0\0\0\0\0\x03\x2e\x00" "BC\x02\x00", 16);
		}
		readback rb = read_bytes(b, len, round % 3 + 1, round % 2);
		cr_assert_leq(rb.rc, 0);
		free(rb.raw);
	}
	free(b);
}

Test(tgz, empty_and_wrong_magic)
{
	readback rb = read_bytes((const uint8_t *)"", 0, 1, false);
	cr_assert_lt(rb.rc, 0);
	free(rb.raw);
	rb = read_bytes((const uint8_t *)"hello world, not gzip", 21, 1, false);
	cr_assert_lt(rb.rc, 0);
	free(rb.raw);
	br_input in;
	br_error err;
	const char *f = tu_path("edited.gz");
	cr_assert_eq(br_input_open(&in, f, &err), 0);
	br_source *src;
	cr_assert_eq(br_tgz_source_open(&src, &in, NULL, &err), BR_EFORMAT);
	br_input_close(&in);
}

/* ---- plain gzip ---------------------------------------------------------- */

Test(tgz, plain_gzip)
{
	trace t = make_trace(30000, 1000, 5);
	const char *raw = tu_path("run.blktrace.0");
	cr_assert_eq(tu_write_file(raw, t.raw, t.len), 0);
	/* one member, then two members concatenated */
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "gzip -c '%s' > '%s.gz'", raw, raw), 0);
	readback rb = read_path(tu_path("run.blktrace.0.gz"), 2, false, false, 0);
	cr_assert_eq(rb.rc, 0, "%s", rb.err.msg);
	cr_assert(!rb.info.indexed);
	cr_assert_eq(rb.len, t.len);
	cr_assert(memcmp(rb.raw, t.raw, t.len) == 0);
	free(rb.raw);
	cr_assert_eq(tu_runf(NULL, NULL, NULL,
			     "head -c %zu '%s' | gzip -c > '%s/two.gz' && tail -c +%zu '%s' | gzip -c >> '%s/two.gz'",
			     t.offs[1000], raw, tu_dir, t.offs[1000] + 1, raw, tu_dir), 0);
	rb = read_path(tu_path("two.gz"), 1, false, false, 0);
	cr_assert_eq(rb.rc, 0, "%s", rb.err.msg);
	cr_assert_eq(rb.len, t.len);
	cr_assert(memcmp(rb.raw, t.raw, t.len) == 0);
	free(rb.raw);
	/* truncated plain gzip is an error, not a silent prefix */
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "head -c 5000 '%s.gz' > '%s/cut.gz'", raw, tu_dir), 0);
	rb = read_path(tu_path("cut.gz"), 1, false, false, 0);
	cr_assert_eq(rb.rc, BR_ETRUNC, "%d %s", rb.rc, rb.err.msg);
	free(rb.raw);
	free_trace(&t);
}

/* ---- each way a member's data can be wrong has its own message ------------ */

/* One member around the given deflate data and trailer, then the
 * end-of-file member; meta describes the trace t's records. */
static size_t build_member(uint8_t *out, const trace *t, const uint8_t *dfl, size_t dlen,
			   uint32_t crc, uint32_t isize)
{
	tgz_meta m = { .version = TGZ_VERSION, .records = (uint32_t)t->n, .usize = (uint32_t)t->len,
		       .first_time = t->times[0], .last_time = t->times[t->n - 1] };
	size_t size = TGZ_HEADER_LEN + dlen + TGZ_TRAILER_LEN;
	tgz_header_build(out, &m, (uint32_t)size);
	memcpy(out + TGZ_HEADER_LEN, dfl, dlen);
	tgz_put32(out + TGZ_HEADER_LEN + dlen, crc);
	tgz_put32(out + TGZ_HEADER_LEN + dlen + 4, isize);
	tgz_eof_build(out + size, m.last_time, m.records, false);
	return size + TGZ_EOF_LEN;
}

/* Raw deflate of in with zlib (an independent encoder). */
static size_t zdeflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream zs = { 0 };
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t len = zs.total_out;
	deflateEnd(&zs);
	return len;
}

static void expect_member_error(const uint8_t *file, size_t len, const char *needle)
{
	for (unsigned threads = 1; threads <= 2; threads++) {
		readback rb = read_bytes(file, len, threads, false);
		cr_expect_eq(rb.rc, BR_ECORRUPT, "%s: rc %d (%s)", needle, rb.rc, rb.err.msg);
		cr_expect(strstr(rb.err.msg, needle), "'%s' not in: %s", needle, rb.err.msg);
		cr_expect(strstr(rb.err.msg, "member 0 is damaged"), "%s", rb.err.msg);
		cr_expect_eq(rb.err.offset, 0);
		cr_expect_eq(rb.n, 0, "%s: no record of the damaged member comes out", needle);
		free(rb.raw);
	}
}

Test(tgz, member_data_failures_are_named)
{
	trace t = make_trace(60, 1000, 5);
	cr_assert(t.len < TGZ_PAYLOAD_MAX);
	uint8_t *dfl = malloc(2 * TGZ_MEMBER_MAX), *file = malloc(3 * TGZ_MEMBER_MAX);
	size_t dlen = zdeflate(t.raw, t.len, dfl, 2 * TGZ_MEMBER_MAX);
	uint32_t crc = (uint32_t)crc32(0, t.raw, (uInt)t.len);

	/* intact, to show the pieces are right */
	size_t n = build_member(file, &t, dfl, dlen, crc, (uint32_t)t.len);
	readback rb = read_bytes(file, n, 1, false);
	cr_assert_eq(rb.rc, 0, "%s", rb.err.msg);
	cr_assert_eq(rb.n, t.n);
	cr_assert(rb.len == t.len && memcmp(rb.raw, t.raw, t.len) == 0);
	free(rb.raw);

	n = build_member(file, &t, dfl, dlen, crc ^ 1, (uint32_t)t.len);
	expect_member_error(file, n, "CRC-32 mismatch");
	n = build_member(file, &t, dfl, dlen, crc, (uint32_t)t.len + 1);
	expect_member_error(file, n, "size mismatch");
	/* deflate data followed by bytes that belong to nothing */
	memcpy(dfl + dlen, "xyz", 3);
	n = build_member(file, &t, dfl, dlen + 3, crc, (uint32_t)t.len);
	expect_member_error(file, n, "3 stray bytes");
	/* cut short, and garbage */
	n = build_member(file, &t, dfl, dlen / 2, crc, (uint32_t)t.len);
	expect_member_error(file, n, "deflate data is corrupt or ends early");
	memset(dfl, 0xff, dlen);
	n = build_member(file, &t, dfl, dlen, crc, (uint32_t)t.len);
	expect_member_error(file, n, "deflate data is corrupt or ends early");
	/* more than a member may hold: 64 KiB of zeros deflate to little */
	uint8_t *zeros = calloc(TGZ_MEMBER_MAX, 1);
	dlen = zdeflate(zeros, TGZ_MEMBER_MAX, dfl, 2 * TGZ_MEMBER_MAX);
	n = build_member(file, &t, dfl, dlen, crc, (uint32_t)t.len);
	expect_member_error(file, n, "inflates past 0xff00 bytes");
	free(zeros);
	free(dfl);
	free(file);
	free_trace(&t);
}
