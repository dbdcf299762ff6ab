/* input_glob.h (internal) — a glob pattern given as one input path.
 *
 * plot and report take one path per trace; a quoted pattern lets that one
 * path name several files (the members of a rotated set, a per-CPU set's
 * files, any traces to merge). */
#ifndef BLKREEL_INPUT_GLOB_H
#define BLKREEL_INPUT_GLOB_H

#include <stdbool.h>
#include <stddef.h>
#include "blkreel/error.h"

/* True when path holds a glob(3) metacharacter (*, ? or [). */
bool ig_is_pattern(const char *path);

/* The files pattern matches, sorted by name (malloc'd array of malloc'd
 * strings), leaving out directories and the files a capture is still
 * writing (*.blktrace.spool, *.blktrace.gz.part: not whole). No match is
 * an error naming the pattern. */
int ig_expand(const char *pattern, char ***paths, size_t *n, br_error *err);

void ig_free(char **paths, size_t n);

#endif
