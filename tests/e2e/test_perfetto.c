/* blkreel-parse -o X.perfetto.json: Trace Event JSON that parses, one IO
 * slice per completed IO of the shared analysis (the IOs blkreel-report
 * --per-io lists), phases nested inside their IO, no two slices of a track
 * overlapping, a flush instant per issued flush, counters per device; the
 * file parses whatever bytes the process names hold; and errors that leave
 * no partial file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tracegen.h"

TestSuite(perfetto, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 300);

/* Value of "key N" in the checker's output, or -1. */
static long measure(const char *out, const char *key)
{
	size_t l = strlen(key);
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, key, l) == 0 && p[l] == ' ')
			return strtol(p + l + 1, NULL, 10);
	return -1;
}

static long count_lines(const char *cmd_fmt, const char *a, const char *b)
{
	char *out = NULL;
	tu_runf(&out, NULL, NULL, cmd_fmt, a, b);
	long n = out ? strtol(out, NULL, 10) : -1;
	free(out);
	return n;
}

static void check_trace(const char *rel)
{
	const char *trace = tu_sample(rel);
	const char *json = tu_path("t.perfetto.json");
	char *err = NULL;
	int rc = tu_run_tool(NULL, &err, "blkreel-parse", "'%s' -o '%s'", trace, json);
	cr_assert_eq(rc, 0, "%s: %s", rel, err);
	free(err);
	cr_assert(tu_have("python3"), "python3 is a test dependency (make deps-test)");
	err = NULL;
	rc = tu_runf(NULL, NULL, &err, "python3 -m json.tool '%s' >/dev/null", json);
	cr_assert_eq(rc, 0, "%s: not JSON: %s", rel, err);
	free(err);

	char *out = NULL;
	rc = tu_runf(&out, NULL, &err, "python3 '%s/tests/e2e/tools/perfetto_check.py' '%s'", tu_root(), json);
	cr_assert_eq(rc, 0, "%s: checker failed: %s", rel, err);
	free(err);

	/* the IOs: one per line of btt -p's view, from the same shared analysis */
	const char *perio = tu_path("perio.tsv");
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-report", "-q --per-io '%s' '%s'", perio, trace), 0);
	long ios = count_lines("tail -n +2 '%s' | wc -l%s", perio, "");
	cr_assert_gt(ios, 0);
	cr_expect_eq(measure(out, "ios"), ios, "%s: %ld slices, %ld IOs", rel, measure(out, "ios"), ios);
	/* and no fewer than the bios queued minus those never completed */
	cr_expect_gt(measure(out, "phases"), measure(out, "ios"), "%s: each IO has its phases", rel);
	cr_expect_eq(measure(out, "unnested"), 0, "%s", rel);
	cr_expect_eq(measure(out, "overlaps"), 0, "%s", rel);
	cr_expect_eq(measure(out, "bad_phase"), 0, "%s", rel);
	/* issued flush requests, as blkparse prints them: "D  FN" without a size */
	long flushes = count_lines("'%s' -q '%s' | awk '$6 == \"D\" && $7 ~ /F/ && !/ [+] /' | wc -l",
				   tu_bin("blkreel-parse"), trace);
	cr_expect_eq(measure(out, "flushes"), flushes, "%s: %ld flush instants, %ld flushes", rel,
		     measure(out, "flushes"), flushes);
	cr_expect_gt(measure(out, "inflight"), 10, "%s", rel);
	cr_expect_eq(measure(out, "mbps"), measure(out, "inflight"), "%s", rel);
	cr_expect_eq(measure(out, "devices"), 1, "%s", rel);
	free(out);
}

Test(perfetto, per_cpu_set_with_merges_and_flushes)
{
	check_trace("ext4-loop");
}

Test(perfetto, compressed_dbench_trace)
{
	check_trace("xfs-dbench-1c.blktrace.gz");
}

Test(perfetto, random_reads_four_threads)
{
	check_trace("ext4-fio-rand-4t.blktrace.gz");
}

/* A window keeps the file small for big traces: only IOs inside it. */
Test(perfetto, from_to_window)
{
	const char *trace = tu_sample("xfs-dbench-1c.blktrace.gz");
	const char *all = tu_path("all.perfetto.json"), *part = tu_path("part.perfetto.json");
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-parse", "'%s' -o '%s'", trace, all), 0);
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-parse", "'%s' --from 1s --to 2s -o '%s'", trace, part), 0);
	char *a = NULL, *p = NULL;
	tu_runf(&a, NULL, NULL, "python3 '%s/tests/e2e/tools/perfetto_check.py' '%s'", tu_root(), all);
	tu_runf(&p, NULL, NULL, "python3 '%s/tests/e2e/tools/perfetto_check.py' '%s'", tu_root(), part);
	cr_expect(measure(p, "ios") > 0 && measure(p, "ios") < measure(a, "ios"), "window %ld of %ld",
		  measure(p, "ios"), measure(a, "ios"));
	cr_expect_eq(measure(p, "overlaps"), 0);
	free(a);
	free(p);
}

Test(perfetto, errors_leave_no_file)
{
	char *err = NULL;
	/* an input cut short: exit 1, one line naming it, no output left */
	const char *cut = tu_path("cut.blktrace");
	char src[4096];
	snprintf(src, sizeof src, "%s.blktrace.0", tu_sample("ext4-loop"));
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "head -c $(( $(stat -c %%s '%s') - 30 )) '%s' >'%s'", src, src, cut), 0);
	const char *json = tu_path("cut.perfetto.json");
	int rc = tu_run_tool(NULL, &err, "blkreel-parse", "'%s' -o '%s'", cut, json);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, cut) && strstr(err, "cut short"), "%s", err);
	struct stat st;
	cr_expect_neq(stat(json, &st), 0, "no partial JSON left behind");
	free(err);
	/* an output that cannot be created */
	err = NULL;
	rc = tu_run_tool(NULL, &err, "blkreel-parse", "'%s' -o '%s/no/such/dir/x.perfetto.json'",
			 tu_sample("ext4-loop"), tu_dir);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "x.perfetto.json"), "%s", err);
	free(err);
}

Test(perfetto, hostile_process_names_parse)
{
	const char *trace = tu_path("hostile.blktrace");
	cr_assert_eq(tg_write_hostile(trace, true), 0);
	const char *json = tu_path("hostile.perfetto.json");
	char *err = NULL;
	cr_assert_eq(tu_run_tool(NULL, &err, "blkreel-parse", "'%s' -o '%s'", trace, json), 0, "%s", err);
	free(err);
	err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "python3 -m json.tool '%s' >/dev/null", json);
	cr_expect_eq(rc, 0, "not JSON: %s", err);
	free(err);
	/* the names decode to what they were, invalid bytes as U+FFFD */
	char *out = NULL;
	err = NULL;
	rc = tu_runf(&out, NULL, &err,
		     "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
		     "print(json.dumps(sorted({e[\"args\"][\"comm\"] for e in d[\"traceEvents\"] "
		     "if e.get(\"cat\") == \"io\"}), separators=(\",\", \":\")))' '%s'",
		     json);
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect_str_eq(out, "[\"\\t\\u001b[31m\\ufffd\\ufffd\",\"q\\\"b\\\\\\u0001\\n\\u007f\\ufffd\\ufffd(\"]\n");
	free(out);
	free(err);
	out = NULL;
	rc = tu_runf(&out, NULL, NULL, "python3 '%s/tests/e2e/tools/perfetto_check.py' '%s'", tu_root(), json);
	cr_assert_eq(rc, 0);
	cr_expect_eq(measure(out, "ios"), 40, "%s", out);
	cr_expect_eq(measure(out, "overlaps"), 0, "%s", out);
	free(out);
}

/* A write that fails (a full device) names the file and the byte offset,
 * exits 1. */
Test(perfetto, write_error_names_file_and_offset)
{
	const char *json = tu_path("full.perfetto.json");
	if (symlink("/dev/full", json))
		cr_skip_test("cannot link /dev/full");
	char *err = NULL;
	int rc = tu_run_tool(NULL, &err, "blkreel-parse", "'%s' -o '%s'", tu_sample("ext4-loop"), json);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "full.perfetto.json: byte 0: write failed: No space left on device"), "%s", err);
	cr_expect_eq(tu_count_lines(err, ""), 1, "one line: %s", err);
	free(err);
}
