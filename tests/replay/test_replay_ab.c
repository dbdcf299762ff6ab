/* test_replay_ab.c — blkreel-replay --ab on loop devices this test makes:
 * a RAM-backed one (a file in /dev/shm) against a disk-backed one (a file
 * written through to the disk, the loop doing direct IO), 3 rounds each:
 * the diagnosis follows the rounds (service_time first when they differ,
 * nothing claimed when they cannot tell); two RAM-backed loops alike but
 * for B's max_sectors_kb (split) or a blkio throttle of B's reads in a
 * cgroup of the test's own (idle); two disk-backed loops alike but for B's
 * nr_requests (concurrency); the same target against itself, 5 rounds: an
 * empty diagnosis; a refused target stops everything before any round; a
 * SIGINT in a round leaves no capture attached, no report and no half
 * round, the rounds done readable. A kernel suite (kernel_suite.h); skips
 * only where not root or without a capture backend. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel_suite.h"
#include "testutil.h"
#include "tracegen.h"
#include "replay_fixture.h"

#define AB_IOS 1500
#define AB_STEP_NS 400000ull   /* 2500 IO/s, one at a time: 0.6 s */
#define AB_MIB 64
#define AB_PATH_MAX 1024

static char shm_img[2][128]; /* the RAM-backed loops' files, by loop index */
static char boost_state[512]; /* boost_workers.py's record while it runs */
static char knob_path[256], knob_old[32]; /* a queue knob a test changed, put back at teardown */
static char cgroup_dir[256]; /* a blkio cgroup of the test's own, removed at teardown */

static void ab_setup(void)
{
	rf_setup();
	shm_img[0][0] = shm_img[1][0] = 0;
	boost_state[0] = 0;
	knob_path[0] = 0;
	cgroup_dir[0] = 0;
}

static void boost_restore(void);

static void ab_teardown(void)
{
	boost_restore();
	/* the queue outlives the loop's file: the next user of the device must find it as it was */
	if (knob_path[0])
		tu_runf(NULL, NULL, NULL, "echo %s > '%s'", knob_old, knob_path);
	knob_path[0] = 0;
	/* the replay has exited: the group is empty, and its throttle rules go with it */
	if (cgroup_dir[0] && rmdir(cgroup_dir) != 0)
		fprintf(stderr, "warning: could not remove %s\n", cgroup_dir);
	cgroup_dir[0] = 0;
	rf_teardown(); /* detaches the loop devices first */
	for (int i = 0; i < 2; i++) {
		if (shm_img[i][0])
			unlink(shm_img[i]);
		shm_img[i][0] = 0;
	}
}

TestSuite(replay_ab, .init = ab_setup, .fini = ab_teardown, .timeout = 120);

/* NAME under the test's folder: 4 KiB random reads, batch at a time every
 * AB_STEP_NS, each batch issued together and completed before the next.
 * The path is in the caller's buffer (rf_path's few are reused). */
static void ab_trace_in(char path[AB_PATH_MAX], const char *name, unsigned batch)
{
	tg_buf b = { 0 };
	uint32_t dev = BR_MKDEV(RF_DEV_MAJ, RF_DEV_MIN);
	uint64_t x = 88172645463325252ull;
	br_event *c = calloc(batch, sizeof *c);
	cr_assert(c);
	for (unsigned i = 0; i < AB_IOS; i += batch) {
		uint64_t t = 1000000000ull + i / batch * AB_STEP_NS;
		for (unsigned k = 0; k < batch; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint64_t sector = (x % ((AB_MIB - 1) * 256ull)) * 8;
			br_event d = tg_io(t + k, dev, 0, BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_READ), sector, 4096, 42);
			c[k] = tg_io(t + 60000 + k, dev, 0, BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_READ), sector, 4096, 0);
			tg_append(&b, &d, false);
		}
		for (unsigned k = 0; k < batch; k++)
			tg_append(&b, &c[k], false);
	}
	free(c);
	snprintf(path, AB_PATH_MAX, "%s", rf_path(name));
	cr_assert_eq(tg_write(&b, path), 0);
	tg_free(&b);
}

/* One read at a time (ab_trace_in's batch 1) as ab.blktrace.gz. */
static const char *ab_trace(void)
{
	static char path[AB_PATH_MAX];
	ab_trace_in(path, "ab.blktrace.gz", 1);
	return path;
}

static void need_root_and_tools(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to create loop devices and capture");
	if (access(tu_bin("blkreel-replay"), X_OK) != 0)
		cr_skip_test("bin/blkreel-replay not built yet");
}

/* A loop device over a file of AB_MIB MiB, written through (so the
 * disk-backed one reads from the disk, not from holes), at rf.loop[i]. */
static const char *ab_loop(int i, bool ram)
{
	char img[256];
	if (ram) {
		snprintf(shm_img[i], sizeof shm_img[i], "/dev/shm/blkreel-ab-%d-%d.img", (int)getpid(), i);
		snprintf(img, sizeof img, "%s", shm_img[i]);
	} else {
		snprintf(img, sizeof img, "%s/disk-%d.img", rf.dir, i);
	}
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "dd if=/dev/zero of='%s' bs=1M count=%d conv=fsync status=none && "
			 "losetup --find --show %s '%s'",
			 img, AB_MIB, ram ? "" : "--direct-io=on", img);
	if (rc || !out || strncmp(out, "/dev/loop", 9))
		cr_skip_test("no loop device available");
	snprintf(rf.loop[i], sizeof rf.loop[i], "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	return rf.loop[i];
}

/* The pairs' way to keep a side as built on a busy 2-core host
 * (tests/report/pairs/make_pairs.sh): the kernel threads that serve our
 * loop devices run at SCHED_FIFO while the replay runs (boost_workers.py,
 * which puts them back when stopped, or orphaned). */
#define AB_RT_PRIO "10"

static void boost_restore(void)
{
	if (boost_state[0] && access(boost_state, F_OK) == 0)
		tu_runf(NULL, NULL, NULL, "python3 '%s/tests/report/pairs/boost_workers.py' --restore '%s'", tu_root(),
			boost_state);
}

/* The booster's pid once its first scan has boosted the loops' threads
 * (the replay's first round ran unboosted when it started at once: D2C
 * 210-618 us against ~50 in later rounds beside a build), or -1 when it
 * died or took over 10 s (then the replay runs unboosted). */
static pid_t boost_start(const char *loop_a, const char *loop_b)
{
	snprintf(boost_state, sizeof boost_state, "%s", rf_path("boost.state"));
	char script[1024], ready[512];
	snprintf(script, sizeof script, "%s/tests/report/pairs/boost_workers.py", tu_root());
	snprintf(ready, sizeof ready, "%s", rf_path("boost.ready"));
	unlink(ready);
	pid_t pid = fork();
	if (pid == 0) {
		execlp("python3", "python3", script, "--fifo", AB_RT_PRIO, "--state", boost_state, "--ready", ready,
		       loop_a, loop_b, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	for (int waited = 0; waited < 1000; waited++) {
		if (access(ready, F_OK) == 0)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, "warning: boost_workers.py exited before its first scan\n");
			return -1; /* reaped: boost_stop must not signal a pid that may be reused */
		}
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "warning: boost_workers.py did not finish its first scan in 10 s\n");
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return -1;
}

static void boost_stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	boost_restore();
}

/* blkreel-replay --no-progress ARGS under the tracer lock, boosted; its
 * status, stderr in *err. Inside cgroup_dir when a test made one. */
static int ab_run_on(char **out, char **err, const char *args, const char *loop_a, const char *loop_b)
{
	int lock = tu_tracer_lock();
	bool rt = tu_runf(NULL, NULL, NULL, "chrt -f " AB_RT_PRIO " true") == 0;
	pid_t boost = rt ? boost_start(loop_a, loop_b) : -1;
	char bin[1024];
	snprintf(bin, sizeof bin, "%s", tu_bin("blkreel-replay"));
	/* the replay itself stays a fair task: its timing thread spins before
	 * each IO, and at SCHED_FIFO on two cores it would hold one from the
	 * loop's own workers. At nice -10 a build beside it takes less of its
	 * CPU. */
	char in_group[512] = "";
	if (cgroup_dir[0])
		snprintf(in_group, sizeof in_group, "echo $$ > '%s/cgroup.procs' && exec ", cgroup_dir);
	int rc = tu_runf(out, NULL, err, "%snice -n -10 '%s' --no-progress %s", in_group, bin, args);
	boost_stop(boost);
	tu_tracer_unlock(lock);
	if (rc && *err && strstr(*err, "backend"))
		cr_skip_test("no capture backend here: %s", *err);
	return rc;
}

/* blkreel-replay OPTS --ab LOOP_A LOOP_B -o DIR (DIR under the test's
 * folder), which must succeed: report.json's path into report (a buffer of
 * the caller's: rf_path's few are reused), the replay's stdout returned (to
 * free; the expectations quote it when they fail). */
static char *ab_replay_ok(char report[AB_PATH_MAX], const char *dir, const char *loop_a, const char *loop_b,
			  const char *opts_fmt, ...) __attribute__((format(printf, 5, 6)));
static char *ab_replay_ok(char report[AB_PATH_MAX], const char *dir, const char *loop_a, const char *loop_b,
			  const char *opts_fmt, ...)
{
	char opts[1024], out_dir[512], args[2048];
	va_list ap;
	va_start(ap, opts_fmt);
	vsnprintf(opts, sizeof opts, opts_fmt, ap);
	va_end(ap);
	snprintf(out_dir, sizeof out_dir, "%s", rf_path(dir));
	snprintf(args, sizeof args, "%s --ab %s %s -o '%s'", opts, loop_a, loop_b, out_dir);
	char *out = NULL, *err = NULL;
	int rc = ab_run_on(&out, &err, args, loop_a, loop_b);
	cr_assert_eq(rc, 0, "--ab failed: %s", err);
	free(err);
	snprintf(report, AB_PATH_MAX, "%s/report.json", out_dir);
	return out;
}

/* A string of report.json at a Python path, e.g. "['diagnosis']['causes'][0]['cause']". */
static char *json_str(const char *report, const char *path)
{
	char *out = NULL, *err = NULL, py[256];
	snprintf(py, sizeof py, "%s", path);
	for (char *c = py; *c; c++)
		if (*c == '\'')
			*c = '"';
	path = py;
	int rc = tu_runf(&out, NULL, &err,
			 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d%s)' '%s'", path,
			 report);
	cr_assert_eq(rc, 0, "%s %s: %s", report, path, err ? err : "");
	out[strcspn(out, "\n")] = 0;
	free(err);
	return out;
}

/* The string at path in report.json is want; out (the replay's stdout) says why when not. */
static void expect_json_str(const char *report, const char *path, const char *want, const char *out)
{
	char *p = json_str(report, path);
	cr_expect_str_eq(p, want, "%s is %s, not %s\n%s", path, p, want, out ? out : "");
	free(p);
}

/* RAM- against disk-backed: every part of the run is there (rounds in
 * counterbalanced order, each round's trace and fidelity, the report with
 * its floor), and the diagnosis follows the rounds: when the rounds' mean
 * Q2C differ beyond their spread, the slower side is named and service
 * time (D2C: nothing else differs) comes first, significant and confirmed;
 * when they do not, nothing is claimed ("beyond their spread": Welch t
 * over the rounds at least Student's t at 0.5 % for their df, the
 * report's t_needed). On a quiet host the disk-backed loop's reads are
 * 2-3x slower, but its rounds spread (109-193 us) so that 3 rounds may not
 * tell at df 2 (t 5.3 needs 12); on this shared 2-core host, under
 * the load of the other builds, the RAM-backed loop's D2C was seen to
 * spread 208-2475 us between three rounds, and then the report must say
 * the rounds cannot tell (its detection floor shows by how much). */
Test(replay_ab, ram_against_disk_follows_the_rounds)
{
	need_root_and_tools();
	const char *ram = ab_loop(0, true), *disk = ab_loop(1, false);
	const char *trace = ab_trace();
	char report[AB_PATH_MAX];
	char *out = ab_replay_ok(report, "ab", ram, disk, "'%s' -l ram -l disk --rounds 3", trace);
	expect_json_str(report, "['diagnosis']['unit_of_variance']", "round", out);
	cr_expect_eq(rf_json(report, "['a']['rounds']"), 3);
	cr_expect_eq(rf_json(report, "['b']['rounds']"), 3);
	cr_expect_gt(rf_json(report, "['detection_floor_q2c']"), 0);
	/* the diagnosis and the rounds' own Welch test of mean Q2C agree */
	double t = rf_json(report, "['metrics']['q2c_us']['t']");
	double ratio = rf_json(report, "['metrics']['q2c_us']['ratio_b_a']");
	double need = rf_json(report, "['metrics']['q2c_us']['t_needed']");
	cr_expect_geq(need, 3.0);
	bool rounds_differ = fabs(t) >= need && fmax(ratio, 1 / ratio) >= 1.10;
	char *p = json_str(report, "['diagnosis']['significant']");
	cr_expect_str_eq(p, rounds_differ ? "True" : "False", "t %.2f (needs %.2f) ratio %.3f\n%s", t, need, ratio, out);
	free(p);
	if (rounds_differ) {
		expect_json_str(report, "['diagnosis']['worse']", ratio > 1 ? "disk" : "ram", out);
		expect_json_str(report, "['diagnosis']['causes'][0]['cause']", "service_time", out);
		expect_json_str(report, "['diagnosis']['causes'][0]['confirmed']", "True", out);
	} else {
		expect_json_str(report, "['diagnosis']['causes']", "[]", out);
	}
	/* counterbalanced: A B, B A, A B */
	const char *order[6] = { "a", "b", "b", "a", "a", "b" };
	for (int k = 0; k < 6; k++) {
		char path[64];
		snprintf(path, sizeof path, "['runs'][%d]['side']", k);
		p = json_str(report, path);
		cr_expect_str_eq(p, order[k], "run %d", k + 1);
		free(p);
	}
	/* every round's trace and fidelity, readable; the text opens with the diagnosis */
	for (int k = 1; k <= 3; k++)
		for (int s = 0; s < 2; s++) {
			char name[64];
			snprintf(name, sizeof name, "ab/round%d-%s.blktrace.gz", k, s ? "disk" : "ram");
			cr_expect_eq(tu_run_tool(NULL, NULL, "blkreel-parse", "--info '%s'", rf_path(name)), 0, "%s",
				     name);
			snprintf(name, sizeof name, "ab/round%d-%s.replay.json", k, s ? "disk" : "ram");
			cr_expect_eq(rf_json(rf_path(name), "['issued']['read']"), AB_IOS, "%s", name);
		}
	char *txt = tu_read_text(rf_path("ab/report.txt"));
	cr_expect(strstr(txt, rounds_differ ? "is slower" : "No significant difference"), "%s", txt);
	cr_expect(strstr(txt, "Detection floor"), "%s", txt);
	cr_expect(strstr(txt, "order A B B A A B"), "%s", txt);
	free(txt);
	cr_expect_eq(access(rf_path("ab/report.md"), F_OK), 0);
	/* the rounds overlaid by blkreel-plot, named in every report, embedded in the HTML page */
	FILE *png = fopen(rf_path("ab/overlay.png"), "rb");
	unsigned char magic[8] = { 0 };
	cr_expect(png && fread(magic, 1, 8, png) == 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8), "no overlay.png");
	if (png)
		fclose(png);
	expect_json_str(report, "['figure']['file']", "overlay.png", out);
	txt = tu_read_text(rf_path("ab/report.txt"));
	cr_expect(strstr(txt, "Figure: overlay.png: rounds 1-3 of each side"), "%s", txt);
	free(txt);
	char *md = tu_read_text(rf_path("ab/report.md"));
	cr_expect(md && strstr(md, "](overlay.png)"), "%s", md ? md : "");
	free(md);
	char *html = tu_read_text(rf_path("ab/report.html"));
	cr_assert(html, "no report.html");
	cr_expect(strstr(html, "<h2>Diagnosis</h2>") && strstr(html, "src=\"data:image/png;base64,"), "%.2000s", html);
	cr_expect(strstr(html, "order A B B A A B"), "%.2000s", html);
	free(html);
	free(out);
}

/* /sys/block/DEV/queue/KNOB set to value, put back at teardown (one knob a test). */
static void set_queue_knob(const char *dev, const char *knob, const char *value)
{
	cr_assert_eq(knob_path[0], 0, "one queue knob a test");
	snprintf(knob_path, sizeof knob_path, "/sys/block/%s/queue/%s", dev + strlen("/dev/"), knob);
	char *old = tu_read_text(knob_path);
	cr_assert(old, "%s", knob_path);
	snprintf(knob_old, sizeof knob_old, "%.*s", (int)strcspn(old, "\n"), old);
	free(old);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "echo %s > '%s'", value, knob_path), 0, "%s %s", knob_path, value);
}

/* Two RAM-backed loops alike but for B's queue/max_sectors_kb (8 against
 * 1280): the bundled 4-thread sequential sample (its reads, 512 KiB), as
 * fast as the targets take it, 3 rounds a side. B splits every read into
 * 8 KiB requests, so split comes first (measured: B 1.6x slower, t 9.9,
 * split 99 % of the difference), significant over the rounds. */
Test(replay_ab, a_small_request_limit_is_named_split)
{
	need_root_and_tools();
	const char *big = ab_loop(0, true), *small = ab_loop(1, true);
	set_queue_knob(small, "max_sectors_kb", "8");
	char report[AB_PATH_MAX];
	char *out = ab_replay_ok(report, "split", big, small, "'%s' -l big -l small --rounds 3 --no-stall --wrap",
				 tu_sample("ext4-fio-seq-4t.blktrace.gz"));
	expect_json_str(report, "['diagnosis']['worse']", "small", out);
	expect_json_str(report, "['diagnosis']['causes'][0]['cause']", "split", out);
	expect_json_str(report, "['diagnosis']['significant']", "True", out);
	free(out);
}

/* Two disk-backed loops alike but for B's queue/nr_requests (4 against the
 * default): reads 16 at a time, as fast as the targets take them, 3 rounds
 * a side. B holds at most 4 in the driver and the rest wait for a tag above
 * it, so fewer are busy at the device at once: concurrency (N_busy) comes
 * first (measured by hand on a captured fio QD16 trace: 3.97x, t 40.5,
 * concurrency 98 %). The scheduler's share may come first where it takes
 * the wait for a tag as its own. */
Test(replay_ab, a_short_request_queue_is_named_concurrency)
{
	need_root_and_tools();
	const char *wide = ab_loop(0, false), *narrow = ab_loop(1, false);
	set_queue_knob(narrow, "nr_requests", "4");
	char trace[AB_PATH_MAX], report[AB_PATH_MAX];
	ab_trace_in(trace, "ab16.blktrace.gz", 16);
	char *out = ab_replay_ok(report, "queue", wide, narrow, "'%s' -l wide -l narrow --rounds 3 --no-stall", trace);
	expect_json_str(report, "['diagnosis']['worse']", "narrow", out);
	expect_json_str(report, "['diagnosis']['significant']", "True", out);
	char *first = json_str(report, "['diagnosis']['causes'][0]['cause']");
	cr_expect(!strcmp(first, "concurrency") || !strcmp(first, "scheduler"),
		  "the first cause is %s, not concurrency\n%s", first, out);
	free(first);
	free(out);
}

/* A blkio cgroup of the test's own (cgroup v1) in which the replay will run,
 * its reads of dev capped at iops: blk-throttle holds them before the block
 * layer queues them, so dev's trace shows it idle with nothing queued. */
static void throttle_reads(const char *dev, unsigned iops)
{
	const char *root = "/sys/fs/cgroup/blkio";
	char path[512];
	snprintf(path, sizeof path, "%s/blkio.throttle.read_iops_device", root);
	if (access(path, W_OK) != 0)
		cr_skip_test("no cgroup v1 blkio throttling here (%s)", path);
	snprintf(cgroup_dir, sizeof cgroup_dir, "%s/blkreel-test-%d", root, (int)getpid());
	cr_assert_eq(mkdir(cgroup_dir, 0755), 0, "mkdir %s", cgroup_dir);
	struct stat st;
	cr_assert_eq(stat(dev, &st), 0, "%s", dev);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "echo %u:%u %u > '%s/blkio.throttle.read_iops_device'", major(st.st_rdev),
			     minor(st.st_rdev), iops, cgroup_dir),
		     0);
}

/* Two RAM-backed loops alike, B's reads held by a blkio throttle at a
 * quarter of the rate the trace asks for (625 of 2500 IO/s), replayed
 * --closed (each IO waits for the one before, as the trace's did): the
 * replay of B takes four times as long, its device idle with nothing queued while the throttle
 * holds the next IO above the block layer: idle (U) comes first. Open loop,
 * the throttle releases what it held in batches, which wait in the loop
 * driver: R and N_busy both ~55x, and the report reads service_time
 * (replay/README.md, Limits). */
Test(replay_ab, a_throttle_above_the_queue_is_named_idle)
{
	need_root_and_tools();
	const char *free_ = ab_loop(0, true), *held = ab_loop(1, true);
	/* At half the rate this failed 1 suite run in 8 on a quiet host: MB/s
	 * differed (t 18) but no cause reached 5 %, as the rounds' own D2C
	 * spread (40-90 us) moved U as much as the throttle did. */
	throttle_reads(held, 1000000000ull / AB_STEP_NS / 4);
	const char *trace = ab_trace();
	char report[AB_PATH_MAX];
	char *out = ab_replay_ok(report, "held", free_, held, "'%s' --closed -l free -l held --rounds 3", trace);
	expect_json_str(report, "['diagnosis']['worse']", "held", out);
	expect_json_str(report, "['diagnosis']['significant']", "True", out);
	char *causes = json_str(report, "['diagnosis']['causes']");
	const char *first = strstr(causes, "'cause': '");
	cr_expect(first && !strncmp(first + strlen("'cause': '"), "idle'", 5), "the first cause is not idle: %s\n%s",
		  causes, out);
	free(causes);
	free(out);
}

Test(replay_ab, same_target_twice_is_empty)
{
	need_root_and_tools();
	const char *ram = ab_loop(0, true);
	const char *trace = ab_trace();
	char report[AB_PATH_MAX];
	char *out = ab_replay_ok(report, "aa", ram, ram, "'%s' --rounds 5", trace);
	expect_json_str(report, "['diagnosis']['significant']", "False", out);
	expect_json_str(report, "['diagnosis']['causes']", "[]", out);
	char *txt = tu_read_text(rf_path("aa/report.txt"));
	cr_expect(strstr(txt, "No significant difference"), "%s", txt);
	free(txt);
	free(out);
}

Test(replay_ab, refused_target_stops_before_any_round)
{
	need_root_and_tools();
	const char *ram = ab_loop(0, true), *disk = ab_loop(1, false);
	/* an ext2 superblock's magic on B: replay refuses a formatted target */
	cr_assert_eq(tu_runf(NULL, NULL, NULL,
			     "printf '\\123\\357' | dd of=%s bs=1 seek=1080 conv=notrunc,fsync status=none", disk),
		     0);
	const char *trace = ab_trace();
	char args[3 * AB_PATH_MAX];
	snprintf(args, sizeof args, "'%s' --ab %s %s --write -o '%s'", trace, ram, disk, rf_path("refused"));
	char *out = NULL, *err = NULL;
	int rc = ab_run_on(&out, &err, args, ram, disk);
	cr_expect_eq(rc, 1, "%s", err);
	cr_expect(strstr(err, "nothing was replayed"), "%s", err);
	struct stat st;
	cr_expect_neq(stat(rf_path("refused"), &st), 0, "the folder was made before the checks");
	free(out);
	free(err);
	/* the usage: a folder that is not empty is refused too */
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "mkdir '%s' && touch '%s/x'", rf_path("full"), rf_path("full")), 0);
	snprintf(args, sizeof args, "'%s' --ab %s %s -o '%s'", trace, ram, ram, rf_path("full"));
	rc = ab_run_on(&out, &err, args, ram, ram);
	cr_expect_eq(rc, 1, "%s", err);
	cr_expect(strstr(err, "not empty"), "%s", err);
	free(out);
	free(err);
}

Test(replay_ab, sigint_leaves_nothing_attached)
{
	need_root_and_tools();
	const char *ram = ab_loop(0, true);
	const char *trace = ab_trace();
	char dir[512];
	snprintf(dir, sizeof dir, "%s", rf_path("int"));
	int lock = tu_tracer_lock();
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl(tu_bin("blkreel-replay"), "blkreel-replay", "--no-progress", trace, "--ab", ram, ram, "--rounds",
		      "3", "-o", dir, (char *)NULL);
		_exit(127);
	}
	/* into the third run or so: two done, one under way */
	struct timespec ts = { 3, 0 };
	nanosleep(&ts, NULL);
	kill(pid, SIGINT);
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	tu_tracer_unlock(lock);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
	char state[128];
	snprintf(state, sizeof state, "/run/blkreel/capture-%d.state", (int)pid);
	cr_expect_neq(access(state, F_OK), 0, "%s left behind", state);
	char path[1024];
	snprintf(path, sizeof path, "%s/report.txt", dir);
	cr_expect_neq(access(path, F_OK), 0, "a report after an interruption");
	/* no half round: every trace there is a finished round, readable */
	char *ls = NULL;
	cr_assert_eq(tu_runf(&ls, NULL, NULL, "ls -A '%s'", dir), 0);
	cr_expect_null(strstr(ls, ".part"), "%s", ls);
	cr_expect_null(strstr(ls, ".tmp"), "%s", ls);
	cr_expect_not_null(strstr(ls, "round1-A.blktrace.gz"), "interrupted before one run finished: %s", ls);
	snprintf(path, sizeof path, "%s/round1-A.blktrace.gz", dir);
	cr_expect_eq(tu_run_tool(NULL, NULL, "blkreel-parse", "--info '%s'", path), 0);
	free(ls);
}
