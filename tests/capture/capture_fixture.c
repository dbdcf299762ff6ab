#include "capture_fixture.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

cf_state cf;

#define NWRITES 100
#define NREADS 50

void cf_setup(void)
{
	memset(&cf, 0, sizeof cf);
	cf.lock = -1;
}

static void write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, value, strlen(value)) < 0) {
			/* best effort: the checks in the tests say what is wrong */
		}
		close(fd);
	}
}

static void read_small(const char *path, char *buf, size_t size)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

void cf_teardown(void)
{
	/* Background captures still running (a failed assertion skipped their
	 * stop) restore what they changed themselves on SIGTERM. */
	for (size_t i = 0; i < cf.npids; i++)
		if (cf.pids[i] > 0 && kill(cf.pids[i], SIGTERM) == 0)
			waitpid(cf.pids[i], NULL, 0);
	/* Kernel state first, whatever the test did: anything a killed capture
	 * left is restored by --cleanup; then our device's enable, and the tracer
	 * if it is still on (we hold the lock, so it is ours). */
	if (cf.lock >= 0) {
		tu_runf(NULL, NULL, NULL, "'%s' --cleanup >/dev/null 2>&1", tu_bin("blkreel-capture"));
		char path[128], cur[64];
		if (cf.name[0]) {
			snprintf(path, sizeof path, "/sys/block/%s/trace/enable", cf.name);
			read_small(path, cur, sizeof cur);
			if (strcmp(cur, "1") == 0)
				write_file(path, "0");
		}
		read_small(TRACEFS "/current_tracer", cur, sizeof cur);
		if (cf.used_tracer && strcmp(cur, "blk") == 0) {
			write_file(TRACEFS "/current_tracer", "nop");
			write_file(TRACEFS "/options/bin", "0");
		}
	}
	if (cf.mnt[0])
		umount2(cf.mnt, MNT_DETACH);
	/* after the tracer is back: only what this test mounted */
	if (cf.mounted_tracefs) {
		br_error ignored;
		cap_fs_unmount(TRACEFS, &ignored);
	}
	for (size_t i = 0; i < cf.nextra; i++)
		tu_loop_detach(cf.extra[i]);
	tu_loop_detach(cf.loop);
	tu_tmpdir_remove(cf.dir);
	tu_tracer_unlock(cf.lock);
	cf_setup();
}

void cf_need_btf(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		cr_skip_test("no kernel BTF at /sys/kernel/btf/vmlinux");
}

void cf_kernel_test(unsigned mib)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (block tracing, loop devices)");
	if (!cap_fs_supported("tracefs"))
		cr_skip_test("the kernel has no tracefs (not in /proc/filesystems)");
	if (!tu_have("losetup"))
		cr_skip_test("no losetup");
	/* The lock first: whether tracefs is mounted is machine-wide state, so
	 * it is looked at, mounted and (in teardown) unmounted only while we
	 * hold the tracer lock, never under another holder's feet. */
	cf.lock = tu_tracer_lock();
	cr_assert_geq(cf.lock, 0, "cannot take the tracer lock");
	/* what the tool does when tracefs is not mounted; teardown unmounts it */
	br_error err;
	int rc = cap_fs_mount_if_absent(TRACEFS, "current_tracer", "tracefs", &cf.mounted_tracefs, &err);
	char msg[1200];
	cr_assert_eq(rc, 0, "cannot mount tracefs: %s", br_error_format(&err, msg, sizeof msg));
	cf.dir = tu_tmpdir();
	cr_assert_not_null(cf.dir);
	cr_assert_eq(tu_loop_create(cf.dir, "disk.img", mib, cf.loop, sizeof cf.loop), 0,
		     "cannot make a loop device");
	snprintf(cf.name, sizeof cf.name, "%.31s", cf.loop + 5);
}

const char *cf_extra_loop(unsigned mib)
{
	cr_assert_lt(cf.nextra, sizeof cf.extra / sizeof cf.extra[0]);
	char img[32];
	snprintf(img, sizeof img, "extra%zu.img", cf.nextra);
	char *dev = cf.extra[cf.nextra];
	cr_assert_eq(tu_loop_create(cf.dir, img, mib, dev, sizeof cf.extra[0]), 0, "cannot make a loop device");
	cf.nextra++;
	return dev;
}

size_t cf_backends(char (*names)[16], size_t max)
{
	char *out = NULL;
	int rc = cf_capture(&out, NULL, "--list-backends -d %s", cf.loop);
	cr_assert_eq(rc, 0, "--list-backends -d %s exited %d", cf.loop, rc);
	size_t n = 0;
	for (char *save, *line = strtok_r(out, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		char name[16], status[16];
		if (sscanf(line, "%15s %15s", name, status) == 2 && strcmp(status, "works") == 0)
			snprintf(names[n++], sizeof names[0], "%s", name);
	}
	free(out);
	cr_assert_gt(n, 0, "no backend works on %s", cf.loop);
	return n;
}

/* Whether a capture run with these arguments may use the blk tracer. */
static void note_backend(const char *args)
{
	const char *b = strstr(args, "--backend");
	if (!b || strncmp(b + 9 + strspn(b + 9, " ="), "tracefs", 7) == 0)
		cf.used_tracer = true;
}

static void note_pid(pid_t pid)
{
	if (pid > 0 && cf.npids < sizeof cf.pids / sizeof cf.pids[0])
		cf.pids[cf.npids++] = pid;
}

const char *cf_workload(void)
{
	return cf_workload_paced(0);
}

const char *cf_workload_paced(unsigned think_us)
{
	static char cmd[1024];
	char think[48] = "";
	if (think_us)
		snprintf(think, sizeof think, " --thinktime=%u", think_us);
	snprintf(cmd, sizeof cmd,
		 "fio --output=/dev/null --filename=%s --direct=1 --ioengine=psync%s "
		 "--name=w --rw=write:64k --bs=64k --number_ios=%d --size=100M "
		 "--name=r --stonewall --rw=read:252k --bs=4k --number_ios=%d --size=100M",
		 cf.loop, think, NWRITES, NREADS);
	return cmd;
}

void cf_expect_exact(const cf_counts *c, unsigned long long unrecorded, const char *what)
{
	cr_expect_eq(c->d_write, NWRITES, "%s: %zu write D events, want %d", what, c->d_write, NWRITES);
	cr_expect_eq(c->d_read, NREADS, "%s: %zu read D events, want %d", what, c->d_read, NREADS);
	cr_expect_eq(c->c_write + c->c_read + unrecorded, NWRITES + NREADS,
		     "%s: %zu write and %zu read C events and %llu unrecorded, want %d + %d in all", what, c->c_write,
		     c->c_read, unrecorded, NWRITES, NREADS);
	cr_expect_eq(c->d_other + c->c_other, 0, "%s: %zu D / %zu C events not of the workload", what,
		     c->d_other, c->c_other);
	cr_expect(c->d_all_seen && c->c_once_or_missing, "%s: not every IO seen exactly once", what);
	cr_expect_eq(c->c_missing, unrecorded, "%s: %zu IOs lack their C, the capture counted %llu unrecorded", what,
		     c->c_missing, unrecorded);
	cr_expect_geq(c->fio_named, 2 * (NWRITES + NREADS), "%s: %zu Q/D lines named [fio], want every one (%d)",
		      what, c->fio_named, 2 * (NWRITES + NREADS));
	cr_expect_eq(c->null_named, 0, "%s: %zu lines with [(null)] as process name", what, c->null_named);
}

const char *cf_capture_bin(void)
{
	return cf.hooks ? tu_hook_bin("blkreel-capture") : tu_bin("blkreel-capture");
}

int cf_capture(char **out, char **err, const char *fmt, ...)
{
	char *args = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&args, fmt, ap);
	va_end(ap);
	cr_assert_geq(n, 0);
	note_backend(args);
	/* the shell's pid is the capture's (exec): noted, to judge its state file */
	char pids[600] = "";
	if (cf.dir)
		snprintf(pids, sizeof pids, "echo $$ >>'%s/capture.pids'; ", cf.dir);
	int rc = tu_runf(out, NULL, err, "%sexec '%s' %s", pids, cf_capture_bin(), args);
	free(args);
	return rc;
}

pid_t cf_capture_bg(const char *errpath, const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	note_backend(args);
	/* exec, so the pid is the capture's own */
	snprintf(cmd, sizeof cmd, "exec '%s' %s 2>'%s' </dev/null", cf_capture_bin(), args, errpath);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	note_pid(pid);
	return pid;
}

int cf_wait(pid_t pid)
{
	int ws;
	if (waitpid(pid, &ws, 0) != pid)
		return -1;
	for (size_t i = 0; i < cf.npids; i++)
		if (cf.pids[i] == pid)
			cf.pids[i] = -pid; /* reaped: still judged, never signalled */
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

void cf_count(const char *text, cf_counts *c)
{
	memset(c, 0, sizeof *c);
	unsigned char dw[NWRITES] = { 0 }, dr[NREADS] = { 0 }, cw[NWRITES] = { 0 }, cr[NREADS] = { 0 };
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
		p = nl ? nl + 1 : NULL;
		unsigned ma, mi, cpu, seq, pid;
		double t;
		char act[8], rwbs[16];
		int off = 0;
		if (sscanf(line, " %u,%u %u %u %lf %u %7s %15s %n", &ma, &mi, &cpu, &seq, &t, &pid, act, rwbs, &off) < 8)
			continue;
		c->lines++;
		if (strstr(line, "[fio]") && (strcmp(act, "Q") == 0 || strcmp(act, "D") == 0))
			c->fio_named++;
		if (strstr(line, "[(null)]"))
			c->null_named++;
		bool d = strcmp(act, "D") == 0, cc = strcmp(act, "C") == 0;
		if (!d && !cc)
			continue;
		unsigned long long sector;
		unsigned size;
		const char *op = rwbs[0] == 'F' && rwbs[1] ? rwbs + 1 : rwbs;
		bool matched = false;
		if (sscanf(line + off, "%llu + %u", &sector, &size) == 2) {
			if (op[0] == 'W' && size == 128 && sector % 256 == 0 && sector / 256 < NWRITES) {
				unsigned char *slot = d ? &dw[sector / 256] : &cw[sector / 256];
				(*slot)++;
				matched = true;
				if (d)
					c->d_write++;
				else
					c->c_write++;
			} else if (op[0] == 'R' && size == 8 && sector % 512 == 0 && sector / 512 < NREADS) {
				unsigned char *slot = d ? &dr[sector / 512] : &cr[sector / 512];
				(*slot)++;
				matched = true;
				if (d)
					c->d_read++;
				else
					c->c_read++;
			}
		}
		if (!matched) {
			if (d)
				c->d_other++;
			else
				c->c_other++;
		}
	}
	c->d_all_seen = c->c_all_seen = c->c_once_or_missing = true;
	for (int i = 0; i < NWRITES + NREADS; i++) {
		unsigned dn = i < NWRITES ? dw[i] : dr[i - NWRITES], cn = i < NWRITES ? cw[i] : cr[i - NWRITES];
		c->d_all_seen &= dn == 1;
		c->c_all_seen &= cn == 1;
		c->c_missing += dn == 1 && cn == 0;
		c->c_once_or_missing &= cn == 1 || (dn == 1 && cn == 0);
	}
}

static bool state_left(pid_t pid, char *why, size_t size)
{
	char path[96];
	snprintf(path, sizeof path, "/run/blkreel/capture-%d.state", (int)pid);
	if (access(path, F_OK) != 0)
		return false;
	snprintf(why, size, "state file %s of our capture pid %d left", path, (int)pid);
	return true;
}

bool cf_kernel_clean(char *why, size_t size)
{
	char cur[64], path[128];
	if (cf.used_tracer) {
		read_small(TRACEFS "/current_tracer", cur, sizeof cur);
		if (strcmp(cur, "nop") != 0) {
			snprintf(why, size, "current_tracer is '%s'", cur);
			return false;
		}
		read_small(TRACEFS "/options/bin", cur, sizeof cur);
		if (strcmp(cur, "0") != 0) {
			snprintf(why, size, "options/bin is '%s'", cur);
			return false;
		}
	}
	if (cf.name[0]) {
		snprintf(path, sizeof path, "/sys/block/%s/trace/enable", cf.name);
		read_small(path, cur, sizeof cur);
		if (strcmp(cur, "0") != 0) {
			snprintf(why, size, "%s is '%s'", path, cur);
			return false;
		}
	}
	for (size_t i = 0; i < cf.npids; i++)
		if (state_left(cf.pids[i] < 0 ? -cf.pids[i] : cf.pids[i], why, size))
			return false;
	if (cf.dir) {
		char pids[600];
		snprintf(pids, sizeof pids, "%s/capture.pids", cf.dir);
		FILE *f = fopen(pids, "r");
		int pid;
		bool left = false;
		while (f && !left && fscanf(f, "%d", &pid) == 1)
			left = state_left(pid, why, size);
		if (f)
			fclose(f);
		if (left)
			return false;
	}
	why[0] = 0;
	return true;
}

void cf_expect_drops_in_file(const char *name)
{
	char *text = NULL;
	tu_runf(&text, NULL, NULL,
		"zcat '%s/%s' | blkparse -i - | awk '/blkreel: drops/ {print} "
		"$1 ~ /^[0-9]+,[0-9]+$/ && $6 == \"D\" {open[$1 \" \" $8] = 1} "
		"$1 ~ /^[0-9]+,[0-9]+$/ && $6 == \"C\" {delete open[$1 \" \" $8]} "
		"END {n = 0; for (k in open) n++; print \"without C\", n}'",
		cf.dir, name);
	cr_expect(text && strstr(text, "blkreel: drops cpu0=") && !strstr(text, "cpu0=0 cpu1=0"),
		  "%s: no drops record with counts in the file: %s", name, text ? text : "");
	const char *said = text ? strstr(text, " unrecorded=") : NULL;
	unsigned long long unrecorded = said ? strtoull(said + 12, NULL, 10) : 0;
	const char *open_ = text ? strstr(text, "without C ") : NULL;
	unsigned long long without_c = open_ ? strtoull(open_ + 10, NULL, 10) : ~0ull;
	cr_expect_leq(without_c, unrecorded, "%s: %llu IOs lack their C but the file says unrecorded=%llu: %s", name,
		      without_c, unrecorded, text ? text : "");
	free(text);
}

void cf_wait_for_text(const char *path, const char *text)
{
	for (int i = 0; i < 100; i++) {
		char *t = tu_read_text(path);
		bool seen = t && strstr(t, text);
		free(t);
		if (seen)
			return;
		usleep(100 * 1000);
	}
	cr_assert_fail("'%s' never appeared in %s", text, path);
}
