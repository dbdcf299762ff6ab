/* blkreel-report on a sweep: sweep labels STACK:PARAM=VALUE and their usage
 * errors, and the report of the bundled dbench samples (ext4 and xfs at 1
 * and 8 clients): the JSON's "sweep", "knees" and "pairs", the text's
 * sweep section first. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(report_sweep, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

static const char *rep(void)
{
	return tu_bin("blkreel-report");
}


Test(report_sweep, malformed_labels_are_usage_errors)
{
	const char *s = tu_sample("ext4-dbench-1c.blktrace.gz");
	static const struct {
		const char *args, *says;
	} bad[] = {
		{ "-l ext4:clients a", "STACK:PARAM=VALUE" },
		{ "-l ext4:clients= a", "STACK:PARAM=VALUE" },
		{ "-l :clients=1 a", "STACK:PARAM=VALUE" },
		{ "-l ext4:=1 a", "STACK:PARAM=VALUE" },
		{ "-l ext4:clients=eight a", "STACK:PARAM=VALUE" },
		{ "-l ext4:clients=1x a", "STACK:PARAM=VALUE" },
		{ "-l 'ext4:cli ents=1' a", "STACK:PARAM=VALUE" },
		{ "-l ext4:clients=1 a -l ext4:threads=2 b", "one parameter per sweep" },
		{ "-l ext4:clients=1 a -l xfs b", "give every trace a sweep label" },
		{ "-l ext4:clients=1 a b", "give every trace a sweep label" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *err = NULL;
		int rc = tu_runf(NULL, NULL, &err, "'%s' %s < /dev/null", rep(), bad[i].args);
		cr_expect_eq(rc, 2, "%s: exit %d", bad[i].args, rc);
		cr_expect(err && strstr(err, bad[i].says), "%s: %s", bad[i].args, err ? err : "");
		free(err);
	}
	/* a label without ':' is a plain name, and a file name with one is no label */
	char *out = NULL;
	cr_expect_eq(tu_runf(&out, NULL, NULL, "cd '%s' && cp '%s' 'a:b=1.gz' && '%s' --no-progress -l plain "
				"'a:b=1.gz'", tu_dir, s, rep()), 0);
	cr_expect(out && strstr(out, "== plain (a:b=1.gz"), "%s", out ? out : "");
	cr_expect(out && !strstr(out, "== Sweep"));
	free(out);
}

Test(report_sweep, dbench_samples)
{
	char *out = NULL, *err = NULL;
	const char *root = tu_root();
	int rc = tu_runf(&out, NULL, &err,
			 "cd '%s' && '%s' --no-progress -l xfs:clients=8 '%s/samples/xfs-dbench-8c.blktrace.gz' "
			 "-l ext4:clients=8 '%s/samples/ext4-dbench-8c.blktrace.gz' "
			 "-l ext4:clients=1 '%s/samples/ext4-dbench-1c.blktrace.gz' "
			 "-l xfs:clients=1 '%s/samples/xfs-dbench-1c.blktrace.gz' --json s.json --markdown s.md --html s.html --no-figure",
			 tu_dir, rep(), root, root, root, root);
	cr_assert_eq(rc, 0, "%s", err ? err : "");
	/* the report opens with the sweep, then a diagnosis per shared value */
	cr_expect(!strncmp(out, "== Sweep over clients: xfs, ext4\n", 33), "%.200s", out);
	char *at1 = strstr(out, "== Diagnosis at clients=1: xfs:clients=1 vs ext4:clients=1");
	char *at8 = strstr(out, "== Diagnosis at clients=8: xfs:clients=8 vs ext4:clients=8");
	cr_expect(at1 && at8 && at1 < at8, "%s", out);
	cr_expect(strstr(out, "<- knee"));
	free(out);
	free(err);
	char p[4096];
	/* Markdown: the sweep's tables first, the knee marked, then the pairs */
	snprintf(p, sizeof p, "%s/s.md", tu_dir);
	char *md = tu_read_text(p);
	cr_assert(md, "%s", p);
	char *sweep = strstr(md, "\n## Sweep over clients\n"), *pair = strstr(md, "\n## Diagnosis at clients=1\n");
	cr_expect(sweep && pair && sweep < pair, "%s", md);
	cr_expect(strstr(md, "| 1 (knee) | 32.4 |"), "%s", md);
	cr_expect(strstr(md, "**Limit: none.**"));
	free(md);
	/* HTML: the same order */
	snprintf(p, sizeof p, "%s/s.html", tu_dir);
	char *html = tu_read_text(p);
	cr_assert(html, "%s", p);
	sweep = strstr(html, "<h2>Sweep over clients</h2>");
	pair = strstr(html, "<h2>Diagnosis at clients=8</h2>");
	cr_expect(sweep && pair && sweep < pair, "%.2000s", html);
	cr_expect(strstr(html, "<tr><td>1 (knee)</td><td>32.4</td>"), "%.2000s", html);
	cr_expect(strstr(html, "<strong>Limit: serialised.</strong>"));
	free(html);
	snprintf(p, sizeof p, "%s/s.json", tu_dir);
	tu_expect_json(p, "d[\"sweep\"][\"parameter\"]", "\"clients\"");
	tu_expect_json(p, "[s[\"stack\"] for s in d[\"sweep\"][\"stacks\"]]", "[\"xfs\",\"ext4\"]");
	/* sorted by the value, each point labelled with its trace */
	tu_expect_json(p, "[[q[\"value\"] for q in s[\"points\"]] for s in d[\"sweep\"][\"stacks\"]]", "[[1,8],[1,8]]");
	tu_expect_json(p, "d[\"sweep\"][\"stacks\"][1][\"points\"][0][\"label\"]", "\"ext4:clients=1\"");
	/* the bundled numbers (samples/README.md): xfs 4.3 -> 25.9 MB/s, ext4 32.4 -> 22.7 */
	tu_expect_json(p, "[[round(q[\"mbps\"], 1) for q in s[\"points\"]] for s in d[\"sweep\"][\"stacks\"]]",
		    "[[4.3,25.9],[32.4,22.7]]");
	/* the identity holds at every point: MB/s = U N_busy S / R (up to the residual) */
	tu_expect_json(p, "all(abs(q[\"mbps\"] - q[\"U\"]*q[\"N_busy\"]*q[\"S_bytes\"]/q[\"R_ns\"]*1e3*__import__(\"math\").exp(q[\"residual\"])) < 1e-6*q[\"mbps\"] for s in d[\"sweep\"][\"stacks\"] for q in s[\"points\"])",
		    "true");
	/* the step's terms and residual add up to its growth */
	tu_expect_json(p, "all(abs(sum(t[\"terms\"].values()) + t[\"residual\"] - t[\"ln_ratio\"]) < 1e-6 for s in d[\"sweep\"][\"stacks\"] for t in s[\"steps\"])",
		    "true");
	/* xfs scales from 1 to 8 clients (elasticity 0.85): no knee; ext4 falls: the knee is at 1 */
	tu_expect_json(p, "[(k[\"stack\"], k[\"knee\"]) for k in d[\"knees\"]]", "[[\"xfs\",null],[\"ext4\",1]]");
	tu_expect_json(p, "d[\"knees\"][0][\"limit\"]", "\"none\"");
	/* ext4 past 1 client: N_busy at most 1.58 with 8 clients (journal commits and flushes), R 2.86x */
	tu_expect_json(p, "d[\"knees\"][1][\"limit\"]", "\"serialised\"");
	tu_expect_json(p, "\"past the knee at clients=1\" in d[\"knees\"][1][\"evidence\"]", "true");
	/* the paragraph on where they part names both stacks and the slower at 8 */
	tu_expect_json(p, "all(w in d[\"sweep\"][\"summary\"] for w in [\"xfs goes from 4.29 to 25.2\", \"ext4 goes from\", "
		       "\"At clients=8 ext4 is the slower\"])", "true");
	/* a pairwise diagnosis at each shared value: xfs is slower at 1, ext4 at 8 */
	tu_expect_json(p, "[(q[\"value\"], q[\"diagnosis\"][\"worse\"]) for q in d[\"pairs\"]]",
		    "[[1,\"xfs:clients=1\"],[8,\"ext4:clients=8\"]]");
	tu_expect_json(p, "all(len(q[\"diagnosis\"][\"causes\"]) > 0 for q in d[\"pairs\"])", "true");
}

/* The captured sweeps in samples/sweeps/ (samples/capture-sweeps.sh: fio
 * at numjobs 1-16, each built to stop on one limit) are judged as built,
 * from the files, with the knee at the point after which the traces' own
 * MB/s first grows by less than half of linear scaling. The kernel suite
 * (test_sweep_kernel.c) captures two of them anew; these are the files a
 * user gets. */
static void expect_bundled_sweep(const char *name, const char *limit, int knee)
{
	char cmd[4096];
	size_t k = (size_t)snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --no-progress -q --no-figure", tu_dir, rep());
	static const int jobs[] = { 1, 2, 4, 8, 16 };
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++)
		k += (size_t)snprintf(cmd + k, sizeof cmd - k, " -l %s:numjobs=%d '%s/samples/sweeps/%s/j%d.blktrace.gz'",
				      name, jobs[i], tu_root(), name, jobs[i]);
	snprintf(cmd + k, sizeof cmd - k, " --json s.json");
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "%s", cmd);
	cr_assert_eq(rc, 0, "%s: %s", name, err ? err : "");
	free(err);
	char want[64];
	snprintf(want, sizeof want, "\"%s\"", limit);
	tu_expect_json(tu_path("s.json"), "d[\"knees\"][0][\"limit\"]", want);
	snprintf(want, sizeof want, "%d", knee);
	tu_expect_json(tu_path("s.json"), "d[\"knees\"][0][\"knee\"]", want);
}

Test(report_sweep, bundled_cpu_bound_sweep_is_host_bound)
{
	/* 428 MB/s at 1 job, 467 at 16: the hashing CPU is the limit from the first job */
	expect_bundled_sweep("host", "host_bound", 1);
}

Test(report_sweep, bundled_least_nr_requests_sweep_is_concurrency_capped)
{
	/* 33.9, 68.7, 94.3, 111.7, 113.0 MB/s: linear to 2 jobs, N_busy stops at 3.45 */
	expect_bundled_sweep("nr_requests", "concurrency_capped", 2);
}

Test(report_sweep, bundled_fsync_sweep_is_serialised)
{
	/* 6.0 work MB/s at 1 job and 5.9 at 16: N_busy at most 1.22 */
	expect_bundled_sweep("fsync", "serialised", 1);
}
