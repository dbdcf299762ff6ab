/* blkreel-parse --dev: one trace of two devices split into one file per
 * device, in every output kind. Each part holds exactly its device's
 * records in order, the parts together are the input, blkparse reads them
 * with the process names and messages they should have, and bad arguments
 * or a device without events say so. */
#include <criterion/criterion.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blkreel/reader.h"
#include "testutil.h"
#include "tracegen.h"

TestSuite(parse_dev, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

#define DEV_A BR_MKDEV(7, 3)
#define DEV_B BR_MKDEV(7, 4)
#define DEV_M BR_MKDEV(253, 0) /* only a remap is logged on it */
enum { OWN_A = 1, OWN_B = 2, OWN_M = 4, OWN_ANY = 7 };
enum { ROUNDS = 40 };

/* One generated record, owned (its payload in pdu: ev.pdu is not kept, the
 * array moves as it grows), and the devices it belongs to by design:
 * written down here by hand, not by the rule under test. */
typedef struct rec {
	br_event ev;
	uint8_t pdu[64];
	unsigned owners;
} rec;

typedef struct trace {
	rec *r;
	size_t n, cap;
	uint64_t now;
	uint32_t seq[3][2]; /* kernel numbering: per device, per CPU */
} trace;

static rec *push(trace *t, br_event ev, unsigned owners)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->r = realloc(t->r, t->cap * sizeof *t->r);
		cr_assert(t->r);
	}
	rec *r = &t->r[t->n++];
	memset(r, 0, sizeof *r);
	ev.time = t->now += 1000 + t->n * 7; /* distinct, increasing */
	if (!br_event_is_notify(&ev)) {
		unsigned d = ev.device == DEV_A ? 0 : ev.device == DEV_B ? 1 : 2;
		ev.sequence = ++t->seq[d][ev.cpu & 1];
	}
	cr_assert(ev.pdu_len <= sizeof r->pdu);
	if (ev.pdu_len)
		memcpy(r->pdu, ev.pdu, ev.pdu_len);
	r->ev = ev;
	r->ev.pdu = NULL;
	r->owners = owners;
	return r;
}

static void note(trace *t, uint32_t action, uint32_t device, uint32_t pid, const char *text,
		 unsigned owners)
{
	br_event ev = { .action = action, .device = device, .pid = pid, .pdu = (const uint8_t *)text,
			.pdu_len = (uint16_t)strlen(text) };
	if (action == BLK_TN_PROCESS)
		ev.pdu_len = 16; /* TASK_COMM_LEN, as the kernel and blkreel-capture send */
	char comm[16] = { 0 };
	if (action == BLK_TN_PROCESS) {
		snprintf(comm, sizeof comm, "%s", text);
		ev.pdu = (const uint8_t *)comm;
	}
	push(t, ev, owners);
}

static void io(trace *t, uint32_t device, uint32_t cpu, uint32_t action, uint64_t sector,
	       uint32_t bytes, uint32_t pid)
{
	push(t, tg_io(0, device, cpu, action, sector, bytes, pid), device == DEV_A ? OWN_A : OWN_B);
}

/* Two loop devices traced in one capture, as blkreel-capture writes it: a
 * pid's name once, on the device of its first IO (pid 300 does IO on both,
 * named on A only); B starts 5 ms before A, so times count differently
 * per part; A's IOs go through a dm device (remaps); one drops message on
 * the first device (A), one message on B; a start timestamp per device. */
static void make_trace(trace *t)
{
	memset(t, 0, sizeof *t);
	t->now = 1000000000;
	uint32_t stamp[2] = { 1700000000, 5 };
	br_event ts = { .action = BLK_TN_TIMESTAMP, .device = DEV_B, .pdu = (const uint8_t *)stamp,
			.pdu_len = sizeof stamp };
	push(t, ts, OWN_B);
	ts.device = DEV_A;
	push(t, ts, OWN_A);
	note(t, BLK_TN_PROCESS, DEV_B, 200, "reader-b", OWN_ANY);
	for (int i = 0; i < 5; i++)
		io(t, DEV_B, 1, TG_Q_R, 9000 + 8 * (uint64_t)i, 4096, 200);
	t->now += 5000000;
	note(t, BLK_TN_PROCESS, DEV_A, 100, "writer-a", OWN_ANY);
	note(t, BLK_TN_PROCESS, DEV_A, 300, "both", OWN_ANY);
	for (int i = 0; i < ROUNDS; i++) {
		uint32_t cpu = (uint32_t)i & 1;
		uint64_t s = 1000 + 8 * (uint64_t)i;
		uint8_t pdu[16];
		if (i % 5 == 0) /* logged on dm, the IO went to A */
			push(t, tg_remap(0, DEV_M, BLK_TA_REMAP | BLK_TC_ACT(BLK_TC_WRITE), s, 4096, DEV_M, DEV_A,
					 s + 2048, pdu), OWN_A | OWN_M);
		else if (i % 5 == 1) /* logged on A itself */
			push(t, tg_remap(0, DEV_A, BLK_TA_REMAP | BLK_TC_ACT(BLK_TC_WRITE), s, 4096, DEV_M, DEV_A,
					 s + 2048, pdu), OWN_A);
		io(t, DEV_A, cpu, TG_Q_W, s, 4096, 100);
		io(t, DEV_A, cpu, BLK_TA_GETRQ | BLK_TC_ACT(BLK_TC_WRITE), s, 4096, 100);
		io(t, DEV_B, 1 - cpu, TG_Q_R, 5000 + 8 * (uint64_t)i, 4096, 200);
		io(t, DEV_A, cpu, BLK_TA_INSERT | BLK_TC_ACT(BLK_TC_WRITE), s, 4096, 100);
		io(t, DEV_A, cpu, TG_D_W, s, 4096, 100);
		io(t, DEV_B, 1 - cpu, TG_D_R, 5000 + 8 * (uint64_t)i, 4096, 200);
		if (i % 3 == 0) {
			io(t, DEV_B, cpu, TG_Q_W, 70000 + 8 * (uint64_t)i, 512, 300);
			io(t, DEV_B, cpu, TG_D_W, 70000 + 8 * (uint64_t)i, 512, 300);
			io(t, DEV_B, cpu, TG_C_W, 70000 + 8 * (uint64_t)i, 512, 300);
		}
		if (i % 4 == 0) {
			io(t, DEV_A, 1 - cpu, TG_Q_R, 80000 + 8 * (uint64_t)i, 8192, 300);
			io(t, DEV_A, 1 - cpu, TG_D_R, 80000 + 8 * (uint64_t)i, 8192, 300);
			io(t, DEV_A, 1 - cpu, TG_C_R, 80000 + 8 * (uint64_t)i, 8192, 300);
		}
		io(t, DEV_A, cpu, TG_C_W, s, 4096, 100);
		io(t, DEV_B, 1 - cpu, TG_C_R, 5000 + 8 * (uint64_t)i, 4096, 200);
	}
	note(t, BLK_TN_MESSAGE, DEV_B, 0, "note on b", OWN_B);
	note(t, BLK_TN_MESSAGE, DEV_A, 0, "blkreel: drops cpu0=0 cpu1=0 (backend test)", OWN_A);
}

static void write_trace(const trace *t, const char *path)
{
	tg_buf b = { 0 };
	for (size_t i = 0; i < t->n; i++) {
		br_event ev = t->r[i].ev;
		ev.pdu = t->r[i].pdu;
		tg_append(&b, &ev, false);
	}
	cr_assert_eq(tg_write(&b, path), 0);
	tg_free(&b);
}

/* Every record of a trace, with our reader. */
static void read_back(const char *path, trace *out)
{
	memset(out, 0, sizeof *out);
	br_reader *r;
	br_error err;
	const char *paths[] = { path };
	cr_assert_eq(br_reader_open(&r, paths, 1, NULL, &err), 0, "%s: %s", path, err.msg);
	br_event ev;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 256;
			out->r = realloc(out->r, out->cap * sizeof *out->r);
			cr_assert(out->r);
		}
		rec *x = &out->r[out->n++];
		memset(x, 0, sizeof *x);
		x->ev = ev;
		cr_assert(ev.pdu_len <= sizeof x->pdu);
		if (ev.pdu_len)
			memcpy(x->pdu, ev.pdu, ev.pdu_len);
		x->ev.pdu = NULL;
		x->ev.comm = NULL;
	}
	cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
	br_reader_close(r);
}

static bool same(const rec *x, const rec *y)
{
	const br_event *a = &x->ev, *b = &y->ev;
	return a->time == b->time && a->sector == b->sector && a->bytes == b->bytes &&
	       a->action == b->action && a->pid == b->pid && a->device == b->device &&
	       a->cpu == b->cpu && a->sequence == b->sequence && a->error == b->error &&
	       a->pdu_len == b->pdu_len && memcmp(x->pdu, y->pdu, a->pdu_len) == 0;
}

/* got is exactly the records of in owned by `owner`, in the input's order. */
static void expect_part(const trace *in, const trace *got, unsigned owner, const char *what)
{
	size_t k = 0;
	for (size_t i = 0; i < in->n; i++) {
		if (!(in->r[i].owners & owner))
			continue;
		cr_assert_lt(k, got->n, "%s: ends after %zu records, record %zu of the input missing",
			     what, got->n, i);
		cr_assert(same(&in->r[i], &got->r[k]), "%s: record %zu is not input record %zu",
			  what, k, i);
		k++;
	}
	cr_expect_eq(k, got->n, "%s: %zu records, %zu expected", what, got->n, k);
}

/* Counts per action letter of a part's IO events, as "Q12 D12 ...". */
static void action_counts(const trace *t, char *out, size_t size)
{
	static const char letters[] = "QGIDCA";
	size_t n = 0;
	for (const char *l = letters; *l; l++) {
		unsigned c = 0;
		for (size_t i = 0; i < t->n; i++)
			if (!br_event_is_notify(&t->r[i].ev) && br_event_action_letter(&t->r[i].ev) == *l)
				c++;
		n += (size_t)snprintf(out + n, size - n, "%s%c%u", n ? " " : "", *l, c);
	}
}

static const char *parse(void)
{
	return tu_bin("blkreel-parse");
}

Test(parse_dev, split_into_one_compressed_file_per_device)
{
	trace in, a, b;
	make_trace(&in);
	write_trace(&in, tu_path("both.bin"));
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' --dev 7,3 both.bin -o a.blktrace.gz",
			 tu_dir, parse());
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect_str_empty(err);
	free(err);
	rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' -d 7:4 both.bin -o b.blktrace.gz", tu_dir,
		     parse());
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	read_back(tu_path("a.blktrace.gz"), &a);
	read_back(tu_path("b.blktrace.gz"), &b);
	expect_part(&in, &a, OWN_A, "7,3");
	expect_part(&in, &b, OWN_B, "7,4");
	char counts[128];
	action_counts(&a, counts, sizeof counts);
	/* 40 rounds of Q G I D C, 10 reads of Q D C by pid 300, 16 remaps */
	cr_expect_str_eq(counts, "Q50 G40 I40 D50 C50 A16");
	action_counts(&b, counts, sizeof counts);
	/* 5 + 40 reads queued, 40 issued and completed; 14 writes by pid 300 */
	cr_expect_str_eq(counts, "Q59 G0 I0 D54 C54 A0");
	/* the union is the input: walking the input, every record is the next
	 * one of a part (or of both: process names), and both parts are used up */
	size_t ka = 0, kb = 0;
	for (size_t i = 0; i < in.n; i++) {
		bool in_a = ka < a.n && same(&in.r[i], &a.r[ka]);
		bool in_b = kb < b.n && same(&in.r[i], &b.r[kb]);
		cr_assert(in_a || in_b, "input record %zu is in neither part", i);
		ka += in_a;
		kb += in_b;
	}
	cr_expect_eq(ka, a.n);
	cr_expect_eq(kb, b.n);
	free(in.r);
	free(a.r);
	free(b.r);
}

/* Each part reads in Debian's blkparse as in ours, with the names of the
 * pids that did IO there (pid 300's name was logged on A only) and only
 * its own messages. */
Test(parse_dev, parts_read_in_blkparse)
{
	if (!tu_have("blkparse"))
		cr_skip_test("blkparse (Debian's blktrace) is not installed");
	trace in;
	make_trace(&in);
	write_trace(&in, tu_path("both.bin"));
	free(in.r);
	const char *devs[] = { "7,3", "7,4" };
	for (int d = 0; d < 2; d++) {
		char *ours = NULL, *theirs = NULL, *direct = NULL;
		int rc = tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' --dev %s both.bin -o part.blktrace.gz",
				 tu_dir, parse(), devs[d]);
		cr_assert_eq(rc, 0);
		rc = tu_runf(&theirs, NULL, NULL, "cd '%s' && zcat part.blktrace.gz | blkparse -q -i -",
			     tu_dir);
		cr_assert_eq(rc, 0);
		rc = tu_runf(&ours, NULL, NULL, "cd '%s' && '%s' -q part.blktrace.gz", tu_dir, parse());
		cr_assert_eq(rc, 0);
		cr_expect_str_eq(ours, theirs, "%s: blkparse reads the part as we do", devs[d]);
		/* printing with --dev is printing the part (times count from its start) */
		rc = tu_runf(&direct, NULL, NULL, "cd '%s' && '%s' -q --dev %s both.bin", tu_dir, parse(),
			     devs[d]);
		cr_assert_eq(rc, 0);
		cr_expect_str_eq(direct, ours, "%s: --dev prints what the part prints", devs[d]);
		char own[16];
		snprintf(own, sizeof own, "  %s ", devs[d]);
		cr_expect_eq(tu_count_lines(theirs, own), tu_count_lines(theirs, ""),
			     "%s: every line is its own device's:\n%s", devs[d], theirs);
		cr_expect_gt(tu_count_lines(theirs, "[both]"), 10, "%s: pid 300 is named", devs[d]);
		if (d == 0) {
			cr_expect_eq(tu_count_lines(theirs, "[writer-a]"), 4 * ROUNDS, "Q G I D");
			cr_expect_eq(tu_count_lines(theirs, "[reader-b]"), 0);
			cr_expect_eq(tu_count_lines(theirs, "blkreel: drops"), 1, "%s", theirs);
			cr_expect_eq(tu_count_lines(theirs, "note on b"), 0);
			/* A's first event (a remap, 5 ms into the whole trace) is at 0 */
			char *nl = strchr(theirs, '\n');
			cr_assert(nl);
			*nl = 0;
			cr_expect(strstr(theirs, " 0.000000000 ") && strstr(theirs, " A "), "%s", theirs);
			*nl = '\n';
		} else {
			cr_expect_eq(tu_count_lines(theirs, "[reader-b]"), 5 + 2 * ROUNDS, "Q D");
			cr_expect_eq(tu_count_lines(theirs, "[writer-a]"), 0);
			cr_expect_eq(tu_count_lines(theirs, "blkreel: drops"), 0,
				     "A's drops message is not B's");
			cr_expect_eq(tu_count_lines(theirs, "note on b"), 1);
		}
		free(ours);
		free(theirs);
		free(direct);
	}
}

/* The remap rule: a remap logged on dm whose IO went to A is A's and dm's,
 * not B's; a remap logged on A is A's only. */
Test(parse_dev, remap_belongs_to_where_the_io_went)
{
	trace in, m;
	make_trace(&in);
	write_trace(&in, tu_path("both.bin"));
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' --dev 253,0 both.bin -o m.bin", tu_dir,
			     parse()),
		     0);
	read_back(tu_path("m.bin"), &m);
	expect_part(&in, &m, OWN_M, "253,0");
	char counts[128];
	action_counts(&m, counts, sizeof counts);
	cr_expect_str_eq(counts, "Q0 G0 I0 D0 C0 A8");
	free(in.r);
	free(m.r);
}

/* Every output kind filters the same way: converting with --dev is
 * converting the part, byte for byte; so are --split, --info and text. */
Test(parse_dev, every_output_kind_keeps_only_the_device)
{
	trace in, s;
	make_trace(&in);
	write_trace(&in, tu_path("both.bin"));
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' --dev 7,4 both.bin -o b.bin", tu_dir,
			     parse()),
		     0);
	static const char *const kinds[] = { "csv", "iolog", "perfetto.json", "blktrace.gz" };
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char *err = NULL;
		int rc = tu_runf(NULL, NULL, &err,
				 "cd '%s' && '%s' --dev 7,4 both.bin -o x.%s && '%s' b.bin -o y.%s"
				 " && cmp x.%s y.%s && '%s' both.bin -o z.%s",
				 tu_dir, parse(), kinds[i], parse(), kinds[i], kinds[i], kinds[i], parse(),
				 kinds[i]);
		cr_expect_eq(rc, 0, "%s: %s", kinds[i], err);
		free(err);
		/* the unfiltered conversion differs, so the comparison means something */
		rc = tu_runf(NULL, NULL, NULL, "cd '%s' && cmp -s x.%s z.%s", tu_dir, kinds[i], kinds[i]);
		cr_expect_neq(rc, 0, "%s: --dev changed nothing", kinds[i]);
	}
	/* --split: a per-CPU set of the part (both CPUs), read back whole */
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' --dev 7,4 both.bin --split sb && '%s' sb -o sb.bin",
			 tu_dir, parse(), parse());
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	read_back(tu_path("sb.bin"), &s);
	struct stat st;
	cr_expect_eq(stat(tu_path("sb.blktrace.0"), &st), 0);
	cr_expect_eq(stat(tu_path("sb.blktrace.1"), &st), 0);
	size_t ios = 0;
	for (size_t i = 0; i < s.n; i++)
		if (!br_event_is_notify(&s.r[i].ev)) {
			cr_expect_eq(s.r[i].ev.device, DEV_B, "split record %zu", i);
			ios++;
		}
	cr_expect_eq(ios, 59 + 54 + 54);
	/* --info: the same summary as the part's, one device */
	char *info = NULL, *part = NULL;
	cr_assert_eq(tu_runf(&info, NULL, NULL, "cd '%s' && '%s' --info --dev 7,4 both.bin | sed -n '/^events:/,$p'",
			     tu_dir, parse()),
		     0);
	cr_assert_eq(tu_runf(&part, NULL, NULL, "cd '%s' && '%s' --info b.bin | sed -n '/^events:/,$p'",
			     tu_dir, parse()),
		     0);
	cr_expect_str_eq(info, part);
	cr_expect(strstr(info, "devices: 1\n"), "%s", info);
	free(info);
	cr_assert_eq(tu_runf(&info, NULL, NULL, "cd '%s' && '%s' --info -d 7,4 -d 7,3 both.bin", tu_dir,
			     parse()),
		     0);
	cr_expect(strstr(info, "\nkept: devices 7,4 7,3 (--dev), times from their first event\n"),
		  "the summary says it is of a part: %s", info);
	/* the summary counts a remap under the device it was logged on (dm) */
	cr_expect(strstr(info, "devices: 3\n"), "%s", info);
	cr_expect(strstr(info, "device 253,0: 8 events"), "%s", info);
	cr_expect(strstr(info, "device 7,4: 167 events"), "%s", info);
	free(info);
	free(part);
	/* two devices listed: both kept, the same as the whole input here */
	cr_expect_eq(tu_runf(NULL, NULL, NULL,
			     "cd '%s' && '%s' -d 7,3 --dev 7,4 both.bin -o ab.bin && '%s' both.bin -o all.bin"
			     " && cmp ab.bin all.bin",
			     tu_dir, parse(), parse()),
		     0);
	free(in.r);
	free(s.r);
}

/* A per-CPU set and the time window go through the same filter. */
Test(parse_dev, cpu_set_and_window)
{
	trace in;
	make_trace(&in);
	write_trace(&in, tu_path("both.bin"));
	free(in.r);
	char *err = NULL, *all = NULL, *window = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "cd '%s' && '%s' both.bin --split set && '%s' --dev 7,3 set -o a1.bin"
			 " && '%s' --dev 7,3 both.bin -o a2.bin && cmp a1.bin a2.bin",
			 tu_dir, parse(), parse(), parse());
	cr_expect_eq(rc, 0, "%s", err);
	free(err);
	/* the window counts from the device's first event, as in its part */
	rc = tu_runf(&window, NULL, NULL, "cd '%s' && '%s' -q --dev 7,3 --from 50us --to 200us both.bin",
		     tu_dir, parse());
	cr_assert_eq(rc, 0);
	rc = tu_runf(&all, NULL, NULL, "cd '%s' && '%s' -q --from 50us --to 200us a2.bin", tu_dir,
		     parse());
	cr_assert_eq(rc, 0);
	cr_expect_str_eq(window, all);
	cr_expect_gt(tu_count_lines(window, "  7,3 "), 5, "%s", window);
	free(all);
	free(window);
}

Test(parse_dev, bad_arguments_are_usage_errors)
{
	static const struct {
		const char *arg;
		const char *want;
	} cases[] = {
		{ "7", "--dev: '7' is not MAJ,MIN" },
		{ "x,y", "--dev: 'x,y' is not MAJ,MIN" },
		{ "7,", "--dev: '7,' is not MAJ,MIN" },
		{ ",3", "--dev: ',3' is not MAJ,MIN" },
		{ "7,3,1", "--dev: '7,3,1' is not MAJ,MIN" },
		{ "-7,3", "--dev: '-7,3' is not MAJ,MIN" },
		{ "4096,0", "--dev: '4096,0' is out of range" },
		{ "7,1048576", "--dev: '7,1048576' is out of range" },
		{ "99999999999999999999,1", "is not MAJ,MIN" },
	};
	trace in;
	make_trace(&in);
	write_trace(&in, tu_path("both.bin"));
	free(in.r);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out = NULL, *err = NULL;
		int rc = tu_runf(&out, NULL, &err, "cd '%s' && '%s' --dev='%s' both.bin -o o.blktrace.gz",
				 tu_dir, parse(), cases[i].arg);
		cr_expect_eq(rc, 2, "%s: exit %d", cases[i].arg, rc);
		cr_expect(strstr(err, cases[i].want), "%s: %s", cases[i].arg, err);
		cr_expect(strstr(err, "Try 'blkreel-parse --help'"), "%s", err);
		cr_expect_str_empty(out);
		struct stat st;
		cr_expect_neq(stat(tu_path("o.blktrace.gz"), &st), 0, "nothing written");
		free(out);
		free(err);
	}
	char *err = NULL;
	cr_expect_eq(tu_runf(NULL, NULL, &err, "'%s' both.bin -d", parse()), 2);
	cr_expect(strstr(err, "needs an argument"), "%s", err);
	free(err);
	/* 16 devices are fine (a repeat counts once), a 17th is not */
	char args[1024] = "";
	size_t n = 0;
	for (int d = 0; d < 16; d++)
		n += (size_t)snprintf(args + n, sizeof args - n, " -d 8,%d", d);
	n += (size_t)snprintf(args + n, sizeof args - n, " -d 8,0");
	cr_expect_eq(tu_runf(NULL, NULL, &err, "cd '%s' && '%s'%s --dev 7,3 both.bin -o a.bin", tu_dir,
			     parse(), args),
		     2);
	cr_expect(strstr(err, "--dev 7,3: at most 16 devices"), "%s", err);
	free(err);
	cr_expect_eq(tu_runf(NULL, NULL, &err, "cd '%s' && '%s'%s both.bin -o a.bin", tu_dir, parse(),
			     args),
		     1, "16 devices parse (none is in the trace)");
	cr_expect_eq(tu_count_lines(err, "warning: no events of device 8,"), 16, "%s", err);
	free(err);
}

/* A device that is not in the trace: its (empty) part is still written
 * and reads back, but it is said on stderr and the exit status is 1. */
Test(parse_dev, device_without_events_is_said)
{
	trace in, n, a;
	make_trace(&in);
	write_trace(&in, tu_path("both.bin"));
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err, "cd '%s' && '%s' --dev 7,9 both.bin -o n.blktrace.gz",
			 tu_dir, parse());
	cr_expect_eq(rc, 1);
	cr_expect_str_eq(err, "blkreel-parse: warning: no events of device 7,9 in the input\n");
	free(out);
	free(err);
	read_back(tu_path("n.blktrace.gz"), &n);
	for (size_t i = 0; i < n.n; i++)
		cr_expect(br_event_is_notify(&n.r[i].ev) && br_event_code(&n.r[i].ev) == __BLK_TN_PROCESS,
			  "record %zu: only process names", i);
	/* with a device that is there: its part is whole, the other is named */
	rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' --dev 7,9 --dev 7,3 both.bin -o a.blktrace.gz",
		     tu_dir, parse());
	cr_expect_eq(rc, 1);
	cr_expect_str_eq(err, "blkreel-parse: warning: no events of device 7,9 in the input\n");
	free(err);
	read_back(tu_path("a.blktrace.gz"), &a);
	expect_part(&in, &a, OWN_A, "7,3 with 7,9");
	/* text and --info say it too; outside the time window, it says so */
	rc = tu_runf(&out, NULL, &err, "cd '%s' && '%s' --dev 7,9 both.bin", tu_dir, parse());
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "no events of device 7,9 in the input"), "%s", err);
	free(out);
	free(err);
	rc = tu_runf(&out, NULL, &err, "cd '%s' && '%s' --info --dev 7:3 --from 10s both.bin", tu_dir,
		     parse());
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "no events of device 7,3 in the time window"), "%s", err);
	free(out);
	free(err);
	free(in.r);
	free(n.r);
	free(a.r);
}
