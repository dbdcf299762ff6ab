/* test_capture_safety.c — blkreel-capture never loses what it wrote and
 * never leaves the kernel dirty: SIGINT in the middle, kill -9 then
 * --cleanup, a full output disk, and every refusal. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel_suite.h"
#include "testutil.h"
#include "capture_fixture.h"

TestSuite(capture_safety, .init = cf_setup, .fini = cf_teardown, .timeout = 120);

static const char *dd_loop(void)
{
	static char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "sh -c 'while :; do dd if=/dev/zero of=%s bs=4k count=64 oflag=direct status=none; done'", cf.loop);
	return cmd;
}

/* Wait until the capture writing errpath says it is tracing (or 10 s). */
static bool wait_tracing(const char *errpath)
{
	for (int i = 0; i < 200; i++) {
		char *err = tu_read_text(errpath);
		bool on = strstr(err, " backend\n") && strstr(err, "tracing ");
		free(err);
		if (on)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

static void expect_clean(void)
{
	char why[512];
	cr_expect(cf_kernel_clean(why, sizeof why), "kernel left dirty: %s", why);
}

/* A freshly booted machine has no tracefs mounted: the kernel tests must mount
 * it as the tool would, not skip, and leave the mount state as they found it. */
Test(capture_safety, kernel_tests_mount_tracefs_and_put_it_back)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (mounting tracefs)");
	if (!cap_fs_supported("tracefs"))
		cr_skip_test("the kernel has no tracefs (not in /proc/filesystems)");
	bool before = cap_fs_mounted(TRACEFS, "current_tracer");
	cf_kernel_test(16);
	cr_assert(cap_fs_mounted(TRACEFS, "current_tracer"), "tracefs not mounted for a kernel test");
	cr_expect_eq(cf.mounted_tracefs, !before, "the fixture mounted=%d, but tracefs was %s before",
		     cf.mounted_tracefs, before ? "mounted" : "not mounted");
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/m' -w 100ms", cf.loop, cf.dir);
	cr_expect_eq(rc, 0, "capture exited %d: %s", rc, err);
	cr_expect(strstr(err, "tracefs was not mounted") == NULL, "the tool had to mount tracefs itself: %s", err);
	free(err);
	cf_teardown();
	cr_expect_eq(cap_fs_mounted(TRACEFS, "current_tracer"), before, "tracefs %s after the test, %s before",
		     before ? "not mounted" : "still mounted", before ? "mounted" : "not mounted");
}

Test(capture_safety, sigint_mid_run_leaves_valid_file_and_clean_kernel)
{
	cf_kernel_test(64);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/cap.err", cf.dir);
	pid_t pid = cf_capture_bg(errpath, "--backend tracefs --no-progress -d %s -o '%s/int' -- %s", cf.loop,
				  cf.dir, dd_loop());
	usleep(1500 * 1000);
	kill(pid, SIGINT);
	int rc = cf_wait(pid);
	char *err = tu_read_text(errpath);
	/* the command (sh) got the SIGINT too and died of it: its status is ours */
	cr_expect_eq(rc, 130, "exit %d after SIGINT, want the command's 130: %s", rc, err);
	free(err);
	char *text = NULL;
	rc = tu_runf(&text, NULL, NULL, "gzip -t '%s/int.blktrace.gz' && zcat '%s/int.blktrace.gz' | blkparse -i -",
		     cf.dir, cf.dir);
	cr_expect_eq(rc, 0, "the file is not valid gzip or blkparse failed");
	cr_expect_gt(tu_count_lines(text, " D "), 10, "too few D events after 1.5 s of writes");
	free(text);
	expect_clean();
}

Test(capture_safety, kill9_is_detected_and_cleanup_restores)
{
	cf_kernel_test(16);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/cap.err", cf.dir);
	pid_t pid = cf_capture_bg(errpath, "--backend tracefs --no-progress -d %s -o '%s/k' -w 60", cf.loop, cf.dir);
	char state[128];
	snprintf(state, sizeof state, "/run/blkreel/capture-%d.state", (int)pid);
	for (int i = 0; i < 100 && access(state, F_OK); i++)
		usleep(50 * 1000);
	usleep(300 * 1000); /* past the last change of start */
	cr_assert_eq(access(state, F_OK), 0, "no state file %s", state);
	kill(pid, SIGKILL);
	cf_wait(pid);
	char why[512];
	cr_assert_not(cf_kernel_clean(why, sizeof why), "kill -9 left nothing behind? (test is void)");

	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/after' -w 100ms", cf.loop, cf.dir);
	char pidtext[64];
	snprintf(pidtext, sizeof pidtext, "capture pid %d", (int)pid);
	cr_expect(strstr(err, "leftover kernel state") && strstr(err, pidtext),
		  "next run did not report the leftover state: %s", err);
	cr_expect(strstr(err, "current_tracer is blk (was nop)") != NULL, "no description of the change: %s", err);
	cr_expect(strstr(err, "--cleanup") != NULL, "no hint to --cleanup: %s", err);
	cr_expect_eq(rc, 0, "a perf capture still works next to leftovers: %d", rc);
	free(err);
	err = NULL;
	rc = cf_capture(NULL, &err, "--backend tracefs --no-progress -d %s -o '%s/refused' -w 100ms", cf.loop, cf.dir);
	cr_expect_eq(rc, 1, "tracefs over leftover state: exit %d", rc);
	cr_expect(strstr(err, "blkreel-capture --cleanup") != NULL, "no --cleanup hint: %s", err);
	free(err);

	char *out = NULL;
	rc = cf_capture(&out, NULL, "--cleanup");
	cr_expect_eq(rc, 0, "--cleanup exited %d: %s", rc, out);
	cr_expect(strstr(out, "restored") != NULL, "--cleanup said: %s", out);
	free(out);
	expect_clean();
}

static void disk_full(const char *backend)
{
	cf_kernel_test(64);
	snprintf(cf.mnt, sizeof cf.mnt, "%s/full", cf.dir);
	cr_assert_eq(mkdir(cf.mnt, 0755), 0);
	if (mount("tmpfs", cf.mnt, "tmpfs", 0, "size=128k")) {
		cf.mnt[0] = 0;
		cr_skip_test("cannot mount a small tmpfs");
	}
	char *err = NULL;
	int rc;
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
		 "--backend %s --no-progress -l 1 -d %s -o '%s/x' -- sh -c 'for i in $(seq 40); do dd if=/dev/zero "
		 "of=%s bs=4k count=300 seek=$((i*300)) oflag=direct status=none; done'",
		 backend, cf.loop, cf.mnt, cf.loop);
	rc = cf_capture(NULL, &err, "%s", cmd);
	cr_expect_eq(rc, 1, "%s: exit %d on a full disk, want 1: %s", backend, rc, err);
	cr_expect(strstr(err, "No space left") != NULL, "%s: no ENOSPC message: %s", backend, err);
	free(err);
	char *text = NULL;
	tu_runf(&text, NULL, NULL, "zcat '%s/x.blktrace.gz' 2>/dev/null | blkparse -i - 2>/dev/null", cf.mnt);
	cr_expect_gt(tu_count_lines(text, " D "), 100, "%s: what was written before the disk filled is not readable",
		     backend);
	free(text);
	expect_clean();
}

Test(capture_safety, output_disk_full_stops_keeps_file_readable)
{
	disk_full("perf");
}

/* bpf to a file spools raw records: the conversion after the full disk
 * must find room (the spool is punched out as it is read). */
Test(capture_safety, output_disk_full_stops_keeps_file_readable_bpf)
{
	cf_need_btf();
	disk_full("bpf");
}

Test(capture_safety, refuses_non_block_device)
{
	if (geteuid() != 0)
		cr_skip_test("needs root");
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "-d /dev/null -o /tmp/never -w 1");
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "/dev/null: is not a block device") != NULL, "%s", err);
	free(err);
	rc = cf_capture(NULL, &err, "-d /etc/hostname -o /tmp/never -w 1");
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "is not a block device") != NULL, "%s", err);
	free(err);
	cr_expect_neq(access("/tmp/never.blktrace.gz", F_OK), 0, "a refused capture left an output file");
}

Test(capture_safety, refuses_without_root)
{
	if (geteuid() != 0) {
		/* we are the unprivileged user already: the refusal comes first */
		char *e = NULL;
		int r = cf_capture(NULL, &e, "-d /dev/null -o /tmp/never -w 1");
		cr_expect_eq(r, 1, "exit %d", r);
		cr_expect(strstr(e, "needs root (CAP_SYS_ADMIN)") != NULL, "%s", e);
		free(e);
		return;
	}
	cf_kernel_test(16);
	if (!tu_have("setpriv"))
		cr_skip_test("no setpriv");
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all '%s' -d %s -o /tmp/x -w 1",
			 tu_bin("blkreel-capture"), cf.loop);
	cr_expect_eq(rc, 1, "exit %d", rc);
	cr_expect(strstr(err, "needs root (CAP_SYS_ADMIN)") != NULL, "%s", err);
	free(err);
}

Test(capture_safety, refuses_when_tracer_held_and_names_holder)
{
	cf_kernel_test(16);
	/* We hold the tracer lock. A capture that is not our descendant (setsid -f
	 * detaches it) must refuse and name us. */
	char rcpath[600], errpath[600];
	snprintf(rcpath, sizeof rcpath, "%s/rc", cf.dir);
	snprintf(errpath, sizeof errpath, "%s/err", cf.dir);
	int rc = tu_runf(NULL, NULL, NULL,
			 "setsid -f sh -c \"'%s' --backend tracefs -d %s -o '%s/busy' -w 1 2>'%s'; echo \\$? >'%s'\"",
			 tu_bin("blkreel-capture"), cf.loop, cf.dir, errpath, rcpath);
	cr_assert_eq(rc, 0);
	for (int i = 0; i < 100 && access(rcpath, F_OK); i++)
		usleep(50 * 1000);
	usleep(50 * 1000);
	char *rcs = tu_read_text(rcpath), *err = tu_read_text(errpath);
	cr_expect_eq(atoi(rcs), 1, "exit %s", rcs);
	char want[128];
	snprintf(want, sizeof want, "another capture (pid %d", (int)getpid());
	cr_expect(strstr(err, want) != NULL, "want '%s' in: %s", want, err);
	free(rcs);
	free(err);
	expect_clean();
}

Test(capture_safety, usage_errors_exit_2_and_help_is_gnu_shaped)
{
	char *out = NULL, *err = NULL;
	cr_expect_eq(cf_capture(NULL, &err, "-o x"), 2);
	cr_expect(strstr(err, "no device given") && strstr(err, "Try 'blkreel-capture --help'"), "%s", err);
	free(err);
	cr_expect_eq(cf_capture(NULL, &err, "--frobnicate -d /dev/null"), 2);
	free(err);
	cr_expect_eq(cf_capture(NULL, &err, "-d /dev/null -a nonsense"), 2);
	free(err);
	cr_expect_eq(cf_capture(&out, NULL, "--help"), 0);
	cr_expect(strncmp(out, "Usage: blkreel-capture [OPTION]...", 34) == 0, "%s", out);
	cr_expect(strstr(out, "Exit status:") != NULL);
	free(out);
	cr_expect_eq(cf_capture(&out, NULL, "--version"), 0);
	cr_expect(strncmp(out, "blkreel-capture ", 16) == 0);
	free(out);
}

Test(capture_safety, refuses_device_traced_by_another_capture_and_names_it)
{
	cf_kernel_test(16);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/a.err", cf.dir);
	pid_t a = cf_capture_bg(errpath, "--backend tracefs --no-progress -d %s -o '%s/a' -w 30", cf.loop, cf.dir);
	char state[128];
	snprintf(state, sizeof state, "/run/blkreel/capture-%d.state", (int)a);
	for (int i = 0; i < 100 && access(state, F_OK); i++)
		usleep(50 * 1000);
	usleep(300 * 1000);
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend tracefs --no-progress -d %s -o '%s/b' -w 1", cf.loop, cf.dir);
	char want[96];
	snprintf(want, sizeof want, "another capture (pid %d)", (int)a);
	cr_expect_eq(rc, 1, "second tracefs capture exited %d", rc);
	cr_expect(strstr(err, want) != NULL, "want '%s' in: %s", want, err);
	free(err);
	/* perf needs no machine-wide state: it may trace the same device meanwhile */
	rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/c' -w 200ms", cf.loop, cf.dir);
	cr_expect_eq(rc, 0, "perf next to a tracefs capture exited %d: %s", rc, err);
	free(err);
	kill(a, SIGTERM);
	cr_expect_eq(cf_wait(a), 0, "SIGTERM ends a capture: exit 0");
	expect_clean();
}

Test(capture_safety, action_mask_and_lba_range_filter)
{
	cf_kernel_test(64);
	char *err = NULL, *text = NULL;
	const char *w = "sh -c 'dd if=/dev/zero of=%s bs=64k count=10 oflag=direct status=none; "
			"dd if=%s of=/dev/null bs=4k count=5 skip=1000 iflag=direct status=none'";
	char work[512];
	snprintf(work, sizeof work, w, cf.loop, cf.loop);
	int rc = cf_capture(NULL, &err, "--no-progress -d %s -a complete -o '%s/c' -- %s", cf.loop, cf.dir, work);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	tu_runf(&text, NULL, NULL, "zcat '%s/c.blktrace.gz' | blkparse -i - | awk '$6 ~ /^[A-Z]+$/ {print $6}' | sort -u",
		cf.dir);
	cr_expect_str_eq(text, "C\n", "-a complete kept: %s", text);
	free(text);
	rc = cf_capture(NULL, &err, "--no-progress -d %s -a read -o '%s/r' -- %s", cf.loop, cf.dir, work);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	tu_runf(&text, NULL, NULL, "zcat '%s/r.blktrace.gz' | blkparse -i - | awk '$6 ~ /^[A-Z]+$/ {print $7}' | sort -u",
		cf.dir);
	cr_expect_str_eq(text, "RS\n", "-a read kept: %s", text);
	free(text);
	/* sectors 8000..8039 are the reads; the writes are at 0..1279 (sector 0 passes,
	 * as in the kernel's own rule: events without a sector are never filtered) */
	rc = cf_capture(NULL, &err, "--no-progress -d %s --start-lba 4000 --end-lba 9000 -o '%s/l' -- %s", cf.loop,
			cf.dir, work);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	tu_runf(&text, NULL, NULL,
		"zcat '%s/l.blktrace.gz' | blkparse -i - | awk '$6 == \"D\" && $8 > 0 {print $8}' | sort -n | tr '\\n' ' '",
		cf.dir);
	cr_expect_str_eq(text, "8000 8008 8016 8024 8032 ", "LBA range kept: %s", text);
	free(text);
}

Test(capture_safety, drops_are_counted_stored_and_fail_the_run)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char work[512];
	snprintf(work, sizeof work,
		 "fio --output=/dev/null --name=r --filename=%s --rw=randread --bs=4k --iodepth=32 "
		 "--ioengine=libaio --direct=1 --runtime=1 --time_based", cf.loop);
	/* one 4 KiB page of ring per CPU cannot hold a second of QD32 */
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf -b 4k -n 1 --no-progress -d %s -o '%s/d' -- %s", cf.loop,
			    cf.dir, work);
	cr_expect_eq(rc, 1, "exit %d with drops, want 1: %s", rc, err);
	cr_expect(strstr(err, "events lost") && strstr(err, "; exit 1 (--allow-drops to accept)"), "%s", err);
	free(err);
	cf_expect_drops_in_file("d.blktrace.gz");
	rc = cf_capture(NULL, &err, "--backend perf -b 4k -n 1 --allow-drops --no-progress -d %s -o '%s/e' -- %s",
			cf.loop, cf.dir, work);
	cr_expect_eq(rc, 0, "--allow-drops: exit %d: %s", rc, err);
	free(err);
}

Test(capture_safety, command_exit_status_becomes_ours)
{
	cf_kernel_test(16);
	char *err = NULL;
	cr_expect_eq(cf_capture(NULL, &err, "-q -d %s -o '%s/x' -- sh -c 'exit 7'", cf.loop, cf.dir), 7);
	free(err);
	cr_expect_eq(cf_capture(NULL, &err, "-q -d %s -o '%s/y' -- /nonexistent/command", cf.loop, cf.dir), 127);
	cr_expect(strstr(err, "cannot run /nonexistent/command") != NULL, "%s", err);
	free(err);
	cr_expect_eq(cf_capture(NULL, &err, "-q -d %s -o '%s/z' -- sh -c 'kill -TERM $$'", cf.loop, cf.dir),
		     128 + SIGTERM);
	free(err);
	expect_clean();
}

Test(capture_safety, kill9_of_perf_capture_cleanup_finishes_the_file)
{
	cf_kernel_test(64);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/cap.err", cf.dir);
	pid_t pid = cf_capture_bg(errpath, "--backend perf --no-progress -d %s -o '%s/k' -- %s", cf.loop, cf.dir,
				  dd_loop());
	usleep(1500 * 1000);
	/* its command (a dd loop) lives on after a kill -9: note its pid to stop it */
	char kids_path[96];
	snprintf(kids_path, sizeof kids_path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	char *kids = tu_read_text(kids_path);
	kill(pid, SIGKILL);
	cf_wait(pid);
	for (char *save, *tok = strtok_r(kids, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		kill((pid_t)atoi(tok), SIGTERM);
	free(kids);
	usleep(200 * 1000);
	char spool[600];
	snprintf(spool, sizeof spool, "%s/k.blktrace.spool", cf.dir);
	cr_assert_eq(access(spool, F_OK), 0, "no spool after kill -9");
	char *err = NULL;
	cf_capture(NULL, &err, "-d %s -o '%s/next' -w 100ms", cf.loop, cf.dir);
	cr_expect(strstr(err, "unfinished capture file") != NULL, "next run did not report the spool: %s", err);
	free(err);
	char *out = NULL;
	int rc = cf_capture(&out, NULL, "--cleanup");
	cr_expect_eq(rc, 0, "--cleanup: %s", out);
	free(out);
	cr_expect_neq(access(spool, F_OK), 0, "spool still there after --cleanup");
	char *text = NULL;
	rc = tu_runf(&text, NULL, NULL, "gzip -t '%s/k.blktrace.gz' && zcat '%s/k.blktrace.gz' | blkparse -i -", cf.dir,
		     cf.dir);
	cr_expect_eq(rc, 0, "recovered file not valid");
	cr_expect_gt(tu_count_lines(text, " D "), 10, "recovered file has too few events");
	free(text);
	expect_clean();
}

/* A capture this test did not start (perf needs no lock, so another user's
 * may run at any time) is not this test's to judge: its state file in
 * /run/blkreel must not make our captures look dirty. */
Test(capture_safety, another_running_capture_is_not_judged_as_ours)
{
	cf_kernel_test(16);
	const char *other = cf_extra_loop(16);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "exec '%s' --backend perf -q -d %s -o '%s/other' -w 60 2>'%s/other.err' </dev/null",
		 tu_bin("blkreel-capture"), other, cf.dir, cf.dir);
	pid_t o = fork(); /* not through cf_capture_bg: it is not ours */
	if (o == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert_gt(o, 0);
	char state[96];
	snprintf(state, sizeof state, "/run/blkreel/capture-%d.state", (int)o);
	for (int i = 0; i < 100 && access(state, F_OK); i++)
		usleep(50 * 1000);
	bool running = access(state, F_OK) == 0;
	char names[8][16];
	size_t n = running ? cf_backends(names, 8) : 0;
	for (size_t i = 0; i < n; i++) {
		char *err = NULL;
		int rc = cf_capture(NULL, &err, "--backend %s --no-progress -d %s -o '%s/%s' -w 200ms", names[i], cf.loop,
				    cf.dir, names[i]);
		cr_expect_eq(rc, 0, "%s capture exited %d: %s", names[i], rc, err);
		free(err);
		char why[512];
		cr_expect(cf_kernel_clean(why, sizeof why), "%s: kernel judged dirty: %s", names[i], why);
	}
	kill(o, SIGINT);
	int ws;
	waitpid(o, &ws, 0);
	cr_assert(running, "the other capture never wrote %s (test is void)", state);
	cr_expect_neq(access(state, F_OK), 0, "the other capture left %s", state);
}

/* Ending a capture with Ctrl-C or SIGTERM is how users stop one: exit 0 and a
 * whole file, on every backend that works here. */
static void stop_with(int sig)
{
	cf_kernel_test(16);
	char names[8][16];
	size_t n = cf_backends(names, 8);
	for (size_t i = 0; i < n; i++) {
		char errpath[600];
		snprintf(errpath, sizeof errpath, "%s/%s.err", cf.dir, names[i]);
		pid_t pid = cf_capture_bg(errpath, "--backend %s --no-progress -d %s -o '%s/%s' -w 60", names[i],
					  cf.loop, cf.dir, names[i]);
		cr_assert_gt(pid, 0);
		bool on = wait_tracing(errpath);
		int io = tu_runf(NULL, NULL, NULL, "dd if=/dev/zero of=%s bs=4k count=16 oflag=direct status=none",
				 cf.loop);
		usleep(200 * 1000);
		kill(pid, sig);
		int rc = cf_wait(pid);
		char *err = tu_read_text(errpath);
		cr_expect(on, "%s: never said it was tracing: %s", names[i], err);
		cr_expect_eq(io, 0, "%s: dd failed", names[i]);
		cr_expect_eq(rc, 0, "%s: exit %d after %s, want 0: %s", names[i], rc, strsignal(sig), err);
		free(err);
		char *text = NULL;
		rc = tu_runf(&text, NULL, NULL, "gzip -t '%s/%s.blktrace.gz' && zcat '%s/%s.blktrace.gz' | blkparse -i -",
			     cf.dir, names[i], cf.dir, names[i]);
		cr_expect_eq(rc, 0, "%s: the file is not valid gzip or blkparse failed", names[i]);
		size_t writes = 0;
		for (const char *p = text; p && (p = strstr(p, " D ")); p++)
			writes += strncmp(p + strspn(p + 3, " ") + 3, "W", 1) == 0;
		cr_expect_geq(writes, 16, "%s: %zu write D events, want the 16 of dd", names[i], writes);
		free(text);
		expect_clean();
	}
}

Test(capture_safety, sigint_ends_a_capture_with_success_on_every_backend)
{
	stop_with(SIGINT);
}

Test(capture_safety, sigterm_ends_a_capture_with_success_on_every_backend)
{
	stop_with(SIGTERM);
}

/* With a COMMAND, its status stays ours even when a signal ended the capture. */
Test(capture_safety, signal_with_command_returns_the_command_status)
{
	cf_kernel_test(16);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/c.err", cf.dir);
	pid_t pid = cf_capture_bg(errpath,
				  "--backend perf --no-progress -d %s -o '%s/c' -- sh -c 'trap \"exit 5\" INT; "
				  "while :; do sleep 0.05; done'",
				  cf.loop, cf.dir);
	cr_assert(wait_tracing(errpath), "never said it was tracing");
	usleep(200 * 1000);
	kill(pid, SIGINT);
	int rc = cf_wait(pid);
	cr_expect_eq(rc, 5, "exit %d after SIGINT, want the command's 5", rc);
	cr_expect_eq(tu_runf(NULL, NULL, NULL, "gzip -t '%s/c.blktrace.gz'", cf.dir), 0, "file not whole");
	expect_clean();
}

/* ---- kill -9: all but the last second survives -------------------------- */

#define K9_IOS 500
#define K9_GAP_NS (8ull * 1000 * 1000) /* 125 writes/s: a low rate, nothing fills a batch */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The loop device's completed requests (its sysfs stat: reads, writes,
 * discards, flushes, as the capture's own completion check counts them). */
static uint64_t loop_completed(void)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/block/%s/stat", cf.name);
	FILE *f = fopen(path, "r");
	unsigned long long v[17] = { 0 };
	for (int n = 0; f && n < 17 && fscanf(f, "%llu", &v[n]) == 1; n++)
		;
	if (f)
		fclose(f);
	return v[0] + v[4] + v[11] + v[15];
}

/* The writer counts the device's completions before its first write and,
 * once the test says go (2 s in), before its next write: between two
 * writes, none in flight, so the two counts hold exactly the completions
 * of the writes before that one (the due writes); the test kills the
 * capture a second after that second count, however late the writer got
 * to it on a loaded machine. A kill -9 leaves no completion check of the
 * capture's own; this is it, for the writes that must survive. */
#define K9_S0 K9_IOS       /* issued[K9_S0], issued[K9_S1]: the two counts */
#define K9_S1 (K9_IOS + 1)
#define K9_GO (K9_IOS + 2)  /* set by the test */
#define K9_DUE (K9_IOS + 3) /* by the writer: the writes before this one are due */
#define K9_T1 (K9_IOS + 4)  /* by the writer: when it took the second count */
#define K9_SLOTS (K9_IOS + 5)

/* A child writing K9_IOS direct 4 KiB blocks (block i at sector 8i), each at
 * its time; issued[i] gets the time just before block i was written. */
static pid_t paced_writer(uint64_t *issued)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int fd = open(cf.loop, O_WRONLY | O_DIRECT);
	void *buf = NULL;
	if (fd < 0 || posix_memalign(&buf, 4096, 4096))
		_exit(1);
	memset(buf, 0x5a, 4096);
	uint64_t t0 = mono_ns();
	issued[K9_S0] = loop_completed();
	for (int i = 0; i < K9_IOS; i++) {
		uint64_t due = t0 + (uint64_t)i * K9_GAP_NS, now = mono_ns();
		if (due > now)
			nanosleep(&(struct timespec){ 0, (long)(due - now) }, NULL);
		if (__atomic_load_n(&issued[K9_GO], __ATOMIC_ACQUIRE) && !issued[K9_T1]) {
			issued[K9_S1] = loop_completed();
			issued[K9_DUE] = (uint64_t)i;
			__atomic_store_n(&issued[K9_T1], mono_ns(), __ATOMIC_RELEASE);
		}
		issued[i] = mono_ns();
		if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096)
			_exit(1);
	}
	_exit(0);
}

/* Processes started by this test (its children) holding a perf event. */
static size_t perf_events_of_ours(char *who, size_t size)
{
	size_t n = 0;
	who[0] = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		int pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		char path[300], st[512] = "";
		snprintf(path, sizeof path, "/proc/%d/stat", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(st, 1, sizeof st - 1, f);
		st[len] = 0;
		fclose(f);
		char *rp = strrchr(st, ')');
		int ppid = 0;
		if (!rp || sscanf(rp + 2, "%*c %d", &ppid) != 1 || ppid != getpid())
			continue;
		snprintf(path, sizeof path, "/proc/%d/fd", pid);
		DIR *fds = opendir(path);
		struct dirent *fe;
		while (fds && (fe = readdir(fds))) {
			char link[600], target[128];
			snprintf(link, sizeof link, "%s/%s", path, fe->d_name);
			ssize_t t = readlink(link, target, sizeof target - 1);
			if (t > 0 && (target[t] = 0, strstr(target, "perf_event"))) {
				n++;
				size_t w = strlen(who);
				snprintf(who + w, size - w, " %d", pid);
			}
		}
		if (fds)
			closedir(fds);
	}
	if (d)
		closedir(d);
	return n;
}

static void kill9_keeps_all_but_the_last_second(const char *backend)
{
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/%s.err", cf.dir, backend);
	pid_t pid = cf_capture_bg(errpath, "--backend %s --no-progress -d %s -o '%s/%s' -w 60", backend, cf.loop, cf.dir,
				  backend);
	cr_assert_gt(pid, 0);
	cr_assert(wait_tracing(errpath), "%s: never said it was tracing", backend);
	uint64_t *issued = mmap(NULL, K9_SLOTS * sizeof *issued, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(issued, MAP_FAILED);
	memset(issued, 0, K9_SLOTS * sizeof *issued);
	pid_t w = paced_writer(issued);
	cr_assert_gt(w, 0);
	usleep(2000 * 1000);
	__atomic_store_n(&issued[K9_GO], 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 10000 && !__atomic_load_n(&issued[K9_T1], __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	uint64_t t1 = __atomic_load_n(&issued[K9_T1], __ATOMIC_ACQUIRE);
	cr_assert(t1, "%s: the writer never took its second count", backend);
	uint64_t now = mono_ns();
	if (t1 + 1000000000ull > now)
		usleep((useconds_t)((t1 + 1000000000ull - now) / 1000) + 1000);
	uint64_t killed_at = mono_ns();
	kill(pid, SIGKILL);
	cf_wait(pid);
	int ws;
	waitpid(w, &ws, 0);
	cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "%s: the writer failed", backend);
	char who[256];
	cr_expect_eq(perf_events_of_ours(who, sizeof who), 0, "%s: perf events still open after kill -9 in:%s", backend,
		     who);
	if (strcmp(backend, "bpf") == 0) {
		/* the bpf capture spools its records raw: that is what --cleanup recovers */
		char raw[700], magic[9] = "";
		snprintf(raw, sizeof raw, "%s/%s.blktrace.spool", cf.dir, backend);
		FILE *f = fopen(raw, "rb");
		cr_assert(f, "%s: no spool after kill -9", backend);
		cr_expect_eq(fread(magic, 1, 8, f), 8u);
		fclose(f);
		cr_expect_str_eq(magic, "BLKRRAW1", "%s: the spool is not the raw one", backend);
	}

	char *out = NULL;
	int rc = cf_capture(&out, NULL, "--cleanup");
	cr_expect_eq(rc, 0, "%s: --cleanup exited %d: %s", backend, rc, out);
	/* The blk tracer outlives its reader: what its ring holds is read too. */
	bool ring_outlives = strcmp(backend, "tracefs") == 0;
	if (ring_outlives)
		cr_expect(strstr(out, "events the kernel still held") != NULL, "%s: --cleanup said: %s", backend, out);
	free(out);
	char why[512];
	cr_expect(cf_kernel_clean(why, sizeof why), "%s: after --cleanup: %s", backend, why);
	char spool[700];
	snprintf(spool, sizeof spool, "%s/%s.blktrace.spool", cf.dir, backend);
	cr_expect_neq(access(spool, F_OK), 0, "%s: spool still there after --cleanup", backend);

	char *text = NULL;
	rc = tu_runf(&text, NULL, NULL, "gzip -t '%s/%s.blktrace.gz' && zcat '%s/%s.blktrace.gz' | blkparse -i -", cf.dir,
		     backend, cf.dir, backend);
	cr_assert_eq(rc, 0, "%s: recovered file not valid", backend);
	unsigned char q[K9_IOS] = { 0 }, d[K9_IOS] = { 0 }, c[K9_IOS] = { 0 };
	for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char act[8], rwbs[16];
		unsigned long long sector;
		unsigned size;
		if (sscanf(line, " %*u,%*u %*u %*u %*f %*u %7s %15s %llu + %u", act, rwbs, &sector, &size) != 4)
			continue;
		if (rwbs[0] != 'W' || size != 8 || sector % 8 || sector / 8 >= K9_IOS)
			continue;
		if (strcmp(act, "Q") == 0)
			q[sector / 8]++;
		else if (strcmp(act, "D") == 0)
			d[sector / 8]++;
		else if (strcmp(act, "C") == 0)
			c[sector / 8]++;
	}
	free(text);
	size_t due = 0, missing = 0, no_c = 0, c_kept = 0, before_kill = 0, kept = 0, after = 0, after_kept = 0;
	int first_missing = -1;
	for (int i = 0; i < K9_IOS; i++) {
		if (ring_outlives && issued[i] > killed_at + 100000000ull) {
			/* still traced into the ring until --cleanup stopped it */
			after++;
			after_kept += q[i] == 1 && c[i] == 1;
		}
		if (issued[i] && issued[i] < killed_at)
			before_kill++;
		if (q[i] == 1 && c[i] == 1)
			kept++;
		if ((uint64_t)i >= issued[K9_DUE] || !issued[i])
			continue;
		due++;
		c_kept += c[i] == 1;
		/* a completion the kernel did not hand over: its Q and D are there */
		if (q[i] == 1 && d[i] == 1 && c[i] == 0) {
			no_c++;
		} else if (q[i] != 1 || d[i] != 1 || c[i] != 1) {
			missing++;
			if (first_missing < 0)
				first_missing = i;
		}
	}
	cr_expect_geq(due, 100, "%s: only %zu writes issued over 1 s before the kill (test is void)", backend, due);
	cr_expect_eq(missing, 0,
		     "%s: %zu of the %zu writes issued over 1 s before the kill are missing (first: #%d); "
		     "%zu of %zu issued before it kept",
		     backend, missing, due, first_missing, kept, before_kill);
	/* the device completed them all; those without a C record must be the
	 * completions the kernel did not hand over: exactly as many, no more */
	uint64_t done = issued[K9_S1] - issued[K9_S0];
	uint64_t unrecorded = done > c_kept ? done - c_kept : 0;
	cr_expect_eq(done, due, "%s: the device completed %llu requests during the %zu due writes", backend,
		     (unsigned long long)done, due);
	cr_expect_eq(no_c, unrecorded,
		     "%s: %zu due writes lack only their C record, the device's count leaves %llu unrecorded", backend,
		     no_c, (unsigned long long)unrecorded);
	if (ring_outlives) {
		cr_expect_geq(after, 50, "%s: only %zu writes after the kill (test is void)", backend, after);
		cr_expect_eq(after_kept, after, "%s: %zu of the %zu writes after the kill, still in the ring, recovered",
			     backend, after_kept, after);
	}
	munmap(issued, K9_SLOTS * sizeof *issued);
}

Test(capture_safety, kill9_keeps_all_but_the_last_second_on_every_backend, .timeout = 240)
{
	cf_kernel_test(16);
	char names[8][16];
	size_t n = cf_backends(names, 8);
	for (size_t i = 0; i < n; i++)
		kill9_keeps_all_but_the_last_second(names[i]);
}
