/* test_raw_spool.c — the bpf capture's raw spool against the live path.
 *
 * The same ring records (staged and interrupted "direct" batches of every
 * record kind, several pids, one without a name, a CPU that goes quiet and
 * comes back beyond the reorder window, idle rounds) go once through the
 * live path (decoder -> sink -> event spool -> replay) and once through the
 * raw spool (frames while "tracing", converted after), with the drains at
 * the same times: the two outputs must be byte-identical, with the same
 * counts, late events included. Then a spool cut short (kill -9) converts
 * to a prefix, and damaged spools (wrong magic, truncated header, garbage,
 * absurd lengths, a bad record) fail with the file and byte offset. A
 * flight ring of raw files (--flight with bpf) gives the same events as
 * one spool, and a window cut from its middle names every process. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/reader.h"
#include "testutil.h"

/* capture/ is a tool: its modules come from its internal archive, through its headers */
#include "../../capture/backends/bpf/capture_record.h"
#include "../../capture/backends/bpf_decode.h"
#include "../../capture/spool/merge.h"
#include "../../capture/spool/names.h"
#include "../../capture/spool/raw_convert.h"
#include "../../capture/spool/raw_spool.h"
#include "../../capture/spool/rotate.h"
#include "../../capture/spool/sink.h"
#include "../../capture/spool/spool.h"
#include "../../capture/spool/spool_writer.h"

TestSuite(raw_spool, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 60);

#define NCPU 2
#define NDEV 2
/* pids above PID_MAX_LIMIT (4194304): /proc never has them, so names come
 * only from the backend's table, as for processes that exited */
#define PID0 4200001u
static const uint32_t devs[NDEV] = { (7u << 20) | 0, (7u << 20) | 1 };

static bool fake_comm(void *st, uint32_t pid, char *name, size_t size)
{
	(void)st;
	if (pid < PID0 || pid >= PID0 + 4) /* PID0 + 4: never named */
		return false;
	snprintf(name, size, "proc-%u", pid - PID0);
	return true;
}

/* One ring record: a batch header and its events. */
typedef struct ring_rec {
	uint8_t data[8 + 64 * 48];
	size_t size;
} ring_rec;

typedef struct round {
	ring_rec recs[8];
	unsigned nrec;
	uint8_t flushed[NCPU];
	uint64_t now;
} round;

typedef struct script {
	round r[64];
	unsigned n;
	uint64_t end_now;
} script;

static void add_event(ring_rec *rr, unsigned kind, unsigned cpu, uint64_t time, uint32_t pid, unsigned k)
{
	struct bcr_batch b;
	memcpy(&b, rr->data, sizeof b);
	struct bcr_event_ext x;
	memset(&x, 0, sizeof x);
	x.e.time = time;
	x.e.sector = 1000 + 8 * k;
	x.e.bytes = 4096;
	x.e.pid = pid;
	x.e.cats = (uint16_t)(1u << (k % 3)); /* READ, WRITE, FLUSH bits in turn */
	x.e.kind = (uint8_t)kind;
	x.e.status = (uint8_t)(kind == BCR_COMPLETE ? k % 20 : 0);
	x.e.dev = (uint8_t)(k % NDEV);
	x.e.cpu = (uint16_t)cpu;
	x.value = 77777 + k;
	x.old_dev = 0x800001;
	size_t rs = bpf_record_size(kind);
	memcpy(rr->data + 8 + b.len, &x, rs);
	b.len += (uint32_t)rs;
	b.nrec++;
	memcpy(rr->data, &b, sizeof b);
	rr->size = 8 + b.len;
}

static ring_rec *new_rec(round *r, unsigned how)
{
	ring_rec *rr = &r->recs[r->nrec++];
	memset(rr, 0, sizeof *rr);
	struct bcr_batch b = { .how = (uint8_t)how };
	memcpy(rr->data, &b, sizeof b);
	rr->size = 8;
	return rr;
}

/* 40 rounds of 20 ms: both CPUs busy, every 5th round an interrupted
 * append (a direct record older than the staged ones after it), rounds
 * 12-14 idle, CPU 1 quiet from round 20 and its events of then delivered
 * at round 34 (late beyond the 500 ms window). */
/* Record idx of a ring record (records are 32 or 48 bytes by kind). */
static struct bcr_event *record_at(ring_rec *rr, unsigned idx)
{
	uint8_t *p = rr->data + sizeof(struct bcr_batch);
	for (unsigned i = 0; i < idx; i++)
		p += bpf_record_size(((struct bcr_event *)p)->kind);
	return (struct bcr_event *)p;
}

/* A record the walk skips: of an unknown kind, or (a 48-byte record, whose
 * size a 32-byte kind would change, and with it the framing of the rest)
 * of a device not configured. */
static void unknown_kind(struct bcr_event *x, unsigned kind)
{
	if (bcr_has_payload(x->kind))
		x->dev = NDEV + 1;
	else
		x->kind = (uint8_t)kind;
}

static void build(script *s, bool bad_records)
{
	memset(s, 0, sizeof *s);
	uint64_t t0 = 1000000000ull, wall0 = 5000000000ull;
	unsigned k = 0;
	static ring_rec late_rec;
	ring_rec *held1 = NULL;
	for (unsigned i = 0; i < 40; i++) {
		round *r = &s->r[s->n++];
		r->now = wall0 + i * 20000000ull;
		r->flushed[0] = r->flushed[1] = (uint8_t)(i % 3 != 1);
		if (i >= 12 && i <= 14)
			continue;
		if (i == 34 && held1) /* CPU 1's delayed events, ahead of its newer ones */
			r->recs[r->nrec++] = *held1;
		for (unsigned cpu = 0; cpu < NCPU; cpu++) {
			uint64_t t = t0 + i * 60000000ull + cpu * 3000; /* event time runs 3x the wall */
			if (cpu == 1 && i >= 20 && i < 34) {
				/* quiet: CPU 1's events of these rounds come at round 34 */
				if (!held1) {
					held1 = &late_rec;
					memset(held1, 0, sizeof *held1);
					held1->size = 8; /* a staged batch header, filled by add_event */
				}
				if (held1->size + 10 * 48 < sizeof held1->data)
					for (unsigned e = 0; e < 3; e++, k++)
						add_event(held1, k % BCR_NKINDS, 1, t + e * 1000, PID0 + k % 6, k);
				continue;
			}
			if (i % 5 == 2) { /* a direct record older than the staged ones after it */
				ring_rec *d = new_rec(r, BCR_BATCH_DIRECT);
				add_event(d, BCR_ISSUE, cpu, t + 500, PID0 + 5, k++);
			}
			ring_rec *rr = new_rec(r, BCR_BATCH_STAGED);
			for (unsigned e = 0; e < 12; e++, k++)
				add_event(rr, k % BCR_NKINDS, cpu, t + e * 1000,
					  e == 11 ? 0 : PID0 + k % 6, k);
			/* records the walk rejects, mid-batch: skipped ones (an unknown
			 * kind, a device not configured; with a time that would release
			 * held records early if it were used) and ones that end the
			 * batch (a CPU out of range) */
			if (bad_records && i % 4 == 1) {
				unknown_kind(record_at(rr, 3 + i % 5), BCR_NKINDS + i % 7);
				record_at(rr, 6)->dev = NDEV;
				record_at(rr, 7)->time = t + 20000;
				unknown_kind(record_at(rr, 7), 250);
			}
			if (bad_records && i % 8 == 5)
				record_at(rr, 9)->cpu = NCPU + 3;
			if (bad_records && i % 5 == 2) /* the direct record of this round: a device we do not have */
				record_at(&r->recs[r->nrec - 2], 0)->dev = 200;
			/* a direct record delivered after newer ones: held until a flush
			 * (round 19: CPU 1's last before it goes quiet, so only the
			 * round's flush puts it out in time) */
			if (i % 7 == 3 || (cpu == 1 && i == 19)) {
				ring_rec *d = new_rec(r, BCR_BATCH_DIRECT);
				add_event(d, BCR_COMPLETE, cpu, t + 11 * 1000 + 10, PID0 + 1, k++);
			}
		}
	}
	s->end_now = wall0 + 41 * 20000000ull;
}

static const char *drops_note = "blkreel: drops cpu0=0 cpu1=0 (backend bpf)";

static cap_config test_cfg(void)
{
	cap_config c;
	memset(&c, 0, sizeof c);
	c.ncpu = NCPU;
	c.ndevices = NDEV;
	c.act_mask = 0xffff;
	for (unsigned i = 0; i < NDEV; i++)
		c.devices[i].dev = devs[i];
	return c;
}

static int push_live(void *arg, const br_event *ev, br_error *err)
{
	return cap_sink_push(arg, ev, NULL, err);
}

/* The live path: what backend_bpf.c and capture_run.c do without a raw spool. */
static void run_live(const script *s, const char *spool_path, const char *out_path, cap_sink_stats *st,
		     unsigned *nbad)
{
	*nbad = 0;
	cap_config cfg = test_cfg();
	br_error err;
	cap_spool *sp;
	cr_assert_eq(cap_spool_open(&sp, spool_path, false, &err), 0, "%s", err.msg);
	cap_sink_opts so = { .cfg = &cfg, .sequence = true, .names = true, .comm = fake_comm, .spool = sp,
			     .window_ns = CAP_REORDER_WINDOW_NS };
	cap_sink *sink;
	cr_assert_eq(cap_sink_new(&sink, &so, &err), 0);
	bpf_decoder *d = bpf_decoder_new(NCPU, devs, NDEV, true);
	cr_assert(d);
	for (unsigned i = 0; i < s->n; i++) {
		const round *r = &s->r[i];
		for (unsigned j = 0; j < r->nrec; j++) {
			bpf_bad bad = { 0 };
			cr_assert_eq(bpf_decode_batch(d, r->recs[j].data, r->recs[j].size, push_live, sink, &bad, &err), 0);
			*nbad += bad.n;
		}
		cr_assert_eq(bpf_decode_round(d, r->now - 1000, r->flushed, false, push_live, sink, &err), 0);
		cr_assert_eq(cap_sink_drain_at(sink, false, r->now, &err), 0, "%s", err.msg);
	}
	uint8_t all[NCPU] = { 1, 1 };
	for (int idle = 0; idle < 3; idle++)
		cr_assert_eq(bpf_decode_round(d, s->end_now, all, true, push_live, sink, &err), 0);
	cr_assert_eq(cap_sink_drain_at(sink, true, s->end_now, &err), 0);
	cr_assert_eq(cap_sink_message(sink, drops_note, &err), 0);
	cap_sink_stats_get(sink, st);
	cap_sink_free(sink);
	bpf_decoder_free(d);
	cr_assert_eq(cap_spool_close(sp, &err), 0);
	br_writer *w;
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, out_path, NULL, &err), 0);
	cr_assert_geq(cap_spool_replay(spool_path, false, &w, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(br_writer_close(w, &err), 0);
}

/* The raw spool's header for the script's CPUs and devices: its length. */
static size_t make_header(uint8_t h[64])
{
	memset(h, 0, 64);
	raw_header rh = { .header_bytes = raw_pad8(sizeof rh + 4 * NDEV), .version = RAW_VERSION, .ncpu = NCPU,
			  .ndevices = NDEV, .flags = RAW_STAGING };
	memcpy(rh.magic, RAW_MAGIC, RAW_MAGIC_LEN);
	memcpy(h, &rh, sizeof rh);
	memcpy(h + sizeof rh, devs, sizeof devs);
	return rh.header_bytes;
}

static void write_header(cap_spool *sp)
{
	uint8_t h[64];
	size_t len = make_header(h);
	br_error err;
	cr_assert_eq(cap_spool_append(sp, h, len, NULL, 0, 0, 0, &err), 0);
}

static int learn_pid(void *arg, const void *rec, size_t size, br_error *err)
{
	(void)size;
	bool named;
	return cap_sink_raw_pid(arg, ((const struct bcr_event *)rec)->pid, &named, err);
}

/* Each ring file's closing note, as the capture's (its drops). */
static void file_note(void *arg, uint64_t cut, char *buf, size_t size)
{
	(void)arg;
	(void)cut;
	snprintf(buf, size, "blkreel: drops cpu0=0 cpu1=0 (backend bpf)");
}

/* The raw path while tracing: what backend_bpf.c's spool_raw and read do
 * with a raw sink, into one spool or (ring) a flight ring's files. */
static unsigned record_raw_to(const script *s, const char *spool_path, cap_rotate *ring, unsigned upto_rounds,
			      bool final)
{
	unsigned nbad = 0;
	static _Alignas(8) uint8_t scratch[BPF_BATCH_MAX];
	cap_config cfg = test_cfg();
	br_error err;
	cap_spool *sp = NULL;
	if (ring) {
		uint8_t h[64];
		size_t len = make_header(h);
		cr_assert_eq(cap_rotate_set_raw_header(ring, h, len, &err), 0, "%s", err.msg);
	} else {
		cr_assert_eq(cap_spool_open(&sp, spool_path, false, &err), 0, "%s", err.msg);
		write_header(sp);
	}
	cap_sink_opts so = { .cfg = &cfg, .sequence = true, .names = true, .comm = fake_comm, .raw = sp,
			     .raw_ring = ring != NULL, .rotate = ring, .window_ns = CAP_REORDER_WINDOW_NS,
			     .file_note = ring ? file_note : NULL };
	cap_sink *sink;
	cr_assert_eq(cap_sink_new(&sink, &so, &err), 0);
	cr_assert(cap_sink_is_raw(sink));
	for (unsigned i = 0; i < s->n && i < upto_rounds; i++) {
		const round *r = &s->r[i];
		for (unsigned j = 0; j < r->nrec; j++) {
			const ring_rec *rr = &r->recs[j];
			bpf_bad bad = { 0 };
			const void *batch;
			size_t kept;
			unsigned nrec;
			cr_assert_eq(bpf_batch_keep(NCPU, NDEV, rr->data, rr->size, scratch, &batch, &kept, &nrec,
						    learn_pid, sink, &bad, &err), 0);
			nbad += bad.n;
			/* a batch with nothing left out goes to the spool as the ring gave it */
			if (bad.n == 0)
				cr_assert_eq(batch, (const void *)rr->data);
			if (kept)
				cr_assert_eq(cap_sink_raw_frame(sink, RAW_BATCH, batch, kept, nrec, &err), 0);
		}
		uint8_t frame[sizeof(raw_round) + NCPU];
		raw_round rr = { .flushed_before = r->now - 1000, .stopped = 0, .ncpu = NCPU };
		memcpy(frame, &rr, sizeof rr);
		memcpy(frame + sizeof rr, r->flushed, NCPU);
		cr_assert_eq(cap_sink_raw_frame(sink, RAW_ROUND, frame, sizeof frame, 0, &err), 0);
		cr_assert_eq(cap_sink_drain_at(sink, false, r->now, &err), 0);
	}
	if (final) {
		for (int idle = 0; idle < 3; idle++) {
			uint8_t frame[sizeof(raw_round) + NCPU];
			raw_round rr = { .flushed_before = s->end_now, .stopped = 1, .ncpu = NCPU };
			memcpy(frame, &rr, sizeof rr);
			memset(frame + sizeof rr, 1, NCPU);
			cr_assert_eq(cap_sink_raw_frame(sink, RAW_ROUND, frame, sizeof frame, 0, &err), 0);
		}
		cr_assert_eq(cap_sink_drain_at(sink, true, s->end_now, &err), 0);
		cr_assert_eq(cap_sink_message(sink, drops_note, &err), 0);
	}
	cap_sink_stats st;
	cap_sink_stats_get(sink, &st);
	cr_expect_gt(st.recorded, 0);
	if (ring)
		cr_expect_geq(st.files, 4, "the ring started %u files: too few seams to test", st.files);
	cap_sink_free(sink);
	if (sp)
		cr_assert_eq(cap_spool_close(sp, &err), 0);
	return nbad;
}

static unsigned record_raw(const script *s, const char *spool_path, unsigned upto_rounds, bool final)
{
	return record_raw_to(s, spool_path, NULL, upto_rounds, final);
}

static int64_t convert_to(const char *spool_path, const char *out_path, cap_sink_stats *st, br_error *err)
{
	br_writer *w;
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, out_path, NULL, err), 0);
	int64_t got = cap_raw_convert(spool_path, false, &w, 1, st, err);
	br_error ce;
	cr_assert_eq(br_writer_close(w, &ce), 0);
	return got;
}

static void live_and_raw_agree(bool bad_records)
{
	static script s;
	build(&s, bad_records);
	cap_sink_stats live, raw;
	unsigned live_bad, raw_bad;
	run_live(&s, tu_path("live.spool"), tu_path("live.bin"), &live, &live_bad);
	raw_bad = record_raw(&s, tu_path("raw.spool"), s.n, true);
	cr_expect_eq(raw_bad, live_bad, "bad records: raw %u, live %u", raw_bad, live_bad);
	if (bad_records)
		cr_expect_geq(live_bad, 20, "%u bad records: the script does not test them", live_bad);
	else
		cr_expect_eq(live_bad, 0);
	cr_assert(cap_raw_spool_is(tu_path("raw.spool")));
	cr_assert_not(cap_raw_spool_is(tu_path("live.spool")));
	br_error err;
	int64_t got = convert_to(tu_path("raw.spool"), tu_path("raw.bin"), &raw, &err);
	char msg[1200];
	cr_assert_geq(got, 0, "%s", br_error_format(&err, msg, sizeof msg));

	size_t la, ra;
	uint8_t *a = tu_read_file(tu_path("live.bin"), &la), *b = tu_read_file(tu_path("raw.bin"), &ra);
	cr_assert(a && b);
	cr_expect_gt(la, 500 * 48, "the script made too few events (%zu bytes): test is void", la);
	cr_expect_eq(la, ra, "live %zu bytes, raw %zu bytes", la, ra);
	size_t first = 0;
	while (first < la && first < ra && a[first] == b[first])
		first++;
	cr_expect(la == ra && first == la, "outputs differ from byte %zu", first);
	cr_expect_eq(raw.written, live.written);
	cr_expect_eq((uint64_t)got, live.written);
	cr_expect_eq(raw.names, live.names, "names: raw %llu, live %llu", (unsigned long long)raw.names,
		     (unsigned long long)live.names);
	cr_expect_geq(live.names, 5, "pid 0 and four named pids: %llu names", (unsigned long long)live.names);
	/* the quiet CPU's delayed events came beyond the window on both paths alike */
	cr_expect_gt(live.late, 0, "no late event: the script does not test late accounting");
	cr_expect_eq(raw.late, live.late, "late: raw %llu, live %llu", (unsigned long long)raw.late,
		     (unsigned long long)live.late);
	free(a);
	free(b);
}

Test(raw_spool, converts_to_exactly_what_the_live_path_writes)
{
	live_and_raw_agree(false);
}

/* Records that fail the walk's check mid-batch: both paths keep the good
 * records around them (the ones before a record that ends the batch) and
 * count the same bad ones. */
Test(raw_spool, bad_records_mid_batch_are_left_out_alike_and_counted)
{
	live_and_raw_agree(true);
	/* and the good records of such a batch are there: fewer than the
	 * clean script's events by no more than the bad records and the
	 * records after a batch-ending one */
	static script clean;
	build(&clean, false);
	cap_sink_stats st_clean, st_bad;
	unsigned nb;
	run_live(&clean, tu_path("c.spool"), tu_path("c.bin"), &st_clean, &nb);
	static script bad;
	build(&bad, true);
	run_live(&bad, tu_path("b.spool"), tu_path("b.bin"), &st_bad, &nb);
	cr_expect_lt(st_bad.written, st_clean.written);
	cr_expect_gt(st_bad.written, st_clean.written - 8 * (uint64_t)nb,
		     "%llu events kept of %llu with %u bad records: whole batches were dropped",
		     (unsigned long long)st_bad.written, (unsigned long long)st_clean.written, nb);
}

/* A capture killed mid-write: every whole frame converts, the torn one is dropped,
 * and what the reorder buffer and the held records had is written too. */
Test(raw_spool, a_spool_cut_short_converts_to_a_prefix)
{
	static script s;
	build(&s, false);
	record_raw(&s, tu_path("full.spool"), s.n, false);
	size_t len;
	uint8_t *data = tu_read_file(tu_path("full.spool"), &len);
	cr_assert(data && len > 4096);
	uint64_t prev = 0;
	for (size_t cut = len / 4; cut <= len; cut += len / 4 - 13) {
		cr_assert_eq(tu_write_file(tu_path("cut.spool"), data, cut), 0);
		br_error err;
		cap_sink_stats st;
		int64_t got = convert_to(tu_path("cut.spool"), tu_path("cut.bin"), &st, &err);
		cr_assert_geq(got, 0, "cut at %zu: %s", cut, err.msg);
		cr_expect_geq((uint64_t)got, prev, "cut at %zu: %lld events, fewer than a shorter cut's %llu", cut,
			      (long long)got, (unsigned long long)prev);
		cr_expect_gt(got, 0);
		prev = (uint64_t)got;
		/* the output reads back whole, in time order */
		size_t ol;
		uint8_t *o = tu_read_file(tu_path("cut.bin"), &ol);
		cr_assert(o);
		cr_expect_gt(ol, 0);
		free(o);
	}
	free(data);
}

static void expect_damage(const uint8_t *data, size_t len, const char *what, int64_t want_offset)
{
	cr_assert_eq(tu_write_file(tu_path("bad.spool"), data, len), 0);
	br_error err;
	br_error_clear(&err);
	br_writer *w;
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, tu_path("bad.bin"), NULL, &err), 0);
	int64_t got = cap_raw_convert(tu_path("bad.spool"), false, &w, 1, NULL, &err);
	br_writer_abort(w);
	char msg[1200];
	br_error_format(&err, msg, sizeof msg);
	cr_expect_lt(got, 0, "%s: converted (%lld) instead of failing", what, (long long)got);
	cr_expect_eq(err.code, BR_EFORMAT, "%s: code %d: %s", what, err.code, msg);
	cr_expect(strstr(msg, "bad.spool") != NULL, "%s: the file is not named: %s", what, msg);
	cr_expect_eq(err.offset, want_offset, "%s: offset %lld, want %lld (%s)", what, (long long)err.offset,
		     (long long)want_offset, msg);
}

Test(raw_spool, damaged_spools_fail_with_the_file_and_offset)
{
	static script s;
	build(&s, false);
	record_raw(&s, tu_path("good.spool"), 6, true);
	size_t len;
	uint8_t *good = tu_read_file(tu_path("good.spool"), &len);
	cr_assert(good && len > 200);
	uint8_t *d = malloc(len);
	cr_assert(d);
	uint32_t hdr = raw_pad8(sizeof(raw_header) + 4 * NDEV);

	memcpy(d, good, len);
	d[0] = 'X';
	expect_damage(d, len, "wrong magic", 0);
	expect_damage(good, 5, "truncated magic", 0);
	expect_damage(good, 20, "truncated header", 20);
	memcpy(d, good, len);
	((raw_header *)d)->ncpu = 1000000;
	expect_damage(d, len, "absurd CPU count", 16);
	memcpy(d, good, len);
	((raw_header *)d)->ndevices = 0;
	expect_damage(d, len, "no devices", 20);
	memcpy(d, good, len);
	((raw_header *)d)->version = 9;
	expect_damage(d, len, "unknown version", 12);
	/* the first frame after the header */
	memcpy(d, good, len);
	((raw_frame *)(d + hdr))->type = 99;
	expect_damage(d, len, "garbage frame type", hdr);
	memcpy(d, good, len);
	((raw_frame *)(d + hdr))->len = 0xfffffff0u;
	expect_damage(d, len, "absurd frame length", hdr);
	/* a bad record inside the first batch (after the name frames): its kind */
	size_t at = hdr;
	raw_frame f;
	for (;;) {
		cr_assert_lt(at + sizeof f, len, "no batch frame in the spool");
		memcpy(&f, good + at, sizeof f);
		if (f.type == RAW_BATCH)
			break;
		at += sizeof f + raw_pad8(f.len);
	}
	memcpy(d, good, len);
	struct bcr_event *first = (void *)(d + at + sizeof f + sizeof(struct bcr_batch));
	first->kind = 200;
	expect_damage(d, len, "a record of unknown kind", (int64_t)(at + sizeof f + sizeof(struct bcr_batch)));
	memcpy(d, good, len);
	first = (void *)(d + at + sizeof f + sizeof(struct bcr_batch));
	first->cpu = 7;
	expect_damage(d, len, "a record of a CPU the spool does not have",
		      (int64_t)(at + sizeof f + sizeof(struct bcr_batch)));
	/* a batch whose length runs past its frame */
	memcpy(d, good, len);
	struct bcr_batch *b = (void *)(d + at + sizeof f);
	b->len = f.len;
	expect_damage(d, len, "a batch longer than its frame", (int64_t)(at + sizeof f));
	/* a name frame of the wrong length */
	memcpy(d, good, len);
	memcpy(&f, good + hdr, sizeof f);
	cr_assert_eq(f.type, RAW_NAME, "the spool starts with a name frame");
	((raw_frame *)(d + hdr))->len = 8;
	expect_damage(d, len, "a name frame of the wrong length", hdr);
	/* random garbage after a good header */
	memcpy(d, good, len);
	srand(7);
	for (size_t i = hdr; i < len; i++)
		d[i] = (uint8_t)rand();
	cr_assert_eq(tu_write_file(tu_path("bad.spool"), d, len), 0);
	br_error err;
	br_writer *w;
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, tu_path("bad.bin"), NULL, &err), 0);
	int64_t got = cap_raw_convert(tu_path("bad.spool"), false, &w, 1, NULL, &err);
	br_writer_abort(w);
	cr_expect_lt(got, 0, "garbage converted");
	cr_expect_geq(err.offset, (int64_t)hdr, "garbage: offset %lld", (long long)err.offset);
	free(d);
	free(good);
}

Test(raw_spool, an_empty_spool_after_its_header_converts_to_nothing)
{
	cap_spool *sp;
	br_error err;
	cr_assert_eq(cap_spool_open(&sp, tu_path("empty.spool"), false, &err), 0);
	write_header(sp);
	cr_assert_eq(cap_spool_close(sp, &err), 0);
	cap_sink_stats st;
	int64_t got = convert_to(tu_path("empty.spool"), tu_path("empty.bin"), &st, &err);
	cr_expect_eq(got, 0, "%lld events from an empty spool (%s)", (long long)got, err.msg);
}

typedef struct io_rec {
	uint64_t time, sector;
	uint32_t action, device, pid, cpu;
	bool named;
} io_rec;

/* The IO events of a file (notes left out), and whether each one's
 * process has a name there. */
static size_t read_ios(const char *path, io_rec *v, size_t cap)
{
	br_reader *r;
	br_error err;
	const char *paths[] = { path };
	cr_assert_eq(br_reader_open(&r, paths, 1, NULL, &err), 0, "%s: %s", path, err.msg);
	br_event ev;
	size_t n = 0;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (br_event_is_notify(&ev))
			continue;
		cr_assert_lt(n, cap);
		v[n++] = (io_rec){ ev.time, ev.sector, ev.action, ev.device, ev.pid, ev.cpu, ev.comm && ev.comm[0] };
	}
	cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
	br_reader_close(r);
	return n;
}

static int cmp_rec(const void *x, const void *y)
{
	const io_rec *a = x, *b = y;
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
	CMP(time);
	CMP(cpu);
	CMP(action);
	CMP(sector);
	CMP(device);
	CMP(pid);
#undef CMP
	return 0;
}

/* The script with the drains on the records' clock, as bpf's are
 * (CLOCK_MONOTONIC both): the ring is cut at drains, a window by event time. */
static void on_one_clock(script *s)
{
	uint64_t t0 = 1000000000ull;
	for (unsigned i = 0; i < s->n; i++)
		s->r[i].now = t0 + i * 60000000ull + 30000000ull;
	s->end_now = t0 + 41 * 60000000ull;
}

Test(raw_spool, a_flight_ring_of_raw_files_gives_the_events_of_one_spool_and_names_them_in_any_window)
{
	static script s;
	build(&s, false);
	on_one_clock(&s);
	record_raw(&s, tu_path("one.spool"), s.n, true);
	br_error err;
	cap_sink_stats st;
	char msg[1200];
	br_writer *w;
	cr_assert_eq(br_writer_open(&w, BR_OUT_COMPRESSED, tu_path("one.gz"), NULL, &err), 0);
	cr_assert_geq(cap_raw_convert(tu_path("one.spool"), false, &w, 1, &st, &err), 0, "%s",
		      br_error_format(&err, msg, sizeof msg));
	cr_assert_eq(br_writer_close(w, &err), 0);

	/* the ring: a file every 300 ms of the drains' clock (5 rounds), none removed */
	cap_rotate_opts ro = { .base = tu_path("fl.ring"), .period_ns = 300000000ull, .ring = true,
			       .keep_ns = UINT64_MAX / 2 };
	cap_rotate *ring;
	cr_assert_eq(cap_rotate_open(&ring, &ro, &err), 0, "%s", err.msg);
	record_raw_to(&s, NULL, ring, s.n, true);
	uint64_t from = 1000000000ull + 16 * 60000000ull; /* round 16 on: the window starts mid-ring */
	cr_assert_eq(cap_rotate_extract(ring, 0, UINT64_MAX, tu_path("all.gz"), "blkreel: flight trigger test",
					1000000000ull, &err), 0);
	cr_assert_eq(cap_rotate_extract(ring, from, UINT64_MAX, tu_path("part.gz"), "blkreel: flight trigger test",
					from, &err), 0);
	cap_rotate_result res;
	cr_assert_eq(cap_rotate_close(ring, &res, &err), 0, "%s", br_error_format(&err, msg, sizeof msg));
	cr_expect_eq(res.extracted, 2);

	static io_rec one[8192], all[8192], part[8192];
	size_t n1 = read_ios(tu_path("one.gz"), one, 8192), na = read_ios(tu_path("all.gz"), all, 8192),
	       np = read_ios(tu_path("part.gz"), part, 8192);
	cr_expect_gt(n1, 500, "the script made %zu events: test is void", n1);
	/* the whole ring: the one spool's events, in the same order */
	cr_expect_eq(na, n1, "the ring gave %zu events, the one spool %zu", na, n1);
	size_t same = 0;
	while (same < n1 && same < na && cmp_rec(&one[same], &all[same]) == 0 && one[same].named == all[same].named)
		same++;
	cr_expect_eq(same, n1, "the ring's events differ from the one spool's from event %zu", same);
	/* a window from the middle: the one spool's events of that time (the
	 * ring's files start one before it: nothing of the window is missing),
	 * each process named as in the whole file */
	size_t want = 0;
	for (size_t i = 0; i < n1; i++)
		if (one[i].time >= from)
			one[want++] = one[i];
	qsort(one, want, sizeof *one, cmp_rec);
	qsort(part, np, sizeof *part, cmp_rec);
	cr_expect_eq(np, want, "the window holds %zu events, the one spool %zu of that time", np, want);
	size_t i = 0;
	while (i < np && i < want && cmp_rec(&one[i], &part[i]) == 0)
		i++;
	cr_expect_eq(i, want, "the window differs from the one spool's events of its time at %zu", i);
	size_t unnamed = 0;
	for (size_t k = 0; k < np; k++)
		if (part[k].pid >= PID0 && part[k].pid < PID0 + 4 && !part[k].named)
			unnamed++;
	cr_expect_eq(unnamed, 0, "%zu events of named processes have no name in the window's file", unnamed);
	char pat[1100];
	snprintf(pat, sizeof pat, "ls '%s'.* 2>/dev/null | grep -c spool", tu_path("fl.ring"));
	char *out = NULL;
	tu_runf(&out, NULL, NULL, "%s", pat);
	cr_expect(out && atoi(out) == 0, "ring files left: %s", out ? out : "");
	free(out);
}
