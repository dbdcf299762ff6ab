/* blkreel-report end to end: options and exit codes, errors on bad input
 * that name the file and byte offset with nothing half-written, the files
 * it writes, and the comparison sentences on two traces with known
 * differences. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "tracegen.h"


TestSuite(report, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

static const char *rep(void)
{
	return tu_bin("blkreel-report");
}

static size_t files_in(const char *d)
{
	size_t n = 0;
	DIR *dh = opendir(d);
	for (struct dirent *e; dh && (e = readdir(dh));)
		n += e->d_name[0] != '.';
	if (dh)
		closedir(dh);
	return n;
}


Test(report, help_version_and_usage_errors)
{
	char *out = NULL, *err = NULL;
	cr_expect_eq(tu_runf(&out, NULL, NULL, "'%s' --help", rep()), 0);
	cr_expect(strstr(out, "Usage: blkreel-report"));
	cr_expect(strstr(out, "--markdown"));
	cr_expect(strstr(out, "Exit status"));
	/* it says what a comparison opens with: the diagnosis and its factors */
	cr_expect(strstr(out, "opens with a diagnosis"), "%s", out);
	cr_expect(strstr(out, "U x N_busy x S / R"), "%s", out);
	free(out);
	cr_expect_eq(tu_runf(&out, NULL, NULL, "'%s' --version", rep()), 0);
	cr_expect(strstr(out, "blkreel-report "));
	free(out);
	static const char *const bad[] = {
		"",                       /* no trace */
		"--bogus x",
		"-l only",                /* a label with no trace after it */
		"-l a -l b x",
		"--top 0 x",
		"--dev 8 x",
		"--from soon x",
		"--from 2s --to 1s x",
		"--json a --html a x",
		"--range 12 x",
		"- -",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = tu_runf(NULL, NULL, &err, "'%s' %s < /dev/null", rep(), bad[i]);
		cr_expect_eq(rc, 2, "'%s': exit %d", bad[i], rc);
		cr_expect(strstr(err, "Try 'blkreel-report --help'"), "'%s': %s", bad[i], err);
		free(err);
	}
}

/* Bad input: one line naming the file and byte offset, exit 1, and none
 * of the requested files (nor their temporary names) left behind. */
Test(report, bad_input_names_file_and_offset_and_leaves_nothing)
{
	char path[1024], cut[1024];
	snprintf(path, sizeof path, "%s/garbage", tu_dir);
	tu_write_file(path, "GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE GARBAGE", 55);
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' -q garbage --json r.json --markdown r.md --html r.html",
			 tu_dir, rep());
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "garbage") && strstr(err, "byte 0"), "%s", err);
	cr_expect_eq(tu_count_lines(err, ""), 1, "one line: %s", err);
	cr_expect_eq(files_in(tu_dir), 1, "only the input remains");
	free(err);

	/* a real trace cut in the middle of a record: the offset of that record */
	size_t len;
	char src[1024];
	snprintf(src, sizeof src, "%s", tu_sample("ext4-loop.blktrace.0"));
	uint8_t *data = tu_read_file(src, &len);
	cr_assert(data && len > 1000);
	snprintf(cut, sizeof cut, "%s/cut.bin", tu_dir);
	tu_write_file(cut, data, len - 30);
	free(data);
	rc = tu_runf(NULL, NULL, &err, "cd '%s' && '%s' cut.bin --json r.json --per-io p.tsv > out.txt", tu_dir, rep());
	cr_expect_eq(rc, 1);
	char want[64];
	snprintf(want, sizeof want, "byte %zu: record cut short", len - 30 - 18);
	cr_expect(strstr(err, "cut.bin") && strstr(err, want), "%s", err);
	struct stat st;
	char p[1100];
	snprintf(p, sizeof p, "%s/r.json", tu_dir);
	cr_expect_neq(stat(p, &st), 0);
	snprintf(p, sizeof p, "%s/p.tsv", tu_dir);
	cr_expect_neq(stat(p, &st), 0);
	cr_expect_eq(files_in(tu_dir), 3, "garbage, cut.bin, out.txt only");
	free(err);

	/* nothing left after the filters: said, exit 1 */
	rc = tu_runf(NULL, NULL, &err, "'%s' --dev 1,2 '%s'", rep(), tu_sample("ext4-loop"));
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "no IO events for device 1,2"), "%s", err);
	free(err);

	/* a missing file */
	rc = tu_runf(NULL, NULL, &err, "'%s' '%s/nope'", rep(), tu_dir);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "nope"), "%s", err);
	free(err);
}

/* Killed mid-run (here while it waits for more of a trace on standard
 * input, with --per-io already being written): no file of any name is
 * left behind, because outputs are unnamed until they are complete. */
Test(report, killed_run_leaves_nothing)
{
	char src[1024];
	snprintf(src, sizeof src, "%s", tu_sample("ext4-loop.blktrace.0"));
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err,
			 "cd '%s' && { (cat '%s'; sleep 2) | '%s' -q --no-progress - --per-io p.tsv --json r.json & } ; "
			 "p=$!; sleep 0.5; kill -9 $p; wait $p; ls -A",
			 tu_dir, src, rep());
	(void)rc;
	free(err);
	cr_expect_eq(files_in(tu_dir), 0, "nothing left in the output directory");
}

/* An output that cannot be written fails the run with exit 1 and names it. */
Test(report, unwritable_output_fails)
{
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "'%s' -q '%s' --json '%s/no/such/dir/r.json'", rep(),
			 tu_sample("ext4-loop"), tu_dir);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, "r.json"), "%s", err);
	free(err);
}

/* The files for reports: JSON with every phase, Markdown tables, HTML that
 * embeds the figure when blkreel-plot can draw it (and says why not when
 * it cannot), and the per-IO lines. */
Test(report, writes_json_markdown_html_and_per_io)
{
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err,
			 "cd '%s' && '%s' -l ext4 '%s' --json r.json --markdown r.md --html r.html --per-io p.tsv",
			 tu_dir, rep(), tu_sample("ext4-loop"));
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect(strstr(out, "== ext4 ("));
	cr_expect(strstr(out, "Life of an IO"));
	cr_expect(strstr(out, "Hottest offset ranges"));
	free(out);
	free(err);
	char p[1100];
	size_t len;
	snprintf(p, sizeof p, "%s/r.json", tu_dir);
	char *json = (char *)tu_read_file(p, &len);
	cr_assert(json);
	static const char *const keys[] = {
		"\"Q2G\"", "\"G2I\"", "\"Q2M\"", "\"I2D\"", "\"M2D\"", "\"D2C\"", "\"Q2C\"", "\"hot_ranges\"",
		"\"per_process\"", "\"seek_distance_hist\"", "\"time_ns_at_depth\"", "\"never_completed\"",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		cr_expect(strstr(json, keys[i]), "JSON has %s", keys[i]);
	cr_expect_eq(json[len - 2], '}');
	free(json);
	snprintf(p, sizeof p, "%s/r.md", tu_dir);
	char *md = (char *)tu_read_file(p, &len);
	cr_assert(md);
	cr_expect(strstr(md, "# Block I/O report: ext4"));
	cr_expect(strstr(md, "| phase | N | min | avg |"));
	free(md);
	snprintf(p, sizeof p, "%s/r.html", tu_dir);
	char *html = (char *)tu_read_file(p, &len);
	cr_assert(html);
	cr_expect(strstr(html, "<!DOCTYPE html>") && strstr(html, "</html>"));
	cr_expect(strstr(html, "data:image/png;base64,iVBORw0KGgo") || strstr(html, "No figure: "),
		  "a figure or the reason there is none");
	free(html);
	snprintf(p, sizeof p, "%s/p.tsv", tu_dir);
	char *tsv = (char *)tu_read_file(p, &len);
	cr_assert(tsv);
	/* one line per completed bio with a Q (2072 on this sample), plus the header */
	cr_expect_eq(tu_count_lines(tsv, "\t"), 2073);
	cr_expect(strstr(tsv, "ext4\t7,0\t6521\t15944\t2\t0\t16788\t-1\t-1\t23252\t95178\t95178\t71926\n"),
		  "first IO as btt -p shows it (Q 0, G 16788, D 23252, C 95178 ns)");
	free(tsv);

	/* a missing or failing plot program: the page says so, the run succeeds */
	rc = tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' -q '%s' --html m.html --plot /nonexistent/blkreel-plot",
		     tu_dir, rep(), tu_sample("ext4-loop"));
	cr_expect_eq(rc, 0);
	snprintf(p, sizeof p, "%s/m.html", tu_dir);
	html = (char *)tu_read_file(p, &len);
	cr_assert(html);
	cr_expect(strstr(html, "No figure: blkreel-plot is not installed (/nonexistent/blkreel-plot)"));
	free(html);
	rc = tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' -q '%s' --html f.html --plot /bin/false", tu_dir, rep(),
		     tu_sample("ext4-loop"));
	cr_expect_eq(rc, 0);
	snprintf(p, sizeof p, "%s/f.html", tu_dir);
	html = (char *)tu_read_file(p, &len);
	cr_assert(html);
	cr_expect(strstr(html, "No figure: /bin/false failed (status 1)"));
	free(html);

	/* --no-figure says so in the page */
	rc = tu_runf(NULL, NULL, NULL, "cd '%s' && '%s' -q '%s' --html n.html --no-figure", tu_dir, rep(),
		     tu_sample("ext4-loop"));
	cr_expect_eq(rc, 0);
	snprintf(p, sizeof p, "%s/n.html", tu_dir);
	html = (char *)tu_read_file(p, &len);
	cr_assert(html);
	cr_expect(strstr(html, "No figure: --no-figure was given"));
	free(html);
}

/* Two traces of 100 4 KiB reads: A issues one every 10 us, alternating
 * between two far areas (99 seeks), each served in 8 us; B one every 5 us,
 * sequential except a jump every 10 IOs (9 seeks), each served in 2 us.
 * Spans: A 990 us + 8010 ns = 998010 ns, B 495 us + 2010 ns = 497010 ns. */
static void make_pair(const char *a_path, const char *b_path)
{
	tg_buf a = { 0 }, b = { 0 };
	for (uint64_t i = 0; i < 100; i++) {
		uint64_t ta = i * 10000, sa = (i % 2) * 1000000 + i * 8;
		uint64_t tb = i * 5000, sb = (i / 10) * 100000 + (i % 10) * 8;
		br_event e;
		e = tg_io(ta, BR_MKDEV(8, 0), 0, TG_Q_R, sa, 4096, 10);
		tg_append(&a, &e, false);
		e = tg_io(ta + 10, BR_MKDEV(8, 0), 0, TG_D_R, sa, 4096, 10);
		tg_append(&a, &e, false);
		e = tg_io(ta + 10 + 8000, BR_MKDEV(8, 0), 0, TG_C_R, sa, 4096, 0);
		tg_append(&a, &e, false);
		e = tg_io(tb, BR_MKDEV(8, 0), 0, TG_Q_R, sb, 4096, 10);
		tg_append(&b, &e, false);
		e = tg_io(tb + 10, BR_MKDEV(8, 0), 0, TG_D_R, sb, 4096, 10);
		tg_append(&b, &e, false);
		e = tg_io(tb + 10 + 2000, BR_MKDEV(8, 0), 0, TG_C_R, sb, 4096, 0);
		tg_append(&b, &e, false);
	}
	cr_assert_eq(tg_write(&a, a_path), 0);
	cr_assert_eq(tg_write(&b, b_path), 0);
	tg_free(&a);
	tg_free(&b);
}

Test(report, comparison_states_the_differences_with_numbers)
{
	char a[1100], b[1100];
	snprintf(a, sizeof a, "%s/a.bin", tu_dir);
	snprintf(b, sizeof b, "%s/b.bin", tu_dir);
	make_pair(a, b);
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err, "cd '%s' && '%s' -l seeky a.bin -l calm b.bin --json c.json",
			 tu_dir, rep());
	cr_assert_eq(rc, 0, "%s", err);
	/* MB/s: 409600 B / 497010 ns = 824.1 vs / 998010 ns = 410.4 -> 2.0x */
	cr_expect(strstr(out, "calm moved 2.0x the MB/s of seeky (824.1 vs 410.4 MB/s"), "%s", out);
	/* D2C 2 us vs 8 us; seeks/s 9 / 497010 ns = 18108 vs 99 / 998010 ns = 99197 -> 5.5x */
	cr_expect(strstr(out, "calm: "), "%s", out);
	cr_expect(strstr(out, "4.0x lower D2C avg (2.0 us vs 8.0 us)"), "%s", out);
	cr_expect(strstr(out, "5.5x fewer seeks/s (18108 vs 99197)"), "%s", out);
	/* the differences come before each trace's own report */
	cr_expect(strstr(out, "== Differences: seeky vs calm") < strstr(out, "== seeky ("));
	free(out);
	free(err);
	char p[1100];
	snprintf(p, sizeof p, "%s/c.json", tu_dir);
	tu_expect_json(p, "d[\"comparison\"][\"throughput_best\"]", "\"calm\"");
	char *m = tu_json_eval(p, "[m for m in d[\"comparison\"][\"metrics\"] if m[\"key\"] == \"d2c_avg_ms\"]");
	cr_expect(!strncmp(m, "[{\"key\":\"d2c_avg_ms\",\"name\":\"D2C avg\",\"unit\":\"ms\",\"better\":\"lower\","
			      "\"values\":[0.008,0.002],\"ratio\":4,\"best\":\"calm\",\"agrees_with_throughput\":true,",
			  strlen("[{\"key\":\"d2c_avg_ms\",\"name\":\"D2C avg\",\"unit\":\"ms\",\"better\":\"lower\","
				 "\"values\":[0.008,0.002],\"ratio\":4,\"best\":\"calm\",\"agrees_with_throughput\":true,")),
		  "%s", m);
	free(m);
}

/* A trace that writes 3 of its 4 MiB to one range in 3 bursts, 2 s
 * apart, against one that spreads its writes: the sentence gives the share,
 * the range and the period. */
Test(report, hot_range_sentence_gives_share_and_period)
{
	tg_buf a = { 0 }, b = { 0 };
	const uint64_t s = 1000000000ull, far = 10ull << 21; /* 10 GiB in sectors */
	for (uint64_t i = 0; i < 4; i++) {
		/* a: bursts at 0, 2 and 4 s to range 0; one write far away at 5 s */
		uint64_t t = i < 3 ? i * 2 * s : 5 * s, sec = i < 3 ? i * 2048 : far;
		br_event e = tg_io(t, BR_MKDEV(8, 0), 0, TG_Q_W, sec, 1 << 20, 10);
		tg_append(&a, &e, false);
		e = tg_io(t + 10, BR_MKDEV(8, 0), 0, TG_D_W, sec, 1 << 20, 10);
		tg_append(&a, &e, false);
		e = tg_io(t + 1000, BR_MKDEV(8, 0), 0, TG_C_W, sec, 1 << 20, 0);
		tg_append(&a, &e, false);
		/* b: four writes to four ranges */
		e = tg_io(i * s, BR_MKDEV(8, 0), 0, TG_Q_W, i * far, 1 << 20, 10);
		tg_append(&b, &e, false);
		e = tg_io(i * s + 10, BR_MKDEV(8, 0), 0, TG_D_W, i * far, 1 << 20, 10);
		tg_append(&b, &e, false);
		e = tg_io(i * s + 1000, BR_MKDEV(8, 0), 0, TG_C_W, i * far, 1 << 20, 0);
		tg_append(&b, &e, false);
	}
	char pa[1100], pb[1100];
	snprintf(pa, sizeof pa, "%s/a.bin", tu_dir);
	snprintf(pb, sizeof pb, "%s/b.bin", tu_dir);
	cr_assert_eq(tg_write(&a, pa), 0);
	cr_assert_eq(tg_write(&b, pb), 0);
	tg_free(&a);
	tg_free(&b);
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL, "cd '%s' && '%s' -l bursty a.bin -l spread b.bin", tu_dir,
			 tu_bin("blkreel-report"));
	cr_assert_eq(rc, 0);
	cr_expect(strstr(out, "bursty writes 75 % of its bytes to one 128 MiB range (device 8,0, from 0 MiB) "
			      "in 3 bursts, one every 2.00 s."), "%s", out);
	cr_expect(!strstr(out, "spread writes"), "25 %% in its hottest range is not worth a sentence");
	free(out);
}

/* A closed loop of 3000 4 KiB reads, each served in 50 us; B thinks
 * 200 us before each next read, A not at all. */
static void make_idle_pair(const char *a_path, const char *b_path)
{
	tg_buf a = { 0 }, b = { 0 };
	uint64_t ta = 0, tb = 0;
	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t sec = i * 8;
		for (int w = 0; w < 2; w++) {
			tg_buf *buf = w ? &b : &a;
			uint64_t *t = w ? &tb : &ta;
			uint64_t svc = 50000 + (i * 7919 % 11) * 1000; /* 50-60 us */
			br_event e = tg_io(*t, BR_MKDEV(8, 0), 0, TG_Q_R, sec, 4096, 10);
			tg_append(buf, &e, false);
			e = tg_io(*t + 100, BR_MKDEV(8, 0), 0, TG_D_R, sec, 4096, 10);
			tg_append(buf, &e, false);
			e = tg_io(*t + 100 + svc, BR_MKDEV(8, 0), 0, TG_C_R, sec, 4096, 0);
			tg_append(buf, &e, false);
			*t += 100 + svc + (w ? 200000 : 1000);
		}
	}
	cr_assert_eq(tg_write(&a, a_path), 0);
	cr_assert_eq(tg_write(&b, b_path), 0);
	tg_free(&a);
	tg_free(&b);
}

/* The report opens with the diagnosis, in every format; the JSON's
 * top-level "diagnosis" array has exactly cause, share, worse, factor and
 * evidence; the same trace twice gives an empty one. */
Test(report, diagnosis_opens_every_format)
{
	char a[1100], b[1100];
	snprintf(a, sizeof a, "%s/a.bin", tu_dir);
	snprintf(b, sizeof b, "%s/b.bin", tu_dir);
	make_idle_pair(a, b);
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err,
			 "cd '%s' && '%s' -l A a.bin -l B b.bin --json d.json --markdown d.md --html d.html",
			 tu_dir, rep());
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect(!strncmp(out, "== Diagnosis: A vs B\n", 21), "%s", out);
	cr_expect(strstr(out, "B is slower") && strstr(out, "    - idle (U, "), "%s", out);
	cr_expect(strstr(out, "== Diagnosis") < strstr(out, "== Differences"));
	free(out);
	free(err);
	char p[1100];
	size_t len;
	snprintf(p, sizeof p, "%s/d.json", tu_dir);
	tu_expect_json(p, "list(d).index(\"diagnosis\") < list(d).index(\"traces\")", "true");
	tu_expect_json(p, "[list(c) for c in d[\"diagnosis\"]][0]",
		    "[\"cause\",\"share\",\"worse\",\"factor\",\"evidence\",\"confirmed\",\"shift\"]");
	tu_expect_json(p, "d[\"diagnosis\"][0][\"confirmed\"]", "true");
	tu_expect_json(p, "[d[\"diagnosis\"][0][k] for k in (\"cause\", \"worse\", \"factor\")]", "[\"idle\",\"B\",\"U\"]");
	tu_expect_json(p, "d[\"diagnosis\"][0][\"evidence\"].startswith(\"B\\x27s device was idle \")", "true");
	snprintf(p, sizeof p, "%s/d.md", tu_dir);
	char *md = (char *)tu_read_file(p, &len);
	cr_assert(md);
	cr_expect(strstr(md, "## Diagnosis") && strstr(md, "## Diagnosis") < strstr(md, "## Differences"));
	cr_expect(strstr(md, "- idle (U, "), "%s", md);
	free(md);
	snprintf(p, sizeof p, "%s/d.html", tu_dir);
	char *html = (char *)tu_read_file(p, &len);
	cr_assert(html);
	cr_expect(strstr(html, "<h2>Diagnosis</h2>") && strstr(html, "<li>idle (U, "));
	free(html);

	rc = tu_runf(&out, NULL, &err, "cd '%s' && '%s' -l A a.bin -l again a.bin --json s.json", tu_dir,
		     rep());
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect(strstr(out, "No significant difference"), "%s", out);
	free(out);
	free(err);
	snprintf(p, sizeof p, "%s/s.json", tu_dir);
	tu_expect_json(p, "d[\"diagnosis\"]", "[]");
}

/* tg_hostile_a and tg_hostile_b as JSON must decode to these; labels and
 * paths are the user's. */
static const char hostile_a_decoded[] = "\"q\\\"b\\\\\\u0001\\n\\u007f\\ufffd\\ufffd(\"";
static const char hostile_b_decoded[] = "\"\\t\\u001b[31m\\ufffd\\ufffd\"";

Test(report, json_parses_with_hostile_names_labels_and_paths)
{
	char a[1100];
	snprintf(a, sizeof a, "%s/h\"o\\st.bin", tu_dir);
	cr_assert_eq(tg_write_hostile(a, false), 0);
	char *err = NULL;
	/* one trace, and two (the comparison and the diagnosis quote labels) */
	int rc = tu_runf(NULL, NULL, &err,
			 "cd '%s' && '%s' -q -l 'one\"\\' 'h\"o\\st.bin' --json one.json && "
			 "'%s' -q -l 'x\"\\' 'h\"o\\st.bin' -l 'y\"\\' 'h\"o\\st.bin' --json two.json",
			 tu_dir, rep(), rep());
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	static const char *const docs[] = { "one.json", "two.json" };
	for (size_t k = 0; k < 2; k++) {
		char p[1200];
		snprintf(p, sizeof p, "%s/%s", tu_dir, docs[k]);
		err = NULL;
		rc = tu_runf(NULL, NULL, &err, "python3 -m json.tool '%s' > /dev/null", p);
		cr_expect_eq(rc, 0, "%s does not parse: %s", p, err ? err : "");
		free(err);
		char want[256];
		snprintf(want, sizeof want, "[%s,%s]", hostile_a_decoded, hostile_b_decoded);
		tu_expect_json(p,
			    "[g[\"comm\"] for g in sorted(d[\"traces\"][0][\"per_process\"], key=lambda g: g[\"pid\"]) "
			    "if g[\"pid\"] in (10, 11)]",
			    want);
		tu_expect_json(p, "d[\"traces\"][0][\"path\"].endswith(\"h\\\"o\\\\st.bin\")", "true");
	}
	snprintf(a, sizeof a, "%s/one.json", tu_dir);
	tu_expect_json(a, "d[\"traces\"][0][\"label\"]", "\"one\\\"\\\\\"");
	snprintf(a, sizeof a, "%s/two.json", tu_dir);
	tu_expect_json(a, "[t[\"label\"] for t in d[\"traces\"]]", "[\"x\\\"\\\\\",\"y\\\"\\\\\"]");
	tu_expect_json(a, "d[\"comparison\"][\"metrics\"][0][\"best\"] in (\"x\\\"\\\\\", \"y\\\"\\\\\")", "true");
}
