/* rotated_set.h (internal) — the names of a rotated capture set.
 *
 * blkreel-capture --rotate writes the trace NAME as NAME.00001.blktrace.gz,
 * NAME.00002.blktrace.gz, ... (five digits or more, zero-padded). This file
 * finds those files and says which numbers are missing; it opens none of
 * them (rotated_source.c reads them). */
#ifndef BLKREEL_ROTATED_SET_H
#define BLKREEL_ROTATED_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/reader.h"

/* The fewest digits a member's number has in its name. */
#define RS_MIN_DIGITS 5

typedef struct rs_member {
	uint64_t number;
	char *path;
} rs_member;

typedef struct rs_set {
	char *name;              /* NAME, spelt as the member paths spell it */
	unsigned digits;         /* digits of the first member's number */
	rs_member *m;            /* by number */
	size_t n;
	br_number_range *gaps;   /* numbers inside m[0]..m[n-1] with no file */
	size_t ngaps;
} rs_set;

/* True when path's file name is STEM.<digits>.blktrace.gz with at least
 * RS_MIN_DIGITS digits: *name_len is the length of path up to the dot
 * before the digits, *number and *digits the number and how many digits
 * spell it. */
bool rs_member_name(const char *path, size_t *name_len, uint64_t *number, unsigned *digits);

/* Every member of NAME on disk (NAME may carry a directory), by number,
 * and the gaps between them. 0 with set->n == 0 when there is none; an
 * error when two files carry the same number. */
int rs_find(const char *name, rs_set *set, br_error *err);

/* A set of the members given (all of one NAME, as rs_member_name says;
 * the caller checked), sorted by number; its gaps are the numbers between
 * the first and last of them that have no file on disk, so a member left
 * out on purpose is not reported missing. Takes the paths' strings. */
int rs_from_paths(char **paths, size_t n, rs_set *set, br_error *err);

void rs_free(rs_set *set);

#endif
