#include "rotated_set.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MEMBER_TAIL[] = ".blktrace.gz";

/* More digits than this could not be a number a capture reached, and would
 * overflow the uint64_t. */
#define MAX_DIGITS 18

bool rs_member_name(const char *path, size_t *name_len, uint64_t *number, unsigned *digits)
{
	size_t len = strlen(path), tail = sizeof MEMBER_TAIL - 1;
	if (len <= tail || strcmp(path + len - tail, MEMBER_TAIL) != 0)
		return false;
	const char *end = path + len - tail, *p = end;
	while (p > path && p[-1] >= '0' && p[-1] <= '9')
		p--;
	size_t nd = (size_t)(end - p);
	/* STEM must be there: "/x/.00001.blktrace.gz" is no member of anything */
	if (nd < RS_MIN_DIGITS || nd > MAX_DIGITS || p - path < 2 || p[-1] != '.' || p[-2] == '/')
		return false;
	uint64_t v = 0;
	for (const char *d = p; d < end; d++)
		v = v * 10 + (uint64_t)(*d - '0');
	*name_len = (size_t)(p - 1 - path);
	*number = v;
	*digits = (unsigned)nd;
	return true;
}

static int cmp_member(const void *a, const void *b)
{
	const rs_member *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

/* Sort by number; two files with one number (00007 and 000007) would be
 * read twice over: refuse them. */
static int sort_members(rs_set *set, br_error *err)
{
	qsort(set->m, set->n, sizeof *set->m, cmp_member);
	for (size_t i = 1; i < set->n; i++)
		if (set->m[i].number == set->m[i - 1].number)
			return br_error_set(err, BR_EINVAL, 0, set->m[i].path, -1,
					    "numbered like %s: which one belongs to the rotated set?",
					    set->m[i - 1].path);
	return 0;
}

/* The numbers between lo and hi (included) that none of m (sorted) has. */
static int gaps_of(rs_set *set, const rs_member *m, size_t n, uint64_t lo, uint64_t hi,
		   br_error *err)
{
	uint64_t prev = lo;
	bool first = true;
	for (size_t i = 0; i <= n; i++) {
		uint64_t at = i < n ? m[i].number : hi + 1;
		if (at < lo || (i < n && at > hi))
			continue;
		uint64_t from = first ? lo : prev + 1;
		if (at > from) {
			br_number_range *g = realloc(set->gaps, (set->ngaps + 1) * sizeof *g);
			if (!g)
				return br_error_set(err, BR_ENOMEM, ENOMEM, set->name, -1, "out of memory");
			set->gaps = g;
			set->gaps[set->ngaps++] = (br_number_range){ from, at - 1 };
		}
		first = false;
		prev = at;
	}
	return 0;
}

static int add_member(rs_set *set, size_t *cap, char *path, uint64_t number, br_error *err)
{
	if (set->n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		rs_member *m = realloc(set->m, c * sizeof *m);
		if (!m) {
			free(path);
			return br_error_set(err, BR_ENOMEM, ENOMEM, set->name, -1, "out of memory");
		}
		set->m = m;
		*cap = c;
	}
	set->m[set->n++] = (rs_member){ number, path };
	return 0;
}

/* The members on disk, unsorted, without gaps. */
static int scan(const char *name, rs_set *set, br_error *err)
{
	memset(set, 0, sizeof *set);
	set->name = strdup(name);
	if (!set->name)
		return br_error_set(err, BR_ENOMEM, ENOMEM, name, -1, "out of memory");
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	if (!*base)
		return 0;
	char *dir = slash ? strndup(name, (size_t)(slash - name) + 1) : strdup(".");
	if (!dir)
		return br_error_set(err, BR_ENOMEM, ENOMEM, name, -1, "out of memory");
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return 0; /* no directory, no members: the caller says what is missing */
	size_t blen = strlen(base), cap = 0;
	int rc = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		size_t nlen;
		uint64_t number;
		unsigned digits;
		if (strncmp(de->d_name, base, blen) != 0 ||
		    !rs_member_name(de->d_name, &nlen, &number, &digits) || nlen != blen)
			continue;
		/* spelt as NAME was, so messages name the files as the user does */
		char *path = NULL;
		if (asprintf(&path, "%s%s", name, de->d_name + blen) < 0)
			rc = br_error_set(err, BR_ENOMEM, ENOMEM, name, -1, "out of memory");
		else
			rc = add_member(set, &cap, path, number, err);
	}
	closedir(d);
	return rc;
}

int rs_find(const char *name, rs_set *set, br_error *err)
{
	int rc = scan(name, set, err);
	if (rc || !set->n)
		return rc;
	rc = sort_members(set, err);
	if (rc)
		return rc;
	size_t nl;
	uint64_t number;
	rs_member_name(set->m[0].path, &nl, &number, &set->digits);
	return gaps_of(set, set->m, set->n, set->m[0].number, set->m[set->n - 1].number, err);
}

int rs_from_paths(char **paths, size_t n, rs_set *set, br_error *err)
{
	memset(set, 0, sizeof *set);
	size_t nl = 0, cap = 0;
	uint64_t number;
	unsigned digits;
	rs_member_name(paths[0], &nl, &number, &digits);
	set->name = strndup(paths[0], nl);
	int rc = set->name ? 0 : br_error_set(err, BR_ENOMEM, ENOMEM, paths[0], -1, "out of memory");
	size_t taken = 0;
	for (; !rc && taken < n; taken++) {
		rs_member_name(paths[taken], &nl, &number, &digits);
		rc = add_member(set, &cap, paths[taken], number, err);
	}
	for (size_t i = taken; i < n; i++)
		free(paths[i]);
	if (!rc)
		rc = sort_members(set, err);
	if (rc)
		return rc;
	rs_member_name(set->m[0].path, &nl, &number, &set->digits);
	rs_set disk;
	rc = rs_find(set->name, &disk, err);
	if (!rc)
		rc = gaps_of(set, disk.m, disk.n, set->m[0].number, set->m[set->n - 1].number, err);
	rs_free(&disk);
	return rc;
}

void rs_free(rs_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->m[i].path);
	free(set->m);
	free(set->gaps);
	free(set->name);
	memset(set, 0, sizeof *set);
}
