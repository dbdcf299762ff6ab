/* The READMEs describe the product, briefly: the top README.md stays under
 * 300 lines and every other README.md under 250; no Markdown file in the
 * checkout tells the story of how it was made (no "session": history
 * belongs in git log); and every relative link in them names a file or
 * folder that exists (a README pointing at a deleted file is caught here).
 * A CPU-only suite: it reads the checkout (BLKREEL_ROOT) and runs nothing. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "testutil.h"

#define TOP_README_MAX 299   /* "under 300 lines" */
#define OTHER_README_MAX 249 /* "under 250 lines", each tool's and the library's */

/* the checkout's Markdown files, relative to its root */
static char *md_files[512];
static size_t n_md;
static size_t root_len;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	const char *base = path + ftw->base;
	if (type == FTW_D) {
		/* generated or foreign trees: build output, tools, git's own files */
		if (ftw->level > 0 && (!strcmp(base, "build") || !strcmp(base, "bin") || !strcmp(base, ".git") ||
				       !strcmp(base, "node_modules")))
			return FTW_SKIP_SUBTREE;
		return FTW_CONTINUE;
	}
	size_t n = strlen(base);
	if (type == FTW_F && n > 3 && !strcmp(base + n - 3, ".md")) {
		cr_assert_lt(n_md, sizeof md_files / sizeof md_files[0], "too many Markdown files for the table");
		md_files[n_md++] = strdup(path + root_len + 1);
	}
	return FTW_CONTINUE;
}

static void collect(void)
{
	root_len = strlen(tu_root());
	cr_assert_eq(nftw(tu_root(), visit, 32, FTW_PHYS | FTW_ACTIONRETVAL), 0, "walking %s", tu_root());
	/* the walk found the checkout, not an empty folder: the suite cannot pass vacuously */
	static const char *const expected[] = {"README.md", "capture/README.md", "replay/README.md",
					       "plot/README.md", "plot/report/README.md"};
	for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
		bool found = false;
		for (size_t i = 0; i < n_md && !found; i++)
			found = !strcmp(md_files[i], expected[e]);
		cr_assert(found, "%s not found under %s", expected[e], tu_root());
	}
}

/* the table's strings, freed at the end of each test (the ASan lane's leak check) */
static void release(void)
{
	for (size_t i = 0; i < n_md; i++)
		free(md_files[i]);
	n_md = 0;
}

/* the whole file, NUL terminated; *len its size */
static char *slurp(const char *rel, size_t *len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", tu_root(), rel);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n, "read %s", path);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static bool is_readme(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	return !strcmp(slash ? slash + 1 : rel, "README.md");
}

TestSuite(readmes, .timeout = 60);

Test(readmes, within_their_line_limits)
{
	collect();
	char report[8192] = "";
	for (size_t i = 0; i < n_md; i++) {
		if (!is_readme(md_files[i]))
			continue;
		size_t len, lines = 0;
		char *text = slurp(md_files[i], &len);
		for (size_t k = 0; k < len; k++)
			lines += text[k] == '\n';
		free(text);
		size_t max = !strcmp(md_files[i], "README.md") ? TOP_README_MAX : OTHER_README_MAX;
		if (lines > max)
			snprintf(report + strlen(report), sizeof report - strlen(report), "  %s: %zu lines (at most %zu)\n",
				 md_files[i], lines, max);
	}
	release();
	cr_expect_str_empty(report, "READMEs over their limit:\n%s", report);
}

Test(readmes, tell_no_history)
{
	collect();
	char report[8192] = "";
	for (size_t i = 0; i < n_md; i++) {
		size_t len, line = 1;
		char *text = slurp(md_files[i], &len);
		for (size_t k = 0; k < len; k++) {
			if (text[k] == '\n')
				line++;
			else if (len - k >= 7 && !strncasecmp(text + k, "session", 7))
				snprintf(report + strlen(report), sizeof report - strlen(report), "  %s:%zu\n", md_files[i],
					 line);
		}
		free(text);
	}
	release();
	cr_expect_str_empty(report, "Markdown files saying \"session\" (history belongs in git log):\n%s", report);
}

Test(readmes, relative_links_resolve)
{
	collect();
	char report[8192] = "";
	for (size_t i = 0; i < n_md; i++) {
		size_t len;
		char *text = slurp(md_files[i], &len);
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s/%s", tu_root(), md_files[i]);
		*strrchr(dir, '/') = 0;
		for (char *p = strstr(text, "]("); p; p = strstr(p + 2, "](")) {
			char *target = p + 2, *end = strpbrk(target, ")# \n");
			if (!end || end == target || !strncmp(target, "http://", 7) || !strncmp(target, "https://", 8) ||
			    !strncmp(target, "mailto:", 7))
				continue;
			char path[PATH_MAX];
			int w = snprintf(path, sizeof path, "%s/%.*s", dir, (int)(end - target), target);
			struct stat st;
			if (w < 0 || (size_t)w >= sizeof path || stat(path, &st) != 0)
				snprintf(report + strlen(report), sizeof report - strlen(report), "  %s: %.*s\n",
					 md_files[i], (int)(end - target), target);
		}
		free(text);
	}
	release();
	cr_expect_str_empty(report, "links to files that do not exist:\n%s", report);
}
