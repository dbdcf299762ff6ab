#include "spool/spool_finish.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spool/raw_convert.h"
#include "spool/spool.h"

#define PATH_LEN 1100

static void part_base(char *out, size_t size, const char *split_base)
{
	snprintf(out, size, "%.1000s.part", split_base);
}

/* Remove base.blktrace.<from>, <from+1>, ... up to the first missing one. */
static void remove_from(const char *base, unsigned from)
{
	char p[PATH_LEN];
	for (unsigned cpu = from;; cpu++) {
		br_split_path(p, sizeof p, base, cpu);
		if (unlink(p) && errno == ENOENT)
			break;
	}
}

void cap_spool_finish_remove_parts(const char *split_base)
{
	if (!split_base || !split_base[0])
		return;
	char pb[PATH_LEN];
	part_base(pb, sizeof pb, split_base);
	remove_from(pb, 0);
}

/* The .part set into place, highest CPU first (blkparse opens cpu 0 first
 * and stops at the first missing one: a set cut short by a kill while
 * renaming has no cpu 0 and reads as nothing, not as a smaller capture). */
static int rename_split(const char *split_base, unsigned *nfiles, br_error *err)
{
	char pb[PATH_LEN], from[PATH_LEN], to[PATH_LEN];
	part_base(pb, sizeof pb, split_base);
	unsigned n = 0;
	for (;; n++) {
		br_split_path(from, sizeof from, pb, n);
		if (access(from, F_OK))
			break;
	}
	/* a set of an earlier capture with more CPUs: its extra files go */
	remove_from(split_base, n);
	for (unsigned cpu = n; cpu-- > 0;) {
		br_split_path(from, sizeof from, pb, cpu);
		br_split_path(to, sizeof to, split_base, cpu);
		if (rename(from, to))
			return br_error_set(err, BR_ESYS, errno, to, -1, "cannot rename %s into place", from);
	}
	*nfiles = n;
	return 0;
}

int cap_spool_finish(const cap_finish *f, cap_finish_result *res, br_error *err)
{
	memset(res, 0, sizeof *res);
	bool split = f->split_base && f->split_base[0];
	char gz_part[PATH_LEN], pb[PATH_LEN];
	snprintf(gz_part, sizeof gz_part, "%.1000s.part", f->gz);
	if (split) {
		part_base(pb, sizeof pb, f->split_base);
		cap_spool_finish_remove_parts(f->split_base);
	}
	br_writer *w[2];
	unsigned n = 0;
	int rc = br_writer_open(&w[0], BR_OUT_COMPRESSED, gz_part, f->opts, err);
	if (rc)
		return rc;
	n = 1;
	if (split) {
		if ((rc = br_writer_open(&w[1], BR_OUT_SPLIT, pb, f->opts, err))) {
			br_writer_abort(w[0]);
			return rc;
		}
		n = 2;
	}
	br_error e;
	br_error_clear(&e);
	res->raw = cap_raw_spool_is(f->spool);
	int64_t got = res->raw ? cap_raw_convert(f->spool, f->punch, w, n, &res->raw_stats, &e)
			       : cap_spool_replay(f->spool, f->punch, w, n, &e);
	if (got < 0)
		rc = (int)got;
	else
		res->events = got;
	if (rc && !f->keep_on_error) {
		/* nothing that looks whole, and the spool stays for a look */
		for (unsigned i = 0; i < n; i++)
			br_writer_abort(w[i]);
		*err = e;
		return rc;
	}
	for (unsigned i = 0; i < n; i++) {
		br_error ce;
		int crc = br_writer_close(w[i], &ce);
		if (crc && !rc) {
			rc = crc;
			e = ce;
		}
	}
	if (rc && !f->keep_on_error) {
		unlink(gz_part);
		cap_spool_finish_remove_parts(split ? f->split_base : NULL);
		*err = e;
		return rc;
	}
	/* the split set first, the .gz last: a .gz in place means all is */
	br_error re;
	int rrc = split ? rename_split(f->split_base, &res->split_files, &re) : 0;
	if (rrc == 0 && rename(gz_part, f->gz))
		rrc = br_error_set(&re, BR_ESYS, errno, f->gz, -1, "cannot rename %s into place", gz_part);
	if (rrc && !rc) {
		rc = rrc;
		e = re;
	}
	if (rc)
		*err = e;
	return rc;
}
