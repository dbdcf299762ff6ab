#include "input_glob.h"

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

bool ig_is_pattern(const char *path)
{
	return strpbrk(path, "*?[") != NULL;
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t t = strlen(tail);
	return len >= t && memcmp(s + len - t, tail, t) == 0;
}

/* A capture's member still being written: what it holds is not whole,
 * and the same records end up in the finished member. */
static bool in_progress(const char *path, size_t len)
{
	return ends_with(path, len, ".blktrace.spool") || ends_with(path, len, ".blktrace.gz.part");
}

int ig_expand(const char *pattern, char ***paths, size_t *n, br_error *err)
{
	*paths = NULL;
	*n = 0;
	glob_t g;
	/* GLOB_MARK: directories come back with a '/' to leave them out by */
	int grc = glob(pattern, GLOB_MARK, NULL, &g);
	if (grc == GLOB_NOSPACE) {
		globfree(&g);
		return br_error_set(err, BR_ENOMEM, ENOMEM, pattern, -1, "out of memory");
	}
	if (grc == GLOB_ABORTED) {
		globfree(&g);
		return br_error_set(err, BR_ESYS, EIO, pattern, -1,
				    "cannot expand the pattern (a directory could not be read)");
	}
	size_t kept = 0;
	char **out = grc == 0 ? calloc(g.gl_pathc ? g.gl_pathc : 1, sizeof *out) : NULL;
	if (grc == 0 && !out) {
		globfree(&g);
		return br_error_set(err, BR_ENOMEM, ENOMEM, pattern, -1, "out of memory");
	}
	for (size_t i = 0; grc == 0 && i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i];
		size_t len = strlen(p);
		if ((len && p[len - 1] == '/') || in_progress(p, len))
			continue;
		if (!(out[kept] = strdup(p))) {
			ig_free(out, kept);
			globfree(&g);
			return br_error_set(err, BR_ENOMEM, ENOMEM, pattern, -1, "out of memory");
		}
		kept++;
	}
	globfree(&g);
	if (!kept) {
		free(out);
		return br_error_set(err, BR_ESYS, ENOENT, pattern, -1,
				    "no file matches the pattern (nor has that name)");
	}
	*paths = out;
	*n = kept;
	return 0;
}

void ig_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
