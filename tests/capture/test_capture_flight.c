/* test_capture_flight.c — blkreel-capture as a service on a real loop
 * device: the flight recorder triggered by a stall it sees on the stream (a
 * blkio throttle switched on for a second at a known time), by SIGUSR1 and
 * by `--trigger` from another shell; SIGHUP starting the next file of a
 * rotated capture; the status file and SIGUSR2. */
#include <criterion/criterion.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "blkreel/reader.h"
#include "kernel_suite.h"
#include "testutil.h"
#include "capture_fixture.h"

static char cgroup_dir[256]; /* a blkio cgroup of the test's own, removed at teardown */
static pid_t fio_pid;

static void fl_setup(void)
{
	cf_setup();
	cgroup_dir[0] = 0;
	fio_pid = 0;
}

static void fl_teardown(void)
{
	if (fio_pid > 0) {
		kill(fio_pid, SIGKILL);
		cf_wait(fio_pid);
	}
	fio_pid = 0;
	if (cgroup_dir[0] && rmdir(cgroup_dir) != 0)
		fprintf(stderr, "warning: could not remove %s\n", cgroup_dir);
	cgroup_dir[0] = 0;
	cf_teardown();
}

TestSuite(capture_flight, .init = fl_setup, .fini = fl_teardown, .timeout = 120);

static size_t count(const char *pattern)
{
	glob_t g;
	size_t n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	return n;
}

/* fio's random reads at depth 4 for secs seconds, in the background; in
 * cgroup (when given) from its first IO. */
static pid_t start_fio(unsigned secs, const char *cgroup)
{
	char cmd[1024], join[400] = "";
	if (cgroup)
		snprintf(join, sizeof join, "echo $$ > '%s/cgroup.procs' && ", cgroup);
	snprintf(cmd, sizeof cmd,
		 "%sexec fio --output=/dev/null --name=r --filename=%s --rw=randread --direct=1 --bs=4k --iodepth=4 "
		 "--ioengine=libaio --size=32M --runtime=%u --time_based --rate_iops=20000",
		 join, cf.loop, secs);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
}

typedef struct window {
	size_t ios;
	uint64_t first, last;      /* IO events */
	uint64_t trigger;          /* the trigger note's time */
	char note[512];
	uint64_t gap_from, gap_to; /* the longest time without IO events */
	size_t unnamed_q;          /* Q events whose process has no name in the file */
} window;

static void read_window(const char *path, window *w)
{
	memset(w, 0, sizeof *w);
	br_reader *r;
	br_error err;
	const char *paths[] = { path };
	cr_assert_eq(br_reader_open(&r, paths, 1, NULL, &err), 0, "%s: %s", path, err.msg);
	br_event ev;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (br_event_is_notify(&ev)) {
			char text[512] = "";
			if (ev.pdu_len && ev.pdu_len < sizeof text)
				memcpy(text, ev.pdu, ev.pdu_len);
			if (strncmp(text, "blkreel: flight trigger", 23) == 0) {
				w->trigger = ev.time;
				snprintf(w->note, sizeof w->note, "%s", text);
			}
			continue;
		}
		if (w->ios && ev.time - w->last > w->gap_to - w->gap_from) {
			w->gap_from = w->last;
			w->gap_to = ev.time;
		}
		if ((ev.action & 0xffff) == __BLK_TA_QUEUE && !(ev.comm && ev.comm[0]))
			w->unnamed_q++;
		if (!w->ios)
			w->first = ev.time;
		w->last = ev.time;
		w->ios++;
	}
	cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
	br_reader_close(r);
}

/* The capture's own peak memory: its peak RSS less the file-backed pages
 * mapped now (the kernel's buffers: bpf's event regions, 32 MiB a CPU, and
 * its rings, mapped twice; perf's rings; the libraries): what the flight
 * recorder's window could grow. */
static unsigned long own_peak_kib(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	char *t = tu_read_text(path);
	const char *h = t ? strstr(t, "VmHWM:") : NULL, *f = t ? strstr(t, "RssFile:") : NULL;
	unsigned long hwm = h ? strtoul(h + 6, NULL, 10) : 0, file = f ? strtoul(f + 8, NULL, 10) : 0;
	free(t);
	return hwm > file ? hwm - file : 0;
}

/* The stall: reads of the test's fio held to one a second for 1.2 s by a
 * blkio throttle, switched on 3.5 s into its run. idle>600ms sees it when
 * IO resumes; the file holds the 3 s before the trigger and the 2 s after. */
static void stall(const char *backend)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	const char *root = "/sys/fs/cgroup/blkio";
	char knob[512];
	snprintf(knob, sizeof knob, "%s/blkio.throttle.read_iops_device", root);
	if (access(knob, W_OK) != 0)
		cr_skip_test("no cgroup v1 blkio throttling here (%s)", knob);
	snprintf(cgroup_dir, sizeof cgroup_dir, "%s/blkreel-flight-%d", root, (int)getpid());
	cr_assert_eq(mkdir(cgroup_dir, 0755), 0, "mkdir %s", cgroup_dir);
	struct stat st;
	cr_assert_eq(stat(cf.loop, &st), 0);

	char ep[600];
	snprintf(ep, sizeof ep, "%s/st.err", cf.dir);
	pid_t cap = cf_capture_bg(ep, "--backend %s --no-progress -d %s -o '%s/st' --flight 3s --flight-after 2s "
				      "--trigger-on 'idle>600ms' -w 60",
				  backend, cf.loop, cf.dir);
	cf_wait_for_text(ep, "tracing loop");
	fio_pid = start_fio(8, cgroup_dir);
	sleep_ms(3500);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "echo %u:%u 1 > '%s/blkio.throttle.read_iops_device'", major(st.st_rdev),
			     minor(st.st_rdev), cgroup_dir),
		     0);
	sleep_ms(1200);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "echo %u:%u 0 > '%s/blkio.throttle.read_iops_device'", major(st.st_rdev),
			     minor(st.st_rdev), cgroup_dir),
		     0);
	cr_expect_eq(cf_wait(fio_pid), 0, "fio failed beside the flight capture");
	fio_pid = 0;
	cf_wait_for_text(ep, "flight-00001.blktrace.gz (");
	unsigned long hwm = own_peak_kib(cap);
	kill(cap, SIGINT);
	int rc = cf_wait(cap);
	char *err = tu_read_text(ep);
	bool ok;
	tu_capture_unrecorded(rc, err, &ok);
	cr_expect(ok, "%s: flight capture exited %d: %s", backend, rc, err);
	cr_expect(strstr(err, "trigger idle>600ms") != NULL, "%s: the trigger is not said: %s", backend, err);
	cr_expect(strstr(err, "in 1 files for 1 triggers") != NULL, "%s: want one file for the one stall: %s", backend,
		  err);
	free(err);
	cr_expect_gt(hwm, 0);
	/* the window is on disk, not in memory (measured: bpf 17 MiB, 26-43
	 * beside two CPU hogs, with the rule's events merged and the window's
	 * conversion; perf 5-15 MiB; the ASan build's shadow and quarantine
	 * triple it) */
	unsigned long cap_kib = 64 * 1024;
#ifdef __SANITIZE_ADDRESS__
	cap_kib *= 3;
#endif
	cr_expect_lt(hwm, cap_kib, "%s: the flight capture's own peak memory is %lu KiB", backend, hwm);

	char out[600];
	snprintf(out, sizeof out, "%s/st.flight-00001.blktrace.gz", cf.dir);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "gzip -t '%s'", out), 0, "%s is not whole", out);
	window w;
	read_window(out, &w);
	cr_assert_gt(w.trigger, 0, "no trigger note in %s", out);
	cr_expect(strstr(w.note, "idle>600ms") && strstr(w.note, "3 s before it and 2 s after"), "note: %s", w.note);
	const uint64_t s = 1000000000ull, ms = 1000000ull;
	/* the stall is inside, and the trigger 600 ms into it */
	cr_expect_geq(w.gap_to - w.gap_from, 800 * ms, "the longest gap in the file is %.3f s",
		      (double)(w.gap_to - w.gap_from) / 1e9);
	cr_expect_eq(w.trigger, w.gap_from + 600 * ms, "trigger at %.3f s after the gap's start",
		     (double)(w.trigger - w.gap_from) / 1e9);
	/* the window: 3 s of IO before the trigger, 2 s after */
	cr_expect(w.first >= w.trigger - 3 * s && w.first <= w.trigger - 3 * s + 50 * ms,
		  "the first IO is %.3f s before the trigger, want 3", (double)(w.trigger - w.first) / 1e9);
	cr_expect(w.last <= w.trigger + 2 * s && w.last >= w.trigger + 2 * s - 50 * ms,
		  "the last IO is %.3f s after the trigger, want 2", (double)(w.last - w.trigger) / 1e9);
	cr_expect_gt(w.ios, 1000, "only %zu IO events", w.ios);
	/* the window starts mid-ring: its first file names the processes again */
	cr_expect_eq(w.unnamed_q, 0, "%s: %zu queued IOs of no named process", backend, w.unnamed_q);
	char pat[600];
	snprintf(pat, sizeof pat, "%s/st.ring.*", cf.dir);
	cr_expect_eq(count(pat), 0, "the ring's files are left");
	char why[256];
	cr_expect(cf_kernel_clean(why, sizeof why), "kernel left dirty: %s", why);
}

/* bpf's ring holds its raw records (the rule reads events decoded for it
 * alone); perf's holds events. */
Test(capture_flight, a_stall_on_the_stream_triggers_one_file_that_holds_the_window_around_it_bpf)
{
	cf_need_btf();
	stall("bpf");
}

Test(capture_flight, a_stall_on_the_stream_triggers_one_file_that_holds_the_window_around_it_perf)
{
	stall("perf");
}

/* `blkreel-capture --trigger -o NAME` from another shell and SIGUSR1 make
 * a file each; SIGUSR2 prints the status line, which the status file
 * holds too; with no flight capture running, --trigger says so, exit 1. */
static void triggers(const char *backend)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char ep[600], name[600], status[600];
	snprintf(ep, sizeof ep, "%s/t.err", cf.dir);
	snprintf(name, sizeof name, "%s/t", cf.dir);
	snprintf(status, sizeof status, "%s/t.status", cf.dir);
	pid_t cap = cf_capture_bg(ep, "--backend %s --no-progress -d %s -o '%s' --flight 2s --flight-after 500ms "
				      "--status-file '%s' -w 60",
				  backend, cf.loop, name, status);
	cf_wait_for_text(ep, "tracing loop");
	fio_pid = start_fio(5, NULL);
	sleep_ms(1500);
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL, "'%s' --trigger -o '%s'", tu_bin("blkreel-capture"), name);
	cr_expect_eq(rc, 0, "--trigger exited %d: %s", rc, out ? out : "");
	char said[96];
	snprintf(said, sizeof said, "triggered the flight capture pid %d", (int)cap);
	cr_expect(out && strstr(out, said), "--trigger said: %s", out ? out : "");
	free(out);
	/* another name is not this capture */
	rc = tu_runf(NULL, NULL, NULL, "'%s' --trigger -o '%s/other'", tu_bin("blkreel-capture"), cf.dir);
	cr_expect_eq(rc, 1, "--trigger of a name nobody writes exited %d", rc);
	sleep_ms(1500);
	kill(cap, SIGUSR1);
	sleep_ms(1000);
	kill(cap, SIGUSR2);
	cf_wait_for_text(ep, "blkreel-capture status: ");
	char *line = tu_read_text(status);
	cr_expect(line && strstr(line, "blkreel-capture status: ") && strstr(line, " events (") &&
			  strstr(line, "2 triggers"),
		  "status file: %s", line ? line : "(none)");
	free(line);
	cr_expect_eq(cf_wait(fio_pid), 0);
	fio_pid = 0;
	cf_wait_for_text(ep, "flight-00002.blktrace.gz (");
	kill(cap, SIGINT);
	rc = cf_wait(cap);
	char *err = tu_read_text(ep);
	bool ok;
	tu_capture_unrecorded(rc, err, &ok);
	cr_expect(ok, "flight capture exited %d: %s", rc, err);
	cr_expect(strstr(err, "in 2 files for 2 triggers") != NULL, "%s", err);
	free(err);
	for (unsigned k = 1; k <= 2; k++) {
		char path[700];
		snprintf(path, sizeof path, "%s.flight-%05u.blktrace.gz", name, k);
		cr_expect_eq(tu_runf(NULL, NULL, NULL, "gzip -t '%s'", path), 0, "%s is not whole", path);
		window w;
		read_window(path, &w);
		cr_expect(strstr(w.note, "flight trigger SIGUSR1"), "%s: note %s", path, w.note);
		cr_expect_gt(w.ios, 1000, "%s: %zu IO events", path, w.ios);
	}
	rc = tu_runf(NULL, NULL, &out, "'%s' --trigger", tu_bin("blkreel-capture"));
	cr_expect_eq(rc, 1, "--trigger with no flight capture running exited %d", rc);
	cr_expect(out && strstr(out, "no flight capture"), "%s", out ? out : "");
	free(out);
}

Test(capture_flight, trigger_from_another_shell_and_sigusr1_write_a_file_each_bpf)
{
	cf_need_btf();
	triggers("bpf");
}

Test(capture_flight, trigger_from_another_shell_and_sigusr1_write_a_file_each_perf)
{
	triggers("perf");
}

/* Rules on requests over steady IO at depth 4 (each request well under a
 * millisecond): d2c>1s, q2c>1s and inflight>4 never fire, as they would
 * if a completion were paired with the wrong issue, or none, or counted
 * out of time order (inflight but for the completions the kernel did not
 * hand over); inflight>2 fires and its file is written. bpf's
 * rules read the records' events merged apart from the ring's files,
 * perf's the stream it writes. */
static void request_rules(const char *backend)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	const char *rules[2] = { "--trigger-on 'd2c>1s' --trigger-on 'q2c>1s' --trigger-on 'inflight>4'",
				 "--trigger-on 'inflight>2'" };
	for (int k = 0; k < 2; k++) {
		char ep[600];
		snprintf(ep, sizeof ep, "%s/r%d.err", cf.dir, k);
		pid_t cap = cf_capture_bg(ep, "--backend %s --no-progress -d %s -o '%s/r%d' --flight 2s --flight-after 300ms "
					      "%s -w 60",
					  backend, cf.loop, cf.dir, k, rules[k]);
		cf_wait_for_text(ep, "tracing loop");
		fio_pid = start_fio(3, NULL);
		cr_expect_eq(cf_wait(fio_pid), 0, "fio failed beside the flight capture");
		fio_pid = 0;
		if (k == 1)
			cf_wait_for_text(ep, "flight-00001.blktrace.gz (");
		kill(cap, SIGINT);
		int rc = cf_wait(cap);
		char *err = tu_read_text(ep);
		bool ok;
		unsigned long long unrecorded = tu_capture_unrecorded(rc, err, &ok);
		cr_expect(ok, "%s: flight capture exited %d: %s", backend, rc, err);
		if (k == 0) {
			/* a request whose completion the kernel did not hand over
			 * counts in flight (its issue is all the rule sees): at most
			 * the capture's unrecorded completions more than the depth */
			cr_expect(strstr(err, "trigger d2c") == NULL && strstr(err, "trigger q2c") == NULL,
				  "%s: a latency rule that cannot hold fired: %s", backend, err);
			for (const char *t = strstr(err, "trigger inflight>4 ("); t; t = strstr(t + 1, "trigger inflight>4 (")) {
				unsigned long n = strtoul(t + strlen("trigger inflight>4 ("), NULL, 10);
				cr_expect_leq(n, 4 + unrecorded, "%s: %lu requests in flight at depth 4 with %llu completions "
								 "unrecorded: %s",
					      backend, n, unrecorded, err);
			}
			if (!unrecorded)
				cr_expect(strstr(err, "in 0 files for 0 triggers") != NULL, "%s: a rule that cannot hold fired: %s",
					  backend, err);
		} else {
			cr_expect(strstr(err, "trigger inflight>2 (3 requests in flight") != NULL, "%s: %s", backend, err);
			char out[600];
			snprintf(out, sizeof out, "%s/r1.flight-00001.blktrace.gz", cf.dir);
			window w;
			read_window(out, &w);
			cr_expect(strstr(w.note, "inflight>2"), "%s: note %s", backend, w.note);
			cr_expect_gt(w.ios, 100, "%s: %zu IO events", backend, w.ios);
		}
		free(err);
	}
}

Test(capture_flight, rules_on_requests_fire_when_they_hold_and_only_then_bpf)
{
	cf_need_btf();
	request_rules("bpf");
}

Test(capture_flight, rules_on_requests_fire_when_they_hold_and_only_then_perf)
{
	request_rules("perf");
}

/* A rotated capture as a service: SIGHUP (systemctl reload) starts the
 * next file and the capture goes on; SIGINT ends it as before. */
Test(capture_flight, sighup_starts_the_next_file_of_a_rotated_capture)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char ep[600];
	snprintf(ep, sizeof ep, "%s/h.err", cf.dir);
	pid_t cap = cf_capture_bg(ep, "--backend perf --no-progress -d %s -o '%s/h' --rotate 1h -w 60", cf.loop, cf.dir);
	cf_wait_for_text(ep, "tracing loop");
	fio_pid = start_fio(2, NULL);
	sleep_ms(1000);
	kill(cap, SIGHUP);
	cr_expect_eq(cf_wait(fio_pid), 0);
	fio_pid = 0;
	cf_wait_for_text(ep, "h.00001.blktrace.gz (");
	cr_expect_eq(kill(cap, 0), 0, "SIGHUP ended the capture");
	kill(cap, SIGINT);
	int rc = cf_wait(cap);
	char *err = tu_read_text(ep);
	bool ok;
	tu_capture_unrecorded(rc, err, &ok);
	cr_expect(ok, "capture exited %d: %s", rc, err);
	cr_expect(strstr(err, "SIGHUP: the next file starts now") != NULL, "%s", err);
	free(err);
	char pat[600];
	snprintf(pat, sizeof pat, "%s/h.0000[12].blktrace.gz", cf.dir);
	cr_expect_eq(count(pat), 2, "want two files, one before the SIGHUP and one after");
}
