/* The tool layer (formats/tool): the option table yields getopt's tables
 * and --help from one list, usage errors have one shape, and the small
 * helpers (growth, write-all, sysfs) do what their headers say. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkreel/event.h"
#include "testutil.h"
#include "tool/clock.h"
#include "tool/html.h"
#include "tool/io.h"
#include "tool/opts.h"
#include "tool/say.h"
#include "tool/sibling.h"
#include "tool/sweep_label.h"
#include "tool/sysfs.h"

enum { K_SPLIT = TOOL_KEY_LONG, K_FAST };

static const tool_opt opts[] = {
	{ 'o', "output", "FILE", "write FILE\n- = stdout" },
	{ 0, NULL, NULL, "Speed:" },
	{ K_FAST, "fast", NULL, "go fast" },
	{ K_SPLIT, "a-very-long-option-name", "NAME", "longer than the column" },
	{ 'd', "device", "PATH", "the device" },
	{ 'd', "dev", "PATH", "same as --device", .alias = true },
	TOOL_OPTS_END,
};

static const tool_desc desc = {
	.prog = "blkreel-x",
	.version = "9.9",
	.head = "Usage: blkreel-x [OPTION]...\n\n",
	.tail = "\nExit status: 0 ok.\n",
	.opts = opts,
	.column = 21, /* "  -o, --output=FILE" and two spaces */
};

static const char want_help[] = "Usage: blkreel-x [OPTION]...\n\n"
				 "  -o, --output=FILE  write FILE\n"
				 "                     - = stdout\n"
				 "Speed:\n"
				 "      --fast         go fast\n"
				 "      --a-very-long-option-name=NAME  longer than the column\n"
				 "  -d, --device=PATH  the device\n"
				 "      --dev=PATH     same as --device\n"
				 "  -h, --help         show this help and exit\n"
				 "  -V, --version      show the version and exit\n"
				 "\nExit status: 0 ok.\n";

Test(opts, help_lines_come_from_the_table)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert(f);
	tool_help(f, &desc);
	fclose(f);
	cr_expect_str_eq(text, want_help);
	free(text);
}

static int next_all(int argc, char **argv, int *keys, const char **args, tool_args *a)
{
	int n = 0, c;
	tool_args_start(a, &desc, argc, argv);
	while ((c = tool_args_next(a)) >= 0) {
		keys[n] = c;
		args[n++] = optarg;
	}
	keys[n] = c;
	return n;
}

Test(opts, getopt_sees_every_spelling)
{
	char *argv[] = { "blkreel-x", "-o", "f", "--fast", "--dev", "7,3", "-d", "x",
			 "--device=y", "--a-very-long-option-name", "n", "rest", NULL };
	int keys[16];
	const char *args[16];
	tool_args a;
	int n = next_all(12, argv, keys, args, &a);
	cr_assert_eq(n, 6);
	int want[] = { 'o', K_FAST, 'd', 'd', 'd', K_SPLIT, TOOL_ARGS_END };
	for (int i = 0; i <= n; i++)
		cr_expect_eq(keys[i], want[i], "key %d: %d, not %d", i, keys[i], want[i]);
	cr_expect_str_eq(args[2], "7,3");
	cr_expect_str_eq(args[4], "y");
	cr_expect_str_eq(argv[optind], "rest");
	cr_expect_str_eq(a.t.optstring, ":o:d:hV");
}

Test(opts, help_and_version_stop_with_0, .init = cr_redirect_stdout)
{
	char *help[] = { "blkreel-x", "--help", NULL };
	char *version[] = { "blkreel-x", "-V", NULL };
	int keys[4];
	const char *args[4];
	tool_args a;
	cr_expect_eq(next_all(2, version, keys, args, &a), 0);
	cr_expect_eq(keys[0], TOOL_ARGS_STOP);
	cr_expect_eq(a.exit, TOOL_EXIT_OK);
	cr_expect_eq(next_all(2, help, keys, args, &a), 0);
	cr_expect_eq(keys[0], TOOL_ARGS_STOP);
	cr_expect_eq(a.exit, TOOL_EXIT_OK);
	fflush(stdout);
	char want[1024];
	snprintf(want, sizeof want, "blkreel-x 9.9\n%s", want_help);
	cr_expect_stdout_eq_str(want);
}

Test(opts, bad_options_are_usage_errors, .init = cr_redirect_stderr)
{
	char *unknown[] = { "blkreel-x", "--bogus", NULL };
	char *missing[] = { "blkreel-x", "-o", NULL };
	int keys[4];
	const char *args[4];
	tool_args a;
	next_all(2, unknown, keys, args, &a);
	cr_expect_eq(keys[0], TOOL_ARGS_STOP);
	cr_expect_eq(a.exit, TOOL_EXIT_USAGE);
	next_all(2, missing, keys, args, &a);
	cr_expect_eq(keys[0], TOOL_ARGS_STOP);
	cr_expect_eq(a.exit, TOOL_EXIT_USAGE);
	fflush(stderr);
	cr_expect_stderr_eq_str("blkreel-x: unknown option '--bogus'\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: option '-o' needs an argument\n"
				"Try 'blkreel-x --help' for more information.\n");
}

Test(say, argument_checks, .init = cr_redirect_stderr)
{
	uint64_t v = 0;
	uint32_t dev = 0;
	br_reader_opts ro = { 0 };
	cr_expect_eq(tool_arg_count("blkreel-x", "--threads", "4", 1, 256, &v), TOOL_EXIT_OK);
	cr_expect_eq(v, 4);
	cr_expect_eq(tool_arg_count("blkreel-x", "--threads", "0", 1, 256, &v), TOOL_EXIT_USAGE);
	cr_expect_eq(tool_arg_window("blkreel-x", false, "250ms", &ro), TOOL_EXIT_OK);
	cr_expect(ro.has_from);
	cr_expect_eq(ro.from_ns, 250000000);
	cr_expect_eq(tool_arg_window("blkreel-x", true, "soon", &ro), TOOL_EXIT_USAGE);
	cr_expect_not(ro.has_to);
	cr_expect_eq(tool_window_check("blkreel-x", &ro), TOOL_EXIT_OK);
	cr_expect_eq(tool_arg_window("blkreel-x", true, "0.1", &ro), TOOL_EXIT_OK);
	cr_expect_eq(tool_window_check("blkreel-x", &ro), TOOL_EXIT_USAGE);
	cr_expect_eq(tool_arg_device("blkreel-x", "--dev", "7:3", &dev), TOOL_EXIT_OK);
	cr_expect_eq(dev, BR_MKDEV(7, 3));
	cr_expect_eq(tool_arg_device("blkreel-x", "--dev", "7", &dev), TOOL_EXIT_USAGE);
	cr_expect_eq(tool_arg_device("blkreel-x", "--dev", "4096,0", &dev), TOOL_EXIT_USAGE);
	br_error err;
	br_error_set(&err, BR_EINVAL, 0, "a.gz", 12, "bad member");
	cr_expect_eq(tool_say_error("blkreel-x", "reading", &err), TOOL_EXIT_FAIL);
	fflush(stderr);
	char msg[1200];
	br_error_format(&err, msg, sizeof msg);
	char want[2000];
	snprintf(want, sizeof want,
		 "blkreel-x: --threads: '0' is not a count from 1 to 256\n"
		 "Try 'blkreel-x --help' for more information.\n"
		 "blkreel-x: --to: 'soon' is not a time (e.g. 1.5, 250ms, 2s)\n"
		 "Try 'blkreel-x --help' for more information.\n"
		 "blkreel-x: --to is before --from\n"
		 "Try 'blkreel-x --help' for more information.\n"
		 "blkreel-x: --dev: '7' is not MAJ,MIN\n"
		 "Try 'blkreel-x --help' for more information.\n"
		 "blkreel-x: --dev: '4096,0' is out of range\n"
		 "Try 'blkreel-x --help' for more information.\n"
		 "blkreel-x: reading: %s\n",
		 msg);
	cr_expect_stderr_eq_str(want);
}

Test(io, grow_doubles_and_keeps_the_contents)
{
	int *a = NULL;
	size_t cap = 0;
	for (int i = 0; i < 1000; i++) {
		int *n = tool_grow(a, &cap, (size_t)i + 1, sizeof *a, 16);
		cr_assert(n);
		a = n;
		a[i] = i;
	}
	cr_expect_eq(cap, 1024);
	for (int i = 0; i < 1000; i++)
		cr_expect_eq(a[i], i);
	size_t before = cap;
	cr_expect_null(tool_grow(a, &cap, SIZE_MAX / 2, sizeof *a, 16));
	cr_expect_eq(cap, before, "a failed growth leaves the capacity");
	free(a);
}

Test(io, write_all_names_the_offset)
{
	char path[] = "/tmp/blkreel-tool-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	br_error err;
	cr_expect_eq(tool_write_all(fd, "hello", 5, path, 0, &err), 0);
	close(fd);
	fd = open(path, O_RDONLY);
	unlink(path);
	cr_expect_eq(tool_write_all(fd, "again", 5, path, 5, &err), BR_ESYS);
	cr_expect_eq(err.offset, 5);
	cr_expect_str_eq(err.file, path);
	close(fd);
}

Test(sysfs, partition_and_disk_from_a_folder)
{
	char *dir = tu_tmpdir();
	char p[8400];
	snprintf(p, sizeof p, "%s/disk", dir);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/disk/part", dir);
	cr_assert_eq(mkdir(p, 0700), 0);
	FILE *f;
	snprintf(p, sizeof p, "%s/disk/dev", dir);
	cr_assert((f = fopen(p, "w")));
	fputs("259:0\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/disk/part/partition", dir);
	cr_assert((f = fopen(p, "w")));
	fputs("1\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/disk/part/start", dir);
	cr_assert((f = fopen(p, "w")));
	fputs("2048\n", f);
	fclose(f);
	char part[4200], disk[4200];
	snprintf(part, sizeof part, "%s/disk/part", dir);
	snprintf(disk, sizeof disk, "%s/disk", dir);
	cr_expect(tool_sysfs_is_partition(part));
	cr_expect_not(tool_sysfs_is_partition(disk));
	unsigned ma = 0, mi = 0;
	cr_expect(tool_sysfs_disk(part, &ma, &mi));
	cr_expect_eq(ma, 259);
	cr_expect_eq(mi, 0);
	unsigned long long start = 0;
	snprintf(p, sizeof p, "%s/start", part);
	cr_expect(tool_sysfs_read_u64(p, &start));
	cr_expect_eq(start, 2048);
	cr_expect_not(tool_sysfs_disk(disk, &ma, &mi), "no dev file above the disk");
	tool_sysfs_dir(p, sizeof p, 7, 3);
	cr_expect_str_eq(p, "/sys/dev/block/7:3");
	tu_tmpdir_remove(dir);
}

Test(clock, monotonic_ns)
{
	uint64_t a = tool_now_ns(), b = tool_now_ns();
	cr_expect_geq(b, a);
	cr_expect_gt(a, 0);
}

/* What the tool layer owns stays there: no tool or library file calls
 * getopt_long or reads CLOCK_MONOTONIC into a timespec of its own again,
 * and none defines an exit-status enum. Reads the sources under the
 * checkout (BLKREEL_ROOT). */
static size_t scan(const char *dir, const char *const *words, size_t nwords, char *hits, size_t size)
{
	char cmd[8400];
	size_t n = 0;
	for (size_t i = 0; i < nwords; i++) {
		snprintf(cmd, sizeof cmd,
			 "grep -rlF --include='*.c' --include='*.h' -e '%s' '%s/capture' '%s/replay' "
			 "'%s/plot' '%s/formats/parse' '%s/formats/lib' '%s/formats/include' 2>/dev/null",
			 words[i], dir, dir, dir, dir, dir, dir);
		char *out = NULL;
		tu_run(cmd, &out, NULL, NULL);
		if (out && *out) {
			size_t len = strlen(hits);
			snprintf(hits + len, size - len, "%s:\n%s", words[i], out);
			n++;
		}
		free(out);
	}
	return n;
}

Test(layer, the_tools_share_one_copy)
{
	static const char *const words[] = {
		"getopt_long(", "struct option ", "CLI_EXIT_OK", "clock_gettime(CLOCK_MONOTONIC, &ts)",
		"blkreel/cli.h", "blkreel/progress.h",
	};
	char hits[8192] = "";
	cr_expect_eq(scan(tu_root(), words, sizeof words / sizeof words[0], hits, sizeof hits), 0,
		     "found outside formats/tool:\n%s", hits);
}

Test(sweep_label, stack_parameter_and_value, .init = cr_redirect_stderr)
{
	char param[TOOL_SWEEP_PARAM_MAX] = "";
	tool_sweep_label l;
	cr_expect(tool_is_sweep_label("ext4:clients=8"));
	cr_expect_not(tool_is_sweep_label("ext4"));
	cr_assert_eq(tool_sweep_label_read("blkreel-x", "ext4-dax:clients=8", param, &l), TOOL_EXIT_OK);
	cr_expect_str_eq(l.stack, "ext4-dax");
	cr_expect_str_eq(l.param, "clients");
	cr_expect_eq(l.value, 8);
	cr_expect_str_eq(param, "clients");
	cr_assert_eq(tool_sweep_label_read("blkreel-x", "xfs:clients=0.5", param, &l), TOOL_EXIT_OK);
	cr_expect_eq(l.value, 0.5);
	cr_expect_eq(tool_sweep_label_read("blkreel-x", "xfs:threads=2", param, &l), TOOL_EXIT_USAGE);
	const char *bad[] = { "xfs:clients", "xfs:clients=", ":clients=1", "xfs:=1", "xfs:clients=1x",
			      "xfs:clients=inf", "xfs:cli ents=1" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(tool_sweep_label_read("blkreel-x", bad[i], param, &l), TOOL_EXIT_USAGE, "%s", bad[i]);
	fflush(stderr);
	cr_expect_stderr_eq_str("blkreel-x: -l xfs:threads=2: the sweep's parameter is clients (one parameter per sweep)\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: -l xfs:clients: a sweep label is STACK:PARAM=VALUE, the value a number (e.g. ext4:clients=8)\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: -l xfs:clients=: a sweep label is STACK:PARAM=VALUE, the value a number (e.g. ext4:clients=8)\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: -l :clients=1: a sweep label is STACK:PARAM=VALUE, the value a number (e.g. ext4:clients=8)\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: -l xfs:=1: a sweep label is STACK:PARAM=VALUE, the value a number (e.g. ext4:clients=8)\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: -l xfs:clients=1x: a sweep label is STACK:PARAM=VALUE, the value a number (e.g. ext4:clients=8)\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: -l xfs:clients=inf: a sweep label is STACK:PARAM=VALUE, the value a number (e.g. ext4:clients=8)\n"
				"Try 'blkreel-x --help' for more information.\n"
				"blkreel-x: -l xfs:cli ents=1: a sweep label is STACK:PARAM=VALUE, the value a number (e.g. ext4:clients=8)\n"
				"Try 'blkreel-x --help' for more information.\n");
}

Test(html, escape_and_base64)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	tool_html_esc(m, "a<b & \"c\">");
	fclose(m);
	cr_expect_str_eq(buf, "a&lt;b &amp; &quot;c&quot;&gt;");
	free(buf);
	static const char *const plain[] = { "Man", "Ma", "M" }, *const coded[] = { "TWFu", "TWE=", "TQ==" };
	char *dir = tu_tmpdir(), path[4200];
	snprintf(path, sizeof path, "%s/f", dir);
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(path, "wb");
		fputs(plain[i], f);
		fclose(f);
		char *b = tool_html_base64_file(path);
		cr_expect_str_eq(b, coded[i]);
		free(b);
	}
	cr_expect_null(tool_html_base64_file("/nonexistent/f"));
	tu_tmpdir_remove(dir);
}

Test(sibling, find_and_run)
{
	char buf[4200], why[512];
	cr_expect_null(tool_sibling_find("blkreel-none-such", NULL, NULL, buf, sizeof buf, why, sizeof why));
	cr_expect(strstr(why, "blkreel-none-such is not installed ("), "%s", why);
	cr_expect_null(tool_sibling_find("blkreel-plot", "", NULL, buf, sizeof buf, why, sizeof why));
	cr_expect_str_eq(tool_sibling_find("true", "/bin/true", NULL, buf, sizeof buf, why, sizeof why), "/bin/true");
	const char *ok[] = { "/bin/true", NULL }, *bad[] = { "/bin/false", NULL }, *none[] = { "/nonexistent/x", NULL };
	cr_expect_eq(tool_sibling_run(ok, why, sizeof why), 0);
	cr_expect_eq(tool_sibling_run(bad, why, sizeof why), -1);
	cr_expect_str_eq(why, "/bin/false failed (status 1)");
	cr_expect_eq(tool_sibling_run(none, why, sizeof why), -1);
	cr_expect(strstr(why, "could not run /nonexistent/x"), "%s", why);
}
