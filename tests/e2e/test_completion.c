/* completion/blkreel: sourced in bash, it completes each tool's options
 * (read from its --help), block devices for -d, traces by kind, and the
 * fixed argument lists (panels, backends, formats). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(completion, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 60);

/* The completions bash offers for the words (the last one is being
 * completed), one per line, run in tu_dir; NULL when bash failed. */
static char *complete(const char *words)
{
	char bindir[4096], script[8192];
	snprintf(bindir, sizeof bindir, "%s", tu_bin("blkreel-parse"));
	*strrchr(bindir, '/') = 0;
	int len = snprintf(script, sizeof script,
			   "PATH='%s':\"$PATH\"\n"
			   "source '%s/completion/blkreel' || exit 9\n"
			   "COMP_WORDS=(%s)\n"
			   "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
			   "_blkreel \"${COMP_WORDS[0]}\" || exit 8\n"
			   "((${#COMPREPLY[@]})) && printf '%%s\\n' \"${COMPREPLY[@]}\"\n"
			   "exit 0\n",
			   bindir, tu_root(), words);
	tu_write_file(tu_path("complete.sh"), script, (size_t)len);
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err, "cd '%s' && bash --norc complete.sh", tu_dir);
	cr_expect_eq(rc, 0, "bash failed on %s: %s", words, err);
	cr_expect_str_empty(err, "%s", err);
	free(err);
	return rc ? (free(out), NULL) : out;
}

static bool offers(const char *out, const char *item)
{
	size_t l = strlen(item);
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, item, l) == 0 && (p[l] == '\n' || p[l] == 0))
			return true;
	return false;
}

Test(completion, options_come_from_each_tools_help)
{
	char *out = complete("blkreel-parse --inf");
	cr_expect_str_eq(out, "--info\n");
	free(out);
	out = complete("blkreel-replay --max-");
	cr_expect_str_eq(out, "--max-inflight=\n", "an option with an argument keeps its =");
	free(out);
	out = complete("blkreel-capture --");
	cr_expect(offers(out, "--dev=") && offers(out, "--list-backends") && offers(out, "--allow-drops"), "%s", out);
	cr_expect(!offers(out, "--info"), "parse's options are not capture's");
	free(out);
	out = complete("blkreel-plot -");
	cr_expect(offers(out, "-P") && offers(out, "--by-process") && offers(out, "--movie="), "%s", out);
	free(out);
	out = complete("blkreel-report --per");
	cr_expect_str_eq(out, "--per-io=\n");
	free(out);
}

Test(completion, capture_d_offers_the_block_devices)
{
	DIR *d = opendir("/sys/block");
	if (!d)
		cr_skip_test("no /sys/block on this machine");
	char *out = complete("blkreel-capture -d ''");
	char *dashed = complete("blkreel-capture --dev = ''");
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char dev[300];
		snprintf(dev, sizeof dev, "/dev/%s", e->d_name);
		cr_expect(offers(out, dev), "%s not offered:\n%s", dev, out);
		cr_expect(offers(dashed, dev), "--dev=: %s not offered", dev);
		n++;
	}
	closedir(d);
	cr_expect_eq(tu_count_lines(out, "/dev/"), tu_count_lines(out, ""), "only devices: %s", out);
	cr_expect_geq(tu_count_lines(out, ""), n);
	free(out);
	free(dashed);
}

Test(completion, traces_by_kind)
{
	static const char *const files[] = { "run.blktrace.gz", "set.blktrace.0", "set.blktrace.1",
					     "notes.md",        "fig.png",        "mysql.load.gz" };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		tu_write_file(tu_path(files[i]), "", 0);
	char *out = complete("blkreel-parse ''");
	cr_expect(offers(out, "run.blktrace.gz"), "%s", out);
	cr_expect(offers(out, "set"), "the per-CPU set by its name: %s", out);
	cr_expect(offers(out, "set.blktrace.0") && offers(out, "mysql.load.gz"), "%s", out);
	cr_expect(!offers(out, "notes.md") && !offers(out, "fig.png"), "not traces: %s", out);
	free(out);
	out = complete("blkreel-report -l ext4 se");
	cr_expect(offers(out, "set") && !offers(out, "run.blktrace.gz"), "%s", out);
	free(out);
	out = complete("blkreel-plot -o ''");
	cr_expect(offers(out, "fig.png") && !offers(out, "notes.md"), "figure files: %s", out);
	free(out);
	out = complete("blkreel-capture -o se");
	cr_expect_str_eq(out, "set\n", "capture -o NAME: the set's name, once");
	free(out);
}

Test(completion, fixed_argument_lists)
{
	char *out = complete("blkreel-plot --panels = io,t");
	cr_expect_str_eq(out, "io,tput\n");
	free(out);
	out = complete("blkreel-capture --backend ''");
	cr_expect_str_eq(out, "relay\nperf\ntracefs\n");
	free(out);
	out = complete("blkreel-capture -a read,wr");
	cr_expect_str_eq(out, "read,write\n");
	free(out);
	out = complete("blkreel-parse --input-format = m");
	cr_expect_str_eq(out, "msr\n");
	free(out);
	out = complete("blkreel-replay --source ''");
	cr_expect_str_eq(out, "D\nQ\n");
	free(out);
	/* after --, capture completes the command to run */
	out = complete("blkreel-capture -d /dev/x -- bas");
	cr_expect(offers(out, "bash"), "%s", out);
	free(out);
}

/* parse's -d and --dev take a device number, as report's -d does. */
Test(completion, parse_dev_offers_device_numbers)
{
	char *sys = NULL;
	if (tu_runf(&sys, NULL, NULL, "cat /sys/class/block/*/dev 2>/dev/null | head -n 1 | tr : ,") ||
	    !sys || !*sys) {
		free(sys);
		cr_skip_test("no /sys/class/block on this machine");
	}
	*strchr(sys, '\n') = 0;
	char *out = complete("blkreel-parse -d ''");
	char *dashed = complete("blkreel-parse --dev = ''");
	cr_expect(offers(out, sys), "-d: %s not offered:\n%s", sys, out);
	cr_expect(offers(dashed, sys), "--dev=: %s not offered:\n%s", sys, dashed);
	cr_expect_eq(tu_count_lines(out, ","), tu_count_lines(out, ""), "only MAJ,MIN: %s", out);
	free(out);
	free(dashed);
	free(sys);
}
