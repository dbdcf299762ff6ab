/* blkreel-parse against the real blkparse (Debian blktrace 1.2.0) as the
 * oracle: same event lines, same end-of-run summary, on a third-party real
 * trace, on the bundled sample set, on synthetic per-CPU sets made here,
 * and after a round trip through our compressed format.
 *
 * blkparse has two input modes and we compare each against the matching
 * one: a single stream goes to `blkparse -i - < FILE` (pipe mode), a
 * per-CPU set to `blkparse -i NAME` (file mode). Differences we keep on
 * purpose, and strip before comparing:
 *   - file mode prints "Input file NAME.blktrace.K added" lines on stdout;
 *     we do not;
 *   - file mode titles its summary with the set's name ("CPU0 (NAME):").
 *     When our summary uses the device ("CPU0 (7,0):") instead, the name is
 *     mapped to the device before comparing (the counts must still agree;
 *     file mode never reports skips, and these sets have none). */
#include <criterion/criterion.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tracegen.h"

static void need_tools(void)
{
	if (!tu_have("blkparse"))
		cr_skip_test("blkparse is not installed");
	FILE *f = fopen(tu_bin("blkreel-parse"), "r");
	if (!f)
		cr_skip_test("blkreel-parse is not built");
	fclose(f);
}

/* Where the summary starts: the first line beginning "CPU". */
static char *summary_start(char *text)
{
	if (!strncmp(text, "CPU", 3))
		return text;
	char *p = strstr(text, "\nCPU");
	return p ? p + 1 : text + strlen(text);
}

/* Drop blkparse's "Input file ... added" lines (in place). */
static void drop_input_lines(char *text)
{
	char *w = text;
	for (char *r = text; *r;) {
		char *nl = strchr(r, '\n');
		size_t n = nl ? (size_t)(nl - r + 1) : strlen(r);
		if (strncmp(r, "Input file ", 11) != 0) {
			memmove(w, r, n);
			w += n;
		}
		r += n;
	}
	*w = 0;
}

/* Replace every "(from)" by "(to)" in a malloc'd string. */
static char *replace_label(char *text, const char *from, const char *to)
{
	char f[300], t[300];
	snprintf(f, sizeof f, "(%s)", from);
	snprintf(t, sizeof t, "(%s)", to);
	size_t cap = strlen(text) * 2 + 64, o = 0;
	char *out = malloc(cap);
	for (char *p = text; *p;) {
		if (!strncmp(p, f, strlen(f))) {
			memcpy(out + o, t, strlen(t));
			o += strlen(t);
			p += strlen(f);
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = 0;
	free(text);
	return out;
}

/* Compare event lines and summary separately so a failure says which. */
static void expect_same(const char *what, char *ours, char *theirs)
{
	char *so = summary_start(ours), *st = summary_start(theirs);
	size_t eo = (size_t)(so - ours), et = (size_t)(st - theirs);
	size_t i = 0;
	while (i < eo && i < et && ours[i] == theirs[i])
		i++;
	if (i != eo || i != et) {
		size_t ls = i;
		while (ls > 0 && ours[ls - 1] != '\n')
			ls--;
		cr_expect_fail("%s: event lines differ at byte %zu:\n ours:   %.120s\n blkparse: %.120s",
			       what, i, ours + ls, theirs + ls);
	}
	cr_expect_str_eq(so, st, "%s: summary differs", what);
	if (strcmp(so, st) || i != eo || i != et) {
		/* leave both outputs for a look with diff */
		char path[256];
		snprintf(path, sizeof path, "/tmp/blkreel-oracle-%.40s.ours", what);
		for (char *c = path + 5; *c; c++)
			if (*c == ' ' || *c == '/')
				*c = '_';
		tu_write_file(path, ours, strlen(ours));
		strcpy(strrchr(path, '.'), ".blkparse");
		tu_write_file(path, theirs, strlen(theirs));
	}
}

/* Sum of "Events (...): N entries" over all devices. */
static unsigned long long events_total(const char *text)
{
	unsigned long long sum = 0;
	for (const char *p = text; (p = strstr(p, "\nEvents (")); p++) {
		const char *q = strstr(p, "): ");
		if (q)
			sum += strtoull(q + 3, NULL, 10);
	}
	return sum;
}

Test(parse_oracle, real_trace_pipe_mode)
{
	need_tools();
	const char *tr = tu_realtrace("takeoverjp_blktrace_viewer/sample.blktrace.0");
	if (!tr)
		cr_skip_test("../shared/realtraces is not here");
	char *ours = NULL, *theirs = NULL;
	/* `blkparse -i sample` rejects this file (every record says cpu 1),
	 * so blkparse reads it as a stream. */
	cr_assert_eq(tu_runf(&theirs, NULL, NULL, "blkparse -i - < '%s'", tr), 0);
	cr_assert_eq(tu_runf(&ours, NULL, NULL, "'%s' '%s'", tu_bin("blkreel-parse"), tr), 0);
	expect_same("takeoverjp", ours, theirs);
	cr_expect_str_eq(summary_start(ours), summary_start(theirs));
	free(ours);
	free(theirs);
}

Test(parse_oracle, quiet_has_no_summary)
{
	need_tools();
	const char *tr = tu_realtrace("takeoverjp_blktrace_viewer/sample.blktrace.0");
	if (!tr)
		cr_skip_test("../shared/realtraces is not here");
	char *ours = NULL, *theirs = NULL;
	cr_assert_eq(tu_runf(&theirs, NULL, NULL, "blkparse -q -i - < '%s'", tr), 0);
	cr_assert_eq(tu_runf(&ours, NULL, NULL, "'%s' -q '%s'", tu_bin("blkreel-parse"), tr), 0);
	cr_expect_str_eq(ours, theirs);
	free(ours);
	free(theirs);
}

/* A per-CPU set in file mode: blkparse -i DIR/NAME vs blkreel-parse DIR/NAME. */
static void compare_set(const char *what, const char *dir, const char *name, const char *devlabel)
{
	char *ours = NULL, *theirs = NULL;
	cr_assert_eq(tu_runf(&theirs, NULL, NULL, "blkparse -i '%s/%s'", dir, name), 0);
	cr_assert_eq(tu_runf(&ours, NULL, NULL, "'%s' '%s/%s'", tu_bin("blkreel-parse"), dir, name), 0);
	drop_input_lines(theirs);
	char label[300];
	snprintf(label, sizeof label, "(%s)", name);
	if (!strstr(summary_start(ours), label) && devlabel)
		theirs = replace_label(theirs, name, devlabel);
	expect_same(what, ours, theirs);
	free(ours);
	free(theirs);
}

Test(parse_oracle, sample_set_file_mode)
{
	need_tools();
	char path[4096];
	snprintf(path, sizeof path, "%s", tu_sample("ext4-loop.blktrace.0"));
	FILE *f = fopen(path, "rb");
	if (!f)
		cr_skip_test("samples/ext4-loop is not captured yet");
	fclose(f);
	char *dir = strdup(path);
	*strrchr(dir, '/') = 0;
	compare_set("samples/ext4-loop", dir, "ext4-loop", "7,0");
	free(dir);
}

/* Synthetic per-CPU set: three CPUs, two devices interleaved in time, named
 * and unnamed processes, remaps, plugs, merges, requeues, errors, flushes,
 * messages. Times are distinct across CPUs so the merge order is defined. */
static void write_set(const char *dir, const char *name, unsigned ncpus, unsigned per_cpu)
{
	static const char *const names[] = { "fio", "kworker/u8:2", "jbd2/sda1-8" };
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		tg_buf b = { 0 };
		uint32_t seq = 0;
		uint64_t t = 1000000000ull + cpu * 7;
		for (unsigned k = 0; k < 3; k++) {
			br_event pn = tg_process(t, cpu, 1000 + k, names[k]);
			tg_append(&b, &pn, false);
		}
		for (unsigned i = 0; i < per_cpu; i++) {
			uint32_t dev = (i % 5 == 0) ? BR_MKDEV(8, 16) : BR_MKDEV(8, 0);
			uint32_t pid = 1000 + (i % 4); /* pid 1003 has no name */
			uint64_t sector = 2048 + 8ull * (i + cpu * 100000);
			bool w = (i & 1) != 0;
			uint32_t rw = BLK_TC_ACT(w ? BLK_TC_WRITE : BLK_TC_READ);
			uint32_t extra = 0;
			if (i % 7 == 0)
				extra |= BLK_TC_ACT(BLK_TC_SYNC);
			if (i % 11 == 0)
				extra |= BLK_TC_ACT(BLK_TC_META);
			if (i % 13 == 0 && w)
				extra |= (uint32_t)BLK_TC_FUA << BLK_TC_SHIFT; /* BLK_TC_ACT overflows int */
			if (i % 17 == 0 && !w)
				extra |= BLK_TC_ACT(BLK_TC_AHEAD);
			br_event e;
			uint8_t remap[16], depth[8];
			uint32_t v32;
			uint64_t v64;
			t += 1000 + (i % 3) * 30;
			e = tg_io(t, dev, cpu, BLK_TA_REMAP | rw | extra, sector, 4096, pid);
			v32 = htobe32(BR_MKDEV(8, 1)); memcpy(remap, &v32, 4);
			v32 = htobe32(dev); memcpy(remap + 4, &v32, 4);
			v64 = htobe64(sector - 2048); memcpy(remap + 8, &v64, 8);
			e.pdu = remap;
			e.pdu_len = 16;
			e.sequence = ++seq;
			tg_append(&b, &e, false);
			static const uint32_t flow[] = { BLK_TA_QUEUE, BLK_TA_GETRQ, BLK_TA_PLUG,
							 BLK_TA_UNPLUG_IO, BLK_TA_INSERT, BLK_TA_ISSUE,
							 BLK_TA_COMPLETE };
			for (unsigned s = 0; s < sizeof flow / sizeof flow[0]; s++) {
				t += 100 + s;
				uint32_t a = flow[s];
				uint32_t bytes = 4096;
				if (a == BLK_TA_PLUG || a == BLK_TA_UNPLUG_IO) {
					bytes = 0;
				} else {
					a |= rw | extra;
				}
				if (i % 9 == 0 && a == (BLK_TA_QUEUE | rw | extra))
					a = BLK_TA_BACKMERGE | rw | extra;
				e = tg_io(t, dev, cpu, a, sector, bytes, pid);
				if (flow[s] == BLK_TA_UNPLUG_IO) {
					v64 = htobe64(1 + i % 4);
					memcpy(depth, &v64, 8);
					e.pdu = depth;
					e.pdu_len = 8;
				}
				if (flow[s] == BLK_TA_COMPLETE) {
					e.pid = 0;
					e.error = (i % 29 == 0) ? 5 : 0;
				}
				e.sequence = ++seq;
				tg_append(&b, &e, false);
			}
			if (i % 19 == 0) {
				/* a preflush: zero-length write flush, issue + complete */
				t += 50;
				e = tg_io(t, dev, cpu, BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_FLUSH | BLK_TC_WRITE | BLK_TC_SYNC), 0, 0, pid);
				e.sequence = ++seq;
				tg_append(&b, &e, false);
				t += 50;
				e = tg_io(t, dev, cpu, BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_FLUSH | BLK_TC_WRITE), 0, 0, 0);
				e.sequence = ++seq;
				tg_append(&b, &e, false);
			}
			if (i % 23 == 0) {
				t += 20;
				e = tg_io(t, dev, cpu, BLK_TA_REQUEUE | rw, sector, 4096, pid);
				e.sequence = ++seq;
				tg_append(&b, &e, false);
			}
			if (i % 31 == 0) {
				static const char msg[] = "cfq1234 insert_request";
				t += 10;
				e = tg_io(t, dev, cpu, BLK_TN_MESSAGE, 0, 0, 0);
				e.pdu = (const uint8_t *)msg;
				e.pdu_len = sizeof msg - 1;
				tg_append(&b, &e, false);
			}
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.blktrace.%u", dir, name, cpu);
		cr_assert_eq(tg_write(&b, path), 0);
		tg_free(&b);
	}
}

Test(parse_oracle, synthetic_sets_file_mode)
{
	need_tools();
	char *dir = tu_tmpdir();
	cr_assert_not_null(dir);
	write_set(dir, "small", 1, 40);
	compare_set("synthetic 1 cpu", dir, "small", NULL);
	/* > blkparse's 512-record batches per CPU */
	write_set(dir, "multi", 3, 300);
	compare_set("synthetic 3 cpus", dir, "multi", NULL);
	tu_tmpdir_remove(dir);
}

/* A per-CPU set where pids have several process-name records: pid 0 is
 * "swapper/N" in each CPU's file (the later CPU's record first in time),
 * pid 500 is renamed within one file (exec) and named differently on the
 * other CPU, pid 700 is named only in each file's second 512-record batch,
 * in the opposite order in time. blkparse keeps the first name it reads for a pid, in its
 * reading order (CPU files in turn, a batch at a time), whatever the times. */
static void write_names_set(const char *dir, const char *name, unsigned per_cpu)
{
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		tg_buf b = { 0 };
		uint32_t seq = 0;
		uint64_t t = 1000000000ull + (cpu ? 1 : 5);
		char swapper[16];
		snprintf(swapper, sizeof swapper, "swapper/%u", cpu);
		br_event e = tg_process(t, cpu, 0, swapper);
		tg_append(&b, &e, false);
		e = tg_process(t, cpu, 500, cpu ? "bash" : "sh");
		tg_append(&b, &e, false);
		for (unsigned i = 0; i < per_cpu; i++) {
			t += 1000 + cpu * 3;
			if (i == per_cpu / 3 && cpu == 0) {
				e = tg_process(t, cpu, 500, "fio");
				tg_append(&b, &e, false);
			}
			if (i == (cpu ? 600u : 700u)) {
				/* both in each file's second batch (records 1024..1535):
				 * late1 comes first in time, but blkparse reads CPU 0's
				 * batch first and keeps late0 */
				e = tg_process(t, cpu, 700, cpu ? "late1" : "late0");
				tg_append(&b, &e, false);
			}
			uint32_t pid = i % 3 == 0 ? 0 : i % 3 == 1 ? 500 : 700;
			e = tg_io(t, BR_MKDEV(8, 0), cpu, TG_Q_R, 8ull * (i + cpu * 100000), 4096, pid);
			e.sequence = ++seq;
			tg_append(&b, &e, false);
			e = tg_io(t + 400, BR_MKDEV(8, 0), cpu, TG_C_R, 8ull * (i + cpu * 100000), 4096, pid);
			e.sequence = ++seq;
			tg_append(&b, &e, false);
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.blktrace.%u", dir, name, cpu);
		cr_assert_eq(tg_write(&b, path), 0);
		tg_free(&b);
	}
}

Test(parse_oracle, first_process_name_wins_file_mode)
{
	need_tools();
	char *dir = tu_tmpdir();
	cr_assert_not_null(dir);
	write_names_set(dir, "names", 900);
	compare_set("several names per pid", dir, "names", NULL);
	tu_tmpdir_remove(dir);
}

Test(parse_oracle, synthetic_stream_pipe_mode)
{
	need_tools();
	char *dir = tu_tmpdir();
	cr_assert_not_null(dir);
	/* one CPU, so the file is already in time order as blkparse's pipe
	 * mode expects; it sees a stream, not a set, under another name */
	write_set(dir, "one", 1, 500);
	char *ours = NULL, *theirs = NULL;
	cr_assert_eq(tu_runf(&theirs, NULL, NULL, "blkparse -i - < '%s/one.blktrace.0'", dir), 0);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "cp '%s/one.blktrace.0' '%s/stream.bin'", dir, dir), 0);
	cr_assert_eq(tu_runf(&ours, NULL, NULL, "'%s' '%s/stream.bin'", tu_bin("blkreel-parse"), dir), 0);
	expect_same("synthetic stream", ours, theirs);
	free(ours);
	free(theirs);
	tu_tmpdir_remove(dir);
}

/* -o OUT.blktrace.gz, then `zcat OUT | blkparse -i -` sees as many events
 * as blkreel-parse reports for the input. */
static void roundtrip(const char *what, const char *input, const char *dir, bool lines_too)
{
	char *ours = NULL, *back = NULL, *orig = NULL;
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "'%s' '%s' -o '%s/out.blktrace.gz'",
			     tu_bin("blkreel-parse"), input, dir), 0, "%s: convert", what);
	cr_assert_eq(tu_runf(&ours, NULL, NULL, "'%s' '%s'", tu_bin("blkreel-parse"), input), 0);
	cr_assert_eq(tu_runf(&back, NULL, NULL, "zcat '%s/out.blktrace.gz' | blkparse -i -", dir), 0);
	unsigned long long n_ours = events_total(ours), n_back = events_total(back);
	cr_expect_gt(n_ours, 0);
	cr_expect_eq(n_ours, n_back, "%s: blkreel-parse %llu events, zcat|blkparse %llu", what,
		     n_ours, n_back);
	if (lines_too) {
		cr_assert_eq(tu_runf(&orig, NULL, NULL, "blkparse -i - < '%s'", input), 0);
		expect_same(what, back, orig);
	}
	free(ours);
	free(back);
	free(orig);
}

Test(parse_oracle, compressed_roundtrip_counts)
{
	need_tools();
	char *dir = tu_tmpdir();
	cr_assert_not_null(dir);
	const char *tr = tu_realtrace("takeoverjp_blktrace_viewer/sample.blktrace.0");
	if (tr)
		roundtrip("takeoverjp", tr, dir, true);
	write_set(dir, "multi", 3, 300);
	char set[4096];
	snprintf(set, sizeof set, "%s/multi", dir);
	roundtrip("synthetic set", set, dir, false);
	tu_tmpdir_remove(dir);
}
