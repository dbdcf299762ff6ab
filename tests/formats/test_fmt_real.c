/* Every real third-party trace in ../shared/realtraces converts to our
 * compressed file and back out (as CSV, one row per IO) with the IO
 * count, span, first and last IO checked by hand (awk/zcat over the
 * originals); fio replays our iolog of it with the same number of IOs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct real_case {
	const char *rel;
	size_t ios;
	const char *first;   /* first CSV row (time 0) */
	const char *last;    /* last CSV row; its time is the span */
	size_t fio_ios;      /* IOs fio issues replaying our iolog, when not ios */
} real_case;

/* Offsets are sector * 512 and sizes sectors * 512 from the originals. */
static const real_case cases[] = {
	{ "schoebel_blkreplay/linux-mysql.load.gz", 80794,
	  "0,0:0,write,19336628736,32768,", "3599890074831,0:0,read,4081242112,4096," },
	{ "schoebel_blkreplay/linux-webserver-2.load.gz", 269007,
	  "0,0:0,read,246783623168,8192,", "3600949630130,0:0,read,280625766400,65536," },
	{ "schoebel_blkreplay/windows-mssql.load.gz", 42976,
	  "0,0:0,write,25261650944,1536,", "3062338015914,0:0,write,6750163456,4096," },
	{ "schoebel_blkreplay/windows-shared-server.load.gz", 1371,
	  "0,0:0,write,3222310912,4096,", "3597137874735,0:0,write,3222310912,4096," },
	{ "CMU-SAFARI_MQSim/tpcc-small.trace", 6999,
	  "0,0:4,write,135536145408,8192,", "136489000,0:7,write,81949365248,8192," },
	{ "CMU-SAFARI_MQSim/wsrch-small.trace", 24783,
	  "0,0:0,read,336756736,8192,", "60055212000,0:1,read,17598169088,32768," },
	{ "axboe_fio/t0038.iolog", 20,
	  "0,0:0,discard,0,2147483648,", "73000,0:0,write,36864,4096,",
	  /* fio's null engine skips the 10 trims, of the original log too */
	  10 },
	/* 142 issues; the first write completes 23.549326 ms later */
	{ "OxDeadmeat_blktrace_merge/nvme0n1.blktrace.txt", 142,
	  "0,259:0,write,390840786944,8192,23549326",
	  "25017676565,259:0,write,303255384064,4096,375871" },
	{ "takeoverjp_blktrace_viewer/sample.blktrace.0", 963,
	  "0,259:0,read,1202206945280,4096,55316", "345487394,259:0,read,1196380966912,4096,52783" },
};

static void check_case(const real_case *c)
{
	const char *in = tu_realtrace(c->rel);
	if (!in)
		cr_skip_test("../shared/realtraces/%s is absent", c->rel);
	char *dir = tu_tmpdir();
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "%s --no-progress '%s' -o %s/x.blktrace.gz",
			 tu_bin("blkreel-parse"), in, dir);
	cr_assert_eq(rc, 0, "%s: convert failed: %s", c->rel, err);
	free(err);
	rc = tu_runf(NULL, NULL, &err, "%s --no-progress %s/x.blktrace.gz -o %s/x.csv",
		     tu_bin("blkreel-parse"), dir, dir);
	cr_assert_eq(rc, 0, "%s: back out failed: %s", c->rel, err);
	free(err);
	char path[1024];
	snprintf(path, sizeof path, "%s/x.csv", dir);
	size_t len;
	char *csv = (char *)tu_read_file(path, &len);
	cr_assert(csv);
	size_t rows = 0;
	for (size_t i = 0; i < len; i++)
		rows += csv[i] == '\n';
	cr_expect_eq(rows - 1, c->ios, "%s: %zu IOs, want %zu", c->rel, rows - 1, c->ios);
	char *first = strchr(csv, '\n') + 1;
	cr_expect(strncmp(first, c->first, strlen(c->first)) == 0 && first[strlen(c->first)] == '\n',
		  "%s: first row %.80s, want %s", c->rel, first, c->first);
	csv[len - 1] = 0;
	char *last = strrchr(csv, '\n') + 1;
	cr_expect_str_eq(last, c->last, "%s: last row", c->rel);
	free(csv);

	/* fio replays our iolog: the same number of IOs, on the null engine */
	if (tu_have("fio") && c->ios < 50000) {
		rc = tu_runf(NULL, NULL, NULL, "%s --no-progress %s/x.blktrace.gz -o %s/x.iolog",
			     tu_bin("blkreel-parse"), dir, dir);
		cr_assert_eq(rc, 0);
		char *out = NULL;
		rc = tu_runf(&out, NULL, NULL,
			     "fio --name=replay --read_iolog=%s/x.iolog --ioengine=null "
			     "--replay_no_stall=1 | grep -o 'issued rwts: total=[0-9,]*'", dir);
		cr_assert_eq(rc, 0, "%s: fio rejected our iolog", c->rel);
		/* "issued rwts: total=READS,WRITES,TRIMS,SYNCS" */
		unsigned long long n = 0;
		char *f = out ? strchr(out, '=') : NULL;
		for (int i = 0; f && i < 4; i++) {
			n += strtoull(f + 1, &f, 10);
			if (*f != ',')
				break;
		}
		free(out);
		size_t want = c->fio_ios ? c->fio_ios : c->ios;
		cr_expect_eq(n, want, "%s: fio issued %llu IOs, want %zu", c->rel, n, want);
	}
	tu_tmpdir_remove(dir);
}

Test(fmt_real, blkreplay_mysql) { check_case(&cases[0]); }
Test(fmt_real, blkreplay_webserver) { check_case(&cases[1]); }
Test(fmt_real, blkreplay_mssql) { check_case(&cases[2]); }
Test(fmt_real, blkreplay_fileserver) { check_case(&cases[3]); }
Test(fmt_real, disksim_tpcc) { check_case(&cases[4]); }
Test(fmt_real, disksim_websearch) { check_case(&cases[5]); }
Test(fmt_real, fio_iolog) { check_case(&cases[6]); }
Test(fmt_real, blkparse_text) { check_case(&cases[7]); }
Test(fmt_real, blktrace_binary) { check_case(&cases[8]); }

/* blkparse text: every event line printed back byte for byte. */
Test(fmt_real, blkparse_text_round_trip)
{
	const char *in = tu_realtrace("OxDeadmeat_blktrace_merge/nvme0n1.blktrace.txt");
	if (!in)
		cr_skip_test("../shared/realtraces is absent");
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
		     "bash -c \"cmp <(grep -E '^ *[0-9]+,[0-9]+ ' '%s') <(%s --no-progress '%s' | grep -E '^ *[0-9]+,[0-9]+ ') && echo same\"",
		     in, tu_bin("blkreel-parse"), in);
	cr_expect_eq(rc, 0);
	cr_expect(out && strstr(out, "same"), "event lines differ");
	free(out);
}

/* Another tool's merge output is not blkparse text: named as such. */
Test(fmt_real, merged_txt_is_refused)
{
	const char *in = tu_realtrace("OxDeadmeat_blktrace_merge/nvme0n1.blktrace.merged.txt");
	if (!in)
		cr_skip_test("../shared/realtraces is absent");
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "%s --no-progress --info '%s'", tu_bin("blkreel-parse"), in);
	cr_expect_eq(rc, 1);
	cr_expect(err && strstr(err, "no format blkreel reads"), "%s", err);
	free(err);
}
