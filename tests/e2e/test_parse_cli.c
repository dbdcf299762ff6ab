/* blkreel-parse end to end: options, exit codes, conversions that the
 * classic tools read, round trips, and errors on bad input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tracegen.h"


TestSuite(parse_cli, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

static const char *parse(void)
{
	return tu_bin("blkreel-parse");
}

Test(parse_cli, help_version_and_usage_errors)
{
	char *out = NULL, *err = NULL;
	cr_expect_eq(tu_runf(&out, NULL, NULL, "'%s' --help", parse()), 0);
	cr_expect(strstr(out, "Usage: blkreel-parse"));
	cr_expect(strstr(out, "--split"));
	free(out);
	cr_expect_eq(tu_runf(&out, NULL, NULL, "'%s' --version", parse()), 0);
	cr_expect(strstr(out, "blkreel-parse "));
	free(out);
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s'", parse()), 2);
	cr_expect(strstr(err, "no trace given"));
	free(err);
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s' --bogus x", parse()), 2);
	cr_expect(strstr(err, "--bogus"));
	free(err);
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s' --from soon x", parse()), 2);
	free(err);
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s' -l 12 x", parse()), 2);
	free(err);
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s' -o a.gz --split b x", parse()), 2);
	free(err);
}

/* A bad input gives one line naming the file and byte offset, exit 1, and
 * no output file that could pass for a whole conversion. */
Test(parse_cli, bad_input_is_one_clear_line)
{
	static const struct {
		const char *name;
		const char *content;
		size_t len;
		const char *want;
	} cases[] = {
		{ "empty", "", 0, "byte 0: empty input" },
		{ "garbage", "GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE", 55,
		  "byte 0: " },
		{ "binary", "\x01\x02\x03\x04\x05\x06\x07\x08\xff\xfe\x00\x01", 12,
		  "byte 0: " },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[1024], outpath[1024];
		snprintf(path, sizeof path, "%s/%s", tu_dir, cases[i].name);
		snprintf(outpath, sizeof outpath, "%s/%s.blktrace.gz", tu_dir, cases[i].name);
		tu_write_file(path, cases[i].content, cases[i].len);
		char *out = NULL, *err = NULL;
		int rc = tu_runf(&out, NULL, &err, "'%s' '%s' -o '%s'", parse(), path, outpath);
		cr_expect_eq(rc, 1, "%s: exit %d", cases[i].name, rc);
		cr_expect(strstr(err, path), "names the file: %s", err);
		cr_expect(strstr(err, cases[i].want), "%s: %s", cases[i].name, err);
		cr_expect_eq(tu_count_lines(err, ""), 1, "one line: %s", err);
		struct stat st;
		cr_expect_neq(stat(outpath, &st), 0, "no partial output left behind");
		free(out);
		free(err);
	}
	/* truncated in the middle of the stream: the conversion fails, no file */
	size_t len;
	char src[1024];
	snprintf(src, sizeof src, "%s.blktrace.0", tu_sample("ext4-loop"));
	uint8_t *data = tu_read_file(src, &len);
	cr_assert(data && len > 1000);
	char path[1024], outpath[1024];
	snprintf(path, sizeof path, "%s/cut", tu_dir);
	snprintf(outpath, sizeof outpath, "%s/cut.blktrace.gz", tu_dir);
	tu_write_file(path, data, len - 30);
	char *err = NULL;
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s' '%s' -o '%s'", parse(), path, outpath), 1);
	char want[64];
	snprintf(want, sizeof want, "byte %zu: record cut short", len - 30 - 18);
	cr_expect(strstr(err, want), "%s", err);
	struct stat st;
	cr_expect_neq(stat(outpath, &st), 0);
	free(err);
	/* the text mode says so too and exits 1 */
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s' '%s' > /dev/null", parse(), path), 1);
	cr_expect(strstr(err, "cut short"));
	free(err);
	free(data);
}

/* An empty per-CPU set is empty input however it is named: NAME, a member
 * NAME.blktrace.K of a set, or a lone NAME.blktrace.0 all exit 1 with the
 * "empty input" line, like one empty file, and write nothing. */
Test(parse_cli, empty_cpu_set_is_empty_input_by_any_name)
{
	char base[1024], f0[1100], f1[1100];
	snprintf(base, sizeof base, "%s/idle", tu_dir);
	snprintf(f0, sizeof f0, "%s.blktrace.0", base);
	snprintf(f1, sizeof f1, "%s.blktrace.1", base);
	cr_assert_eq(tu_write_file(f0, "", 0), 0);
	for (int files = 1; files <= 2; files++) {
		if (files == 2)
			cr_assert_eq(tu_write_file(f1, "", 0), 0);
		const char *names[] = { base, f0, f1 };
		for (int n = 0; n < files + 1; n++) {
			char *out = NULL, *err = NULL;
			int rc = tu_runf(&out, NULL, &err, "'%s' '%s'", parse(), names[n]);
			cr_expect_eq(rc, 1, "%d files, as %s: exit %d", files, names[n], rc);
			cr_expect(strstr(err, "empty input"), "%d files, as %s: %s", files, names[n], err);
			cr_expect_eq(tu_count_lines(err, ""), 1, "one line: %s", err);
			cr_expect_str_eq(out, "", "as %s", names[n]);
			free(out);
			free(err);
		}
	}
}

Test(parse_cli, compressed_file_is_read_by_blkparse)
{
	if (!tu_have("blkparse"))
		cr_skip_test("blkparse (Debian's blktrace) is not installed");
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "cd '%s' && '%s' '%s' -o run.blktrace.gz && zcat run.blktrace.gz | blkparse -q -i - | wc -l",
			 tu_dir, parse(), tu_sample("ext4-loop"));
	cr_assert_eq(rc, 0);
	cr_expect_eq(atoi(out), 6125);
	free(out);
}

Test(parse_cli, round_trip_cpu_set_compressed_cpu_set)
{
	int rc = tu_runf(NULL, NULL, NULL,
			 "cd '%s' && '%s' '%s' -o a.blktrace.gz && '%s' a.blktrace.gz --split back"
			 " && cmp '%s.blktrace.0' back.blktrace.0 && cmp '%s.blktrace.1' back.blktrace.1",
			 tu_dir, parse(), tu_sample("ext4-loop"), parse(), tu_sample("ext4-loop"),
			 tu_sample("ext4-loop"));
	cr_expect_eq(rc, 0, "per-CPU set -> compressed -> per-CPU set is byte-identical");
	/* and through a single stream and standard input */
	rc = tu_runf(NULL, NULL, NULL,
		     "cd '%s' && '%s' a.blktrace.gz -o merged.bin && '%s' - -o again.blktrace.gz < merged.bin"
		     " && '%s' again.blktrace.gz --split again && cmp back.blktrace.0 again.blktrace.0"
		     " && cmp back.blktrace.1 again.blktrace.1",
		     tu_dir, parse(), parse(), parse());
	cr_expect_eq(rc, 0, "stream and stdin round trip");
	if (!tu_have("blkparse"))
		return;
	char *ours = NULL, *theirs = NULL;
	rc = tu_runf(&theirs, NULL, NULL, "cd '%s' && blkparse -q -i back | grep -v '^Input file'", tu_dir);
	cr_assert_eq(rc, 0);
	rc = tu_runf(&ours, NULL, NULL, "cd '%s' && '%s' -q back", tu_dir, parse());
	cr_assert_eq(rc, 0);
	cr_expect_str_eq(ours, theirs, "blkparse reads our --split set line for line");
	free(ours);
	free(theirs);
}

Test(parse_cli, info_reports_counts)
{
	char *out = NULL;
	cr_assert_eq(tu_runf(&out, NULL, NULL, "'%s' --info '%s'", parse(), tu_sample("ext4-loop")), 0);
	cr_expect(strstr(out, "per-CPU set, 2 non-empty files"), "%s", out);
	cr_expect(strstr(out, "events: 6125"), "%s", out);
	cr_expect(strstr(out, "device 7,0: 6125 events"), "%s", out);
	cr_expect(strstr(out, "Q 2072"), "%s", out);
	cr_expect(strstr(out, "D 516"), "%s", out);
	cr_expect(strstr(out, "C 534"), "%s", out);
	free(out);
}

Test(parse_cli, time_window_uses_the_index)
{
	/* a trace long enough for many members: 200k events over 20 s */
	tg_buf b = { 0 };
	for (uint64_t i = 0; i < 200000; i++) {
		br_event ev = tg_io(1000000000ull + i * 100000ull, BR_MKDEV(8, 0), 0,
				    i % 2 ? TG_C_W : TG_D_W, i * 8, 4096, 42);
		tg_append(&b, &ev, false);
	}
	char raw[1024];
	snprintf(raw, sizeof raw, "%s/long.bin", tu_dir);
	cr_assert_eq(tg_write(&b, raw), 0);
	tg_free(&b);
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "cd '%s' && '%s' long.bin -o long.blktrace.gz && '%s' --info --from 15s --to 16s long.blktrace.gz",
			 tu_dir, parse(), parse());
	cr_assert_eq(rc, 0);
	/* 15.0 s .. 16.0 s inclusive at 100 us spacing: 10001 events */
	cr_expect(strstr(out, "events: 10001 "), "%s", out);
	cr_expect(strstr(out, "members skipped by the time window without inflating"), "%s", out);
	free(out);
	/* the same window on the raw stream gives the same events */
	rc = tu_runf(&out, NULL, NULL, "cd '%s' && '%s' --info --from 15s --to 16s long.bin", tu_dir,
		     parse());
	cr_assert_eq(rc, 0);
	cr_expect(strstr(out, "events: 10001 "), "%s", out);
	free(out);
}

Test(parse_cli, real_trace_stdin_and_file)
{
	const char *path = tu_realtrace("takeoverjp_blktrace_viewer/sample.blktrace.0");
	if (!path)
		cr_skip_test("../shared/realtraces is absent");
	char *a = NULL, *b = NULL;
	cr_assert_eq(tu_runf(&a, NULL, NULL, "'%s' '%s'", parse(), path), 0);
	cr_assert_eq(tu_runf(&b, NULL, NULL, "'%s' - < '%s'", parse(), path), 0);
	cr_expect_str_eq(a, b);
	cr_expect_eq(tu_count_lines(a, " A "), 963);
	free(a);
	free(b);
}

Test(parse_cli, damaged_member_and_salvage)
{
	int rc = tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' '%s' -o a.blktrace.gz", tu_dir, parse(),
			 tu_sample("ext4-loop"));
	cr_assert_eq(rc, 0);
	char path[1024];
	snprintf(path, sizeof path, "%s/a.blktrace.gz", tu_dir);
	size_t len;
	uint8_t *data = tu_read_file(path, &len);
	cr_assert(data && len > 20000);
	data[len / 2] ^= 0x55; /* inside a middle member's deflate data */
	snprintf(path, sizeof path, "%s/bad.blktrace.gz", tu_dir);
	tu_write_file(path, data, len);
	free(data);
	char *out = NULL, *err = NULL;
	rc = tu_runf(&out, NULL, &err, "'%s' -q '%s'", parse(), path);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "bad.blktrace.gz: byte "), "%s", err);
	cr_expect(strstr(err, "damaged"), "%s", err);
	cr_expect(strstr(err, "--salvage"), "%s", err);
	free(out);
	free(err);
	rc = tu_runf(&out, NULL, &err, "'%s' -q --salvage '%s' | wc -l", parse(), path);
	cr_expect_eq(rc, 0);
	int lines = atoi(out);
	cr_expect(lines > 0 && lines < 6125, "the rest is read: %d", lines);
	cr_expect(strstr(err, "records lost"), "%s", err);
	/* the records said lost plus those read make the whole trace */
	const char *lost = strstr(err, "): ");
	cr_assert(lost, "%s", err);
	cr_expect_eq(lines + atoi(lost + 3), 6125, "%s", err);
	free(out);
	free(err);
}

Test(parse_cli, blkparse_dump_is_read)
{
	if (!tu_have("blkparse"))
		cr_skip_test("blkparse (Debian's blktrace) is not installed");
	int rc = tu_runf(NULL, NULL, NULL,
			 "cd '%s' && blkparse -i '%s' -d dump.bin -O >/dev/null && '%s' -q dump.bin > a.txt"
			 " && '%s' -q '%s' > b.txt && cmp a.txt b.txt",
			 tu_dir, tu_sample("ext4-loop"), parse(), parse(), tu_sample("ext4-loop"));
	cr_expect_eq(rc, 0, "a blkparse -d dump reads as the set it came from");
}

Test(parse_cli, make_install_puts_tools_in_prefix)
{
	int rc = tu_runf(NULL, NULL, NULL, "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install PREFIX='%s/prefix' >/dev/null 2>&1"
			 " && test -x '%s/prefix/bin/blkreel-parse'", tu_root(), tu_dir, tu_dir);
	cr_expect_eq(rc, 0);
}
