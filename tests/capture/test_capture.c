/* test_capture.c — blkreel-capture on a real loop device: exactly the D and
 * C events of a known workload, real process names, and Debian's blkparse
 * reading both the compressed file and the --split set; two perf captures
 * at once. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_suite.h"
#include "testutil.h"
#include "capture_fixture.h"

TestSuite(capture, .init = cf_setup, .fini = cf_teardown, .timeout = 120);

static void blkparse_counts(const char *pipe_cmd, cf_counts *c, char **text_out)
{
	char *text = NULL;
	int rc = tu_runf(&text, NULL, NULL, "%s", pipe_cmd);
	cr_assert_eq(rc, 0, "'%s' failed (%d)", pipe_cmd, rc);
	cf_count(text, c);
	if (text_out)
		*text_out = text;
	else
		free(text);
}

static void exact_run(const char *backend)
{
	cf_kernel_test(64);
	if (!tu_have("fio") || !tu_have("blkparse"))
		cr_skip_test("needs fio and blkparse");
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend %s --no-progress -d %s -o '%s/run' --split -- %s", backend,
			    cf.loop, cf.dir, cf_workload());
	bool only_loss;
	unsigned long long unrecorded = tu_capture_unrecorded(rc, err, &only_loss);
	cr_assert(only_loss, "capture exited %d: %s", rc, err ? err : "");
	cr_expect(strstr(err, backend) != NULL, "the backend is not named: %s", err);
	cr_expect(strstr(err, "drops: cpu0=0") != NULL, "drops not reported as zero: %s", err);
	free(err);

	char cmd[1024];
	cf_counts gz, split;
	char *text = NULL;
	snprintf(cmd, sizeof cmd, "zcat '%s/run.blktrace.gz' | blkparse -i -", cf.dir);
	blkparse_counts(cmd, &gz, &text);
	cf_expect_exact(&gz, unrecorded, "zcat | blkparse -i -");
	/* the drops record is in the file too, with the unrecorded count */
	cr_expect(strstr(text, "blkreel: drops cpu0=0") != NULL, "no drops message record in the file");
	char said[48];
	snprintf(said, sizeof said, " unrecorded=%llu", unrecorded);
	cr_expect(unrecorded == 0 || strstr(text, said) != NULL, "the file's drops record lacks%s", said);
	free(text);
	snprintf(cmd, sizeof cmd, "cd '%s' && blkparse -i run", cf.dir);
	blkparse_counts(cmd, &split, NULL);
	cf_expect_exact(&split, unrecorded, "blkparse -i run (split set)");
	cr_expect_eq(gz.lines, split.lines, "compressed file has %zu event lines, split set %zu", gz.lines,
		     split.lines);
	char why[256];
	cr_expect(cf_kernel_clean(why, sizeof why), "kernel left dirty: %s", why);
}

Test(capture, exact_events_perf)
{
	exact_run("perf");
}

Test(capture, exact_events_tracefs)
{
	exact_run("tracefs");
}

Test(capture, default_backend_is_named_and_relay_falls_back_in_one_line)
{
	cf_kernel_test(16);
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--no-progress -d %s -o '%s/d' -w 200ms", cf.loop, cf.dir);
	cr_assert_eq(rc, 0, "capture exited %d: %s", rc, err);
	cr_expect(strstr(err, "with the bpf backend") || strstr(err, "with the perf backend") ||
			  strstr(err, "with the relay backend"),
		  "no backend named: %s", err);
	if (strstr(err, "relay backend unavailable"))
		cr_expect_eq(tu_count_lines(err, "relay backend unavailable"), 1, "%s", err);
	free(err);
}

Test(capture, two_perf_captures_at_once)
{
	cf_kernel_test(64);
	if (!tu_have("fio") || !tu_have("blkparse"))
		cr_skip_test("needs fio and blkparse");
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/a.err", cf.dir);
	pid_t a = cf_capture_bg(errpath, "--backend perf --no-progress -d %s -o '%s/a' -w 30", cf.loop, cf.dir);
	cr_assert_gt(a, 0);
	usleep(500 * 1000);
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/b' -- %s", cf.loop, cf.dir,
			    cf_workload());
	bool only_loss;
	unsigned long long ub = tu_capture_unrecorded(rc, err, &only_loss);
	cr_expect(only_loss, "second capture exited %d: %s", rc, err);
	free(err);
	usleep(300 * 1000);
	kill(a, SIGINT);
	int ra = cf_wait(a);
	err = tu_read_text(errpath);
	unsigned long long ua = tu_capture_unrecorded(ra, err, &only_loss);
	cr_expect(only_loss, "first capture exited %d after SIGINT (ending a capture is success): %s", ra, err);
	free(err);
	char cmd[1024];
	cf_counts ca, cb;
	snprintf(cmd, sizeof cmd, "zcat '%s/a.blktrace.gz' | blkparse -i -", cf.dir);
	blkparse_counts(cmd, &ca, NULL);
	snprintf(cmd, sizeof cmd, "zcat '%s/b.blktrace.gz' | blkparse -i -", cf.dir);
	blkparse_counts(cmd, &cb, NULL);
	cf_expect_exact(&ca, ua, "first capture");
	cf_expect_exact(&cb, ub, "second capture");
}

Test(capture, streams_the_compressed_file_to_stdout)
{
	cf_kernel_test(64);
	if (!tu_have("fio") || !tu_have("blkparse"))
		cr_skip_test("needs fio and blkparse");
	char *err = NULL;
	/* the command's own stdout must not land in the trace stream */
	int rc = tu_runf(NULL, NULL, &err, "'%s' -q -d %s -o - -- sh -c 'echo noise; %s' > '%s/s.gz'",
			 tu_bin("blkreel-capture"), cf.loop, cf_workload(), cf.dir);
	bool only_loss;
	unsigned long long unrecorded = tu_capture_unrecorded(rc, err, &only_loss);
	cr_assert(only_loss, "exit %d: %s", rc, err);
	cr_expect(strstr(err, "noise") != NULL, "the command's stdout should go to stderr: %s", err);
	free(err);
	char cmd[1024];
	cf_counts c;
	snprintf(cmd, sizeof cmd, "gzip -t '%s/s.gz' && zcat '%s/s.gz' | blkparse -i -", cf.dir, cf.dir);
	blkparse_counts(cmd, &c, NULL);
	cf_expect_exact(&c, unrecorded, "-o - | zcat | blkparse");
}
