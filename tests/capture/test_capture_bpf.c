/* test_capture_bpf.c — the bpf backend on a real loop device: exactly the
 * events of a known workload (tp_btf, the raw_tp fallback, one shared ring,
 * wakeups on), the same events as the perf backend for the same IO, drops
 * counted and failing the run, nothing of ours left in the kernel after a
 * kill -9, two captures at once, -a / --pid / LBA filters applied in the
 * kernel (the lean mode loads only its programs), the bench's clock floor
 * (the same programs, each only reading the clock, no record), a machine
 * without BTF or BPF permission handled in one line, and the release binary
 * deaf to the test and bench hooks. Tests that set a hook variable run the
 * hooks build (tu_hook_bin, capture/hooks.h). */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hooks.h"
#include "kernel_suite.h"
#include "testutil.h"
#include "capture_fixture.h"

TestSuite(capture_bpf, .init = cf_setup, .fini = cf_teardown, .timeout = 120);

/* Every skip comes before the fixture makes its loop device: a skipped
 * test's .fini does not run. */
static void bpf_test(unsigned mib)
{
	cf_need_btf();
	if (!tu_have("fio") || !tu_have("blkparse"))
		cr_skip_test("needs fio and blkparse");
	if (!tu_have("bpftool"))
		cr_skip_test("needs bpftool");
	if (!tu_have("setpriv"))
		cr_skip_test("needs setpriv");
	cf_kernel_test(mib);
}

static char *parse_capture(const char *name)
{
	char *text = NULL;
	int rc = tu_runf(&text, NULL, NULL, "zcat '%s/%s.blktrace.gz' | blkparse -i -", cf.dir, name);
	cr_assert_eq(rc, 0, "blkparse of %s failed (%d)", name, rc);
	return text;
}

/* Lines of blkparse text with action act (" Q ", ...). */
static size_t count_action(const char *text, const char *act)
{
	size_t n = 0;
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
		unsigned ma, mi, cpu, seq, pid;
		double t;
		char a[8];
		if (sscanf(line, " %u,%u %u %u %lf %u %7s", &ma, &mi, &cpu, &seq, &t, &pid, a) == 7 &&
		    strcmp(a, act) == 0)
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

/* Every IO's events once, but for exactly the completions the capture's
 * check counted as unrecorded (tu_capture_unrecorded): those IOs have no C. */
static void check_exact(const char *text, unsigned long long unrecorded, const char *what)
{
	cf_counts c;
	cf_count(text, &c);
	cf_expect_exact(&c, unrecorded, what);
	/* one Q and one G per IO (no merges: O_DIRECT, one IO at a time); plug/unplug around each */
	cr_expect_eq(count_action(text, "Q"), 150, "%s: %zu Q events, want 150", what, count_action(text, "Q"));
	cr_expect_eq(count_action(text, "G"), 150, "%s: %zu G events, want 150", what, count_action(text, "G"));
	cr_expect_geq(count_action(text, "P"), 1, "%s: no plug events", what);
	cr_expect_eq(count_action(text, "P"), count_action(text, "U"), "%s: %zu plugs, %zu unplugs", what,
		     count_action(text, "P"), count_action(text, "U"));
}

/* env: hook variables (capture/hooks.h) for the hooks build, or "" for the
 * release binary; release: the release binary with env all the same (it
 * must ignore them). */
static void exact_run_bin(const char *env, const char *must_say, bool release)
{
	bpf_test(64);
	char *err = NULL;
	const char *bin = env[0] && !release ? tu_hook_bin("blkreel-capture") : tu_bin("blkreel-capture");
	int rc = tu_runf(NULL, NULL, &err, "%s '%s' --backend bpf --no-progress -d %s -o '%s/run' --split -- %s", env,
			 bin, cf.loop, cf.dir, cf_workload());
	bool only_loss;
	unsigned long long unrecorded = tu_capture_unrecorded(rc, err, &only_loss);
	cr_assert(only_loss, "capture exited %d: %s", rc, err ? err : "");
	cr_expect(strstr(err, "with the bpf backend") != NULL, "the backend is not named: %s", err);
	cr_expect(strstr(err, "drops: cpu0=0") != NULL, "drops not reported as zero: %s", err);
	if (must_say)
		cr_expect(strstr(err, must_say) != NULL, "stderr does not say '%s': %s", must_say, err);
	if (release)
		cr_expect(!strstr(err, "BLKREEL_") && !strstr(err, "the kernel skipped"),
			  "the release binary followed a hook: %s", err);
	cr_expect(strstr(err, " late ") == NULL, "events written out of time order: %s", err);
	/* to a file, the records are spooled raw and made into events after
	 * tracing, unless the live path is asked for */
	bool live = !release && strstr(env, "BLKREEL_BPF_SPOOL=events") != NULL;
	cr_expect_eq(strstr(err, "from raw records") != NULL, !live, "%s path not taken: %s", live ? "live" : "raw",
		     err);
	free(err);
	char *text = parse_capture("run");
	check_exact(text, unrecorded, env[0] ? env : "bpf");
	cr_expect(strstr(text, "blkreel: drops cpu0=0") != NULL, "no drops message record in the file");
	char said[48];
	snprintf(said, sizeof said, " unrecorded=%llu", unrecorded);
	cr_expect(unrecorded == 0 || strstr(text, said) != NULL, "the file's drops record lacks%s", said);
	free(text);
	char *split = NULL;
	rc = tu_runf(&split, NULL, NULL, "cd '%s' && blkparse -i run", cf.dir);
	cr_assert_eq(rc, 0, "blkparse of the split set failed");
	check_exact(split, unrecorded, "split set");
	free(split);
	char why[256];
	cr_expect(cf_kernel_clean(why, sizeof why), "kernel left dirty: %s", why);
}

static void exact_run(const char *env, const char *must_say)
{
	exact_run_bin(env, must_say, false);
}

Test(capture_bpf, exact_events_tp_btf)
{
	exact_run("", NULL);
}

Test(capture_bpf, exact_events_raw_tp_fallback)
{
	exact_run("BLKREEL_BPF_ATTACH=raw_tp", "raw_tp programs");
}

Test(capture_bpf, exact_events_one_shared_ring)
{
	exact_run("BLKREEL_BPF_RING=shared", NULL);
}

Test(capture_bpf, exact_events_with_wakeups)
{
	exact_run("BLKREEL_BPF_WAKEUP=1", NULL);
}

/* The per-event path (no staging: one ring record per event), kept for
 * measurement, gives the same events. */
Test(capture_bpf, exact_events_one_record_per_event)
{
	exact_run("BLKREEL_BPF_STAGE=0", NULL);
}

/* The live path (events made while tracing, as to stdout) gives the same. */
Test(capture_bpf, exact_events_live_path)
{
	exact_run("BLKREEL_BPF_SPOOL=events", NULL);
}

/* Every third event takes the path of a program that interrupted an
 * append to its CPU's region: straight to the ring, ahead of the
 * events older than it still being appended. User space must put each back in its place: the
 * same events, and none written out of time order (the capture would say
 * "late beyond the reorder window"). */
Test(capture_bpf, exact_events_when_appends_are_interrupted)
{
	exact_run("BLKREEL_BPF_DIRECT_EVERY=3", NULL);
}

/* Every hook variable (capture/hooks.h) at a value that would empty, damage
 * or reorder a hooks build's capture, or take it off the raw path. */
static const struct {
	const char *name, *value;
} damage[] = {
	{ "BLKREEL_BPF_ATTACH", "raw_tp" },   { "BLKREEL_BPF_RING", "shared" },
	{ "BLKREEL_BPF_WAKEUP", "1" },        { "BLKREEL_BPF_STAGE", "0" },
	{ "BLKREEL_BPF_NAMES", "0" },         { "BLKREEL_BPF_SPOOL", "events" },
	{ "BLKREEL_BPF_EMPTY", "1" },         { "BLKREEL_BPF_NORING", "1" },
	{ "BLKREEL_BPF_PAIRCOST", "1" },      { "BLKREEL_BPF_DIRECT_EVERY", "2" },
	{ "BLKREEL_BPF_SKIP_C_EVERY", "2" },  { "BLKREEL_BPF_SPOIL_EVERY", "1" },
	{ "BLKREEL_BPF_MISSED_ADD", "7" },    { "BLKREEL_BPF_USER", "discard" },
	{ "BLKREEL_CAPTURE_NOMERGE", "1" },   { "BLKREEL_SPOOL_SYNC", "0" },
};

/* The release blkreel-capture has no hooks: with every hook variable set it
 * still records the workload exactly, named, in order, on the raw path
 * (exact_run_bin), with no skipped run and no word of the hooks. */
Test(capture_bpf, release_binary_ignores_the_hook_variables)
{
#define HOOK_NAME(v) #v,
	static const char *const listed[] = { CAP_HOOK_VARIABLES(HOOK_NAME) };
#undef HOOK_NAME
	char env[1024] = "";
	size_t n = 0;
	for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
		bool found = false;
		for (size_t j = 0; j < sizeof damage / sizeof damage[0]; j++)
			if (strcmp(listed[i], damage[j].name) == 0) {
				n += (size_t)snprintf(env + n, sizeof env - n, "%s=%s ", damage[j].name, damage[j].value);
				found = true;
			}
		cr_assert(found && n < sizeof env, "%s is not set by this test", listed[i]);
	}
	exact_run_bin(env, NULL, true);
}

/* "ACT RWBS SECTOR + SIZE [name]" for Q/G/D/C/M/F/I/R/X/A lines, sorted:
 * what two backends must agree on (times, CPUs, pids differ run to run;
 * completions run in whatever context the kernel chose, so no name). */
static char *event_keys(const char *name, const char *acts)
{
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "zcat '%s/%s.blktrace.gz' | blkparse -i - | "
			 "awk '$6 ~ /^[%s]$/ && $8 ~ /^[0-9]+$/ { n = ($6 == \"C\") ? \"\" : $11; "
			 "print $6, $7, $8, $9, $10, n }' | sort",
			 cf.dir, name, acts);
	cr_assert_eq(rc, 0, "reading %s failed", name);
	return out;
}

/* The C records agree too, but for the completions each capture's check
 * counted as unrecorded (missing, IO by IO, in that capture only). */
Test(capture_bpf, same_events_as_perf_for_the_same_io)
{
	bpf_test(64);
	const char *be[] = { "perf", "bpf" };
	unsigned long long unrecorded[2];
	for (int i = 0; i < 2; i++) {
		char *err = NULL;
		int rc = cf_capture(NULL, &err, "--backend %s --no-progress -d %s -o '%s/%s' -- %s", be[i], cf.loop,
				    cf.dir, be[i], cf_workload());
		bool only_loss;
		unrecorded[i] = tu_capture_unrecorded(rc, err, &only_loss);
		cr_assert(only_loss, "%s capture exited %d: %s", be[i], rc, err);
		free(err);
		char *text = parse_capture(be[i]);
		cf_counts c;
		cf_count(text, &c);
		free(text);
		cr_expect(c.d_all_seen && c.c_once_or_missing && c.c_missing == unrecorded[i],
			  "%s: %zu IOs lack their C, the capture counted %llu unrecorded", be[i], c.c_missing,
			  unrecorded[i]);
	}
	char *p = event_keys("perf", "QGDMFIRXA"), *b = event_keys("bpf", "QGDMFIRXA");
	cr_expect_eq(tu_count_lines(p, " "), 450, "perf capture: %zu Q/G/D lines, want 450", tu_count_lines(p, " "));
	cr_expect_str_eq(b, p, "bpf and perf disagree on the workload's events");
	free(p);
	free(b);
	if (unrecorded[0] + unrecorded[1] == 0) {
		p = event_keys("perf", "C");
		b = event_keys("bpf", "C");
		cr_expect_str_eq(b, p, "bpf and perf disagree on the workload's completions");
		free(p);
		free(b);
	}
}

static const char *randread(unsigned seconds)
{
	static char work[512];
	snprintf(work, sizeof work,
		 "fio --output=/dev/null --name=r --filename=%s --rw=randread --bs=4k --iodepth=32 "
		 "--ioengine=libaio --direct=1 --runtime=%u --time_based",
		 cf.loop, seconds);
	return work;
}

/* Ring records that do not parse (forced: every 3rd ring record gets a
 * record of an unknown kind) are lost events like drops: counted in the
 * summary and in the file's drops record (bad=N), failing the run unless
 * --allow-drops, and the raw spool keeps the same records as the live path. */
static uint64_t bad_run(const char *env, const char *name, uint64_t *events)
{
	char *err = NULL, *text = NULL;
	int rc = tu_runf(NULL, NULL, &err, "%s BLKREEL_BPF_SPOIL_EVERY=3 '%s' --backend bpf --no-progress -d %s -o '%s/%s' -- %s",
			 env, tu_hook_bin("blkreel-capture"), cf.loop, cf.dir, name, randread(1));
	cr_expect_eq(rc, 1, "%s: exit %d with bad records, want 1: %s", env, rc, err ? err : "");
	const char *exit_line = err ? strstr(err, "events lost (") : NULL;
	cr_expect(exit_line && strstr(exit_line, " bad records") && strstr(exit_line, "; exit 1 (--allow-drops to accept)"),
		  "%s: the failure does not name the bad records: %s", env, err ? err : "");
	const char *said = err ? strstr(err, "drops: cpu0=") : NULL;
	const char *bad = said ? strstr(said, " bad=") : NULL;
	cr_expect(bad != NULL, "%s: the summary does not count bad records: %s", env, err ? err : "");
	unsigned long long nbad = bad ? strtoull(bad + 5, NULL, 10) : 0;
	cr_expect_gt(nbad, 0, "%s: no bad record counted: %s", env, err ? err : "");
	free(err);
	/* one blkparse pass: the drops record's lines, then the count of Q/G/D/C lines */
	tu_runf(&text, NULL, NULL,
		"zcat '%s/%s.blktrace.gz' | blkparse -i - | awk '/blkreel: drops/ {print} / [QGDC] / {n++} END {print \"events\", n + 0}'",
		cf.dir, name);
	char want[64];
	snprintf(want, sizeof want, " bad=%llu (backend bpf)", nbad);
	cr_expect(text && strstr(text, want), "%s: the file's drops record does not say%s: %s", env, want,
		  text ? text : "");
	const char *count = text ? strstr(text, "events ") : NULL;
	*events = count ? strtoull(count + 7, NULL, 10) : 0;
	free(text);
	return nbad;
}

Test(capture_bpf, bad_records_are_counted_stored_and_fail_the_run)
{
	bpf_test(64);
	uint64_t raw_events, live_events;
	uint64_t raw_bad = bad_run("", "raw", &raw_events);
	uint64_t live_bad = bad_run("BLKREEL_BPF_SPOOL=events", "live", &live_events);
	/* each spoilt ring record loses one record of its batch, not the batch */
	cr_expect_gt(raw_events, 50 * raw_bad, "raw: %llu events kept with %llu bad records",
		     (unsigned long long)raw_events, (unsigned long long)raw_bad);
	cr_expect_gt(live_events, 50 * live_bad, "live: %llu events kept with %llu bad records",
		     (unsigned long long)live_events, (unsigned long long)live_bad);
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "BLKREEL_BPF_SPOIL_EVERY=3 '%s' --backend bpf --allow-drops --no-progress -d %s -o '%s/ok' -- %s",
			 tu_hook_bin("blkreel-capture"), cf.loop, cf.dir, randread(1));
	cr_expect_eq(rc, 0, "--allow-drops: exit %d: %s", rc, err ? err : "");
	free(err);
}

/* A capture whose only loss is completions the kernel did not hand to our
 * programs (counted as unrecorded: tu_capture_unrecorded), with no ring drop and no
 * bad record. Tests about something else accept it besides exit 0; the
 * unrecorded count itself is checked in
 * completions_without_a_record_are_counted_and_fail_the_run. */
static bool only_unrecorded_lost(int rc, const char *err)
{
	bool only_loss;
	tu_capture_unrecorded(rc, err, &only_loss);
	return only_loss;
}

/* Runs the kernel skipped (BPF's recursion guard: a program already running
 * on that CPU, e.g. a completion inside a completion through an interrupt's
 * softirq) are read from each program's recursion_misses at stop, and said in
 * the summary and after the file's drops record (missed=N), without failing
 * the run: the skipped run may have been for a device we do not trace. The
 * count is raised here (BLKREEL_BPF_MISSED_ADD): the kernel's own cannot be
 * made to happen on purpose, and may add to it on a busy machine. */
Test(capture_bpf, runs_the_kernel_skipped_are_said_in_the_summary_and_the_file)
{
	bpf_test(64);
	char *err = NULL, *text = NULL;
	int rc = tu_runf(NULL, NULL, &err, "BLKREEL_BPF_MISSED_ADD=7 '%s' --backend bpf --no-progress -d %s -o '%s/m' -- %s",
			 tu_hook_bin("blkreel-capture"), cf.loop, cf.dir, randread(1));
	cr_expect(rc == 0 || only_unrecorded_lost(rc, err), "exit %d with skipped runs, want 0: %s", rc, err ? err : "");
	const char *warn = err ? strstr(err, "warning: the kernel skipped ") : NULL;
	cr_expect(warn && strtoull(warn + 28, NULL, 10) >= 7, "the summary does not say the skipped runs: %s",
		  err ? err : "");
	const char *line = err ? strstr(err, "drops: cpu0=") : NULL;
	const char *said = line ? strstr(line, " missed=") : NULL;
	cr_expect(said && strtoull(said + 8, NULL, 10) >= 7, "the drops line does not count them: %s", err ? err : "");
	free(err);
	tu_runf(&text, NULL, NULL, "zcat '%s/m.blktrace.gz' | blkparse -i - | grep 'blkreel: drops'", cf.dir);
	said = text ? strstr(text, " (backend bpf) missed=") : NULL;
	cr_expect(said && strtoull(said + 22, NULL, 10) >= 7, "the file's drops record: %s", text ? text : "");
	free(text);
}

/* Completions the device counted (its sysfs stat) that no C record shows
 * are lost events nothing else counts: the kernel fired block_rq_complete
 * but did not run our program (seen under CPU load). Forced here
 * (BLKREEL_BPF_SKIP_C_EVERY: every 50th completion on a CPU left out in
 * the program, as if it had not run): the run fails like drops, the summary
 * and the file's drops record say unrecorded=N, and N is exactly the C
 * records the file lacks (fio's reads are one request each, none in flight
 * when tracing starts or stops). */
Test(capture_bpf, completions_without_a_record_are_counted_and_fail_the_run)
{
	bpf_test(64);
	char *err = NULL, *text = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "BLKREEL_BPF_SKIP_C_EVERY=50 '%s' --backend bpf --no-progress -d %s -o '%s/u' -- %s",
			 tu_hook_bin("blkreel-capture"), cf.loop, cf.dir, randread(1));
	cr_expect_eq(rc, 1, "exit %d with completions left out, want 1: %s", rc, err ? err : "");
	cr_expect(err && strstr(err, " completions unrecorded); exit 1 (--allow-drops to accept)"),
		  "the failure does not name the unrecorded completions: %s", err ? err : "");
	cr_expect(err && strstr(err, "warning: the device completed ") && strstr(err, "the tracefs backend"),
		  "no warning, or it does not say tracefs would have seen them: %s", err ? err : "");
	free(err);
	tu_runf(&text, NULL, NULL,
		"zcat '%s/u.blktrace.gz' | blkparse -i - | awk '/blkreel: drops/ {print} "
		"$1 ~ /^[0-9]+,[0-9]+$/ && $6 == \"Q\" {q++} $1 ~ /^[0-9]+,[0-9]+$/ && $6 == \"C\" {c++} "
		"END {print \"counts\", q + 0, c + 0}'",
		cf.dir);
	const char *said = text ? strstr(text, " (backend bpf) unrecorded=") : NULL;
	unsigned long long unrecorded = said ? strtoull(said + 26, NULL, 10) : 0;
	const char *counts = text ? strstr(text, "counts ") : NULL;
	unsigned long long q = 0, c = 0;
	cr_assert(counts && sscanf(counts, "counts %llu %llu", &q, &c) == 2, "no counts: %s", text ? text : "");
	/* enough IOs that skipping every 50th completion leaves some out: 1 s
	 * of QD32 reads made 9.9 k Q events beside the ASan build, more quiet */
	cr_expect_gt(q, 1000, "only %llu Q events in 1 s of QD32 reads", q);
	cr_expect_gt(unrecorded, q / 60, "the file's drops record: %s", text ? text : "");
	cr_expect_eq(unrecorded, q - c, "unrecorded=%llu but the file lacks %llu C records (%llu Q, %llu C): %s",
		     unrecorded, q - c, q, c, text ? text : "");
	free(text);
	rc = tu_runf(NULL, NULL, &err,
		     "BLKREEL_BPF_SKIP_C_EVERY=50 '%s' --backend bpf --allow-drops --no-progress -d %s -o '%s/v' -- %s",
		     tu_hook_bin("blkreel-capture"), cf.loop, cf.dir, randread(1));
	cr_expect_eq(rc, 0, "--allow-drops: exit %d: %s", rc, err ? err : "");
	free(err);
}

/* Wait until the capture says it traces (its stderr in errpath). */
static bool wait_tracing(pid_t pid, const char *errpath)
{
	for (int i = 0; i < 200; i++) {
		char *e = tu_read_text(errpath);
		bool on = strstr(e, "with the bpf backend") != NULL;
		free(e);
		if (on)
			return true;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		usleep(25 * 1000);
	}
	return false;
}

/* A capture with the smallest region (-b 4k rounds up to 256 KiB: 8 Ki
 * events a CPU) held off the CPU for 0.3 s while 2 s of QD32 reads go on:
 * the reads make more events than the regions hold at any IO rate this
 * host reaches (40 k IOPS would be 72 k events). Returns its exit status,
 * its stderr in *err. */
static int stalled_small_capture(const char *extra, const char *name, char **err)
{
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/%s.err", cf.dir, name);
	pid_t pid = cf_capture_bg(errpath, "--backend bpf -b 4k -n 1 %s --no-progress -d %s -o '%s/%s' -- %s", extra,
				  cf.loop, cf.dir, name, randread(2));
	cr_assert(wait_tracing(pid, errpath), "%s: capture did not start", name);
	usleep(300 * 1000);
	kill(pid, SIGSTOP);
	usleep(300 * 1000);
	kill(pid, SIGCONT);
	int rc = cf_wait(pid);
	*err = tu_read_text(errpath);
	return rc;
}

Test(capture_bpf, drops_are_counted_stored_and_fail_the_run)
{
	bpf_test(64);
	char *err = NULL;
	int rc = stalled_small_capture("", "d", &err);
	cr_expect_eq(rc, 1, "exit %d with drops, want 1: %s", rc, err);
	cr_expect(strstr(err, "events lost") && strstr(err, "; exit 1 (--allow-drops to accept)"), "%s", err);
	free(err);
	cf_expect_drops_in_file("d.blktrace.gz");
	rc = stalled_small_capture("--allow-drops", "e", &err);
	cr_expect_eq(rc, 0, "--allow-drops: exit %d: %s", rc, err);
	free(err);
	/* the default regions hold the same load without loss */
	rc = cf_capture(NULL, &err, "--backend bpf --no-progress -d %s -o '%s/f' -- %s", cf.loop, cf.dir, randread(1));
	cr_expect(rc == 0 || only_unrecorded_lost(rc, err), "default region size lost events: exit %d: %s", rc, err);
	free(err);
}

/* The BPF program and link ids a process holds, from its fds' fdinfo. */
static size_t bpf_ids(pid_t pid, const char *key, unsigned *ids, size_t max)
{
	char *out = NULL;
	tu_runf(&out, NULL, NULL, "grep -h '^%s:' /proc/%d/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un", key,
		(int)pid);
	size_t n = 0;
	for (char *save, *tok = out ? strtok_r(out, "\n", &save) : NULL; tok && n < max; tok = strtok_r(NULL, "\n", &save))
		ids[n++] = (unsigned)strtoul(tok, NULL, 10);
	free(out);
	return n;
}

/* A capture's command that does pre (may be "true"), then waits until the
 * test releases it (release_held): what the test reads of the capture
 * while it runs (programs by id, through bpftool) must not race its end.
 * On a freshly booted machine the first bpftool runs took long enough for
 * a `sleep 1` capture to end meanwhile, its last program gone before
 * bpftool asked for its name. A minute at most, should the test fail first. */
static const char *held_cmd(const char *name, const char *pre)
{
	static char cmd[1400];
	snprintf(cmd, sizeof cmd,
		 "sh -c '%s; i=0; while [ ! -e \"%s/%s.go\" ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done'",
		 pre, cf.dir, name);
	return cmd;
}

static void release_held(const char *name)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s.go", cf.dir, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fclose(f);
}

static bool bpftool_has(const char *kind, unsigned id)
{
	return tu_runf(NULL, NULL, NULL, "bpftool %s show id %u >/dev/null 2>&1", kind, id) == 0;
}

Test(capture_bpf, kill9_leaves_no_program_or_link_of_ours)
{
	bpf_test(64);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/cap.err", cf.dir);
	pid_t pid = cf_capture_bg(errpath, "--backend bpf --no-progress -d %s -o '%s/k' -- %s", cf.loop, cf.dir,
				  randread(30));
	cr_assert(wait_tracing(pid, errpath), "capture did not start");
	unsigned progs[64], links[64];
	size_t np = bpf_ids(pid, "prog_id", progs, 64), nl = bpf_ids(pid, "link_id", links, 64);
	cr_assert_geq(np, 4, "the capture holds %zu BPF programs", np);
	/* every program is attached */
	cr_assert_eq(nl, np, "%zu links for %zu programs", nl, np);
	char *names = NULL;
	tu_runf(&names, NULL, NULL, "bpftool prog show id %u", progs[0]);
	cr_expect(names && strstr(names, "blkr_"), "program %u is not named blkr_*: %s", progs[0], names);
	free(names);
	char kids_path[96];
	snprintf(kids_path, sizeof kids_path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	char *kids = tu_read_text(kids_path);
	kill(pid, SIGKILL);
	cf_wait(pid);
	for (char *save, *tok = strtok_r(kids, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		kill((pid_t)atoi(tok), SIGTERM);
	free(kids);
	/* the kernel frees them once their last fd is gone (after an RCU grace period) */
	size_t left = 0;
	for (int tries = 0; tries < 100; tries++) {
		left = 0;
		for (size_t i = 0; i < np; i++)
			left += bpftool_has("prog", progs[i]);
		for (size_t i = 0; i < nl; i++)
			left += bpftool_has("link", links[i]);
		if (!left)
			break;
		usleep(50 * 1000);
	}
	cr_expect_eq(left, 0, "%zu programs/links of the killed capture remain", left);
	usleep(300 * 1000); /* let fio's children end before teardown detaches */
}

/* Event lines of blkparse's output of a shell command, counted by action
 * (the action field, as count_action reads it) in the pipe: a recovered 3 s
 * QD32 capture is millions of lines, which cost more to hold and scan here
 * than blkparse takes to print. Every action is counted, with the sectors
 * queued and completed, so a file that is not whole says how (a merge, a
 * split, a lost completion) and not only that Q and C differ. Fails the test
 * when blkparse fails. */
typedef struct action_counts {
	unsigned long long q, g, m, f, i, d, c, p, u, x, q_sectors, c_sectors;
	bool drops_record;  /* the drops record is there */
	bool drops_nonzero; /* ... and counts a lost event on some CPU, or a bad record */
	unsigned long long unrecorded; /* ... and completions no record shows (counted losses) */
	char text[512];     /* all of it, for the failure messages */
} action_counts;

static void count_actions(action_counts *n, const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "{ %s || echo blkparse-failed; } | awk '/^blkparse-failed$/ {bad = 1} "
			 "/blkreel: drops / {d = 1; if ($0 ~ /cpu[0-9]+=[1-9]/ || $0 !~ / bad=0 /) lost = 1; "
			 "note = substr($0, index($0, \"blkreel: drops \"))} "
			 "$1 ~ /^[0-9]+,[0-9]+$/ && NF >= 6 {n[$6]++; if ($9 == \"+\" && $6 == \"Q\") qs += $10; "
			 "if ($9 == \"+\" && $6 == \"C\") cs += $10} "
			 "END {print bad + 0, n[\"Q\"] + 0, n[\"G\"] + 0, n[\"M\"] + 0, n[\"F\"] + 0, n[\"I\"] + 0, "
			 "n[\"D\"] + 0, n[\"C\"] + 0, n[\"P\"] + 0, n[\"U\"] + 0, n[\"X\"] + 0, qs + 0, cs + 0, d + 0, lost + 0; "
			 "print note}'",
			 cmd);
	unsigned failed = 1, has = 0, lost = 0;
	memset(n, 0, sizeof *n);
	cr_assert(rc == 0 && out &&
			  sscanf(out, "%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %u %u", &failed, &n->q,
				 &n->g, &n->m, &n->f, &n->i, &n->d, &n->c, &n->p, &n->u, &n->x, &n->q_sectors,
				 &n->c_sectors, &has, &lost) == 15,
		  "counting events of '%s' failed (%d): %s", cmd, rc, out ? out : "");
	cr_assert_eq(failed, 0, "'%s' failed", cmd);
	const char *note = strchr(out, '\n');
	note = note ? note + 1 : "";
	snprintf(n->text, sizeof n->text,
		 "Q %llu G %llu M %llu F %llu I %llu D %llu C %llu P %llu U %llu X %llu, sectors queued %llu completed "
		 "%llu; %.*s",
		 n->q, n->g, n->m, n->f, n->i, n->d, n->c, n->p, n->u, n->x, n->q_sectors, n->c_sectors,
		 (int)strcspn(note, "\n"), *note ? note : "no drops record");
	const char *unrecorded = strstr(note, " unrecorded=");
	n->unrecorded = unrecorded ? strtoull(unrecorded + 12, NULL, 10) : 0;
	free(out);
	n->drops_record = has;
	n->drops_nonzero = lost;
}

/* A kill -9 while the file is being finished (the raw spool being turned
 * into events after tracing): the unfinished file is NAME.blktrace.gz.part
 * (with --split, the set is NAME.part.blktrace.<cpu>: nothing named like a
 * finished set), the spool is still whole, and --cleanup makes what the
 * capture was asked for from it: every IO has its Q and its C (or is among
 * the completions the drops record counts as unrecorded), in the .gz and in
 * the per-CPU set alike. */
static void kill9_while_finishing(bool split)
{
	bpf_test(64);
	char errpath[600], part[600], spool[600], cpu0[600];
	snprintf(errpath, sizeof errpath, "%s/fin.err", cf.dir);
	snprintf(part, sizeof part, "%s/fin.blktrace.gz.part", cf.dir);
	snprintf(spool, sizeof spool, "%s/fin.blktrace.spool", cf.dir);
	snprintf(cpu0, sizeof cpu0, "%s/fin.blktrace.0", cf.dir);
	pid_t pid = cf_capture_bg(errpath, "--backend bpf --no-progress -d %s -o '%s/fin'%s -- %s", cf.loop, cf.dir,
				  split ? " --split" : "", randread(3));
	cr_assert(wait_tracing(pid, errpath), "capture did not start");
	bool finishing = false;
	for (int i = 0; i < 400 && !finishing; i++) {
		char *e = tu_read_text(errpath);
		finishing = strstr(e, "tracing stopped") != NULL;
		free(e);
		if (!finishing)
			usleep(25 * 1000);
	}
	cr_assert(finishing, "the capture never stopped tracing");
	usleep(100 * 1000);
	bool unfinished = access(part, F_OK) == 0;
	kill(pid, SIGKILL);
	cf_wait(pid);
	cr_assert(unfinished, "the file was finished before the kill (test is void)");
	cr_assert_eq(access(spool, F_OK), 0, "no spool left after the kill");
	cr_expect_neq(access(cpu0, F_OK), 0, "a per-CPU set that looks finished is there after the kill");
	char *out = NULL;
	int rc = cf_capture(&out, NULL, "--cleanup");
	cr_expect_eq(rc, 0, "--cleanup exited %d: %s", rc, out);
	cr_expect(strstr(out, "from the raw spool") != NULL, "--cleanup said: %s", out);
	if (split)
		cr_expect(strstr(out, "wrote the per-CPU set") != NULL, "--cleanup did not make the set: %s", out);
	free(out);
	cr_expect_neq(access(part, F_OK), 0, "the unfinished file is still there");
	cr_expect_neq(access(spool, F_OK), 0, "the spool is still there");
	action_counts n;
	count_actions(&n, "zcat '%s/fin.blktrace.gz' | blkparse -i -", cf.dir);
	/* a recovered file of some size: 3 s of QD32 reads made 53-99 k Q events
	 * beside the ASan build and CPU lanes, 100 k and more quiet; the kill
	 * landing while the file was unfinished is asserted above */
	cr_expect_gt(n.q, 10000, "only %llu Q events in 3 s of QD32 reads", n.q);
	/* completions the kernel did not run our program for (under CPU load)
	 * are counted in the drops record: the recovery must keep the rest */
	cr_expect_eq(n.q, n.c + n.unrecorded, "%llu Q but %llu C events and %llu counted unrecorded: the recovered file is not whole (%s)",
		     n.q, n.c, n.unrecorded, n.text);
	cr_expect(n.drops_record, "the drops record written before the kill is lost (%s)", n.text);
	/* every CPU's count, not only cpu0's: a lost event on any CPU (or a bad
	 * record) is a capture that is not whole for a reason other than the kill */
	cr_expect(!n.drops_nonzero, "the capture lost events before the kill (%s)", n.text);
	if (split) {
		action_counts sn;
		count_actions(&sn, "cd '%s' && blkparse -i fin", cf.dir);
		cr_expect_eq(sn.q, n.q, "the set has %llu Q events, the .gz %llu (set: %s)", sn.q, n.q, sn.text);
		cr_expect_eq(sn.c, n.c, "the set has %llu C events, the .gz %llu (set: %s)", sn.c, n.c, sn.text);
		char *parts = NULL;
		tu_runf(&parts, NULL, NULL, "ls '%s' | grep -c '[.]part'", cf.dir);
		cr_expect(parts && atoi(parts) == 0, "%s .part files left", parts ? parts : "?");
		free(parts);
	} else {
		cr_expect_neq(access(cpu0, F_OK), 0, "--cleanup made a per-CPU set nobody asked for");
	}
	char why[256];
	cr_expect(cf_kernel_clean(why, sizeof why), "kernel left dirty: %s", why);
}

Test(capture_bpf, kill9_while_finishing_the_file_loses_nothing)
{
	kill9_while_finishing(false);
}

Test(capture_bpf, kill9_while_finishing_a_split_capture_cleanup_makes_the_set)
{
	kill9_while_finishing(true);
}

Test(capture_bpf, two_captures_at_once)
{
	bpf_test(64);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/a.err", cf.dir);
	pid_t a = cf_capture_bg(errpath, "--backend bpf --no-progress -d %s -o '%s/a' -w 60", cf.loop, cf.dir);
	cr_assert(wait_tracing(a, errpath), "first capture did not start");
	char *err = NULL;
	int rc = cf_capture(NULL, &err, "--backend bpf --no-progress -d %s -o '%s/b' -- %s", cf.loop, cf.dir,
			    cf_workload());
	bool only_loss;
	unsigned long long ub = tu_capture_unrecorded(rc, err, &only_loss);
	cr_expect(only_loss, "second capture exited %d: %s", rc, err);
	free(err);
	usleep(100 * 1000);
	kill(a, SIGINT);
	int ra = cf_wait(a);
	err = tu_read_text(errpath);
	unsigned long long ua = tu_capture_unrecorded(ra, err, &only_loss);
	cr_expect(only_loss, "first capture's exit %d after SIGINT (a capture the user ends is a success): %s", ra, err);
	free(err);
	char *ta = parse_capture("a"), *tb = parse_capture("b");
	check_exact(ta, ua, "first capture");
	check_exact(tb, ub, "second capture");
	free(ta);
	free(tb);
}

/* awk over a capture's event lines */
static char *capture_awk(const char *name, const char *prog)
{
	char *text = NULL;
	tu_runf(&text, NULL, NULL, "zcat '%s/%s.blktrace.gz' | blkparse -i - | awk '$6 ~ /^[A-Z]+$/ %s'", cf.dir, name,
		prog);
	return text ? text : strdup("");
}

Test(capture_bpf, action_mask_lba_range_and_pid_filtered_in_the_kernel)
{
	bpf_test(64);
	char work[512];
	snprintf(work, sizeof work,
		 "sh -c 'dd if=/dev/zero of=%s bs=64k count=10 oflag=direct status=none; "
		 "dd if=%s of=/dev/null bs=4k count=5 skip=1000 iflag=direct status=none'",
		 cf.loop, cf.loop);
	char *err = NULL, *text;
	int rc = cf_capture(NULL, &err, "--backend bpf --no-progress -d %s -a complete -o '%s/c' -- %s", cf.loop, cf.dir,
			    work);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	text = capture_awk("c", "{print $6}' | sort -u | tr -d '\\n");
	cr_expect_str_eq(text, "C", "-a complete kept: %s", text);
	free(text);
	rc = cf_capture(NULL, &err, "--backend bpf --no-progress -d %s -a read -o '%s/r' -- %s", cf.loop, cf.dir, work);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	text = capture_awk("r", "{print $7}' | sort -u | tr -d '\\n");
	cr_expect_str_eq(text, "RS", "-a read kept: %s", text);
	free(text);
	/* sectors 8000..8039 are the reads; the writes are at 0..1279 */
	rc = cf_capture(NULL, &err, "--backend bpf --no-progress -d %s --start-lba 4000 --end-lba 9000 -o '%s/l' -- %s",
			cf.loop, cf.dir, work);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	text = capture_awk("l", "&& $6 == \"D\" && $8 > 0 {print $8}' | sort -n | tr '\\n' ' ");
	cr_expect_str_eq(text, "8000 8008 8016 8024 8032 ", "LBA range kept: %s", text);
	free(text);

	/* --pid: a reader whose pid is known before it starts (it waits for a
	 * go file), beside a writer that must not show up */
	char go[600], pidcmd[2048];
	snprintf(go, sizeof go, "%s/go", cf.dir);
	snprintf(pidcmd, sizeof pidcmd,
		 "while [ ! -e '%s' ]; do sleep 0.02; done; exec dd if=%s of=/dev/null bs=4k count=20 skip=2000 "
		 "iflag=direct status=none",
		 go, cf.loop);
	pid_t reader = fork();
	if (reader == 0) {
		execl("/bin/sh", "sh", "-c", pidcmd, (char *)NULL);
		_exit(127);
	}
	cr_assert_gt(reader, 0);
	char both[2048];
	snprintf(both, sizeof both,
		 "sh -c 'dd if=/dev/zero of=%s bs=4k count=20 seek=100 oflag=direct status=none & touch %s; wait; "
		 "while s=$(cut -d\" \" -f3 /proc/%d/stat 2>/dev/null) && [ \"$s\" != Z ]; do sleep 0.02; done'",
		 cf.loop, go, (int)reader);
	rc = cf_capture(NULL, &err, "--backend bpf --no-progress -d %s --pid %d -o '%s/p' -- %s", cf.loop, (int)reader,
			cf.dir, both);
	cf_wait(reader);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	char want[32];
	snprintf(want, sizeof want, "%d", (int)reader);
	text = capture_awk("p", "{print $5}' | sort -u | tr -d '\\n");
	cr_expect_str_eq(text, want, "--pid %d kept pids: %s", (int)reader, text);
	free(text);
	text = capture_awk("p", "&& $6 == \"D\" {print $8}' | wc -l | tr -d ' \\n");
	cr_expect_str_eq(text, "20", "--pid: %s D events of the reader, want 20", text);
	free(text);
}

Test(capture_bpf, lean_mode_loads_only_issue_and_complete_programs)
{
	bpf_test(64);
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/lean.err", cf.dir);
	pid_t pid = cf_capture_bg(errpath, "--backend bpf -a issue,complete --no-progress -d %s -o '%s/lean' -- %s",
				  cf.loop, cf.dir, held_cmd("lean", cf_workload()));
	cr_assert(wait_tracing(pid, errpath), "capture did not start");
	unsigned progs[64];
	size_t np = bpf_ids(pid, "prog_id", progs, 64);
	char names[512] = "";
	for (size_t i = 0; i < np; i++) {
		char *out = NULL;
		tu_runf(&out, NULL, NULL, "bpftool prog show id %u | sed -n 's/.* name \\([^ ]*\\) .*/\\1/p' | tr -d '\\n'",
			progs[i]);
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s ", out && *out ? out : "?");
		free(out);
	}
	release_held("lean");
	int rc = cf_wait(pid);
	char *err = tu_read_text(errpath);
	bool only_loss;
	unsigned long long unrecorded = tu_capture_unrecorded(rc, err, &only_loss);
	cr_assert(only_loss, "lean capture exited %d: %s", rc, err);
	free(err);
	cr_expect(np == 3 && strstr(names, "blkr_issue ") && strstr(names, "blkr_complete ") && strstr(names, "blkr_bdone "),
		  "lean mode loaded %zu programs: %s", np, names);
	char *text = parse_capture("lean");
	cf_counts c;
	cf_count(text, &c);
	cr_expect(c.d_all_seen && c.c_once_or_missing && c.c_missing == unrecorded,
		  "lean: not every IO's D and C seen once (%zu C missing, %llu unrecorded)", c.c_missing, unrecorded);
	/* the one message record (m: drops) aside */
	size_t dc = count_action(text, "D") + count_action(text, "C") + count_action(text, "m");
	cr_expect_eq(dc, c.lines, "lean: %zu lines besides D, C and the drops message", c.lines - dc);
	free(text);
}

/* Names of the programs a capture holds, each followed by a space. */
static size_t prog_names(pid_t pid, char *names, size_t size)
{
	unsigned progs[64];
	size_t np = bpf_ids(pid, "prog_id", progs, 64);
	names[0] = 0;
	for (size_t i = 0; i < np; i++) {
		char *out = NULL;
		tu_runf(&out, NULL, NULL, "bpftool prog show id %u | sed -n 's/.* name \\([^ ]*\\) .*/\\1/p' | tr -d '\\n'",
			progs[i]);
		/* "?": bpftool found no such program (it is gone) */
		snprintf(names + strlen(names), size - strlen(names), "%s ", out && *out ? out : "?");
		free(out);
	}
	return np;
}

/* The latest time a CPU's clock_slot holds (0: none, or no such map of this capture's). */
static uint64_t clock_slot_latest(pid_t pid)
{
	unsigned maps[64];
	size_t nm = bpf_ids(pid, "map_id", maps, 64);
	uint64_t latest = 0;
	for (size_t i = 0; i < nm; i++) {
		if (tu_runf(NULL, NULL, NULL, "bpftool map show id %u | grep -q ' name clock_slot '", maps[i]) != 0)
			continue;
		char *out = NULL;
		tu_runf(&out, NULL, NULL, "bpftool -j map dump id %u | grep -o '\"cpu\":[0-9]*,\"value\":[0-9]*' | "
			"sed 's/.*://'", maps[i]);
		for (char *save, *tok = out ? strtok_r(out, "\n", &save) : NULL; tok; tok = strtok_r(NULL, "\n", &save)) {
			uint64_t v = strtoull(tok, NULL, 10);
			latest = v > latest ? v : latest;
		}
		free(out);
	}
	return latest;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The bench's clock floor (BLKREEL_BPF_EMPTY=clock) for one action set:
 * the programs that set loads, attached, each storing the clock in its
 * CPU's slot (bpf_ktime_get_ns: CLOCK_MONOTONIC), and no event written. */
static void clock_floor_run(const char *name, const char *mask, const char *const *want, size_t nwant)
{
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/%s.err", cf.dir, name);
	setenv("BLKREEL_BPF_EMPTY", "clock", 1);
	cf.hooks = true;
	uint64_t t0 = monotonic_ns();
	char dd[600];
	snprintf(dd, sizeof dd, "dd if=/dev/zero of=%s bs=4k count=50 oflag=direct status=none", cf.loop);
	pid_t pid = cf_capture_bg(errpath, "--backend bpf %s --no-progress -d %s -o '%s/%s' -- %s", mask, cf.loop,
				  cf.dir, name, held_cmd(name, dd));
	cf.hooks = false;
	unsetenv("BLKREEL_BPF_EMPTY");
	cr_assert(wait_tracing(pid, errpath), "%s: capture did not start", name);
	char names[512];
	unsigned links[64];
	size_t np = prog_names(pid, names, sizeof names), nl = bpf_ids(pid, "link_id", links, 64);
	uint64_t latest = 0;
	for (int i = 0; i < 100 && latest < t0; i++) {
		latest = clock_slot_latest(pid);
		if (latest < t0)
			usleep(25 * 1000);
	}
	uint64_t t1 = monotonic_ns();
	release_held(name);
	int rc = cf_wait(pid);
	char *err = tu_read_text(errpath);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", name, rc, err);
	cr_expect_eq(np, nwant, "%s: %zu programs loaded, want %zu: %s", name, np, nwant, names);
	for (size_t i = 0; i < nwant; i++) {
		char key[40];
		snprintf(key, sizeof key, "%s ", want[i]);
		cr_expect(strstr(names, key) != NULL, "%s: %s not loaded: %s", name, want[i], names);
	}
	/* every program is attached */
	cr_expect_eq(nl, np, "%s: %zu links for %zu programs", name, nl, np);
	cr_expect(latest >= t0 && latest <= t1, "%s: the clock slot holds %llu, not a time in [%llu, %llu]", name,
		  (unsigned long long)latest, (unsigned long long)t0, (unsigned long long)t1);
	cr_expect(strstr(err, ": 0 events") != NULL, "%s: the clock floor wrote events: %s", name, err);
	free(err);
	char *text = parse_capture(name);
	cf_counts c;
	cf_count(text, &c);
	/* the one message record (m: drops) only */
	cr_expect_eq(count_action(text, "m"), 1, "%s: no drops record", name);
	cr_expect_eq(c.lines, 1, "%s: %zu lines besides the drops message", name, c.lines - 1);
	free(text);
}

Test(capture_bpf, clock_floor_programs_load_attach_read_the_clock_and_write_no_events)
{
	bpf_test(64);
	static const char *const full[] = { "blkr_queue", "blkr_getrq", "blkr_plug", "blkr_unplug", "blkr_issue",
					    "blkr_complete", "blkr_bdone" };
	/* the full set, as a capture without the knob loads it */
	char errpath[600];
	snprintf(errpath, sizeof errpath, "%s/real.err", cf.dir);
	pid_t pid = cf_capture_bg(errpath, "--backend bpf --no-progress -d %s -o '%s/real' -- %s", cf.loop, cf.dir,
				  held_cmd("real", "true"));
	cr_assert(wait_tracing(pid, errpath), "capture did not start");
	char names[512];
	size_t np = prog_names(pid, names, sizeof names);
	release_held("real");
	cr_assert_eq(cf_wait(pid), 0, "the real capture failed");
	cr_assert_geq(np, sizeof full / sizeof full[0], "the real capture loaded %zu programs: %s", np, names);
	const char *set[64];
	char *save, *copy = strdup(names);
	size_t n = 0;
	for (char *tok = strtok_r(copy, " ", &save); tok && n < 64; tok = strtok_r(NULL, " ", &save))
		set[n++] = tok;
	for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
		cr_expect(strstr(names, full[i]) != NULL, "the real capture lacks %s: %s", full[i], names);
	clock_floor_run("clockfull", "", set, n);
	free(copy);
	static const char *const lean[] = { "blkr_issue", "blkr_complete", "blkr_bdone" };
	clock_floor_run("clocklean", "-a issue,complete", lean, sizeof lean / sizeof lean[0]);
}

Test(capture_bpf, no_btf_says_why_in_one_line_and_automatic_choice_moves_on)
{
	bpf_test(16);
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "BLKREEL_BTF=%s/none '%s' --backend bpf --no-progress -d %s -o '%s/x' -w 100ms",
			 cf.dir, tu_bin("blkreel-capture"), cf.loop, cf.dir);
	cr_expect_eq(rc, 1, "--backend bpf without BTF exited %d: %s", rc, err);
	cr_expect(strstr(err, "no kernel BTF") != NULL, "no reason given: %s", err);
	cr_expect_eq(tu_count_lines(err, ""), 1, "not one line: %s", err);
	free(err);
	rc = tu_runf(NULL, NULL, &err, "BLKREEL_BTF=%s/none '%s' --no-progress -d %s -o '%s/y' -w 100ms", cf.dir,
		     tu_bin("blkreel-capture"), cf.loop, cf.dir);
	cr_expect_eq(rc, 0, "automatic choice without BTF exited %d: %s", rc, err);
	cr_expect_eq(tu_count_lines(err, "bpf backend unavailable"), 1, "%s", err);
	cr_expect(strstr(err, "no kernel BTF") && strstr(err, "trying perf"), "%s", err);
	cr_expect(strstr(err, "with the perf backend") != NULL, "did not move on to perf: %s", err);
	free(err);
	/* and with BTF the automatic choice is bpf */
	rc = cf_capture(NULL, &err, "--no-progress -d %s -o '%s/z' -w 100ms", cf.loop, cf.dir);
	cr_expect_eq(rc, 0, "%s", err);
	cr_expect(strstr(err, "with the bpf backend") != NULL, "automatic choice is not bpf: %s", err);
	free(err);
}

Test(capture_bpf, without_bpf_permission_says_why_and_moves_on)
{
	bpf_test(16);
	/* root without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN: the bpf backend
	 * cannot load a program; it says so in one line and the next is tried */
	char *err = NULL;
	tu_runf(NULL, NULL, &err,
		"setpriv --inh-caps=-bpf,-sys_admin,-perfmon --bounding-set=-bpf,-sys_admin,-perfmon "
		"'%s' --no-progress -d %s -o '%s/np' -w 100ms",
		tu_bin("blkreel-capture"), cf.loop, cf.dir);
	cr_expect_eq(tu_count_lines(err, "bpf backend unavailable (loading BPF programs refused"), 1, "%s", err);
	cr_expect(strstr(err, "refused (needs CAP_BPF and CAP_PERFMON, or root): Operation not permitted); trying perf"),
		  "%s", err);
	free(err);
}

/* A loop device with a partition table of its own (the fixture's has none). */
static char part_loop[64];

static void part_teardown(void)
{
	tu_loop_detach(part_loop);
	part_loop[0] = 0;
	cf_teardown();
}

/* An MBR with two primary Linux partitions (type 0x83) at the given LBAs. */
static void write_mbr(const char *path, const uint32_t start[2], const uint32_t size[2])
{
	uint8_t mbr[512] = { 0 };
	for (int i = 0; i < 2; i++) {
		uint8_t *e = mbr + 446 + 16 * i;
		e[4] = 0x83;
		memcpy(e + 8, &start[i], 4); /* little-endian, as this machine */
		memcpy(e + 12, &size[i], 4);
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	FILE *f = fopen(path, "r+b");
	cr_assert_not_null(f, "cannot open %s", path);
	cr_assert_eq(fwrite(mbr, 1, sizeof mbr, f), sizeof mbr);
	fclose(f);
}

Test(capture_bpf, partition_keeps_its_bio_and_request_events_only, .fini = part_teardown)
{
	if (!tu_have("partx"))
		cr_skip_test("needs partx");
	bpf_test(16);
	char *out = NULL, img[600];
	snprintf(img, sizeof img, "%s/parts.img", cf.dir);
	int rc = tu_runf(NULL, NULL, NULL, "truncate -s 64M '%s'", img);
	cr_assert_eq(rc, 0);
	write_mbr(img, (const uint32_t[2]){ 2048, 34816 }, (const uint32_t[2]){ 32768, 32768 });
	rc = tu_runf(&out, NULL, NULL, "losetup --find --show '%s'", img);
	cr_assert(rc == 0 && out && strncmp(out, "/dev/loop", 9) == 0, "cannot make a partitioned loop device: %s",
		  out ? out : "");
	snprintf(part_loop, sizeof part_loop, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	/* this kernel's loop driver does not scan partitions by itself: add them */
	rc = tu_runf(NULL, NULL, NULL, "partx -a '%s' 2>/dev/null", part_loop);
	char p1[96], p2[96], sys[160];
	snprintf(p1, sizeof p1, "%sp1", part_loop);
	snprintf(p2, sizeof p2, "%sp2", part_loop);
	snprintf(sys, sizeof sys, "/sys/class/block/%sp1/dev", part_loop + 5);
	for (int i = 0; i < 100 && (access(p1, F_OK) || access(p2, F_OK)); i++)
		usleep(20 * 1000);
	cr_assert_eq(access(p2, F_OK), 0, "no %s", p2);
	char *devt = tu_read_text(sys);
	unsigned ma = 0, mi = 0;
	cr_assert_eq(sscanf(devt, "%u:%u", &ma, &mi), 2, "no dev for %s: %s", p1, devt);
	free(devt);
	/* 10 writes to p1, 7 to p2 (same disk, must not show up) */
	char *err = NULL;
	rc = cf_capture(NULL, &err,
			"--backend bpf --no-progress -d %s -o '%s/part' -- sh -c 'dd if=/dev/zero of=%s bs=4k count=10 "
			"oflag=direct status=none; dd if=/dev/zero of=%s bs=4k count=7 oflag=direct status=none'",
			p1, cf.dir, p1, p2);
	cr_assert(rc == 0 || only_unrecorded_lost(rc, err), "%s", err);
	free(err);
	char want[32];
	snprintf(want, sizeof want, "%u,%u", ma, mi);
	char *text = capture_awk("part", "&& $6 != \"m\" {print $1}' | sort -u | tr -d '\\n");
	cr_expect_str_eq(text, want, "devices in the capture of %s: %s", p1, text);
	free(text);
	/* bio events (Q) and request events (D, C) alike, at the disk's sectors */
	const char *acts[] = { "Q", "D", "C" };
	for (int a = 0; a < 3; a++) {
		char prog[160];
		snprintf(prog, sizeof prog, "&& $6 == \"%s\" {print $8}' | sort -n | tr '\\n' ' ", acts[a]);
		text = capture_awk("part", prog);
		cr_expect_str_eq(text, "2048 2056 2064 2072 2080 2088 2096 2104 2112 2120 ", "%s of %s: %s", acts[a], p1,
				 text);
		free(text);
	}
}
