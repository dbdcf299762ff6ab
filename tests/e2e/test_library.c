/* libblkreel for other programs: `make install DESTDIR=... PREFIX=/usr` into
 * a temporary directory, then docs/examples/count_ios.c built against that
 * copy through pkg-config (shared and static) and run on a sample. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char *stage; /* DESTDIR of this test's install (each test is its own process) */

static void install_fixture(void)
{
	tu_dir_setup();
	static char path[4096];
	snprintf(path, sizeof path, "%s/stage", tu_dir);
	stage = path;
	char *out = NULL, *err = NULL;
	/* the outer make's jobserver is not ours to use, and the library
	 * installed is the release one whichever variant is under test; each
	 * test installs (Criterion runs them at once), and two makes in one
	 * tree race on its temporary files: one at a time */
	int rc = tu_runf(&out, NULL, &err,
			 "mkdir -p '%s/build' && flock '%s/build/.install.lock' "
			 "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' install VARIANT=release DESTDIR='%s' PREFIX=/usr",
			 tu_root(), tu_root(), tu_root(), stage);
	cr_assert_eq(rc, 0, "make install failed (%d):\n%s\n%s", rc, out, err);
	free(out);
	free(err);
}

TestSuite(library, .init = install_fixture, .fini = tu_dir_teardown, .timeout = 600);

static const char *staged(const char *rel)
{
	static char buf[4][4096];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/usr/%s", stage, rel);
	return buf[k];
}

#define PKGCONF "env PKG_CONFIG_SYSROOT_DIR='%s' PKG_CONFIG_LIBDIR='%s' pkg-config"

Test(library, installs_libraries_headers_pc_and_pages)
{
	static const char *const files[] = {
		"lib/libblkreel.a",          "lib/libblkreel.so.0.1.0",      "lib/libblkreel.so.0",
		"lib/libblkreel.so",         "lib/pkgconfig/blkreel.pc",     "include/blkreel/reader.h",
		"include/blkreel/event.h",   "include/blkreel/error.h",      "bin/blkreel-parse",
		"bin/blkreel-report",        "share/man/man1/blkreel-parse.1", "share/man/man8/blkreel-capture.8",
		"share/man/man8/blkreel-replay.8", "share/man/man5/blkreel-trace.5",
		"share/bash-completion/completions/blkreel", "share/bash-completion/completions/blkreel-plot",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct stat st;
		cr_expect_eq(stat(staged(files[i]), &st), 0, "%s is not installed", files[i]);
	}
	char link[256] = "";
	ssize_t n = readlink(staged("lib/libblkreel.so"), link, sizeof link - 1);
	cr_expect(n > 0 && strcmp((link[n] = 0, link), "libblkreel.so.0") == 0, "libblkreel.so -> %s", link);
	n = readlink(staged("lib/libblkreel.so.0"), link, sizeof link - 1);
	cr_expect(n > 0 && strcmp((link[n] = 0, link), "libblkreel.so.0.1.0") == 0, "libblkreel.so.0 -> %s",
		  link);
	/* the .pc names the prefix it was installed for, not the build tree */
	size_t len;
	char *pc = (char *)tu_read_file(staged("lib/pkgconfig/blkreel.pc"), &len);
	cr_assert(pc);
	cr_expect(strstr(pc, "prefix=/usr\n") && strstr(pc, "-lblkreel") && !strstr(pc, tu_root()), "%s", pc);
	free(pc);
}

Test(library, shared_library_has_soname_and_exports_only_the_public_api)
{
	char *out = NULL;
	cr_assert_eq(tu_runf(&out, NULL, NULL, "readelf -d '%s'", staged("lib/libblkreel.so.0.1.0")), 0);
	cr_expect(strstr(out, "Library soname: [libblkreel.so.0]"), "%s", out);
	/* it reads and writes traces: no drawing library, no io_uring */
	cr_expect(strstr(out, "[libz.so") && !strstr(out, "[libcairo") && !strstr(out, "[libpng") &&
			  !strstr(out, "[libfreetype") && !strstr(out, "[liburing"),
		  "%s", out);
	free(out);
	cr_assert_eq(tu_runf(&out, NULL, NULL, "nm -D --defined-only '%s'", staged("lib/libblkreel.so.0.1.0")), 0);
	/* internal helpers stay hidden even when they are named br_* */
	cr_expect(!strstr(out, "br_fdout_open"));
	cr_expect(strstr(out, "br_reader_open") && strstr(out, "br_reader_next"));
	size_t exported = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char addr[32], type[4], name[256];
		if (sscanf(line, "%31s %3s %255s", addr, type, name) != 3 || strcmp(type, "A") == 0)
			continue; /* the version node */
		exported++;
		cr_expect_eq(strncmp(name, "br_", 3), 0, "exported symbol %s is not br_*", name);
	}
	cr_expect_geq(exported, 20);
	free(out);
}

/* The number of C events blkreel-parse prints for a trace. */
static long parse_completions(const char *trace)
{
	char *out = NULL;
	tu_runf(&out, NULL, NULL, "'%s' -q '%s' | awk '$6 == \"C\"' | wc -l", tu_bin("blkreel-parse"), trace);
	long n = out ? strtol(out, NULL, 10) : -1;
	free(out);
	return n;
}

static void build_and_run(bool static_link)
{
	const char *lib = staged("lib");
	char pcdir[4096], exe[4096];
	snprintf(pcdir, sizeof pcdir, "%s/pkgconfig", lib);
	snprintf(exe, sizeof exe, "%s/count_ios%s", tu_dir, static_link ? "_static" : "");
	char *err = NULL;
	int rc = static_link
		? tu_runf(NULL, NULL, &err,
			  "cc -std=c11 -Wall -Wextra -Werror -o '%s' '%s/docs/examples/count_ios.c' $(" PKGCONF
			  " --cflags blkreel) '%s/libblkreel.a' $(" PKGCONF " --static --libs blkreel | sed "
			  "'s/-lblkreel//')",
			  exe, tu_root(), stage, pcdir, lib, stage, pcdir)
		: tu_runf(NULL, NULL, &err,
			  "cc -std=c11 -Wall -Wextra -Werror -o '%s' '%s/docs/examples/count_ios.c' $(" PKGCONF
			  " --cflags --libs blkreel)",
			  exe, tu_root(), stage, pcdir);
	cr_assert_eq(rc, 0, "building the example failed:\n%s", err);
	free(err);

	char *out = NULL;
	cr_assert_eq(tu_runf(&out, NULL, NULL, "ldd '%s'", exe), 0);
	cr_expect_eq(strstr(out, "libblkreel") != NULL, !static_link, "%s", out);
	free(out);

	static const char *const traces[] = { "ext4-loop", "xfs-dbench-1c.blktrace.gz" };
	for (size_t i = 0; i < 2; i++) {
		const char *t = tu_sample(traces[i]);
		long want = parse_completions(t);
		cr_assert_gt(want, 0);
		out = err = NULL;
		rc = tu_runf(&out, NULL, &err, "LD_LIBRARY_PATH='%s' '%s' '%s'", lib, exe, t);
		cr_expect_eq(rc, 0, "%s: %s", t, err);
		char expect[64];
		snprintf(expect, sizeof expect, "%ld IOs completed\n", want);
		cr_expect_str_eq(out, expect, "%s", t);
		free(out);
		free(err);
	}
	/* an error is the library's message, naming the file and offset */
	const char *bad = tu_path("not-a-trace");
	tu_write_file(bad, "hello, world\n", 13);
	char want[4200];
	snprintf(want, sizeof want, "%s: byte 0:", bad);
	err = NULL;
	rc = tu_runf(NULL, NULL, &err, "LD_LIBRARY_PATH='%s' '%s' '%s'", lib, exe, bad);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(err, want), "%s", err);
	free(err);
}

Test(library, example_builds_against_the_installed_shared_library)
{
	build_and_run(false);
}

Test(library, example_builds_against_the_installed_static_library)
{
	build_and_run(true);
}
