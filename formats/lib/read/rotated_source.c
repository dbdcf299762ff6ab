/* rotated_source.c — a rotated capture set read as one source.
 *
 * Member k of a set holds a time slice of one stream that ends before
 * member k+1's begins, so reading the members one after the other is the
 * merge by time. One member is open at a time: the next is opened when
 * the current one is used up, so a set of a thousand files costs the
 * memory and threads of one compressed file, not of a thousand (each
 * compressed source keeps its inflate ring and worker pool).
 *
 * A time window's start reaches every member opened after it: each seeks
 * on its own index, so a member wholly before the window is passed over
 * reading only its member headers, never inflated. Its end needs nothing
 * here: the reader stops reading, and the later members are never opened.
 *
 * What the members said (bytes, gzip members, damage) is added up as each
 * is closed, so br_input_info describes the whole set; damage entries name
 * the member file they lie in. */
#include "rotated_source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

typedef struct rotated_source {
	br_source base;
	rs_set set;
	br_reader_opts opts;
	size_t next;              /* the member to open next */
	br_source *cur;           /* the member being read, NULL when none is left */
	size_t cur_index;
	bool seeking;             /* a window start: members opened later seek to it */
	uint64_t seek_t;
	br_event one;             /* next_batch of one event, for members without it */
	bool fresh;               /* the current member has handed out nothing yet */
	bool have_last;           /* last_time is set: an event was handed out */
	uint64_t last_time;       /* of the last event handed out */
	size_t last_index;        /* the member it came from */
	int error;                /* sticky */
	br_error saved;
	/* the members closed so far, added up */
	br_input_info done;
	bool unindexed;           /* a member was a plain gzip */
	br_damage *damage;
	size_t ndamage, damage_cap;
	br_damage *shown;         /* info's list: damage, then the open member's */
	size_t shown_cap;
} rotated_source;

static int fail(rotated_source *r, int rc, const br_error *e, br_error *err)
{
	r->error = rc;
	if (e)
		r->saved = *e;
	if (err && e != err)
		*err = r->saved;
	return rc;
}

static int sticky(rotated_source *r, br_error *err)
{
	if (err)
		*err = r->saved;
	return r->error;
}

/* Copy damage entries d[0..n) behind (*list)[0..*len), naming file as
 * the one they lie in when it is given (a member's own name for itself
 * goes when the member is closed). */
static int append_damage(br_damage **list, size_t *len, size_t *cap, const br_damage *d, size_t n,
			 const char *file)
{
	if (!n)
		return 0;
	if (*len + n > *cap) {
		br_damage *g = br_grow(*list, cap, *len + n, sizeof *g, 8);
		if (!g)
			return BR_ENOMEM;
		*list = g;
	}
	for (size_t i = 0; i < n; i++) {
		(*list)[*len + i] = d[i];
		if (file)
			(*list)[*len + i].file = file;
	}
	*len += n;
	return 0;
}

/* The current member is used up: keep what it said, then close it. */
static int close_member(rotated_source *r, br_error *err)
{
	br_input_info in;
	memset(&in, 0, sizeof in);
	if (r->cur->ops->info)
		r->cur->ops->info(r->cur, &in);
	r->done.members += in.members;
	r->done.members_skipped += in.members_skipped;
	r->done.compressed_bytes += in.compressed_bytes;
	r->done.raw_bytes += in.raw_bytes;
	r->done.byteswapped |= in.byteswapped;
	r->unindexed |= !in.indexed;
	int rc = append_damage(&r->damage, &r->ndamage, &r->damage_cap, in.damage, in.ndamage,
			       r->set.m[r->cur_index].path);
	r->cur->ops->close(r->cur);
	r->cur = NULL;
	if (rc) {
		br_error e;
		br_error_set(&e, BR_ENOMEM, ENOMEM, r->set.name, -1, "out of memory");
		return fail(r, BR_ENOMEM, &e, err);
	}
	return 0;
}

/* Open member i as the compressed file it must be, seeking it to the
 * window start when there is one. */
static int open_member(rotated_source *r, size_t i, br_error *err)
{
	br_input in;
	int rc = br_input_open(&in, r->set.m[i].path, err);
	if (rc)
		return fail(r, rc, err, err);
	br_source *src = NULL;
	rc = br_tgz_source_open(&src, &in, &r->opts, err);
	if (rc) {
		br_input_close(&in);
		return fail(r, rc, err, err);
	}
	r->cur = src;
	r->cur_index = i;
	r->fresh = true;
	if (r->seeking && src->ops->seek_time && (rc = src->ops->seek_time(src, r->seek_t, err)))
		return fail(r, rc, err, err);
	return 0;
}

/* Close the current member and open the next: 1 when there is one, 0 at
 * the end of the set, or a negative code. */
static int advance(rotated_source *r, br_error *err)
{
	if (r->cur && close_member(r, err))
		return r->error;
	if (r->next == r->set.n)
		return 0;
	int rc = open_member(r, r->next++, err);
	return rc ? rc : 1;
}

/* The current member's next event. A member that cannot seek (a plain
 * gzip) has the window start applied here, as the reader would. */
static int member_next(rotated_source *r, br_event *ev, br_error *err)
{
	for (;;) {
		int rc = r->cur->ops->next(r->cur, ev, err);
		if (rc != 1 || !r->seeking || r->cur->ops->seek_time || br_event_is_notify(ev) ||
		    ev->time >= r->seek_t)
			return rc;
	}
}

/* Events first..last (in order) of the current member are about to be
 * handed out. Members that do not follow each other in time (files of two
 * captures under one NAME) would make a trace that goes back in time:
 * say which file starts too early, rather than let a consumer find the
 * disorder later. */
static int check_order(rotated_source *r, const br_event *first, const br_event *last,
		       br_error *err)
{
	if (r->fresh && r->have_last && first->time < r->last_time) {
		br_error e;
		br_error_set(&e, BR_EFORMAT, 0, r->set.m[r->cur_index].path, 0,
			     "first record at %llu ns comes before the last one of %s at %llu ns: "
			     "not the next part of one trace",
			     (unsigned long long)first->time, r->set.m[r->last_index].path,
			     (unsigned long long)r->last_time);
		return fail(r, BR_EFORMAT, &e, err);
	}
	r->fresh = false;
	r->have_last = true;
	r->last_time = last->time;
	r->last_index = r->cur_index;
	return 0;
}

static int rot_next(br_source *src, br_event *ev, br_error *err)
{
	rotated_source *r = (rotated_source *)src;
	if (r->error)
		return sticky(r, err);
	while (r->cur) {
		int rc = member_next(r, ev, err);
		if (rc < 0)
			return fail(r, rc, err, err);
		if (rc > 0)
			return check_order(r, ev, ev, err) ? r->error : rc;
		if ((rc = advance(r, err)) <= 0)
			return rc;
	}
	return 0;
}

static int rot_next_batch(br_source *src, const br_event **evs, size_t max, br_error *err)
{
	rotated_source *r = (rotated_source *)src;
	if (r->error)
		return sticky(r, err);
	while (r->cur) {
		const br_source_ops *ops = r->cur->ops;
		int rc;
		if (ops->next_batch && (ops->seek_time || !r->seeking)) {
			rc = ops->next_batch(r->cur, evs, max, err);
		} else {
			rc = member_next(r, &r->one, err);
			*evs = &r->one;
		}
		if (rc < 0)
			return fail(r, rc, err, err);
		if (rc > 0)
			return check_order(r, &(*evs)[0], &(*evs)[rc - 1], err) ? r->error : rc;
		if ((rc = advance(r, err)) <= 0)
			return rc;
	}
	return 0;
}

static int rot_seek_time(br_source *src, uint64_t t, br_error *err)
{
	rotated_source *r = (rotated_source *)src;
	if (r->error)
		return sticky(r, err);
	if (r->seeking && t <= r->seek_t)
		return 0; /* forward only, as each member seeks */
	r->seeking = true;
	r->seek_t = t;
	if (r->cur && r->cur->ops->seek_time) {
		int rc = r->cur->ops->seek_time(r->cur, t, err);
		if (rc)
			return fail(r, rc, err, err);
	}
	return 0;
}

static int64_t rot_first_time(br_source *src)
{
	rotated_source *r = (rotated_source *)src;
	/* only the first member's first event is the set's */
	if (!r->cur || r->cur_index != 0 || !r->cur->ops->first_time)
		return -1;
	return r->cur->ops->first_time(r->cur);
}

static void rot_info(br_source *src, br_input_info *info)
{
	rotated_source *r = (rotated_source *)src;
	br_input_info cur;
	memset(&cur, 0, sizeof cur);
	if (r->cur && r->cur->ops->info)
		r->cur->ops->info(r->cur, &cur);
	info->kind = BR_INPUT_ROTATED;
	info->files = (unsigned)r->set.n;
	info->indexed = !r->unindexed && (!r->cur || cur.indexed);
	info->members = r->done.members + cur.members;
	info->members_skipped = r->done.members_skipped + cur.members_skipped;
	info->compressed_bytes = r->done.compressed_bytes + cur.compressed_bytes;
	info->raw_bytes = r->done.raw_bytes + cur.raw_bytes;
	info->byteswapped = r->done.byteswapped || cur.byteswapped;
	size_t n = 0;
	/* out of memory: show the closed members' damage, which is kept */
	if (!append_damage(&r->shown, &n, &r->shown_cap, r->damage, r->ndamage, NULL) &&
	    append_damage(&r->shown, &n, &r->shown_cap, cur.damage, cur.ndamage,
			  r->set.m[r->cur_index].path))
		n = r->ndamage;
	info->ndamage = n;
	info->damage = n ? r->shown : NULL;
	info->set_name = r->set.name;
	info->set_first = r->set.m[0].number;
	info->set_last = r->set.m[r->set.n - 1].number;
	info->set_digits = r->set.digits;
	info->nset_gaps = r->set.ngaps;
	info->set_gaps = r->set.gaps;
}

static void rot_close(br_source *src)
{
	rotated_source *r = (rotated_source *)src;
	if (r->cur)
		r->cur->ops->close(r->cur);
	rs_free(&r->set);
	free(r->damage);
	free(r->shown);
	free(r);
}

static const br_source_ops rotated_ops = {
	.name = "rotated set",
	.next = rot_next,
	.next_batch = rot_next_batch,
	.seek_time = rot_seek_time,
	.first_time = rot_first_time,
	.info = rot_info,
	.close = rot_close,
};

/* Each member starts a gzip member: a file that does not is no part of a
 * capture's set, and is named now rather than after the files before it
 * were read. */
static int check_gzip(const char *path, br_error *err)
{
	br_input in;
	int rc = br_input_open(&in, path, err);
	if (rc)
		return rc;
	const uint8_t *data;
	ssize_t n = br_input_peek(&in, 3, &data, err);
	if (n >= 0 && !br_tgz_probe(data, (size_t)n))
		n = br_error_set(err, n ? BR_EFORMAT : BR_ETRUNC, 0, in.name, 0,
				 n ? "not a gzip file: a rotated set's members are compressed traces"
				   : "empty file: a rotated set's members are compressed traces");
	br_input_close(&in);
	return n < 0 ? (int)n : 0;
}

int br_rotated_source_open(br_source **out, rs_set *set, const br_reader_opts *opts,
			   br_error *err)
{
	*out = NULL;
	rotated_source *r = calloc(1, sizeof *r);
	if (!r) {
		rs_free(set);
		return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
	}
	r->base.ops = &rotated_ops;
	r->set = *set;
	memset(set, 0, sizeof *set);
	if (opts)
		r->opts = *opts;
	int rc = 0;
	for (size_t i = 0; !rc && i < r->set.n; i++)
		rc = check_gzip(r->set.m[i].path, err);
	if (!rc)
		rc = advance(r, err) < 0 ? r->error : 0;
	if (rc) {
		rot_close(&r->base);
		return rc;
	}
	*out = &r->base;
	return 0;
}
