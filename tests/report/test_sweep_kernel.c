/* test_sweep_kernel.c — blkreel-report's sweep judged on controlled sweeps
 * captured for real (root): one fio job at numjobs 1, 2, 4, 8 and 16, one
 * capture per point, built so that one limit stops it (the recipes are
 * tests/report/pairs/make_pairs.sh --quick sweep_*; see its --list):
 *  - sweep_host: every write hashed on one CPU that all jobs share, the
 *    device a RAM loop whose workers run first: host_bound, from one job;
 *  - sweep_nr_requests: queue/nr_requests at its least: concurrency_capped;
 *  - sweep_disk: 64 KiB random reads of a disk-backed direct-IO loop:
 *    device_saturated (N_busy and R grow together, U near 1).
 * The limit must be the one built in, and the knee within one step of the
 * point after which the traces' own throughput (their MB/s, not the sweep's
 * numbers) first grows by less than half of linear scaling. The host sweep
 * is also captured twice: the same knee and the same limit.
 * make_pairs.sh rewrites each loop's nr_requests when it attaches it: a
 * loop device here was found with its driver tags at a depth of 4 while
 * nr_requests read 128 (debugfs hctx0/tags), left so by this suite's own
 * nr_requests sweep (it put back the least value it had tried; detaching
 * reset nr_requests, not the tags), and fio then got 4 requests issued at
 * once; before that fix the
 * disk sweep came out 3.4 or 11-13.5 at 16 jobs, depending on which device
 * it landed on. With 4 KiB reads 16 jobs do not saturate that loop (no
 * knee, twice). sweep_fsync (ext4, fsync after every write: serialised) is
 * not judged live: its one-job point moved 1.3-9.4 work MB/s between runs
 * on the disk-backed loop (the host's shared disk), and with it the knee
 * and the limit (serialised once, service_time twice with N_busy growing
 * to 2.15 on 2026-12-04); on a RAM-backed loop it scaled to 4 jobs (group
 * commit) and was named concurrency_capped.
 * The captured sweeps in samples/sweeps/ (host, nr_requests, fsync) are
 * judged from their files by test_report_sweep. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/sweep.h"
#include "diagnosis_pairs.h"
#include "kernel_suite.h"
#include "testutil.h"

TestSuite(sweep_kernel, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 300);

static const unsigned jobs[] = { 1, 2, 4, 8, 16 };
#define NPOINTS (sizeof jobs / sizeof jobs[0])

typedef struct sweep_result {
	char limit[32];
	double knee;           /* numjobs at the knee; 0: none */
	double mbps[NPOINTS];  /* each trace's own throughput (traces[].mbps), by numjobs */
	char listing[2048];
} sweep_result;

/* Capture the sweep into tu_dir/SUB/NAME (make_pairs.sh; it skips the test
 * where the kernel lacks what the recipe needs) and read its report. */
static void capture_sweep(const char *name, const char *sub, sweep_result *r)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (loop devices, block tracing)");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/%s", tu_dir, sub);
	dp_make(name, dir);
	char args[4096] = "", json[1024];
	size_t used = 0;
	const char *stack = name + strlen("sweep_");
	for (size_t i = 0; i < NPOINTS; i++)
		used += (size_t)snprintf(args + used, sizeof args - used, " -l %s:numjobs=%u '%s/%s/%s/j%u.blktrace.gz'",
					 stack, jobs[i], tu_dir, sub, name, jobs[i]);
	snprintf(json, sizeof json, "%s/%s/%s.json", tu_dir, sub, name);
	char *out = NULL, *err = NULL;
	int rc = tu_run_tool(&out, &err, "blkreel-report", "%s --json '%s'", args, json);
	cr_assert_eq(rc, 0, "blkreel-report on %s: exit %d\n%.2000s", name, rc, err);
	snprintf(r->listing, sizeof r->listing, "%.2000s", out ? out : "");
	free(out);
	free(err);
	char *limit = tu_json_eval(json, "d[\"knees\"][0][\"limit\"]");
	snprintf(r->limit, sizeof r->limit, "%.*s", (int)strlen(limit) - 2, limit + 1); /* unquoted */
	free(limit);
	char *knee = tu_json_eval(json, "d[\"knees\"][0][\"knee\"] or 0");
	r->knee = strtod(knee, NULL);
	free(knee);
	/* the traces in the order given: numjobs 1, 2, ... */
	char *mbps = tu_json_eval(json, "\" \".join(\"%r\" % t[\"mbps\"] for t in d[\"traces\"])");
	char *p = mbps + 1;
	for (size_t i = 0; i < NPOINTS; i++)
		r->mbps[i] = strtod(p, &p);
	free(mbps);
}

/* The point after which the traces' throughput first grows by less than
 * half of linear scaling (elasticity below BR_SWEEP_KNEE_ELASTICITY); 0
 * when it never does. */
static double knee_of_traces(const sweep_result *r)
{
	for (size_t i = 0; i + 1 < NPOINTS; i++) {
		double e = log(r->mbps[i + 1] / r->mbps[i]) / log((double)jobs[i + 1] / jobs[i]);
		if (e < BR_SWEEP_KNEE_ELASTICITY)
			return jobs[i];
	}
	return 0;
}

/* Is numjobs a within one step of b along jobs[]? */
static bool within_one_step(double a, double b)
{
	int ia = -1, ib = -1;
	for (int i = 0; i < (int)NPOINTS; i++) {
		if (jobs[i] == a)
			ia = i;
		if (jobs[i] == b)
			ib = i;
	}
	return ia >= 0 && ib >= 0 && abs(ia - ib) <= 1;
}

static void expect_sweep(const char *name, const char *limit, double designed_knee)
{
	sweep_result r;
	capture_sweep(name, "one", &r);
	cr_expect_str_eq(r.limit, limit, "%s: limit %s, built as %s\n%s", name, r.limit, limit, r.listing);
	cr_assert_gt(r.knee, 0, "%s: no knee\n%s", name, r.listing);
	double traces = knee_of_traces(&r);
	cr_expect(within_one_step(r.knee, traces),
		  "%s: knee at numjobs=%g, the traces' throughput (%.1f %.1f %.1f %.1f %.1f MB/s) stops scaling at %g\n%s",
		  name, r.knee, r.mbps[0], r.mbps[1], r.mbps[2], r.mbps[3], r.mbps[4], traces, r.listing);
	if (designed_knee > 0)
		cr_expect(within_one_step(r.knee, designed_knee), "%s: knee at numjobs=%g, built at %g\n%s", name, r.knee,
			  designed_knee, r.listing);
}

/* Jobs that hash every block on one CPU: a second job waits for it. */
Test(sweep_kernel, cpu_bound_jobs_are_host_bound)
{
	expect_sweep("sweep_host", "host_bound", 1);
}

Test(sweep_kernel, least_nr_requests_is_concurrency_capped)
{
	expect_sweep("sweep_nr_requests", "concurrency_capped", 0);
}

/* Reads the disk-backed loop serves no faster however many queue at it. */
Test(sweep_kernel, disk_backed_reads_saturate_the_device)
{
	expect_sweep("sweep_disk", "device_saturated", 0);
}

/* Two captures of the same sweep, one after the other: the same knee and
 * the same limit. */
Test(sweep_kernel, the_same_sweep_twice_has_the_same_knee_and_limit)
{
	sweep_result a, b;
	capture_sweep("sweep_host", "first", &a);
	capture_sweep("sweep_host", "second", &b);
	cr_expect_str_eq(a.limit, b.limit, "limits %s and %s\n%s\n%s", a.limit, b.limit, a.listing, b.listing);
	cr_expect_eq(a.knee, b.knee, "knees at numjobs=%g and %g\n%s\n%s", a.knee, b.knee, a.listing, b.listing);
}
