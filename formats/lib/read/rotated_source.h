/* rotated_source.h (internal) — a rotated capture set as one source. */
#ifndef BLKREEL_ROTATED_SOURCE_H
#define BLKREEL_ROTATED_SOURCE_H

#include "common/source.h"
#include "rotated_set.h"

/* Read set's members one after the other as one time-ordered source.
 * Every member is checked to be a gzip file here (an error names the
 * first that is not), and the first is opened; the others are opened when
 * the one before them is used up. Takes set (also on failure). */
int br_rotated_source_open(br_source **out, rs_set *set, const br_reader_opts *opts,
			   br_error *err);

#endif
