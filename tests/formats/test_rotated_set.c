/* A rotated capture set (NAME.00001.blktrace.gz, NAME.00002.blktrace.gz,
 * ...) read as the one trace it was cut from: named as NAME, as
 * NAME.blktrace.gz, or by a glob pattern; with its first members deleted
 * (--keep), a gap inside, the member being written beside it, a damaged
 * member, a time window, drops records in two members; and glob patterns
 * over other files. Sets are cut from a sample trace with the library's
 * writer (tests/common/splitset.c) and compared record by record. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkreel/reader.h"
#include "blkreel/stats.h"
#include "splitset.h"
#include "testutil.h"
#include "tracegen.h"

TestSuite(rotated, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

#define SAMPLE "ext4-fio-rand-1t.blktrace.gz"
#define K 5 /* members cut from it */

static ss_trace whole;
static size_t cuts[K + 1];

/* The sample in memory, and NAME = tu_dir/run cut into members 1..K. */
static const char *make_set(void)
{
	ss_load(tu_sample(SAMPLE), &whole);
	cr_assert_gt(whole.n, 10000);
	static char name[1024]; /* tu_path's buffers are reused */
	snprintf(name, sizeof name, "%s", tu_path("run"));
	ss_split(&whole, name, K, 1, cuts);
	return name;
}

static const char *str_or(const char *s)
{
	return s ? s : "(null)";
}

/* path (one input) reads exactly records [from, to) of the sample, then
 * records [from2, to2) (an empty range for none), every field, in order;
 * and the same process names when it starts at the first (a part read
 * alone lacks the names the parts before it brought). */
static void expect_records2(const char *path, const br_reader_opts *opts, size_t from, size_t to,
			    size_t from2, size_t to2)
{
	br_reader *r;
	br_error err;
	const char *p[] = { path };
	cr_assert_eq(br_reader_open(&r, p, 1, opts, &err), 0, "%s: %s: %s", path, err.file, err.msg);
	size_t i = from, n = 0;
	bool second = false;
	br_event ev;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (i == to && !second)
			i = from2, to = to2, second = true;
		cr_assert_lt(i, to, "%s: more records than the %zu expected", path, n);
		const br_event *w = &whole.ev[i];
		cr_assert(ev.time == w->time && ev.sector == w->sector && ev.bytes == w->bytes &&
				  ev.action == w->action && ev.pid == w->pid && ev.device == w->device &&
				  ev.cpu == w->cpu && ev.sequence == w->sequence && ev.error == w->error &&
				  ev.pdu_len == w->pdu_len,
			  "%s: record %zu (sample's %zu) differs: time %llu/%llu sector %llu/%llu "
			  "action %x/%x cpu %u/%u seq %u/%u",
			  path, n, i, (unsigned long long)ev.time, (unsigned long long)w->time,
			  (unsigned long long)ev.sector, (unsigned long long)w->sector, ev.action,
			  w->action, ev.cpu, w->cpu, ev.sequence, w->sequence);
		cr_assert(ev.pdu_len == 0 || memcmp(ev.pdu, w->pdu, ev.pdu_len) == 0,
			  "%s: record %zu: pdu differs", path, n);
		if (from == 0 && !second)
			cr_assert_str_eq(str_or(ev.comm), str_or(w->comm),
					 "%s: record %zu: process name", path, n);
		i++;
		n++;
	}
	cr_assert_eq(rc, 0, "%s: %s: byte %lld: %s", path, err.file, (long long)err.offset, err.msg);
	if (i == to && !second && from2 < to2)
		i = from2, to = to2;
	cr_assert_eq(i, to, "%s: %zu records read, the last was the sample's %zu of %zu", path, n, i,
		     to);
	br_reader_close(r);
}

static void expect_records(const char *path, size_t from, size_t to)
{
	expect_records2(path, NULL, from, to, 0, 0);
}

/* Open path and hand its info (valid until the reader is closed). */
static const br_input_info *info_of(const char *path, br_reader **r)
{
	br_error err;
	const char *p[] = { path };
	cr_assert_eq(br_reader_open(r, p, 1, NULL, &err), 0, "%s: %s", path, err.msg);
	return br_reader_input(*r, 0);
}

/* Read everything (for the counts in the info). */
static void drain(br_reader *r)
{
	br_event ev;
	br_error err;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1)
		;
	cr_assert_eq(rc, 0, "%s: %s", err.file, err.msg);
}

Test(rotated, name_gz_name_and_pattern_read_the_whole_trace)
{
	const char *name = make_set();
	char gz[4096], pattern[4096];
	snprintf(gz, sizeof gz, "%s.blktrace.gz", name);
	snprintf(pattern, sizeof pattern, "%s.*.blktrace.gz", name);
	struct stat st;
	cr_assert_neq(stat(gz, &st), 0, "NAME.blktrace.gz must not exist for this test");
	const char *forms[] = { name, gz, pattern };
	for (size_t f = 0; f < 3; f++)
		expect_records(forms[f], 0, whole.n);

	/* the info tells the truth about the set */
	br_reader *one, *set;
	info_of(tu_sample(SAMPLE), &one);
	drain(one);
	const br_input_info *a = br_reader_input(one, 0);
	for (size_t f = 0; f < 3; f++) {
		info_of(forms[f], &set);
		drain(set);
		const br_input_info *b = br_reader_input(set, 0);
		cr_expect_eq(b->kind, BR_INPUT_ROTATED, "%s", forms[f]);
		cr_expect_eq(b->files, K);
		cr_expect_str_eq(b->set_name, name);
		cr_expect_eq(b->set_first, 1);
		cr_expect_eq(b->set_last, K);
		cr_expect_eq(b->set_digits, 5);
		cr_expect_eq(b->nset_gaps, 0);
		cr_expect(b->indexed);
		cr_expect_eq(b->raw_bytes, a->raw_bytes, "the same records: %llu and %llu bytes",
			     (unsigned long long)b->raw_bytes, (unsigned long long)a->raw_bytes);
		/* each member ends on its own end-of-file member */
		cr_expect_geq(b->members, K + 5, "%llu gzip members", (unsigned long long)b->members);
		br_reader_close(set);
	}
	br_reader_close(one);
	ss_free(&whole);
}

Test(rotated, a_member_named_by_its_path_is_read_alone)
{
	const char *name = make_set();
	br_reader *r;
	const br_input_info *in = info_of(ss_member(name, 3), &r);
	cr_expect_eq(in->kind, BR_INPUT_COMPRESSED);
	br_reader_close(r);
	expect_records(ss_member(name, 3), cuts[2], cuts[3]);
	ss_free(&whole);
}

/* --keep deleted members 1 and 2; member 6 is being written: a spool and
 * a .gz.part beside the set, neither whole, neither read. */
Test(rotated, kept_members_read_and_the_member_being_written_is_not)
{
	const char *name = make_set();
	cr_assert_eq(unlink(ss_member(name, 1)), 0);
	cr_assert_eq(unlink(ss_member(name, 2)), 0);
	char part[4096], spool[4096];
	snprintf(part, sizeof part, "%s.00006.blktrace.gz.part", name);
	snprintf(spool, sizeof spool, "%s.00006.blktrace.spool", name);
	/* a .part is a member cut short: reading it would fail as truncated */
	size_t len;
	uint8_t *m5 = tu_read_file(ss_member(name, 5), &len);
	cr_assert(m5 && len > 1000);
	cr_assert_eq(tu_write_file(part, m5, len / 2), 0);
	cr_assert_eq(tu_write_file(spool, "spool: not a trace", 18), 0);
	free(m5);
	char any[4096];
	snprintf(any, sizeof any, "%s.*", name);
	const char *forms[] = { name, any };
	for (size_t f = 0; f < 2; f++) {
		expect_records(forms[f], cuts[2], whole.n);
		br_reader *r;
		const br_input_info *in = info_of(forms[f], &r);
		cr_expect_eq(in->kind, BR_INPUT_ROTATED, "%s", forms[f]);
		cr_expect_eq(in->files, 3);
		cr_expect_eq(in->set_first, 3);
		cr_expect_eq(in->set_last, 5);
		cr_expect_eq(in->nset_gaps, 0, "deleted first members are no gap");
		br_reader_close(r);
	}
	ss_free(&whole);
}

Test(rotated, a_gap_inside_is_read_past_and_reported)
{
	const char *name = make_set();
	cr_assert_eq(unlink(ss_member(name, 3)), 0);
	expect_records2(name, NULL, 0, cuts[2], cuts[3], whole.n);
	br_reader *r;
	const br_input_info *in = info_of(name, &r);
	cr_expect_eq(in->files, K - 1);
	cr_assert_eq(in->nset_gaps, 1);
	cr_expect_eq(in->set_gaps[0].first, 3);
	cr_expect_eq(in->set_gaps[0].last, 3);
	br_reader_close(r);

	/* a pattern reports the numbers missing on disk, not the members it
	 * left out on purpose (2 and 4 exist) */
	char pattern[4096];
	snprintf(pattern, sizeof pattern, "%s.0000[15].blktrace.gz", name);
	in = info_of(pattern, &r);
	cr_expect_eq(in->kind, BR_INPUT_ROTATED);
	cr_expect_eq(in->files, 2);
	cr_expect_eq(in->set_first, 1);
	cr_expect_eq(in->set_last, 5);
	cr_assert_eq(in->nset_gaps, 1);
	cr_expect_eq(in->set_gaps[0].first, 3);
	br_reader_close(r);
	expect_records2(pattern, NULL, 0, cuts[1], cuts[4], whole.n);

	/* and blkreel-parse --info says it */
	char *out = NULL;
	cr_assert_eq(tu_run_tool(&out, NULL, "blkreel-parse", "-q --info '%s'", name), 0);
	char want[4200];
	snprintf(want, sizeof want, "rotated set %s: 4 files, %s.00001 ... %s.00005.blktrace.gz; 00003 missing (1 file)\n",
		 name, name, name);
	cr_expect(strstr(out, want), "want %s in:\n%s", want, out);
	free(out);
	ss_free(&whole);
}

/* The byte offset of the damage, as reading the member alone reports it. */
static br_error read_error(const char *path, bool salvage)
{
	br_reader *r;
	br_error err;
	br_reader_opts o = { .salvage = salvage };
	const char *p[] = { path };
	int rc = br_reader_open(&r, p, 1, &o, &err);
	if (rc == 0) {
		br_event ev;
		while ((rc = br_reader_next(r, &ev, &err)) == 1)
			;
		br_reader_close(r);
	}
	cr_assert_lt(rc, 0, "%s reads without an error", path);
	return err;
}

Test(rotated, a_damaged_member_names_its_file_and_offset)
{
	const char *name = make_set();
	char m3[4096];
	snprintf(m3, sizeof m3, "%s", ss_member(name, 3));
	size_t len;
	uint8_t *data = tu_read_file(m3, &len);
	cr_assert(data && len > 20000);
	data[len / 2] ^= 0x55; /* inside a middle gzip member's deflate data */
	cr_assert_eq(tu_write_file(m3, data, len), 0);
	free(data);
	br_error alone = read_error(m3, false);
	cr_assert_gt(alone.offset, 0);
	br_error err = read_error(name, false);
	cr_expect_str_eq(err.file, m3);
	cr_expect_eq(err.offset, alone.offset, "byte %lld, alone byte %lld", (long long)err.offset,
		     (long long)alone.offset);
	cr_expect_eq(err.code, BR_ECORRUPT);

	/* blkreel-parse: one line naming member and byte, exit 1, no output
	 * file that could pass for the whole conversion */
	char *out = NULL, *msg = NULL;
	int rc = tu_run_tool(&out, &msg, "blkreel-parse", "-q '%s' -o '%s'", name, tu_path("out.blktrace.gz"));
	cr_expect_eq(rc, 1);
	char want[4200];
	snprintf(want, sizeof want, "%s: byte %lld: ", m3, (long long)alone.offset);
	cr_expect(strstr(msg, want), "want %s in: %s", want, msg);
	cr_expect(strstr(msg, "--salvage"), "%s", msg);
	struct stat st;
	cr_expect_neq(stat(tu_path("out.blktrace.gz"), &st), 0, "no partial output left behind");
	free(out);
	free(msg);

	/* salvage goes on past it, naming the member in the damage list */
	br_reader *r;
	br_error e;
	br_reader_opts o = { .salvage = true };
	const char *p[] = { name };
	cr_assert_eq(br_reader_open(&r, p, 1, &o, &e), 0, "%s", e.msg);
	br_event ev;
	size_t n = 0;
	while ((rc = br_reader_next(r, &ev, &e)) == 1)
		n++;
	cr_assert_eq(rc, 0, "%s", e.msg);
	const br_input_info *in = br_reader_input(r, 0);
	cr_assert_eq(in->ndamage, 1);
	cr_expect_str_eq(str_or(in->damage[0].file), m3);
	cr_expect_eq(in->damage[0].offset, alone.offset);
	cr_expect(in->damage[0].range_known);
	cr_expect_eq(n + in->damage[0].records, whole.n, "%zu read + %llu lost", n,
		     (unsigned long long)in->damage[0].records);
	br_reader_close(r);
	rc = tu_run_tool(&out, &msg, "blkreel-parse", "-q --salvage --info '%s'", name);
	cr_expect_eq(rc, 0);
	snprintf(want, sizeof want, "damage: %s: byte %lld: damaged member skipped", m3,
		 (long long)alone.offset);
	cr_expect(strstr(out, want), "want %s in:\n%s", want, out);
	free(out);
	free(msg);
	ss_free(&whole);
}

/* The window's start in member 4: members 2 and 3 lie wholly before it and
 * are passed over on their member headers, never inflated; what is read is
 * what the unsplit file gives under the same window. */
Test(rotated, a_window_passes_over_whole_members)
{
	const char *name = make_set();
	uint64_t origin = whole.ev[0].time;
	for (size_t i = 0; i < whole.n && br_event_is_notify(&whole.ev[i]); i++)
		origin = whole.ev[i + 1].time;
	uint64_t from = whole.ev[cuts[3] + 100].time, to = whole.ev[cuts[4] + 50].time;
	br_reader_opts o = { .has_from = true, .from_ns = from - origin, .has_to = true,
			     .to_ns = to - origin };
	/* how many IO records the unsplit file gives under this window (notify
	 * records before a window's start may come or not, by where gzip
	 * members begin: common/source.h) */
	size_t win = 0;
	{
		br_reader *r;
		br_error err;
		const char *p[] = { tu_sample(SAMPLE) };
		cr_assert_eq(br_reader_open(&r, p, 1, &o, &err), 0);
		br_event ev;
		while (br_reader_next(r, &ev, &err) == 1)
			win += !br_event_is_notify(&ev);
		br_reader_close(r);
	}
	cr_assert_gt(win, 100);
	/* every IO record in the window is there: find them in the sample */
	size_t lo = cuts[3] + 100, hi = lo;
	while (lo > 0 && whole.ev[lo - 1].time == from)
		lo--;
	while (hi < whole.n && whole.ev[hi].time <= to)
		hi++;

	br_reader *r;
	br_error err;
	const char *p[] = { name };
	cr_assert_eq(br_reader_open(&r, p, 1, &o, &err), 0, "%s", err.msg);
	br_event ev;
	size_t ios = 0;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (br_event_is_notify(&ev))
			continue;
		cr_assert_geq(ev.time, from);
		cr_assert_leq(ev.time, to);
		ios++;
	}
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_expect_eq(ios, win, "%zu IO records, the unsplit file %zu", ios, win);
	size_t want_ios = 0;
	for (size_t i = lo; i < hi; i++)
		want_ios += !br_event_is_notify(&whole.ev[i]);
	cr_expect_eq(ios, want_ios);
	/* gzip members of members 2 and 3, each but its end-of-file member */
	uint64_t before = 0;
	for (unsigned m = 2; m <= 3; m++) {
		br_reader *one;
		const br_input_info *in = info_of(ss_member(name, m), &one);
		drain(one);
		in = br_reader_input(one, 0);
		before += in->members - 1;
		br_reader_close(one);
	}
	const br_input_info *in = br_reader_input(r, 0);
	cr_expect_geq(in->members_skipped, before, "%llu gzip members skipped, %llu lie in members 2 and 3",
		      (unsigned long long)in->members_skipped, (unsigned long long)before);
	br_reader_close(r);
	ss_free(&whole);
}

#define DEV BR_MKDEV(7, 0)

static br_event message(uint64_t time, const char *text)
{
	br_event ev = { .time = time, .device = DEV,
			.action = BLK_TC_ACT(BLK_TC_NOTIFY) | __BLK_TN_MESSAGE };
	ev.pdu = (const uint8_t *)text;
	ev.pdu_len = (uint16_t)strlen(text);
	return ev;
}

/* Two members, each with the capture's drops record: unrecorded=3 and 4.
 * Ten IOs were issued without a C, so 7 of them are the unrecorded ones. */
Test(rotated, drops_records_of_two_members_add_up)
{
	ss_trace t = { calloc(200, sizeof(br_event)), 0 };
	cr_assert(t.ev);
	uint64_t time = 1000000000ull;
	for (int m = 0; m < 2; m++) {
		size_t start = t.n;
		for (int i = 0; i < 20; i++) {
			uint64_t s = 8ull * (uint64_t)(m * 20 + i);
			t.ev[t.n++] = tg_io(time, DEV, 0, TG_Q_W, s, 4096, 100);
			t.ev[t.n++] = tg_io(time + 5000, DEV, 0, TG_D_W, s, 4096, 100);
			if (i >= 5) /* 5 open in each member */
				t.ev[t.n++] = tg_io(time + 90000, DEV, 0, TG_C_W, s, 4096, 100);
			time += 100000;
		}
		t.ev[t.n++] = message(time, m ? "blkreel: drops cpu0=0 cpu1=0 (backend bpf) unrecorded=4"
					      : "blkreel: drops cpu0=0 cpu1=0 (backend bpf) unrecorded=3");
		ss_write(&t, start, t.n, ss_member(tu_path("drops"), 7 + (unsigned)m));
		time += 100000;
	}
	br_reader *r;
	br_error err;
	const char *p[] = { tu_path("drops") };
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	br_stats *s;
	cr_assert_eq(br_stats_new(&s, NULL, &err), 0);
	br_event ev;
	size_t n = 0;
	while (br_reader_next(r, &ev, &err) == 1) {
		cr_assert_eq(br_stats_add(s, &ev, &err), 0);
		n++;
	}
	cr_expect_eq(n, t.n);
	cr_assert_eq(br_stats_finish(s, &err), 0);
	const br_stats_totals *st = br_stats_get_totals(s);
	cr_expect_eq(st->unrecorded, 7);
	cr_expect_eq(st->completed_untimed, 7);
	cr_expect_eq(st->never_completed, 3);
	br_stats_free(s);
	br_reader_close(r);
	char *out = NULL;
	cr_assert_eq(tu_run_tool(&out, NULL, "blkreel-parse", "-q --info '%s'", tu_path("drops")), 0);
	cr_expect(strstr(out, "7 completed at an unknown time") && strstr(out, "(unrecorded=7)"), "%s",
		  out);
	free(out);
	free(t.ev);
}

/* Two captures' files under one NAME: the second starts before the first
 * ends, and the reader says which file, rather than going back in time. */
Test(rotated, members_that_do_not_follow_in_time_are_refused)
{
	ss_trace t = { calloc(40, sizeof(br_event)), 0 };
	cr_assert(t.ev);
	for (int i = 0; i < 20; i++)
		t.ev[t.n++] = tg_io(1000 + 10 * (uint64_t)i, DEV, 0, TG_Q_R, (uint64_t)i, 512, 1);
	ss_write(&t, 0, 20, ss_member(tu_path("two"), 1));
	ss_write(&t, 5, 15, ss_member(tu_path("two"), 2));
	br_error err = read_error(tu_path("two"), false);
	cr_expect_eq(err.code, BR_EFORMAT);
	cr_expect_str_eq(err.file, ss_member(tu_path("two"), 2));
	cr_expect_eq(err.offset, 0);
	cr_expect(strstr(err.msg, "comes before"), "%s", err.msg);
	free(t.ev);
}

Test(rotated, a_member_that_is_not_gzip_is_named)
{
	ss_trace t = { calloc(4, sizeof(br_event)), 0 };
	cr_assert(t.ev);
	t.ev[t.n++] = tg_io(1000, DEV, 0, TG_Q_R, 8, 512, 1);
	ss_write(&t, 0, 1, ss_member(tu_path("bad"), 1));
	cr_assert_eq(tu_write_file(ss_member(tu_path("bad"), 2), "not a trace at all\n", 19), 0);
	br_reader *r;
	br_error err;
	const char *p[] = { tu_path("bad") };
	cr_expect_lt(br_reader_open(&r, p, 1, NULL, &err), 0);
	cr_expect_str_eq(err.file, ss_member(tu_path("bad"), 2));
	cr_expect_eq(err.offset, 0);
	cr_expect(strstr(err.msg, "not a gzip file"), "%s", err.msg);
	free(t.ev);
}

/* A pattern over files that are not one set's members: each is opened as
 * what it is and all are merged by time, as a per-CPU set is. */
Test(rotated, a_pattern_over_other_files_merges_them)
{
	tg_buf b0 = { 0 }, b1 = { 0 };
	uint64_t t0[] = { 10, 30, 50 }, t1[] = { 20, 40 };
	for (int i = 0; i < 3; i++) {
		br_event ev = tg_io(t0[i], DEV, 0, TG_Q_W, 100 + (uint64_t)i, 4096, 1);
		tg_append(&b0, &ev, false);
	}
	for (int i = 0; i < 2; i++) {
		br_event ev = tg_io(t1[i], DEV, 1, TG_Q_W, 200 + (uint64_t)i, 4096, 1);
		tg_append(&b1, &ev, false);
	}
	cr_assert_eq(tg_write(&b0, tu_path("cpu.blktrace.0")), 0);
	cr_assert_eq(tg_write(&b1, tu_path("cpu.blktrace.1")), 0);
	br_reader *r;
	br_error err;
	const char *p[] = { tu_path("cpu.blktrace.[01]") };
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s", err.msg);
	uint64_t want[] = { 10, 20, 30, 40, 50 };
	br_event ev;
	for (int i = 0; i < 5; i++) {
		cr_assert_eq(br_reader_next(r, &ev, &err), 1);
		cr_expect_eq(ev.time, want[i]);
	}
	cr_expect_eq(br_reader_next(r, &ev, &err), 0);
	const br_input_info *in = br_reader_input(r, 0);
	cr_expect_eq(in->kind, BR_INPUT_PATTERN);
	cr_expect_eq(in->files, 2);
	cr_expect_eq(in->raw_bytes, b0.len + b1.len, "both files' bytes add up");
	br_reader_close(r);

	/* no match: the error names the pattern */
	const char *none[] = { tu_path("nothing.*.blktrace.gz") };
	cr_expect_lt(br_reader_open(&r, none, 1, NULL, &err), 0);
	cr_expect_str_eq(err.file, none[0]);
	cr_expect(strstr(err.msg, "no file matches"), "%s", err.msg);
	tg_free(&b0);
	tg_free(&b1);
}

/* A file whose name holds metacharacters is read as that file; NAME with
 * a per-CPU set is that set, rotated members or not. */
Test(rotated, an_existing_file_and_a_per_cpu_set_come_first)
{
	ss_trace t = { calloc(4, sizeof(br_event)), 0 };
	cr_assert(t.ev);
	t.ev[t.n++] = tg_io(1000, DEV, 0, TG_Q_R, 8, 512, 1);
	t.ev[t.n++] = tg_io(2000, DEV, 0, TG_Q_R, 16, 512, 1);
	ss_write(&t, 0, 2, tu_path("odd[1].blktrace.gz"));
	ss_write(&t, 0, 1, tu_path("odd1.blktrace.gz"));
	br_reader *r;
	const br_input_info *in = info_of(tu_path("odd[1].blktrace.gz"), &r);
	cr_expect_eq(in->kind, BR_INPUT_COMPRESSED);
	drain(r);
	in = br_reader_input(r, 0);
	cr_expect_eq(in->raw_bytes, 2 * 48, "the file of that name, not odd1's one record");
	br_reader_close(r);

	tg_buf b = { 0 };
	tg_append(&b, &t.ev[0], false);
	cr_assert_eq(tg_write(&b, tu_path("both.blktrace.0")), 0);
	cr_assert_eq(tg_write(&b, tu_path("both.blktrace.1")), 0);
	ss_write(&t, 0, 2, ss_member(tu_path("both"), 1));
	in = info_of(tu_path("both"), &r);
	cr_expect_eq(in->kind, BR_INPUT_CPUSET);
	br_reader_close(r);
	tg_free(&b);
	free(t.ev);
}

/* Compressed files merged by a pattern: their counts add up, and damage
 * under salvage names the file it lies in. */
Test(rotated, a_pattern_of_compressed_files_adds_up_and_names_damage)
{
	ss_load(tu_sample(SAMPLE), &whole);
	size_t half = whole.n / 2;
	while (whole.ev[half].time == whole.ev[half - 1].time)
		half++;
	char a[4096], b[4096];
	snprintf(a, sizeof a, "%s", tu_path("early.blktrace.gz"));
	snprintf(b, sizeof b, "%s", tu_path("late.blktrace.gz"));
	ss_write(&whole, 0, half, a);
	ss_write(&whole, half, whole.n, b);
	size_t len;
	uint8_t *data = tu_read_file(b, &len);
	cr_assert(data && len > 20000);
	data[len / 2] ^= 0x55;
	cr_assert_eq(tu_write_file(b, data, len), 0);
	free(data);
	br_error alone = read_error(b, false);
	br_reader *r;
	br_error err;
	br_reader_opts o = { .salvage = true };
	const char *p[] = { tu_path("*.blktrace.gz") };
	cr_assert_eq(br_reader_open(&r, p, 1, &o, &err), 0, "%s", err.msg);
	drain(r);
	const br_input_info *in = br_reader_input(r, 0);
	cr_expect_eq(in->kind, BR_INPUT_PATTERN);
	cr_expect_eq(in->files, 2);
	uint64_t members = 0;
	const char *each[] = { a, b };
	for (int f = 0; f < 2; f++) {
		br_reader *one;
		br_reader_opts so = { .salvage = true };
		const char *q[] = { each[f] };
		cr_assert_eq(br_reader_open(&one, q, 1, &so, &err), 0);
		drain(one);
		members += br_reader_input(one, 0)->members;
		br_reader_close(one);
	}
	cr_expect_eq(in->members, members, "%llu gzip members, the files have %llu",
		     (unsigned long long)in->members, (unsigned long long)members);
	cr_assert_eq(in->ndamage, 1);
	cr_expect_str_eq(str_or(in->damage[0].file), b);
	cr_expect_eq(in->damage[0].offset, alone.offset);
	br_reader_close(r);
	ss_free(&whole);
}
