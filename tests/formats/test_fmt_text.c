/* The foreign text readers, one small hand-written input per case with the
 * answer worked out by hand: unit conversions (filetime, ms/ns, seconds,
 * sectors vs bytes), read/write flags, response times present or missing,
 * process names, remaps; and bad input (truncated lines, garbage, absurd
 * numbers) → an error naming line and byte offset, or counted with
 * skip_bad. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "blkreel/reader.h"
#include "testutil.h"

#define MAXEV 64

typedef struct got {
	size_t n;
	br_event ev[MAXEV];
	char comm[MAXEV][16];
	uint8_t pdu[MAXEV][32];
	const br_input_info *info;
	br_reader *r;
	int rc;             /* 0, or the open/next error */
	br_error err;
} got;


static const char *write_input(const char *name, const char *text)
{
	static char path[1024];
	snprintf(path, sizeof path, "%s/%s", tu_dir, name);
	cr_assert_eq(tu_write_file(path, text, strlen(text)), 0);
	return path;
}

/* Read everything (notify records included). */
static void read_all(got *g, const char *path, const char *format, bool skip_bad)
{
	memset(g, 0, sizeof *g);
	br_reader_opts o = { .threads = 1, .format = format, .skip_bad = skip_bad };
	const char *paths[] = { path };
	g->rc = br_reader_open(&g->r, paths, 1, &o, &g->err);
	if (g->rc)
		return;
	br_event ev;
	int rc;
	while ((rc = br_reader_next(g->r, &ev, &g->err)) == 1) {
		if (g->n >= MAXEV) { /* long inputs: count only */
			g->n++;
			continue;
		}
		g->ev[g->n] = ev;
		if (ev.comm)
			snprintf(g->comm[g->n], 16, "%s", ev.comm);
		if (ev.pdu_len) {
			memcpy(g->pdu[g->n], ev.pdu, ev.pdu_len < 32 ? ev.pdu_len : 32);
			g->ev[g->n].pdu = g->pdu[g->n]; /* the reader's copy goes on the next call */
		}
		g->n++;
	}
	g->rc = rc;
	g->info = br_reader_input(g->r, 0);
}

static void done(got *g)
{
	br_reader_close(g->r);
}

static bool is_issue(const br_event *ev)
{
	return !br_event_is_notify(ev) && br_event_code(ev) == __BLK_TA_ISSUE;
}

static bool is_complete(const br_event *ev)
{
	return !br_event_is_notify(ev) && br_event_code(ev) == __BLK_TA_COMPLETE;
}

TestSuite(fmt_text, .init = tu_dir_setup, .fini = tu_dir_teardown);

/* ---- MSR Cambridge ---------------------------------------------------------- */

Test(fmt_text, msr_filetime_bytes_response)
{
	/* 128166372003061629 ticks since 1601 = 11721636003061629 ticks after
	 * 1970 = 1172163600306162900 ns; 4141 ticks = 414100 ns. */
	const char *p = write_input("a.csv",
		"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
		"128166372003061629,hm,1,Read,3153920,4096,4141\n"
		"128166372003061630,prxy,0,Write,512,1024,\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_str_eq(g.info->format_name, "MSR Cambridge CSV");
	cr_assert(g.info->kind == BR_INPUT_FOREIGN);
	cr_assert(g.info->note && strstr(g.info->note, "one event per IO"));
	cr_assert_eq(g.n, 3); /* D, D, C (the second IO has no response time) */
	cr_expect(is_issue(&g.ev[0]) && br_event_is_read(&g.ev[0]));
	cr_expect_eq(g.ev[0].time, 1172163600306162900ull);
	cr_expect_eq(g.ev[0].sector, 3153920 / 512);
	cr_expect_eq(g.ev[0].bytes, 4096);
	cr_expect_eq(g.ev[0].device, BR_MKDEV(0, 1)); /* host hm = 0, disk 1 */
	cr_expect(is_issue(&g.ev[1]) && br_event_is_write(&g.ev[1]));
	cr_expect_eq(g.ev[1].time, 1172163600306163000ull);
	cr_expect_eq(g.ev[1].device, BR_MKDEV(1, 0)); /* host prxy = 1 */
	cr_expect_eq(g.ev[1].sector, 1);
	cr_expect(is_complete(&g.ev[2]));
	cr_expect_eq(g.ev[2].time, 1172163600306162900ull + 414100);
	cr_expect_eq(g.ev[2].sector, g.ev[0].sector);
	done(&g);
}

Test(fmt_text, msr_misaligned_offset_is_an_error_with_line_and_offset)
{
	const char *line1 = "128166372003061629,hm,1,Read,3153920,4096,4141\n";
	char text[256];
	snprintf(text, sizeof text, "%s%s", line1, "128166372003061640,hm,1,Read,3154176,4096,4141\n");
	const char *p = write_input("b.csv", text);
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, BR_EFORMAT);
	cr_expect(strstr(g.err.msg, "line 2"), "%s", g.err.msg);
	cr_expect(strstr(g.err.msg, "multiple of 512"), "%s", g.err.msg);
	cr_expect_eq(g.err.offset, (int64_t)strlen(line1));
	done(&g);
	read_all(&g, p, NULL, true);
	cr_assert_eq(g.rc, 0);
	cr_expect_eq(g.info->bad_records_skipped, 1);
	cr_expect_eq(g.n, 2);
	done(&g);
}

/* ---- FIU ----------------------------------------------------------------------- */

Test(fmt_text, fiu_process_names_and_devices)
{
	const char *p = write_input("a.fiu",
		"89966527888326 4820 syslogd 46661448 8 W 6 0 4a4ff4d3f1a4a67e6c5bbbc1fc21e8e5\n"
		"89966527999999 4821 bash 100 16 R 8 16 00000000000000000000000000000000 "
		"11111111111111111111111111111111\n");
	got g;
	read_all(&g, p, "fiu", false);
	cr_assert_eq(g.rc, BR_EFORMAT, "two hashes are one field too many");
	cr_expect(strstr(g.err.msg, "line 2"), "%s", g.err.msg);
	done(&g);
	p = write_input("b.fiu",
		"89966527888326 4820 syslogd 46661448 8 W 6 0 4a4ff4d3f1a4a67e6c5bbbc1fc21e8e5\n"
		"89966527999999 4821 bash 100 16 R 8 16 00000000000000000000000000000000\n");
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_str_eq(g.info->format_name, "FIU trace");
	cr_assert_eq(g.n, 4); /* name, D, name, D */
	cr_expect(br_event_is_notify(&g.ev[0]));
	cr_expect(is_issue(&g.ev[1]) && br_event_is_write(&g.ev[1]));
	cr_expect_eq(g.ev[1].time, 89966527888326ull);
	cr_expect_eq(g.ev[1].pid, 4820);
	cr_expect_str_eq(g.comm[1], "syslogd");
	cr_expect_eq(g.ev[1].device, BR_MKDEV(6, 0));
	cr_expect_eq(g.ev[1].sector, 46661448);
	cr_expect_eq(g.ev[1].bytes, 8 * 512);
	cr_expect(is_issue(&g.ev[3]) && br_event_is_read(&g.ev[3]));
	cr_expect_str_eq(g.comm[3], "bash");
	cr_expect_eq(g.ev[3].device, BR_MKDEV(8, 16));
	done(&g);
}

/* ---- DiskSim ------------------------------------------------------------------ */

Test(fmt_text, disksim_ms_and_ns_and_flags)
{
	const char *p = write_input("a.trace", "0.125 2 100 8 1\n0.25 3 200 16 0\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_str_eq(g.info->format_name, "DiskSim ASCII");
	cr_expect(strstr(g.info->note, "milliseconds"), "%s", g.info->note);
	cr_assert_eq(g.n, 2); /* no response time: no C */
	cr_expect_eq(g.ev[0].time, 125000);
	cr_expect(br_event_is_read(&g.ev[0]));
	cr_expect_eq(g.ev[0].device, BR_MKDEV(0, 2));
	cr_expect_eq(g.ev[0].sector, 100);
	cr_expect_eq(g.ev[0].bytes, 4096);
	cr_expect_eq(g.ev[1].time, 250000);
	cr_expect(br_event_is_write(&g.ev[1]));
	done(&g);
	p = write_input("b.trace", "938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n");
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0);
	cr_expect(strstr(g.info->note, "nanoseconds"), "%s", g.info->note);
	cr_expect_eq(g.ev[0].time, 938513000);
	cr_expect_eq(g.ev[1].time, 938828000);
	done(&g);
}

Test(fmt_text, disksim_bad_lines)
{
	static const char *const bad[] = {
		"938513000 4 264719034\n",                       /* truncated */
		"938513000 4 264719034 16 0 junk\n",             /* garbage after */
		"938513000 4 264719034 99999999999999999999 0\n", /* absurd size */
		"938513000 4 264719034 16x 0\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, "1 0 0 8 1\n%s", bad[i]);
		const char *p = write_input("bad.trace", text);
		got g;
		read_all(&g, p, "disksim", false);
		cr_expect_eq(g.rc, BR_EFORMAT, "case %zu", i);
		cr_expect(strstr(g.err.msg, "line 2"), "case %zu: %s", i, g.err.msg);
		cr_expect_eq(g.err.offset, 10, "case %zu", i);
		done(&g);
	}
}

/* ---- blkreplay ------------------------------------------------------------------- */

Test(fmt_text, blkreplay_header_response_and_flags)
{
	const char *p = write_input("a.load",
		"Some licence text; with a semicolon\n\n"
		"start ; sector; length ; op ;  replay_delay=0 ; replay_duration=0\n"
		"      1.500000000 ;     100 ;    8 ; W ; 0.0 ; 0.002\n"
		"      1.600000000 ;     300 ;   16 ;RA ; 0.0 ; 0.0\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_str_eq(g.info->format_name, "blkreplay load");
	cr_assert_eq(g.n, 3);
	cr_expect(is_issue(&g.ev[0]) && br_event_is_write(&g.ev[0]));
	cr_expect_eq(g.ev[0].time, 1500000000ull);
	cr_expect_eq(g.ev[0].sector, 100);
	cr_expect_eq(g.ev[0].bytes, 4096);
	cr_expect(is_complete(&g.ev[1]), "C at 1.502 s before the D at 1.6 s");
	cr_expect_eq(g.ev[1].time, 1502000000ull);
	cr_expect(is_issue(&g.ev[2]) && br_event_is_read(&g.ev[2]));
	cr_expect(g.ev[2].action & BLK_TC_ACT(BLK_TC_AHEAD));
	done(&g);
}

Test(fmt_text, blkreplay_gzip_is_detected)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/a.load.gz", tu_dir);
	gzFile z = gzopen(path, "wb");
	cr_assert(z);
	gzputs(z, "licence\nstart ; sector; length ; op ; replay_delay=0 ; replay_duration=0\n"
		  "  0.000000001 ; 8 ; 8 ; R ; 0.0 ; 0.0\n");
	gzclose(z);
	got g;
	read_all(&g, path, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_expect_str_eq(g.info->format_name, "blkreplay load (gzip)");
	cr_assert_eq(g.n, 1);
	cr_expect_eq(g.ev[0].time, 1);
	cr_expect_eq(g.ev[0].sector, 8);
	done(&g);
}

Test(fmt_text, blkreplay_bad_op)
{
	const char *p = write_input("b.load", "  0.1 ; 8 ; 8 ; R ; 0.0 ; 0.0\n  0.2 ; 8 ; 8 ; X ; 0.0 ; 0.0\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_expect_eq(g.rc, BR_EFORMAT);
	cr_expect(strstr(g.err.msg, "line 2") && strstr(g.err.msg, "bad op"), "%s", g.err.msg);
	done(&g);
}

/* ---- fio iolog ----------------------------------------------------------------------- */

Test(fmt_text, fio_v2_waits_and_files)
{
	const char *p = write_input("a.iolog",
		"fio version 2 iolog\n/dev/sdb add\n/dev/sdc add\n/dev/sdb open\n"
		"/dev/sdb write 4096 8192\n/dev/sdb wait 1000\n/dev/sdc read 0 512\n"
		"/dev/sdc trim 1048576 4096\n/dev/sdb sync 0 0\n/dev/sdb close\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_str_eq(g.info->format_name, "fio iolog");
	cr_assert_eq(g.n, 4);
	cr_expect(br_event_is_write(&g.ev[0]));
	cr_expect_eq(g.ev[0].time, 0);
	cr_expect_eq(g.ev[0].sector, 8);
	cr_expect_eq(g.ev[0].bytes, 8192);
	cr_expect_eq(g.ev[0].device, BR_MKDEV(0, 0));
	cr_expect(br_event_is_read(&g.ev[1]));
	cr_expect_eq(g.ev[1].time, 1000000); /* wait 1000 us */
	cr_expect_eq(g.ev[1].device, BR_MKDEV(0, 1));
	cr_expect(br_event_is_discard(&g.ev[2]));
	cr_expect_eq(g.ev[2].sector, 2048);
	cr_expect(br_event_is_flush(&g.ev[3]) && g.ev[3].bytes == 0);
	done(&g);
}

Test(fmt_text, fio_v3_bad_lines_and_skip_bad)
{
	const char *p = write_input("b.iolog",
		"fio version 3 iolog\n10 /dev/null add\n20 /dev/null write 0 4096\n"
		"30 /dev/null write 100 4096\n"          /* not sector aligned */
		"40 /dev/null wait 10\n"                 /* not allowed in v3 */
		"50 /dev/null write 4096\n"              /* truncated */
		"60 /dev/null frobnicate 0 4096\n"       /* garbage */
		"99999999999999999999999 /dev/null write 0 1\n" /* absurd */
		"70 /dev/null read 8192 4096\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, BR_EFORMAT);
	cr_expect(strstr(g.err.msg, "line 4"), "%s", g.err.msg);
	cr_expect_eq(g.err.offset, (int64_t)strlen("fio version 3 iolog\n10 /dev/null add\n20 /dev/null write 0 4096\n"));
	done(&g);
	read_all(&g, p, NULL, true);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_expect_eq(g.info->bad_records_skipped, 5);
	cr_assert_eq(g.n, 2);
	cr_expect_eq(g.ev[0].time, 20000);
	cr_expect_eq(g.ev[1].time, 70000);
	done(&g);
}

Test(fmt_text, fio_needs_its_header)
{
	const char *p = write_input("c.iolog", "10 /dev/null add\n");
	got g;
	read_all(&g, p, "fio", false);
	cr_expect_eq(g.rc, BR_EFORMAT);
	cr_expect(strstr(g.err.msg, "line 1"), "%s", g.err.msg);
	done(&g);
}

/* ---- blkparse text ------------------------------------------------------------------------ */

Test(fmt_text, blkparse_fields_remap_error_summary)
{
	const char *p = write_input("a.txt",
		"#Maj,Mn CPU SeqNo Seconds PID Evt Typ Sector +Len Description\n"
		"259,0    3        1     0.000000000  1867  A   W 746579600 + 8 <- (253,3) 578805392\n"
		"259,0    3        2     0.000000299  1867  Q  WS 763360912 + 8 [dmcrypt_write/2]\n"
		"259,0    3        3     0.000005809  1867  P   N [dmcrypt_write/2]\n"
		"259,0   11        4     0.024133625   612  D  FN [kworker/11:1H]\n"
		"259,0   11        5     0.024899010     0  C  FN 0 [0]\n"
		"  8,16   0        6     1.000000000     0  C   R 2048 + 8 [5]\n"
		"259,0    3        7     1.500000000  1867  U   N [dmcrypt_write/2] 3\n"
		"CPU3 (nvme0n1):\n"
		" Reads Queued:           0,        0KiB\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_str_eq(g.info->format_name, "blkparse text");
	size_t k = 0;
	br_event *e[16];
	for (size_t i = 0; i < g.n; i++)
		if (!br_event_is_notify(&g.ev[i]))
			e[k++] = &g.ev[i];
	cr_assert_eq(k, 7);
	uint32_t from_dev;
	uint64_t from_sec;
	cr_expect(br_event_remap(e[0], &from_dev, &from_sec));
	cr_expect_eq(from_dev, BR_MKDEV(253, 3));
	cr_expect_eq(from_sec, 578805392);
	cr_expect_eq(br_event_display_device(e[0]), BR_MKDEV(259, 0));
	cr_expect_eq(e[0]->sequence, 1);
	cr_expect_eq(e[0]->cpu, 3);
	cr_expect_eq(e[0]->bytes, 4096);
	char rwbs[BR_RWBS_MAX];
	cr_expect_str_eq(br_event_rwbs(e[1], rwbs), "WS");
	cr_expect_eq(e[1]->time, 299);
	cr_expect_eq(e[1]->pid, 1867);
	cr_expect_str_eq(e[1]->comm, "dmcrypt_write/2");
	cr_expect_str_eq(br_event_rwbs(e[3], rwbs), "FN");
	cr_expect(is_complete(e[4]) && e[4]->bytes == 0 && e[4]->sector == 0);
	cr_expect_eq(e[5]->device, BR_MKDEV(8, 16));
	cr_expect_eq(e[5]->error, 5);
	cr_expect_eq(e[5]->time, 1000000000ull);
	cr_expect_eq(br_event_code(e[6]), __BLK_TA_UNPLUG_IO);
	cr_expect_eq(e[6]->pdu_len, 8);
	done(&g);
}

/* Text from a 2.6-era blkparse: barrier writes print "WBS" (BLK_TC_BARRIER,
 * the bit later renamed FLUSH), and kernel output has "DE" for a secure
 * erase. Both read, mapped to the nearest categories, and --info's note
 * says what was mapped and how often. */
Test(fmt_text, blkparse_older_rwbs_letters)
{
	const char *p = write_input("old.txt",
		"  8,0    0        1     0.000000000  4711  Q  WBS 1024 + 8 [kjournald]\n"
		"  8,0    0        2     0.000002000  4711  D  WBS 1024 + 8 [kjournald]\n"
		"  8,0    0        3     0.000400000     0  C  WBS 1024 + 8 [0]\n"
		"  8,0    1        1     0.001000000  4712  Q  RBM 2048 + 8 [ext3]\n"
		"  8,0    1        2     0.002000000  4713  D  DE 4096 + 2048 [blkdiscard]\n"
		"  8,0    1        3     0.003000000  4714  Q   W 8192 + 8 [dd]\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	br_event *e[8];
	size_t k = 0;
	for (size_t i = 0; i < g.n && k < 8; i++)
		if (!br_event_is_notify(&g.ev[i]))
			e[k++] = &g.ev[i];
	cr_assert_eq(k, 6);
	uint32_t barrier_write = BLK_TC_ACT(BLK_TC_WRITE | BLK_TC_FLUSH | BLK_TC_SYNC);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(e[i]->action & barrier_write, barrier_write, "line %d", i + 1);
	char rwbs[BR_RWBS_MAX];
	cr_expect_str_eq(br_event_rwbs(e[0], rwbs), "FWS"); /* how blkparse prints a flush now */
	cr_expect(e[3]->action & BLK_TC_ACT(BLK_TC_META));
	cr_expect(br_event_is_discard(e[4]) && e[4]->bytes == 2048 * 512);
	cr_expect_str_eq(br_event_rwbs(e[5], rwbs), "W");
	cr_assert_not_null(g.info->note);
	cr_expect(strstr(g.info->note, "B (barrier) -> F (flush) on 4 lines"), "%s", g.info->note);
	cr_expect(strstr(g.info->note, "E (secure erase) -> D (discard) on 1 lines"), "%s", g.info->note);
	done(&g);
	/* E only follows a discard; a letter no version printed stays an error */
	static const char *const bad[] = { "  8,0    0        1     0.000000000  1  Q  WE 1 + 8 [x]\n",
					   "  8,0    0        1     0.000000000  1  Q  WBX 1 + 8 [x]\n" };
	for (size_t i = 0; i < 2; i++) {
		p = write_input("bad_old.txt", bad[i]);
		read_all(&g, p, NULL, false);
		cr_expect_neq(g.rc, 0, "%s accepted", bad[i]);
		cr_expect(strstr(g.err.msg, "bad RWBS"), "%s", g.err.msg);
		done(&g);
	}
}

Test(fmt_text, blkparse_bad_lines)
{
	static const char *const bad[] = {
		"259,0    3        2     0.000000299\n",                      /* truncated */
		"259,0    3        2     0.000000299  1867  Z  WS 1 + 8 [x]\n", /* bad action */
		"259,0    3        2     0.000000299  1867  Q  WQ 1 + 8 [x]\n", /* bad RWBS */
		"259,0    3        2     0.000000299  1867  Q  WS 1 + 99999999999 [x]\n",
		"259,0    3 99999999999  0.000000299  1867  Q  WS 1 + 8 [x]\n",
		"259,0    3        2     0.000000299  1867  A   W 1 + 8 <- (253,3\n",
		"\x01\x02garbage\n",
	};
	const char *first = "259,0    3        1     0.000000000  1867  Q   W 1 + 8 [x]\n";
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "%s%s", first, bad[i]);
		const char *p = write_input("bad.txt", text);
		got g;
		read_all(&g, p, "blkparse", false);
		cr_expect_eq(g.rc, BR_EFORMAT, "case %zu", i);
		cr_expect(strstr(g.err.msg, "line 2"), "case %zu: %s", i, g.err.msg);
		cr_expect_eq(g.err.offset, (int64_t)strlen(first), "case %zu", i);
		done(&g);
	}
}

/* ---- ordering --------------------------------------------------------------------------------- */

Test(fmt_text, completions_sorted_among_later_issues)
{
	/* long responses: each C lands after several later D's */
	char text[4096] = "";
	for (int i = 0; i < 20; i++) {
		char line[128];
		snprintf(line, sizeof line, "%d.000000000 ; %d ; 8 ; W ; 0.0 ; 5.5\n", i, i * 8);
		strcat(text, line);
	}
	const char *p = write_input("o.load", text);
	got g;
	read_all(&g, p, "blkreplay", false);
	cr_assert_eq(g.rc, 0, "%s", g.err.msg);
	cr_assert_eq(g.n, 40);
	for (size_t i = 1; i < g.n; i++)
		cr_expect_geq(g.ev[i].time, g.ev[i - 1].time, "event %zu", i);
	done(&g);
}

Test(fmt_text, far_out_of_order_is_an_error)
{
	size_t n = 5000;
	size_t cap = n * 48 + 64;
	char *text = malloc(cap);
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%zu 0 %zu 8 1\n", 1000 + i, i);
	len += (size_t)snprintf(text + len, cap - len, "5 0 0 8 1\n");
	const char *p = write_input("late.trace", text);
	free(text);
	br_reader_opts o = { .threads = 1 };
	const char *paths[] = { p };
	br_reader *r;
	br_error err;
	cr_assert_eq(br_reader_open(&r, paths, 1, &o, &err), 0, "%s", err.msg);
	br_event ev;
	int rc;
	size_t got_n = 0;
	while ((rc = br_reader_next(r, &ev, &err)) == 1)
		got_n++;
	cr_expect_eq(rc, BR_EFORMAT);
	cr_expect(strstr(err.msg, "not in time order") && strstr(err.msg, "line 5001"), "%s", err.msg);
	br_reader_close(r);
}

Test(fmt_text, unknown_text_is_refused)
{
	const char *p = write_input("x.txt", "hello world\nthis is not a trace\n");
	got g;
	read_all(&g, p, NULL, false);
	cr_expect_eq(g.rc, BR_EFORMAT);
	cr_expect(strstr(g.err.msg, "no format blkreel reads"), "%s", g.err.msg);
	done(&g);
}

Test(fmt_text, truncated_gzip_is_an_error)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/t.load.gz", tu_dir);
	gzFile z = gzopen(path, "wb");
	cr_assert(z);
	for (int i = 0; i < 20000; i++)
		gzprintf(z, "  %d.%09d ; %d ; 8 ; W ; 0.0 ; 0.0\n", i, i * 7 % 1000000000, i * 8);
	gzclose(z);
	size_t len;
	uint8_t *data = tu_read_file(path, &len);
	cr_assert(data);
	cr_assert_eq(tu_write_file(path, data, len / 2), 0);
	free(data);
	got g;
	read_all(&g, path, NULL, false);
	cr_expect_eq(g.rc, BR_ETRUNC, "%d %s", g.rc, g.err.msg);
	cr_expect(strstr(g.err.msg, "truncated"), "%s", g.err.msg);
	done(&g);
}
