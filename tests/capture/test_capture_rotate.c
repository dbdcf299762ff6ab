/* test_capture_rotate.c — blkreel-capture for production: --rotate on a
 * real loop device (every file whole and in order, the set IO by IO what an
 * unrotated capture of the same run holds, --keep), a capture that runs out
 * of room (--reserve, --max-disk, --on-full stop and drop) while the workload
 * goes on, and a killed rotating capture finished by --cleanup. */
#include <criterion/criterion.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkreel/reader.h"
#include "kernel_suite.h"
#include "testutil.h"
#include "capture_fixture.h"

TestSuite(capture_rotate, .init = cf_setup, .fini = cf_teardown, .timeout = 150);

/* The files of a set NAME.*.blktrace.<ext> in cf.dir (or dir), by name. */
static size_t set_files(const char *dir, const char *name, const char *ext, glob_t *g)
{
	char pat[1024];
	snprintf(pat, sizeof pat, "%s/%s.[0-9][0-9][0-9][0-9][0-9]*.blktrace.%s", dir, name, ext);
	memset(g, 0, sizeof *g);
	if (glob(pat, 0, NULL, g))
		return 0;
	return g->gl_pathc;
}

static size_t count_files(const char *dir, const char *name, const char *ext)
{
	glob_t g;
	size_t n = set_files(dir, name, ext, &g);
	globfree(&g);
	return n;
}

typedef struct io_ev {
	uint64_t time, sector;
	uint32_t action, device, pid, bytes, cpu;
	int error;
} io_ev;

typedef struct ev_list {
	io_ev *v;
	size_t n, cap;
	unsigned long long unrecorded; /* summed over the drops notes */
	size_t notes;
} ev_list;

/* The IO events (not notes) of paths read as one trace, in order. */
static void read_events(char *const *paths, size_t n, ev_list *out)
{
	memset(out, 0, sizeof *out);
	cr_assert(n > 0 && paths, "no file to read");
	br_reader *r;
	br_error err;
	int rc = br_reader_open(&r, (const char *const *)paths, n, NULL, &err);
	cr_assert_eq(rc, 0, "cannot read %s: %s", paths[0], err.msg);
	br_event ev;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (br_event_is_notify(&ev)) {
			char text[512] = "";
			if (ev.pdu_len && ev.pdu_len < sizeof text)
				memcpy(text, ev.pdu, ev.pdu_len);
			const char *u = strstr(text, " unrecorded=");
			if (strncmp(text, "blkreel: drops ", 15) == 0) {
				out->notes++;
				out->unrecorded += u ? strtoull(u + 12, NULL, 10) : 0;
			}
			continue;
		}
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 4096;
			out->v = realloc(out->v, out->cap * sizeof *out->v);
			cr_assert(out->v);
		}
		out->v[out->n++] = (io_ev){ ev.time, ev.sector, ev.action, ev.device, ev.pid, ev.bytes, ev.cpu, ev.error };
	}
	cr_assert_eq(rc, 0, "reading %s: %s", paths[0], err.msg);
	br_reader_close(r);
}

static bool is_c(const io_ev *e)
{
	return (e->action & 0xffff) == __BLK_TA_COMPLETE;
}

static int cmp_key(const io_ev *a, const io_ev *b)
{
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
	CMP(cpu);
	CMP(action);
	CMP(device);
	CMP(sector);
	CMP(bytes);
	CMP(pid);
	CMP(error);
#undef CMP
	return 0;
}

static int cmp_io(const void *x, const void *y)
{
	return cmp_key(x, y);
}

/* Two captures of the same run hold the same events of each CPU (the
 * programs of both fire at the same tracepoint hits; only their clock
 * reads differ, so a completion nested in another event's hit can sort
 * on either side of it), but for completions one of them lacks, which
 * must be among those its own check counted as unrecorded. An event lost
 * or doubled at a seam shows as one the other capture does not have. */
static void expect_same_run(ev_list *a, ev_list *b, const char *what)
{
	cr_assert(a->n && b->n, "%s: %zu and %zu events", what, a->n, b->n);
	qsort(a->v, a->n, sizeof *a->v, cmp_io);
	qsort(b->v, b->n, sizeof *b->v, cmp_io);
	size_t i = 0, j = 0, lack_a = 0, lack_b = 0, same = 0, other = 0;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : cmp_key(&a->v[i], &b->v[j]);
		if (c == 0) {
			i++, j++, same++;
		} else if (c < 0) {
			if (is_c(&a->v[i]))
				lack_b++;
			else if (other++ < 5)
				cr_expect_fail("%s: the unrotated capture has a %#x at %llu on cpu %u the rotated set lacks", what,
					       a->v[i].action, (unsigned long long)a->v[i].sector, a->v[i].cpu);
			i++;
		} else {
			if (is_c(&b->v[j]))
				lack_a++;
			else if (other++ < 5)
				cr_expect_fail("%s: the rotated set has a %#x at %llu on cpu %u the unrotated capture lacks", what,
					       b->v[j].action, (unsigned long long)b->v[j].sector, b->v[j].cpu);
			j++;
		}
	}
	cr_expect_gt(same, 100000, "%s: only %zu events in common", what, same);
	cr_expect_eq(other, 0, "%s: %zu events other than completions in one capture only", what, other);
	cr_expect_leq(lack_a, a->unrecorded, "%s: the unrotated capture lacks %zu completions, its notes say %llu", what,
		      lack_a, a->unrecorded);
	cr_expect_leq(lack_b, b->unrecorded, "%s: the rotated set lacks %zu completions, its notes say %llu", what,
		      lack_b, b->unrecorded);
}

/* Every file of the set is a whole gzip, no spool or .part is left, and
 * the files follow each other in time: file k's last event is not after
 * file k+1's first (no event doubled or out of place at a seam). */
static size_t expect_whole_ordered_set(const char *dir, const char *name)
{
	glob_t g;
	size_t n = set_files(dir, name, "gz", &g);
	uint64_t last = 0;
	for (size_t k = 0; k < n; k++) {
		int rc = tu_runf(NULL, NULL, NULL, "gzip -t '%s'", g.gl_pathv[k]);
		cr_expect_eq(rc, 0, "%s is not a whole gzip file", g.gl_pathv[k]);
		ev_list one;
		read_events(&g.gl_pathv[k], 1, &one);
		cr_expect_gt(one.n, 0, "%s holds no IO events", g.gl_pathv[k]);
		cr_expect_eq(one.notes, 1, "%s has %zu drops notes, want its own one", g.gl_pathv[k], one.notes);
		if (one.n) {
			cr_expect_leq(last, one.v[0].time, "%s starts before the file before it ends", g.gl_pathv[k]);
			last = one.v[one.n - 1].time;
		}
		free(one.v);
	}
	globfree(&g);
	cr_expect_eq(count_files(dir, name, "spool"), 0, "a spool of %s is left", name);
	cr_expect_eq(count_files(dir, name, "gz.part"), 0, "a .gz.part of %s is left", name);
	return n;
}

/* The known workload, spread over 0.75 s, rotated every 100 ms on each
 * backend: whole files in order, and the set is the workload exactly,
 * as blkparse reads the files one after the other. */
Test(capture_rotate, every_backend_rotates_into_whole_files_that_hold_the_workload_exactly)
{
	cf_kernel_test(64);
	if (!tu_have("fio") || !tu_have("blkparse"))
		cr_skip_test("needs fio and blkparse");
	char backends[8][16];
	size_t nb = cf_backends(backends, 8);
	cr_assert_gt(nb, 0, "no backend works on %s", cf.loop);
	for (size_t b = 0; b < nb; b++) {
		char name[64], *err = NULL;
		snprintf(name, sizeof name, "rot-%s", backends[b]);
		int rc = cf_capture(NULL, &err, "--backend %s --no-progress -d %s -o '%s/%s' --rotate 100ms -- %s",
				    backends[b], cf.loop, cf.dir, name, cf_workload_paced(5000));
		bool only_loss;
		unsigned long long unrecorded = tu_capture_unrecorded(rc, err, &only_loss);
		cr_expect(only_loss, "%s: capture exited %d: %s", backends[b], rc, err);
		cr_expect_eq(tu_count_lines(err, "blkreel-capture: wrote "), count_files(cf.dir, name, "gz"),
			     "%s: not one line per file written: %s", backends[b], err);
		free(err);
		size_t n = expect_whole_ordered_set(cf.dir, name);
		cr_expect_geq(n, 4, "%s: %zu files for 0.75 s of IO rotated every 100 ms", backends[b], n);
		char *text = NULL;
		rc = tu_runf(&text, NULL, NULL, "cat '%s'/%s.*.blktrace.gz | zcat | blkparse -i -", cf.dir, name);
		cr_assert_eq(rc, 0, "%s: blkparse of the set failed", backends[b]);
		cf_counts c;
		cf_count(text, &c);
		char what[64];
		snprintf(what, sizeof what, "%s, the rotated set", backends[b]);
		cf_expect_exact(&c, unrecorded, what);
		free(text);
	}
	char why[256];
	cr_expect(cf_kernel_clean(why, sizeof why), "kernel left dirty: %s", why);
}

/* Two captures of one run of random IO at depth 8 (at most 20k IOPS, so
 * that the ASan build keeps up too): a plain one, NAME "plain", and
 * another, NAME name with args (bpf and perf change nothing machine-wide,
 * so both can trace at once); trigger: a SIGUSR1 to the other once the IO
 * is over. Both must exit 0 but for completions they report unrecorded;
 * *plain_err and *other_err get what they said. */
static void two_captures(const char *backend, const char *name, const char *args, bool trigger, char **plain_err,
			 char **other_err)
{
	cf_kernel_test(256);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char pe[600], oe[600];
	snprintf(pe, sizeof pe, "%s/plain.err", cf.dir);
	snprintf(oe, sizeof oe, "%s/%s.err", cf.dir, name);
	pid_t p = cf_capture_bg(pe, "--backend %s --no-progress -d %s -o '%s/plain' -w 60", backend, cf.loop, cf.dir);
	pid_t o = cf_capture_bg(oe, "--backend %s --no-progress -d %s -o '%s/%s' %s -w 60", backend, cf.loop, cf.dir,
				name, args);
	cr_assert(p > 0 && o > 0);
	/* both tracing before the first IO */
	cf_wait_for_text(pe, "tracing loop");
	cf_wait_for_text(oe, "tracing loop");
	int rc = tu_runf(NULL, NULL, NULL,
			 "fio --output=/dev/null --name=r --filename=%s --rw=randrw --direct=1 --bs=4k --iodepth=8 "
			 "--ioengine=libaio --size=200M --runtime=3 --time_based --rate_iops=20000",
			 cf.loop);
	cr_expect_eq(rc, 0, "fio failed");
	usleep(300 * 1000);
	if (trigger) {
		kill(o, SIGUSR1);
		cf_wait_for_text(oe, "trigger SIGUSR1");
	}
	kill(p, SIGINT);
	kill(o, SIGINT);
	int rp = cf_wait(p), ro = cf_wait(o);
	*plain_err = tu_read_text(pe);
	*other_err = tu_read_text(oe);
	bool ok;
	tu_capture_unrecorded(rp, *plain_err, &ok);
	cr_expect(ok, "plain capture exited %d: %s", rp, *plain_err);
	tu_capture_unrecorded(ro, *other_err, &ok);
	cr_expect(ok, "%s capture exited %d: %s", name, ro, *other_err);
}

/* One of two captures of a run rotated every 300 ms: the set holds the
 * same events, IO by IO, as the unrotated file. */
static void same_run(const char *backend)
{
	char *ep, *er;
	two_captures(backend, "rot", "--rotate 300ms", false, &ep, &er);
	free(ep);
	free(er);
	size_t n = expect_whole_ordered_set(cf.dir, "rot");
	cr_expect_geq(n, 8, "%zu files for 3 s rotated every 300 ms", n);
	char plain[600];
	snprintf(plain, sizeof plain, "%s/plain.blktrace.gz", cf.dir);
	char *pp[] = { plain };
	ev_list a, b;
	read_events(pp, 1, &a);
	glob_t g;
	cr_assert_gt(set_files(cf.dir, "rot", "gz", &g), 0, "no rotated files");
	read_events(g.gl_pathv, g.gl_pathc, &b);
	cr_expect_eq(b.notes, n, "%zu drops notes in %zu files", b.notes, n);
	globfree(&g);
	expect_same_run(&a, &b, backend);
	free(a.v);
	free(b.v);
}

Test(capture_rotate, rotated_set_is_io_by_io_the_unrotated_capture_of_the_same_run_bpf)
{
	cf_need_btf();
	same_run("bpf");
}

Test(capture_rotate, rotated_set_is_io_by_io_the_unrotated_capture_of_the_same_run_perf)
{
	same_run("perf");
}

/* Two captures of one run, one of them a flight recorder whose window
 * (the 10 s before a SIGUSR1 sent once the IO is over; the ring's files
 * are 1 s each) holds the whole run: its file is, IO by IO, the plain
 * capture's (no event lost or doubled at the ring's seams, none lost
 * making the events from a ring of raw records). */
static void flight_same_run(const char *backend)
{
	char *ep, *ef;
	/* the trigger's after-window is cut short by the end: its file is
	 * written with what there is, the capture's drops note in it */
	two_captures(backend, "fl", "--flight 10s --flight-after 10s", true, &ep, &ef);
	cr_expect(strstr(ef, "in 1 files for 1 triggers") != NULL, "%s", ef);
	const char *from = strstr(ef, "files of the ring)");
	while (from && from > ef && from[-1] == ' ')
		from--;
	while (from && from > ef && from[-1] >= '0' && from[-1] <= '9')
		from--;
	unsigned long members = from ? strtoul(from, NULL, 10) : 0;
	cr_expect_geq(members, 3, "%s: the file was made from %lu files of the ring (seams to cross): %s", backend,
		      members, ef);
	free(ep);
	free(ef);
	char plain[600], flight[600];
	snprintf(plain, sizeof plain, "%s/plain.blktrace.gz", cf.dir);
	snprintf(flight, sizeof flight, "%s/fl.flight-00001.blktrace.gz", cf.dir);
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "gzip -t '%s'", flight), 0, "%s is not whole", flight);
	char *pp[] = { plain }, *fp[] = { flight };
	ev_list a, b;
	read_events(pp, 1, &a);
	read_events(fp, 1, &b);
	cr_expect_geq(b.notes, 1, "the flight file has no drops note");
	expect_same_run(&a, &b, backend);
	free(a.v);
	free(b.v);
	cr_expect_eq(count_files(cf.dir, "fl.ring", "spool"), 0, "the ring's files are left");
}

Test(capture_rotate, flight_file_is_io_by_io_the_plain_capture_of_the_same_run_bpf)
{
	cf_need_btf();
	flight_same_run("bpf");
}

Test(capture_rotate, flight_file_is_io_by_io_the_plain_capture_of_the_same_run_perf)
{
	flight_same_run("perf");
}

/* The requests a file issued (D) and completed (C), and the completions
 * its drops notes say no record shows. */
typedef struct file_ios {
	size_t d, c;
	unsigned long long unrecorded;
} file_ios;

static file_ios ios_of(char *path)
{
	ev_list one;
	read_events(&path, 1, &one);
	file_ios f = { .unrecorded = one.unrecorded };
	for (size_t i = 0; i < one.n; i++)
		if (is_c(&one.v[i]))
			f.c++;
		else if ((one.v[i].action & 0xffff) == __BLK_TA_ISSUE)
			f.d++;
	free(one.v);
	return f;
}

/* Sequential 4 KiB reads at depth 4, 2000 a second for secs seconds (one
 * request each, every sector once): as a command for `--`. */
static const char *paced_reads(unsigned secs)
{
	static char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "fio --output=/dev/null --name=s --filename=%s --rw=read --direct=1 --bs=4k --iodepth=4 "
		 "--ioengine=libaio --size=200M --runtime=%u --time_based --rate_iops=2000",
		 cf.loop, secs);
	return cmd;
}

/* The captures this test starts (the hooks build, bpf) leave every 5th
 * completion on a CPU out, as if the kernel had not run the program; the
 * test unsets BLKREEL_BPF_SKIP_C_EVERY once they run. */
static void leave_out_every_5th_completion(void)
{
	cf_kernel_test(256);
	cf_need_btf();
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	cf.hooks = true;
	setenv("BLKREEL_BPF_SKIP_C_EVERY", "5", 1);
}

/* Every 5th completion on a CPU left out in the program (the hooks build's
 * BLKREEL_BPF_SKIP_C_EVERY), 5 s of reads rotated every second: each file's
 * drops note says about the completions it lacks (a quarter of the C
 * records it has; a loss is noted in the file being written when a sample
 * first counts it, every 20 ms), not the last file alone, and the notes add
 * up to the run's count, which is exactly the requests the set issued and
 * never completed (the capture runs fio: none in flight at its ends). */
Test(capture_rotate, each_file_notes_the_completions_it_lacks_and_the_notes_add_up)
{
	leave_out_every_5th_completion();
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend bpf --no-progress --allow-drops -d %s -o '%s/u' --rotate 1s -- %s",
			    cf.loop, cf.dir, paced_reads(5));
	unsetenv("BLKREEL_BPF_SKIP_C_EVERY");
	cr_expect_eq(rc, 0, "capture exited %d: %s", rc, err ? err : "");
	bool only_loss;
	unsigned long long run = tu_capture_unrecorded(rc, err, &only_loss);
	free(err);
	glob_t g;
	size_t n = set_files(cf.dir, "u", "gz", &g);
	cr_assert_geq(n, 4, "%zu files for 5 s rotated every second", n);
	unsigned long long noted = 0;
	size_t d = 0, c = 0, full = 0;
	for (size_t k = 0; k < n; k++) {
		file_ios f = ios_of(g.gl_pathv[k]);
		noted += f.unrecorded;
		d += f.d;
		c += f.c;
		if (f.c < 1000)
			continue; /* the run's first or last moments */
		full++;
		cr_expect(f.unrecorded >= f.c / 8 && f.unrecorded <= f.c / 2,
			  "%s: %zu C records, the note says unrecorded=%llu (about %zu were left out)", g.gl_pathv[k], f.c,
			  f.unrecorded, f.c / 4);
	}
	globfree(&g);
	cr_expect_geq(full, 3, "only %zu files of a full second of reads", full);
	cr_expect_eq(noted, run, "the files' notes say %llu unrecorded, the run %llu", noted, run);
	cr_expect_eq(d - c, run, "the set lacks %zu C records (%zu D, %zu C), the run counted %llu", d - c, d, c, run);
	cr_expect_gt(run, c / 8, "%llu unrecorded of %zu C records", run, c);
}

/* The same loss, a flight recorder triggered mid-run: the file it writes
 * then (before the run's end, whose count only the last ring file holds)
 * says in its notes the completions it lacks: those of its ring files. */
Test(capture_rotate, a_flight_file_written_mid_run_notes_the_completions_it_lacks)
{
	leave_out_every_5th_completion();
	char ep[600];
	snprintf(ep, sizeof ep, "%s/f.err", cf.dir);
	pid_t cap = cf_capture_bg(ep, "--backend bpf --no-progress --allow-drops -d %s -o '%s/f' --flight 2s "
				      "--flight-after 500ms -- %s",
				  cf.loop, cf.dir, paced_reads(6));
	unsetenv("BLKREEL_BPF_SKIP_C_EVERY");
	cf_wait_for_text(ep, "tracing loop");
	usleep(3000 * 1000);
	kill(cap, SIGUSR1);
	cf_wait_for_text(ep, "flight-00001.blktrace.gz (");
	int rc = cf_wait(cap);
	char *err = tu_read_text(ep);
	cr_expect_eq(rc, 0, "capture exited %d: %s", rc, err);
	cr_expect(strstr(err, "in 1 files for 1 triggers") != NULL, "%s", err);
	free(err);
	char path[700];
	snprintf(path, sizeof path, "%s/f.flight-00001.blktrace.gz", cf.dir);
	file_ios f = ios_of(path);
	cr_assert_gt(f.c, 3000, "%s: %zu C records in 2.5 s of reads", path, f.c);
	size_t lacking = f.d > f.c ? f.d - f.c : 0;
	/* but for up to the depth in flight at either end of the window; the
	 * notes of its first ring file count up to one file (200 ms) before it */
	cr_expect(f.unrecorded + 4 >= lacking && f.unrecorded <= lacking + lacking / 2 + 50,
		  "%s lacks %zu C records (%zu D, %zu C), its notes say unrecorded=%llu", path, lacking, f.d, f.c,
		  f.unrecorded);
}

/* --keep 3 leaves exactly the newest three files; a capture started again
 * under the same name numbers on after them and counts them for --keep. */
Test(capture_rotate, keep_leaves_exactly_the_newest_files_and_a_new_capture_numbers_on)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/k' --rotate 100ms --keep 3 -- %s",
			    cf.loop, cf.dir, cf_workload_paced(5000));
	bool ok;
	tu_capture_unrecorded(rc, err, &ok);
	cr_expect(ok, "capture exited %d: %s", rc, err);
	unsigned written = 0, first = 0, last = 0, removed = 0;
	const char *sum = strstr(err, " files, ");
	cr_assert(sum && strstr(err, " in "), "no file count in the summary: %s", err);
	const char *in = sum;
	while (in > err && in[-1] != ' ')
		in--;
	written = (unsigned)strtoul(in, NULL, 10);
	cr_assert_eq(sscanf(sum, " files, %u to %u; %u older removed", &first, &last, &removed), 3,
		     "summary: %s", err);
	free(err);
	cr_expect_geq(written, 5, "%u files written", written);
	cr_expect_eq(removed, written - 3, "%u removed of %u written with --keep 3", removed, written);
	cr_expect_eq(expect_whole_ordered_set(cf.dir, "k"), 3);
	for (unsigned k = last - 2; k <= last; k++) {
		char path[600];
		snprintf(path, sizeof path, "%s/k.%05u.blktrace.gz", cf.dir, k);
		cr_expect_eq(access(path, F_OK), 0, "%s (one of the newest 3) is not there", path);
	}
	/* again: numbering goes on, and the old files count towards --keep */
	rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/k' --rotate 100ms --keep 3 -- %s",
			cf.loop, cf.dir, cf_workload_paced(5000));
	tu_capture_unrecorded(rc, err, &ok);
	cr_expect(ok, "second capture exited %d: %s", rc, err);
	unsigned first2 = 0;
	sum = strstr(err, " files, ");
	cr_assert(sum && sscanf(sum, " files, %u to", &first2) == 1, "summary: %s", err);
	cr_expect_eq(first2, last + 1, "the second capture's first file is %05u, want %05u", first2, last + 1);
	cr_expect(strstr(err, "numbering goes on from") != NULL, "not said: %s", err);
	free(err);
	cr_expect_eq(expect_whole_ordered_set(cf.dir, "k"), 3);
}

/* --keep-size below one file's size leaves the newest file alone (never
 * that one), each older one removed and said. */
Test(capture_rotate, keep_size_removes_the_oldest_files_but_never_the_newest)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/ks' --rotate 100ms --keep-size 1K -- %s",
			    cf.loop, cf.dir, cf_workload_paced(5000));
	bool ok;
	tu_capture_unrecorded(rc, err, &ok);
	cr_expect(ok, "capture exited %d: %s", rc, err);
	size_t written = tu_count_lines(err, "blkreel-capture: wrote "), removed = tu_count_lines(err, "(--keep-size)");
	cr_expect_geq(written, 4, "%zu files written: %s", written, err);
	cr_expect_eq(removed, written - 1, "%zu removed of %zu: %s", removed, written, err);
	free(err);
	cr_expect_eq(expect_whole_ordered_set(cf.dir, "ks"), 1);
}

/* A small filesystem of the test's own for the output. */
static void own_small_fs(const char *size)
{
	snprintf(cf.mnt, sizeof cf.mnt, "%s/small", cf.dir);
	cr_assert_eq(mkdir(cf.mnt, 0755), 0);
	char opts[64];
	snprintf(opts, sizeof opts, "size=%s", size);
	if (mount("tmpfs", cf.mnt, "tmpfs", 0, opts)) {
		cf.mnt[0] = 0;
		cr_skip_test("cannot mount a small tmpfs");
	}
}

/* The workload runs on its own (not as the capture's command, which a
 * stopping capture would end), 3 s of random reads; returns fio's status. */
static pid_t start_fio(const char *out)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
		 "exec fio --output=%s --output-format=terse --name=r --filename=%s --rw=randread --direct=1 --bs=4k "
		 "--iodepth=4 --ioengine=libaio --size=32M --runtime=3 --time_based --rate_iops=20000",
		 out, cf.loop);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* The reserve reached: the capture stops at once with what it has, exit 1
 * and says why, every file it leaves is whole, and the workload runs its
 * full time. */
Test(capture_rotate, out_of_room_stops_the_capture_not_the_workload_and_leaves_whole_files)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	own_small_fs("4m");
	char fout[600];
	snprintf(fout, sizeof fout, "%s/fio.out", cf.dir);
	pid_t fio = start_fio(fout);
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf --no-progress -l 1 -d %s -o '%s/s' --rotate 200ms --reserve 40 -w 30",
			    cf.loop, cf.mnt);
	cr_expect_eq(rc, 1, "exit %d when out of room, want 1: %s", rc, err);
	cr_expect(strstr(err, "out of room") && strstr(err, "--reserve 40"), "why not said: %s", err);
	free(err);
	int frc = cf_wait(fio);
	cr_expect_eq(frc, 0, "fio exited %d beside the capture", frc);
	char *terse = tu_read_text(fout);
	cr_expect(terse && strlen(terse) > 10, "fio wrote no result");
	free(terse);
	size_t n = expect_whole_ordered_set(cf.mnt, "s");
	cr_expect_geq(n, 1, "no file left");
	char why[256];
	cr_expect(cf_kernel_clean(why, sizeof why), "kernel left dirty: %s", why);
}

/* --on-full drop at --max-disk: tracing goes on; the events not written are
 * counted in the summary and in the file's note (unwritten=N), the run
 * exits 1 for them (0 with --allow-drops), and the files are whole. */
Test(capture_rotate, on_full_drop_counts_what_it_does_not_write)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char fout[600];
	snprintf(fout, sizeof fout, "%s/fio.out", cf.dir);
	pid_t fio = start_fio(fout);
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend perf --no-progress -d %s -o '%s/d' --max-disk 2M --on-full drop -w 2",
			    cf.loop, cf.dir);
	cr_expect_eq(rc, 1, "exit %d with events not written, want 1: %s", rc, err);
	cr_expect(strstr(err, "--on-full drop") != NULL, "not said: %s", err);
	const char *u = strstr(err, " unwritten=");
	unsigned long long unwritten = u ? strtoull(u + 11, NULL, 10) : 0;
	cr_expect_gt(unwritten, 1000, "the summary counts %llu events not written: %s", unwritten, err);
	cr_expect(strstr(err, "events not written for want of room") != NULL, "exit reason not said: %s", err);
	free(err);
	cr_expect_eq(cf_wait(fio), 0, "fio failed beside the capture");
	char *text = NULL;
	rc = tu_runf(&text, NULL, NULL, "gzip -t '%s/d.blktrace.gz' && zcat '%s/d.blktrace.gz' | blkparse -i - | grep 'blkreel: drops'",
		     cf.dir, cf.dir);
	cr_expect_eq(rc, 0, "the file is not whole or has no drops note");
	const char *fu = text ? strstr(text, " unwritten=") : NULL;
	cr_expect(fu && strtoull(fu + 11, NULL, 10) == unwritten, "the file's note does not say unwritten=%llu: %s",
		  unwritten, text ? text : "");
	free(text);
	char path[600];
	snprintf(path, sizeof path, "%s/d.blktrace.gz", cf.dir);
	struct stat st;
	cr_expect(stat(path, &st) == 0 && (uint64_t)st.st_size < 2u << 20, "the file is missing or larger than --max-disk");
}

/* kill -9 of a rotating capture: the files finished are whole, and
 * --cleanup makes the rest from the spools the state file names. */
Test(capture_rotate, a_killed_rotating_capture_is_finished_by_cleanup)
{
	cf_kernel_test(64);
	if (!tu_have("fio"))
		cr_skip_test("needs fio");
	char ep[600];
	snprintf(ep, sizeof ep, "%s/k.err", cf.dir);
	pid_t c = cf_capture_bg(ep, "--backend perf --no-progress -d %s -o '%s/kill' --rotate 300ms -w 60", cf.loop,
				cf.dir);
	cf_wait_for_text(ep, "tracing loop");
	int rc = tu_runf(NULL, NULL, NULL,
			 "fio --output=/dev/null --name=r --filename=%s --rw=randread --direct=1 --bs=4k --iodepth=4 "
			 "--ioengine=libaio --size=32M --runtime=2 --time_based --rate_iops=20000",
			 cf.loop);
	cr_expect_eq(rc, 0);
	kill(c, SIGKILL);
	cf_wait(c);
	cr_expect_geq(count_files(cf.dir, "kill", "spool"), 1, "no spool left by the killed capture");
	char *out = NULL;
	rc = tu_runf(&out, NULL, NULL, "'%s' --cleanup", tu_bin("blkreel-capture"));
	cr_expect_eq(rc, 0, "--cleanup failed: %s", out ? out : "");
	cr_expect(out && strstr(out, "kill."), "--cleanup did not name the files: %s", out ? out : "");
	free(out);
	size_t n = count_files(cf.dir, "kill", "gz");
	cr_assert_geq(n, 5, "%zu files after --cleanup", n);
	cr_expect_eq(count_files(cf.dir, "kill", "spool"), 0, "a spool is left after --cleanup");
	glob_t g;
	set_files(cf.dir, "kill", "gz", &g);
	for (size_t k = 0; k < g.gl_pathc; k++)
		cr_expect_eq(tu_runf(NULL, NULL, NULL, "gzip -t '%s'", g.gl_pathv[k]), 0, "%s is not whole",
			     g.gl_pathv[k]);
	ev_list all;
	read_events(g.gl_pathv, g.gl_pathc, &all);
	cr_expect_gt(all.n, 10000, "only %zu events in the set", all.n);
	free(all.v);
	globfree(&g);
}

/* The new options' misuse: exit 2 and a sentence that says what is wrong. */
Test(capture_rotate, rotation_and_room_options_refuse_what_makes_no_sense)
{
	static const struct {
		const char *args, *says;
	} cases[] = {
		{ "-d /dev/null -o - --rotate 10m", "needs a name, not -o -" },
		{ "-d /dev/null -o x --rotate 10m --split", "--rotate and --split" },
		{ "-d /dev/null -o x --keep 3", "need --rotate" },
		{ "-d /dev/null -o x --keep-size 1G", "need --rotate" },
		{ "-d /dev/null -o x --rotate 10", "--rotate" }, /* 10 s is fine: this one must pass the parse */
		{ "-d /dev/null -o x --rotate 50ms", "at least 100ms" },
		{ "-d /dev/null -o x --rotate 1K", "at least 64K" },
		{ "-d /dev/null -o x --rotate soon", "not a time" },
		{ "-d /dev/null -o x --rotate 10m --keep 0", "--keep" },
		{ "-d /dev/null -o x --max-disk 10K", "at least 1M" },
		{ "-d /dev/null -o x --reserve 100", "from 0 to 99" },
		{ "-d /dev/null -o x --reserve -1", "from 0 to 99" },
		{ "-d /dev/null -o x --on-full later", "neither stop nor drop" },
		{ "-d /dev/null -o - --max-disk 1G", "not -o -" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *err = NULL;
		int rc = cf_capture(NULL, &err, "%s", cases[i].args);
		if (i == 4) { /* a valid --rotate: the device is what fails (not a block device) */
			cr_expect_eq(rc, 1, "'%s' exited %d: %s", cases[i].args, rc, err);
		} else {
			cr_expect_eq(rc, 2, "'%s' exited %d, want 2: %s", cases[i].args, rc, err);
			cr_expect(err && strstr(err, cases[i].says), "'%s' does not say '%s': %s", cases[i].args,
				  cases[i].says, err ? err : "");
		}
		free(err);
	}
}
