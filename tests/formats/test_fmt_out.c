/* The fio iolog and CSV outputs, byte for byte on a small blkparse text
 * input, and the tool's --input-format / --skip-bad behaviour. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"


TestSuite(fmt_out, .init = tu_dir_setup, .fini = tu_dir_teardown);

/* A write with its completion 2 ms later, a read never completed, a flush
 * (D FN) and its completion, a discard. */
static const char input[] =
	"  8,0    0        1     0.000000000   100  D   W 2048 + 8 [dd]\n"
	"  8,0    0        2     0.001000000   100  D   R 4096 + 16 [dd]\n"
	"  8,0    0        3     0.002000000     0  C   W 2048 + 8 [0]\n"
	"  8,0    0        4     0.003000000   200  D  FN [kworker/0:1H]\n"
	"  8,0    0        5     0.003500000     0  C  FN 0 [0]\n"
	"  8,16   1        6     0.004000000   300  D   D 8 + 2048 [fstrim]\n";

static char *convert(const char *ext)
{
	char in[1024], out[1024];
	snprintf(in, sizeof in, "%s/in.txt", tu_dir);
	snprintf(out, sizeof out, "%s/out.%s", tu_dir, ext);
	cr_assert_eq(tu_write_file(in, input, sizeof input - 1), 0);
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "%s --no-progress %s -o %s", tu_bin("blkreel-parse"), in, out);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	size_t len;
	char *text = (char *)tu_read_file(out, &len);
	cr_assert(text);
	text = realloc(text, len + 1);
	text[len] = 0;
	return text;
}

Test(fmt_out, csv_rows_latency_in_issue_order)
{
	char *csv = convert("csv");
	cr_expect_str_eq(csv,
		"time_ns,device,op,offset,bytes,latency_ns\n"
		"0,8:0,write,1048576,4096,2000000\n"
		"1000000,8:0,read,2097152,8192,\n"
		"3000000,8:0,flush,0,0,500000\n"
		"4000000,8:16,discard,4096,1048576,\n");
	free(csv);
}

Test(fmt_out, iolog_v3_for_fio)
{
	char *log = convert("iolog");
	cr_expect_str_eq(log,
		"fio version 3 iolog\n"
		"0 /dev/block/8:0 add\n"
		"0 /dev/block/8:0 open\n"
		"0 /dev/block/8:0 write 1048576 4096\n"
		"1000 /dev/block/8:0 read 2097152 8192\n"
		"3000 /dev/block/8:0 sync 0 0\n"
		"4000 /dev/block/8:16 add\n"
		"4000 /dev/block/8:16 open\n"
		"4000 /dev/block/8:16 trim 4096 1048576\n"
		"4000 /dev/block/8:0 close\n"
		"4000 /dev/block/8:16 close\n");
	free(log);
}

Test(fmt_out, iolog_round_trips_through_our_fio_reader)
{
	free(convert("iolog"));
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL, "%s --no-progress %s/out.iolog -o %s/back.csv && cat %s/back.csv",
			 tu_bin("blkreel-parse"), tu_dir, tu_dir, tu_dir);
	cr_assert_eq(rc, 0);
	/* files are renumbered 0,N; offsets, sizes, ops and µs times survive */
	cr_expect_str_eq(out,
		"time_ns,device,op,offset,bytes,latency_ns\n"
		"0,0:0,write,1048576,4096,\n"
		"1000000,0:0,read,2097152,8192,\n"
		"3000000,0:0,flush,0,0,\n"
		"4000000,0:1,discard,4096,1048576,\n");
	free(out);
}

Test(fmt_out, skip_bad_and_forced_format_on_the_command_line)
{
	char in[1024];
	snprintf(in, sizeof in, "%s/bad.trace", tu_dir);
	const char text[] = "1 0 0 8 1\n2 0 8 8 1\ngarbage here\n3 0 16 8 1\n";
	cr_assert_eq(tu_write_file(in, text, sizeof text - 1), 0);
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "%s --no-progress %s -o %s/x.csv", tu_bin("blkreel-parse"), in, tu_dir);
	cr_expect_eq(rc, 1);
	cr_expect(err && strstr(err, "line 3") && strstr(err, "byte 20"), "%s", err);
	free(err);
	char *out = NULL;
	rc = tu_runf(&out, NULL, NULL, "%s --no-progress --skip-bad --info %s", tu_bin("blkreel-parse"), in);
	cr_expect_eq(rc, 0);
	cr_expect(out && strstr(out, "malformed records skipped: 1"), "%s", out);
	free(out);
	/* forced: a DiskSim trace read as fio fails on its first line */
	rc = tu_runf(NULL, NULL, &err, "%s --no-progress --input-format fio %s -o %s/y.csv",
		     tu_bin("blkreel-parse"), in, tu_dir);
	cr_expect_eq(rc, 1);
	cr_expect(err && strstr(err, "line 1"), "%s", err);
	free(err);
	rc = tu_runf(NULL, NULL, NULL, "%s --input-format nosuch %s", tu_bin("blkreel-parse"), in);
	cr_expect_eq(rc, 2);
}
