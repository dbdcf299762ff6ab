/* tgz_source.c — the compressed trace file as a br_source.
 *
 * The caller's thread fetches members (cheap: compressed bytes) into a ring
 * of slots and hands each to the worker pool to inflate and verify; it then
 * takes slots back oldest first, so records come out in file order while up
 * to 2 x threads members inflate ahead. Damage found by the fetcher (headers,
 * truncation) travels through the same ring, so it is reported exactly where
 * it sits in the stream. Plain gzip files go to tgz_plain.c. */
#include "tgz_internal.h"
#include "common/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_CAP (2 * TGZ_MEMBER_MAX + 8192)

typedef struct tgz_source {
	br_source base;
	br_input in;
	bool salvage;
	tgz_fetch fetch;
	bool fetch_stopped;     /* an END or ERROR slot is queued */
	tgz_pool *pool;
	tgz_rslot *slots;
	unsigned nslots;
	unsigned head, count;   /* queued slots: slots[head .. head+count) mod n */
	tgz_rslot *cur;         /* member whose records are being handed out */
	size_t rec_pos;         /* next of cur->events to hand out */
	bool filter;            /* drop non-notify records before min_time */
	uint64_t min_time;
	int error;              /* sticky */
	br_error saved;
	bool finished;
	tgz_hdr first;          /* the first member's header, for first_time */
	bool first_ok;
	br_damage *damage;
	size_t ndamage, damage_cap;
	uint64_t raw_bytes, compressed_bytes;
	bool byteswapped;
} tgz_source;

bool br_tgz_probe(const uint8_t *data, size_t len)
{
	return len >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8;
}

static int sticky(tgz_source *r, br_error *err)
{
	if (err)
		*err = r->saved;
	return r->error;
}

static int fail_with(tgz_source *r, const br_error *e, br_error *err)
{
	r->saved = *e;
	r->error = e->code ? e->code : BR_EFORMAT;
	return sticky(r, err);
}

static int add_damage(tgz_source *r, const br_damage *d, br_error *err)
{
	if (r->ndamage == r->damage_cap) {
		br_damage *n = br_grow(r->damage, &r->damage_cap, r->ndamage + 1, sizeof *n, 8);
		if (!n) {
			br_error e;
			br_error_set(&e, BR_ENOMEM, ENOMEM, r->in.name, d->offset, "out of memory");
			return fail_with(r, &e, err);
		}
		r->damage = n;
	}
	r->damage[r->ndamage] = *d;
	/* an input of several files names the one the damage lies in */
	r->damage[r->ndamage++].file = r->in.name;
	return 0;
}

/* Keep the ring full: one slot stays free for the member being handed out. */
static void top_up(tgz_source *r)
{
	while (!r->fetch_stopped && r->count < r->nslots - 1) {
		tgz_rslot *s = &r->slots[(r->head + r->count) % r->nslots];
		tgz_fetch_next(&r->fetch, s);
		r->count++;
		if (s->kind == TGZ_SLOT_MEMBER)
			tgz_pool_submit(r->pool, &s->job);
		else if (s->kind != TGZ_SLOT_DAMAGE)
			r->fetch_stopped = true;
	}
}

/* A member's verification failed: an error, or with salvage a damage entry. */
static int member_damaged(tgz_source *r, tgz_rslot *s, br_error *err)
{
	const tgz_meta *m = &s->hdr.meta;
	if (r->salvage && s->code != BR_ENOMEM) {
		br_damage d = {
			.offset = s->off,
			.length = (int64_t)s->clen,
			.range_known = true,
			.first_time = m->first_time,
			.last_time = m->last_time,
			.records = m->records,
		};
		return add_damage(r, &d, err);
	}
	br_error e;
	br_error_set(&e, s->code, 0, r->in.name, s->off,
		     "member %llu is damaged (%s); it held %u records, %llu..%llu ns",
		     (unsigned long long)s->index, s->why, m->records,
		     (unsigned long long)m->first_time, (unsigned long long)m->last_time);
	return fail_with(r, &e, err);
}

/* Take the next slot in file order; returns 1 when r->cur is set, 0 at the
 * end, or a negative code. */
static int take_member(tgz_source *r, br_error *err)
{
	for (;;) {
		top_up(r);
		if (!r->count)
			return 0;
		tgz_rslot *s = &r->slots[r->head];
		if (s->kind == TGZ_SLOT_MEMBER)
			tgz_pool_wait(r->pool, &s->job);
		r->head = (r->head + 1) % r->nslots;
		r->count--;
		switch (s->kind) {
		case TGZ_SLOT_END:
			r->finished = true;
			return 0;
		case TGZ_SLOT_ERROR:
			return fail_with(r, &s->err, err);
		case TGZ_SLOT_DAMAGE:
			if (!r->salvage)
				return fail_with(r, &s->err, err);
			if (add_damage(r, &s->damage, err) < 0)
				return r->error;
			continue;
		default:
			break;
		}
		r->compressed_bytes += s->clen;
		if (s->code) {
			if (member_damaged(r, s, err) < 0)
				return r->error;
			continue;
		}
		if (r->filter && s->hdr.meta.last_time < r->min_time)
			continue; /* inflated ahead before a seek: drop it */
		if (!r->raw_bytes && s->out_len)
			r->byteswapped = s->swapped;
		r->raw_bytes += s->out_len;
		r->cur = s;
		r->rec_pos = 0;
		return 1;
	}
}

/* The current member is used up: move to the next one (take_member's
 * returns), or 0 if the file ended already. */
static int next_member(tgz_source *r, br_error *err)
{
	r->cur = NULL;
	if (r->finished)
		return 0;
	return take_member(r, err);
}

static int tgz_next(br_source *src, br_event *ev, br_error *err)
{
	tgz_source *r = (tgz_source *)src;
	if (r->error)
		return sticky(r, err);
	for (;;) {
		tgz_rslot *s = r->cur;
		while (s && r->rec_pos < s->nevents) {
			/* the worker verified and decoded every record */
			*ev = s->events[r->rec_pos++];
			if (r->filter && ev->time < r->min_time && !br_event_is_notify(ev))
				continue;
			return 1;
		}
		int rc = next_member(r, err);
		if (rc <= 0)
			return rc;
	}
}

/* The rest of the current member's records, in place (see source.h). */
static int tgz_next_batch(br_source *src, const br_event **evs, size_t max, br_error *err)
{
	tgz_source *r = (tgz_source *)src;
	if (r->error)
		return sticky(r, err);
	for (;;) {
		tgz_rslot *s = r->cur;
		if (s && r->filter) /* records before the seek target go one by one */
			while (r->rec_pos < s->nevents && s->events[r->rec_pos].time < r->min_time &&
			       !br_event_is_notify(&s->events[r->rec_pos]))
				r->rec_pos++;
		if (s && r->rec_pos < s->nevents) {
			size_t n = 0, left = s->nevents - r->rec_pos;
			const br_event *e = &s->events[r->rec_pos];
			while (n < left && n < max &&
			       (!r->filter || e[n].time >= r->min_time || br_event_is_notify(&e[n])))
				n++;
			*evs = e;
			r->rec_pos += n;
			return (int)n;
		}
		int rc = next_member(r, err);
		if (rc <= 0)
			return rc;
	}
}

static int tgz_seek_time(br_source *src, uint64_t t, br_error *err)
{
	tgz_source *r = (tgz_source *)src;
	if (r->error)
		return sticky(r, err);
	/* Forward only: members not fetched yet are hopped over by the fetcher;
	 * whatever is already in flight is filtered record by record. */
	if (!r->filter || t > r->min_time) {
		r->filter = true;
		r->min_time = t;
		r->fetch.seeking = true;
		r->fetch.seek_t = t;
	}
	return 0;
}

static int64_t tgz_first_time(br_source *src)
{
	tgz_source *r = (tgz_source *)src;
	if (!r->first_ok || r->first.meta.records == 0)
		return -1;
	return (int64_t)r->first.meta.first_time;
}

static void tgz_info(br_source *src, br_input_info *info)
{
	tgz_source *r = (tgz_source *)src;
	info->kind = BR_INPUT_COMPRESSED;
	info->indexed = true;
	info->members = r->fetch.members;
	info->members_skipped = r->fetch.skipped;
	info->compressed_bytes = r->compressed_bytes;
	info->raw_bytes = r->raw_bytes;
	info->byteswapped = r->byteswapped;
	info->ndamage = r->ndamage;
	info->damage = r->damage;
}

static void free_source(tgz_source *r, bool close_input)
{
	if (!r)
		return;
	tgz_pool_free(r->pool); /* drains queued jobs first */
	for (unsigned i = 0; r->slots && i < r->nslots; i++) {
		if (r->slots[i].inflater)
			libdeflate_free_decompressor(r->slots[i].inflater);
		free(r->slots[i].cdata);
		free(r->slots[i].out);
		free(r->slots[i].events);
	}
	free(r->slots);
	tgz_buf_free(&r->fetch.buf);
	free(r->damage);
	if (close_input)
		br_input_close(&r->in);
	free(r);
}

static void tgz_close(br_source *src)
{
	free_source((tgz_source *)src, true);
}

static const br_source_ops tgz_ops = {
	.name = "compressed trace",
	.next = tgz_next,
	.next_batch = tgz_next_batch,
	.seek_time = tgz_seek_time,
	.first_time = tgz_first_time,
	.info = tgz_info,
	.close = tgz_close,
};

/* Look at the first member header: 1 = ours (indexed), 0 = some other gzip,
 * or a negative code. A first header too damaged to parse still counts as
 * ours when its extra field starts with BC, so salvage can skip it. */
static int detect(tgz_source *r, br_error *err)
{
	tgz_buf *b = &r->fetch.buf;
	size_t need = 12;
	tgz_hdr h;
	const char *why;
	for (;;) {
		ssize_t avail = tgz_buf_fill(b, need, err);
		if (avail < 0)
			return (int)avail;
		const uint8_t *p = b->data + b->pos;
		if (!br_tgz_probe(p, (size_t)avail))
			return br_error_set(err, avail ? BR_EFORMAT : BR_ETRUNC, 0, r->in.name, 0,
					    avail ? "not a gzip file" : "empty file");
		int rc = tgz_header_parse(p, (size_t)avail, &h, &need, &why);
		if (rc > 0)
			break;
		if (rc == TGZ_PARSE_NEED && !b->eof && need <= b->cap)
			continue;
		{
			bool ours = avail >= 14 && (p[3] & GZ_FEXTRA) && p[12] == 'B' && p[13] == 'C';
			if (ours)
				return 1; /* the fetcher will report the damage */
			if (rc == TGZ_PARSE_BAD)
				return 0; /* let zlib say what is wrong with it */
			return br_error_set(err, BR_ETRUNC, 0, r->in.name, 0,
					    "file ends inside the first gzip header");
		}
	}
	if (!h.has_bc || !h.has_br)
		return 0;
	bool unsup;
	if (!tgz_hdr_check(&h, &unsup)) {
		r->first = h;
		r->first_ok = true;
	} else if (unsup) {
		return br_error_set(err, BR_EUNSUP, 0, r->in.name, 0,
				    "compressed trace format version %u is not supported",
				    h.meta.version);
	}
	return 1;
}

int br_tgz_source_open(br_source **out, br_input *in, const br_reader_opts *opts,
		       br_error *err)
{
	*out = NULL;
	tgz_source *r = calloc(1, sizeof *r);
	if (!r)
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	r->base.ops = &tgz_ops;
	r->in = *in;
	r->salvage = opts && opts->salvage;
	r->fetch.name = r->in.name;
	int rc;
	if (tgz_buf_init(&r->fetch.buf, &r->in, BUF_CAP) < 0) {
		rc = br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
		goto fail;
	}
	rc = detect(r, err);
	if (rc < 0)
		goto fail;
	if (rc == 0) {
		/* plain gzip: hand over the input and the bytes read so far */
		rc = tgz_plain_open(out, &r->in, &r->fetch.buf, err);
		if (rc < 0)
			goto fail;
		r->fetch.buf.data = NULL;
		free_source(r, false);
		return 0;
	}
	unsigned threads = tgz_threads_resolve(opts ? opts->threads : 0);
	r->nslots = threads == 1 ? 2 : 2 * threads + 1;
	r->slots = calloc(r->nslots, sizeof *r->slots);
	if (!r->slots)
		goto nomem;
	for (unsigned i = 0; i < r->nslots; i++) {
		r->slots[i].job.run = tgz_inflate_run;
		r->slots[i].cdata = malloc(TGZ_MEMBER_MAX);
		r->slots[i].out = malloc(TGZ_PAYLOAD_MAX);
		r->slots[i].events = malloc(TGZ_EVENTS_MAX * sizeof(br_event));
		r->slots[i].inflater = libdeflate_alloc_decompressor();
		if (!r->slots[i].cdata || !r->slots[i].out || !r->slots[i].events ||
		    !r->slots[i].inflater)
			goto nomem;
	}
	if (tgz_pool_create(&r->pool, threads == 1 ? 0 : threads) < 0)
		goto nomem;
	*out = &r->base;
	return 0;
nomem:
	rc = br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
fail:
	free_source(r, false);
	return rc;
}
