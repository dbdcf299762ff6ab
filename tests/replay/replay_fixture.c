#include "replay_fixture.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "tracegen.h"

rf_state rf;

void rf_setup(void)
{
	memset(&rf, 0, sizeof rf);
	rf.dir = tu_tmpdir();
}

void rf_teardown(void)
{
	/* a filesystem mounted on one of our loop devices comes off first; a
	 * filesystem holding a loop device's backing file only after it */
	bool mounted = rf.mnt[0] && tu_runf(NULL, NULL, NULL, "umount '%s'", rf.mnt) != 0;
	for (int i = 0; i < 2; i++) {
		tu_loop_detach(rf.loop[i]);
		rf.loop[i][0] = 0;
	}
	if (mounted)
		tu_runf(NULL, NULL, NULL, "umount '%s' || umount -l '%s'", rf.mnt, rf.mnt);
	rf.mnt[0] = 0;
	if (rf.shm[0] && strncmp(rf.shm, "/dev/shm/blkreel-replay-", 24) == 0)
		tu_runf(NULL, NULL, NULL, "rm -rf '%s'", rf.shm);
	rf.shm[0] = 0;
	if (getenv("RF_KEEP")) /* debugging: keep the temp dir */
		fprintf(stderr, "kept %s\n", rf.dir);
	else
		tu_tmpdir_remove(rf.dir);
	rf.dir = NULL;
}

const char *rf_path(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ & 3];
	snprintf(p, 512, "%s/%s", rf.dir, name);
	return p;
}

const char *rf_loop(int i, unsigned mib)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to create loop devices");
	cr_assert_not_null(rf.dir);
	char img[16];
	snprintf(img, sizeof img, "img%d", i);
	if (tu_loop_create(rf.dir, img, mib, rf.loop[i], sizeof rf.loop[i]))
		cr_skip_test("no loop device available");
	return rf.loop[i];
}

const char *rf_ram_loop(int i, unsigned mib)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to create loop devices");
	if (!rf.shm[0]) {
		snprintf(rf.shm, sizeof rf.shm, "/dev/shm/blkreel-replay-XXXXXX");
		if (!mkdtemp(rf.shm)) {
			rf.shm[0] = 0;
			cr_skip_test("no /dev/shm here");
		}
	}
	char img[16];
	snprintf(img, sizeof img, "ram%d", i);
	if (tu_loop_create(rf.shm, img, mib, rf.loop[i], sizeof rf.loop[i]))
		cr_skip_test("no loop device available");
	return rf.loop[i];
}

char rf_kind(unsigned i)
{
	if (i == RF_FLUSH_AT)
		return 'F';
	if (i == RF_DISCARD_AT)
		return 'X';
	return i % 3 == 0 ? 'W' : 'R';
}

uint64_t rf_offset(unsigned i)
{
	if (i == RF_DISCARD_AT)
		return RF_DISCARD_SECTOR * 512;
	if (i == RF_FLUSH_AT)
		return 0;
	return (uint64_t)i * 16384;
}

const char *rf_trace(const char *name)
{
	tg_buf b = { 0 };
	uint32_t dev = BR_MKDEV(RF_DEV_MAJ, RF_DEV_MIN);
	for (unsigned i = 0; i < RF_N; i++) {
		uint64_t t = 1000000000ull + i * RF_STEP_NS;
		uint32_t cat, bytes = RF_IO_BYTES;
		switch (rf_kind(i)) {
		case 'F': cat = BLK_TC_WRITE | BLK_TC_FLUSH; bytes = 0; break;
		case 'X': cat = BLK_TC_WRITE | BLK_TC_DISCARD; bytes = RF_DISCARD_BYTES; break;
		case 'W': cat = BLK_TC_WRITE; break;
		default: cat = BLK_TC_READ; break;
		}
		uint64_t sector = rf_offset(i) / 512;
		br_event q = tg_io(t - 20000, dev, 0, BLK_TA_QUEUE | BLK_TC_ACT(cat), sector, bytes, 100 + i % 7);
		br_event d = tg_io(t, dev, 0, BLK_TA_ISSUE | BLK_TC_ACT(cat), sector, bytes, 100 + i % 7);
		br_event c = tg_io(t + 100000, dev, 0, BLK_TA_COMPLETE | BLK_TC_ACT(cat), sector, bytes, 0);
		tg_append(&b, &q, false);
		tg_append(&b, &d, false);
		tg_append(&b, &c, false);
	}
	const char *path = rf_path(name);
	cr_assert_eq(tg_write(&b, path), 0);
	tg_free(&b);
	return path;
}

const char *rf_trace_offsets(const char *name, const uint64_t *offs, size_t n, bool write)
{
	tg_buf b = { 0 };
	uint32_t dev = BR_MKDEV(RF_DEV_MAJ, RF_DEV_MIN);
	uint32_t cat = write ? BLK_TC_WRITE : BLK_TC_READ;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = 1000000000ull + i * 1000000ull;
		br_event d = tg_io(t, dev, 0, BLK_TA_ISSUE | BLK_TC_ACT(cat), offs[i] / 512, RF_IO_BYTES, 42);
		br_event c = tg_io(t + 50000, dev, 0, BLK_TA_COMPLETE | BLK_TC_ACT(cat), offs[i] / 512,
				   RF_IO_BYTES, 0);
		tg_append(&b, &d, false);
		tg_append(&b, &c, false);
	}
	const char *path = rf_path(name);
	cr_assert_eq(tg_write(&b, path), 0);
	tg_free(&b);
	return path;
}

int rf_replay(char **out, char **err, const char *fmt, ...)
{
	char *args = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&args, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	int rc = tu_run_tool(out, err, "blkreel-replay", "--no-progress %s", args);
	free(args);
	return rc;
}

const char *rf_captured_replay(const char *dev, char **out, const char *fmt, ...)
{
	if (access(tu_bin("blkreel-capture"), X_OK) != 0)
		cr_skip_test("bin/blkreel-capture not built yet");
	char capture[1024], replay[1024]; /* tu_bin returns a static buffer */
	snprintf(capture, sizeof capture, "%s", tu_bin("blkreel-capture"));
	snprintf(replay, sizeof replay, "%s", tu_bin("blkreel-replay"));
	char *args = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&args, fmt, ap);
	va_end(ap);
	cr_assert_geq(n, 0);
	int lock = tu_tracer_lock();
	char *err = NULL;
	int rc = tu_runf(out, NULL, &err, "cd '%s' && '%s' -q -d %s -o cap -- '%s' --no-progress %s",
			 rf.dir, capture, dev, replay, args);
	tu_tracer_unlock(lock);
	free(args);
	/* a loss the capture counted as completions the kernel did not hand
	 * over is no fault of the replay: the callers judge its D events and
	 * its completions with an error, which no missing completion fakes */
	bool only_loss;
	unsigned long long unrecorded = tu_capture_unrecorded(rc, err, &only_loss);
	if (rc == 1 && only_loss) {
		fprintf(stderr, "[INFO] capture of the replay: %llu completions unrecorded (accepted)\n", unrecorded);
		rc = 0;
	}
	if (rc != 0 && err && (strstr(err, "backend") || strstr(err, "tracefs")))
		cr_skip_test("no capture backend here: %s", err);
	cr_assert_eq(rc, 0, "capture of the replay: %s", err);
	free(err);
	return rf_path("cap.blktrace.gz");
}

double rf_json(const char *report, const char *path)
{
	char *out = NULL, *err = NULL, py[256];
	snprintf(py, sizeof py, "%s", path);
	for (char *c = py; *c; c++)
		if (*c == '\'')
			*c = '"';
	int rc = tu_runf(&out, NULL, &err,
			 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(float(d%s))' '%s'",
			 py, report);
	cr_assert_eq(rc, 0, "report %s: %s %s", report, path, err ? err : "");
	double v = strtod(out, NULL);
	free(out);
	free(err);
	return v;
}

bool rf_pread(const char *file, uint64_t off, void *buf, size_t len)
{
	int fd = open(file, O_RDONLY);
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, buf, len, (off_t)off);
	close(fd);
	return n == (ssize_t)len;
}
