/* Each tool links what its code calls: cairo, libpng and freetype only in
 * blkreel-plot (the one tool that draws; blkreel-report embeds the figure
 * blkreel-plot wrote), liburing only in blkreel-replay. Read from the
 * binaries' NEEDED entries (readelf -d), which is what the loader maps at
 * every start. The release link's --as-needed drops an unused -l on its
 * own, the ASan link does not: under ASan this checks the GNUmakefile's
 * per-tool lists themselves. A CPU-only suite: it only reads the binaries. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(linked_libs, .timeout = 60);

/* The tool's NEEDED sonames, one per line ("libz.so.1\nlibc.so.6\n"). */
static char *needed(const char *tool)
{
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err, "readelf -d '%s'", tu_bin(tool));
	cr_assert_eq(rc, 0, "readelf -d %s: %s", tu_bin(tool), err);
	free(err);
	size_t cap = strlen(out) + 1, used = 0;
	char *list = calloc(1, cap);
	cr_assert_not_null(list);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *lb = strchr(line, '['), *rb = lb ? strchr(lb, ']') : NULL;
		if (!strstr(line, "(NEEDED)") || !rb)
			continue;
		used += (size_t)snprintf(list + used, cap - used, "%.*s\n", (int)(rb - lb - 1), lb + 1);
	}
	free(out);
	/* every dynamically linked tool needs libc: an empty list means the
	 * output was not read, and every "has none" below would pass */
	cr_assert(strstr(list, "libc.so"), "no NEEDED entries read from %s", tu_bin(tool));
	return list;
}

/* true when a line of list starts with prefix ("libcairo") */
static bool has(const char *list, const char *prefix)
{
	for (const char *p = list; *p; p = strchr(p, '\n') + 1)
		if (!strncmp(p, prefix, strlen(prefix)))
			return true;
	return false;
}

static const char *const draw_libs[] = {"libcairo", "libpng", "libfreetype"};

Test(linked_libs, only_blkreel_plot_links_the_drawing_libraries)
{
	static const char *const not_drawing[] = {"blkreel-parse", "blkreel-capture", "blkreel-replay",
						  "blkreel-report"};
	for (size_t t = 0; t < sizeof not_drawing / sizeof not_drawing[0]; t++) {
		char *list = needed(not_drawing[t]);
		for (size_t l = 0; l < sizeof draw_libs / sizeof draw_libs[0]; l++)
			cr_expect(!has(list, draw_libs[l]), "%s needs %s*:\n%s", not_drawing[t], draw_libs[l], list);
		free(list);
	}
	/* the tool that draws does need them: the reading above finds them */
	char *list = needed("blkreel-plot");
	cr_expect(has(list, "libcairo") && has(list, "libpng"), "blkreel-plot's NEEDED:\n%s", list);
	free(list);
}

Test(linked_libs, only_blkreel_replay_links_liburing)
{
	static const char *const no_uring[] = {"blkreel-parse", "blkreel-capture", "blkreel-plot", "blkreel-report"};
	for (size_t t = 0; t < sizeof no_uring / sizeof no_uring[0]; t++) {
		char *list = needed(no_uring[t]);
		cr_expect(!has(list, "liburing"), "%s needs liburing:\n%s", no_uring[t], list);
		free(list);
	}
	char *list = needed("blkreel-replay");
	cr_expect(has(list, "liburing"), "blkreel-replay's NEEDED:\n%s", list);
	free(list);
}
