/* Every tool reads a rotated capture set named NAME as the one trace it
 * was cut from: blkreel-parse --info, blkreel-report's JSON, blkreel-plot's
 * series and blkreel-replay's plan say the same of the set as of the
 * unsplit file. (The reader's side, record by record, is
 * tests/formats/test_rotated_set.c.) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "splitset.h"
#include "testutil.h"

TestSuite(rotated_tools, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

#define SAMPLE "ext4-fio-rand-1t.blktrace.gz"

/* NAME = tu_dir/run: the sample cut into 4 members, numbered from 3 as if
 * --keep had deleted the first two; a member being written beside them. */
static const char *make_set(void)
{
	ss_trace t;
	ss_load(tu_sample(SAMPLE), &t);
	size_t cuts[5];
	static char name[1024]; /* tu_path's buffers are reused */
	snprintf(name, sizeof name, "%s", tu_path("run"));
	ss_split(&t, name, 4, 3, cuts);
	ss_free(&t);
	char part[4096];
	snprintf(part, sizeof part, "%s.00007.blktrace.gz.part", name);
	cr_assert_eq(tu_write_file(part, "\x1f\x8b\x08", 3), 0);
	return name;
}

/* What follows the "input:" lines of blkreel-parse --info path. */
static char *parse_info(const char *path)
{
	char *out = NULL, *err = NULL;
	int rc = tu_run_tool(&out, &err, "blkreel-parse", "-q --info '%s'", path);
	cr_assert_eq(rc, 0, "%s: %s", path, err);
	free(err);
	char *events = strstr(out, "\nevents: ");
	cr_assert(events, "%s", out);
	char *rest = strdup(events + 1);
	free(out);
	return rest;
}

Test(rotated_tools, parse_report_plot_and_replay_read_the_set_as_the_trace)
{
	const char *name = make_set();
	const char *whole = tu_sample(SAMPLE);

	char *a = parse_info(whole), *b = parse_info(name);
	cr_expect_str_eq(b, a, "blkreel-parse --info of the set and of the file");
	cr_expect(strstr(a, "requests: 6754 issued (D)"), "%s", a);
	free(a);
	free(b);

	/* blkreel-report: the same analysis, but for the path it names */
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-report", "-q -l X '%s' --json '%s'", whole,
				 tu_path("whole.json")), 0);
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-report", "-q -l X '%s' --json '%s'", name,
				 tu_path("set.json")), 0);
	const char *expr = "{k: v for k, v in d[\"traces\"][0].items() if k != \"path\"}";
	char *ja = tu_json_eval(tu_path("whole.json"), expr);
	char *jb = tu_json_eval(tu_path("set.json"), expr);
	cr_expect_str_eq(jb, ja, "blkreel-report --json of the set and of the file");
	free(ja);
	free(jb);
	tu_expect_json(tu_path("set.json"), "sum(d[\"traces\"][0][\"ios\"].values())", "6749");

	/* blkreel-plot: every plotted series the same */
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-plot", "-q -t '%s' -l X -o '%s' --csv '%s'",
				 whole, tu_path("whole.png"), tu_path("whole.csv")), 0);
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-plot", "-q -t '%s' -l X -o '%s' --csv '%s'",
				 name, tu_path("set.png"), tu_path("set.csv")), 0);
	char *ca = tu_read_text(tu_path("whole.csv")), *cb = tu_read_text(tu_path("set.csv"));
	cr_expect_gt(strlen(ca), 1000);
	cr_expect_str_eq(cb, ca, "blkreel-plot --csv of the set and of the file");
	free(ca);
	free(cb);
	struct stat st;
	cr_expect(stat(tu_path("set.png"), &st) == 0 && st.st_size > 10000);

	/* blkreel-replay, reads only, onto a sparse regular file: the same plan */
	char img[4096];
	snprintf(img, sizeof img, "%s", tu_path("target.img"));
	cr_assert_eq(tu_write_file(img, "", 0), 0);
	cr_assert_eq(truncate(img, 4ll << 30), 0);
	const char *plan = "[d[\"planned\"], d[\"not_replayed_without_write\"], d[\"unmapped\"]]";
	const char *paths[] = { whole, name };
	char *said[2];
	for (int i = 0; i < 2; i++) {
		char rep[4096], *err = NULL;
		snprintf(rep, sizeof rep, "%s/replay%d.json", tu_dir, i);
		int rc = tu_run_tool(NULL, &err, "blkreel-replay", "'%s' -d '%s' --no-stall --wrap -q --report '%s'",
				     paths[i], img, rep);
		cr_assert_eq(rc, 0, "%s: %s", paths[i], err);
		free(err);
		said[i] = tu_json_eval(rep, plan);
	}
	cr_expect_str_eq(said[1], said[0], "blkreel-replay's plan of the set and of the file");
	cr_expect(strstr(said[0], "\"read\":4000") || strstr(said[0], "\"read\": 4000"), "%s", said[0]);
	free(said[0]);
	free(said[1]);
}

/* plot and report take one path per trace: a quoted pattern is that path. */
Test(rotated_tools, a_quoted_pattern_is_one_trace_for_plot_and_report)
{
	const char *name = make_set();
	char pattern[4096];
	snprintf(pattern, sizeof pattern, "%s.0000[3-6].blktrace.gz", name);
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-report", "-q -l X '%s' --json '%s'", pattern,
				 tu_path("set.json")), 0);
	tu_expect_json(tu_path("set.json"), "sum(d[\"traces\"][0][\"ios\"].values())", "6749");
	char *err = NULL;
	int rc = tu_run_tool(NULL, &err, "blkreel-plot", "-q -t '%s' -o '%s'", pattern,
			     tu_path("set.png"));
	cr_expect_eq(rc, 0, "%s", err);
	free(err);
	/* no match: one line naming the pattern, exit 1 */
	rc = tu_run_tool(NULL, &err, "blkreel-report", "-q '%s/nothing.*.blktrace.gz'", tu_dir);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "nothing.*.blktrace.gz: no file matches the pattern"), "%s", err);
	free(err);
}
