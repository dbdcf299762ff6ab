/* Nothing blkreel writes names a path of the machine it was made on: run
 * from a temporary directory by absolute path, on a trace given by a
 * relative name, no output (figures and their metadata, the figure the
 * HTML report embeds, JSON, Markdown, CSV, conversions) contains the
 * checkout's or the tools' directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(no_host_paths, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 300);

static void copy_sample(const char *rel)
{
	cr_assert_eq(tu_runf(NULL, NULL, NULL, "cp '%s' '%s'", tu_sample(rel), tu_path(rel)), 0);
}

/* Every file in tu_dir (and the PNG inside the HTML, decoded) is free of
 * the checkout path and of the tools' directory. */
static void expect_no_paths(void)
{
	char bindir[4096];
	snprintf(bindir, sizeof bindir, "%s", tu_bin("blkreel-parse"));
	*strrchr(bindir, '/') = 0;
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err,
			 "cd '%s' && for f in *.html; do python3 -c '"
			 "import base64,re,sys\n"
			 "for i,m in enumerate(re.findall(rb\"base64,([A-Za-z0-9+/=]+)\", open(sys.argv[1],\"rb\").read())):\n"
			 "    open(sys.argv[1]+\".embedded%%d.png\" %% i,\"wb\").write(base64.b64decode(m))\n"
			 "' \"$f\" || exit 3; done; ls *.embedded*.png >/dev/null || exit 4; "
			 "grep -l -a -F -e '%s' -e '%s' -- * ; true",
			 tu_dir, tu_root(), bindir);
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect_str_empty(out, "outputs naming a path of this machine:\n%s", out);
	free(out);
	free(err);
}

Test(no_host_paths, report_plot_and_parse_outputs)
{
	copy_sample("xfs-dbench-1c.blktrace.gz");
	const char *t = "xfs-dbench-1c.blktrace.gz";
	char rep[4096], plot[4096], parse[4096];
	static char cmd[65536];
	snprintf(rep, sizeof rep, "%s", tu_bin("blkreel-report")); /* tu_bin's buffer is static */
	snprintf(plot, sizeof plot, "%s", tu_bin("blkreel-plot"));
	snprintf(parse, sizeof parse, "%s", tu_bin("blkreel-parse"));
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && '%s' -q %s --json r.json --markdown r.md --html r.html --per-io r.tsv && "
		 "'%s' -q -t %s -o p.png --csv p.csv && '%s' -q -t %s -o p.svg && "
		 "'%s' -q -t %s --panels io -o io.png --movie m.png --movie-frames 3 && "
		 "'%s' %s -o c.csv && '%s' %s -o c.iolog && '%s' %s -o c.perfetto.json && "
		 "'%s' %s -o c.blktrace.gz && '%s' --info %s >info.txt && '%s' %s >text.txt",
		 tu_dir, rep, t, plot, t, plot, t, plot, t, parse, t, parse, t, parse, t, parse, t, parse, t,
		 parse, t);
	char *err = NULL;
	int rc = tu_run(cmd, NULL, NULL, &err);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	/* the figure's metadata names the program as the user ran it */
	char *out = NULL;
	cr_assert_eq(tu_runf(&out, NULL, NULL, "grep -a -c 'blkreel-plot -q -t' '%s'", tu_path("p.png")), 0,
		     "the PNG's Command text is there");
	free(out);
	expect_no_paths();
}
