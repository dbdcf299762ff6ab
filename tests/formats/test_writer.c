/* Writers: per-CPU sets blkparse can read (gaps filled), stream output,
 * abort removes what was written, bad arguments. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blkreel/reader.h"
#include "blkreel/writer.h"
#include "testutil.h"
#include "tracegen.h"


TestSuite(writer, .init = tu_dir_setup, .fini = tu_dir_teardown);

static bool exists(const char *fmt, const char *a)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof p, fmt, tu_dir, a);
	return stat(p, &st) == 0;
}

Test(writer, split_routes_by_cpu_and_fills_gaps)
{
	char base[1024];
	snprintf(base, sizeof base, "%s/set", tu_dir);
	br_writer *w;
	br_error err;
	cr_assert_eq(br_writer_open(&w, BR_OUT_SPLIT, base, NULL, &err), 0);
	uint32_t cpus[] = { 0, 3, 0, 3 };
	for (int i = 0; i < 4; i++) {
		br_event ev = tg_io((uint64_t)i * 10, BR_MKDEV(8, 0), cpus[i], TG_Q_W, 8, 4096, 5);
		cr_assert_eq(br_writer_write(w, &ev, &err), 0);
	}
	cr_expect_eq(br_writer_events(w), 4);
	cr_assert_eq(br_writer_close(w, &err), 0);
	for (int cpu = 0; cpu < 4; cpu++) {
		char name[16];
		snprintf(name, sizeof name, "%d", cpu);
		cr_expect(exists("%s/set.blktrace.%s", name), "cpu %d file exists", cpu);
	}
	cr_expect_not(exists("%s/set.blktrace.%s", "4"));
	br_reader *r;
	const char *p[] = { base };
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0);
	br_event ev;
	int n = 0;
	while (br_reader_next(r, &ev, &err) == 1) {
		cr_expect_eq(ev.cpu, cpus[n]);
		n++;
	}
	cr_expect_eq(n, 4);
	br_reader_close(r);
	if (tu_have("blkparse")) {
		char *out = NULL;
		cr_assert_eq(tu_runf(&out, NULL, NULL, "cd '%s' && blkparse -q -i set | grep -c ' Q '", tu_dir), 0);
		cr_expect_eq(atoi(out), 4, "blkparse reads all CPUs past the gap");
		free(out);
	}
}

Test(writer, abort_removes_outputs)
{
	static const enum br_output_kind kinds[] = { BR_OUT_STREAM, BR_OUT_SPLIT, BR_OUT_COMPRESSED };
	static const char *names[] = { "s.bin", "split", "c.blktrace.gz" };
	for (int k = 0; k < 3; k++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", tu_dir, names[k]);
		br_writer *w;
		br_error err;
		cr_assert_eq(br_writer_open(&w, kinds[k], path, NULL, &err), 0, "%s", err.msg);
		for (int i = 0; i < 100; i++) {
			br_event ev = tg_io((uint64_t)i, BR_MKDEV(8, 0), (uint32_t)i % 2, TG_Q_R, 8, 512, 1);
			cr_assert_eq(br_writer_write(w, &ev, &err), 0);
		}
		br_writer_abort(w);
		cr_expect_not(exists("%s/%s", names[k]), "%s removed", names[k]);
		if (kinds[k] == BR_OUT_SPLIT) {
			cr_expect_not(exists("%s/%s.blktrace.0", names[k]));
			cr_expect_not(exists("%s/%s.blktrace.1", names[k]));
		}
	}
}

Test(writer, kinds_levels_and_bad_arguments)
{
	cr_expect_eq(br_output_kind_for_path("x.blktrace.gz"), BR_OUT_COMPRESSED);
	cr_expect_eq(br_output_kind_for_path("x.bin"), BR_OUT_STREAM);
	br_writer *w;
	br_error err;
	br_writer_opts bad = { .level = 11 };
	char path[1024];
	snprintf(path, sizeof path, "%s/x.blktrace.gz", tu_dir);
	cr_expect_eq(br_writer_open(&w, BR_OUT_COMPRESSED, path, &bad, &err), BR_EINVAL);
	cr_expect_eq(br_writer_open(&w, BR_OUT_SPLIT, "-", NULL, &err), BR_EINVAL);
	snprintf(path, sizeof path, "%s/no/such/dir/x.bin", tu_dir);
	cr_expect_eq(br_writer_open(&w, BR_OUT_STREAM, path, NULL, &err), BR_ESYS);
	cr_expect_str_eq(err.file, path);
	/* a pdu longer than any record may carry */
	snprintf(path, sizeof path, "%s/ok.bin", tu_dir);
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, path, NULL, &err), 0);
	uint8_t pdu[8] = { 0 };
	br_event ev = tg_io(1, BR_MKDEV(8, 0), 0, TG_Q_R, 8, 512, 1);
	ev.pdu = pdu;
	ev.pdu_len = BR_PDU_MAX + 1;
	cr_expect_eq(br_writer_write(w, &ev, &err), BR_EINVAL);
	cr_expect_eq(br_writer_close(w, &err), 0);
}

Test(writer, full_disk_is_an_error_with_offset)
{
	struct stat st;
	if (stat("/dev/full", &st) != 0)
		cr_skip_test("no /dev/full");
	br_writer *w;
	br_error err;
	cr_assert_eq(br_writer_open(&w, BR_OUT_STREAM, "/dev/full", NULL, &err), 0);
	int rc = 0;
	for (int i = 0; i < 100000 && !rc; i++) {
		br_event ev = tg_io((uint64_t)i, BR_MKDEV(8, 0), 0, TG_Q_R, 8, 512, 1);
		rc = br_writer_write(w, &ev, &err);
	}
	if (!rc)
		rc = br_writer_close(w, &err);
	else
		br_writer_close(w, &(br_error){ 0 });
	cr_expect_eq(rc, BR_ESYS);
	cr_expect_str_eq(err.file, "/dev/full");
	cr_expect_geq(err.offset, 0);
}
