/* input_detect.h (internal) — turn a path given by the user into sources.
 *
 * A path names one input (detected from its first bytes through the
 * probe table in input_detect.c), a per-CPU set NAME.blktrace.0..N (named
 * as NAME or as any member), a rotated set NAME.NNNNN.blktrace.gz (named
 * as NAME or NAME.blktrace.gz; rotated_set.c, rotated_source.c) or, when
 * no file has that name, the files a glob pattern matches (input_glob.c). */
#ifndef BLKREEL_INPUT_DETECT_H
#define BLKREEL_INPUT_DETECT_H

#include "common/source.h"

typedef struct br_opened_input {
	enum br_input_kind kind;
	const char *format_name; /* the input_kinds[] name that matched */
	size_t nsources;
	br_source **sources;   /* malloc'd array; the caller owns sources and array */
} br_opened_input;

int br_open_input_path(const char *path, const br_reader_opts *opts, br_opened_input *out,
		       br_error *err);

#endif
