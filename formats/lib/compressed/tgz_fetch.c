/* tgz_fetch.c — walk the members of a compressed trace file in order.
 *
 * Reads one member at a time into a slot for a worker to inflate, and deals
 * with everything that can be decided from headers alone: end-of-file
 * members, hopping over members before a seek target without inflating
 * them, truncation, and resynchronising after a damaged header. */
#include "tgz_internal.h"

#include <stdio.h>
#include <string.h>

/* Outcome of looking at the header at the current position. */
enum hdr_status { HDR_OK, HDR_BAD, HDR_SHORT, HDR_IOERR };

/* Parse (and check) the header at buffer offset at (relative to pos),
 * reading more as needed. */
static int header_at(tgz_fetch *f, size_t at, tgz_hdr *h, const char **why, bool *unsup,
		     br_error *err)
{
	size_t need = 12;
	*unsup = false;
	for (;;) {
		ssize_t avail = tgz_buf_fill(&f->buf, at + need, err);
		if (avail < 0)
			return HDR_IOERR;
		size_t have = (size_t)avail > at ? (size_t)avail - at : 0;
		int rc = tgz_header_parse(f->buf.data + f->buf.pos + at, have, h, &need, why);
		if (rc > 0)
			break;
		if (rc == TGZ_PARSE_BAD)
			return HDR_BAD;
		if (have < need && (f->buf.eof || at + need > f->buf.cap)) {
			*why = "input ends inside a member header";
			return HDR_SHORT;
		}
	}
	*why = tgz_hdr_check(h, unsup);
	return *why ? HDR_BAD : HDR_OK;
}

static void note_good(tgz_fetch *f, const tgz_hdr *h)
{
	f->have_prev = true;
	f->prev_last_time = h->meta.last_time;
	f->prev_end_record = h->meta.record_base + h->meta.records;
}

static void set_error(tgz_rslot *s, const br_error *err)
{
	s->kind = TGZ_SLOT_ERROR;
	s->err = *err;
}

/* A header is damaged: look for the next plausible member header after it
 * and describe what lies between as damage. Scanning is byte by byte
 * through the buffer; the FHCRC and the BR checks make a false match in
 * compressed data practically impossible. */
static void resync(tgz_fetch *f, tgz_rslot *s, const char *why, int end_code)
{
	br_error err;
	int64_t start = tgz_buf_tell(&f->buf);
	s->kind = TGZ_SLOT_DAMAGE;
	s->off = start;
	s->index = f->members;
	memset(&s->damage, 0, sizeof s->damage);
	s->damage.offset = start;
	s->damage.first_time = f->have_prev ? f->prev_last_time : 0;
	size_t at = 1;
	tgz_hdr h;
	for (;;) {
		ssize_t avail = tgz_buf_fill(&f->buf, at + 4, &err);
		if (avail < 0) {
			set_error(s, &err);
			return;
		}
		if ((size_t)avail < at + 4) {
			/* nothing plausible up to the end: the rest is lost */
			tgz_buf_skip_to(&f->buf, tgz_buf_tell(&f->buf) + avail, &err);
			f->done = true;
			s->damage.length = tgz_buf_tell(&f->buf) - start;
			br_error_set(&s->err, end_code, 0, f->name, start,
				     "member %llu: %s; no valid member follows (%lld bytes lost "
				     "up to the end of the file)",
				     (unsigned long long)f->members, why,
				     (long long)s->damage.length);
			return;
		}
		const uint8_t *p = f->buf.data + f->buf.pos;
		const uint8_t *hit = memchr(p + at, 0x1f, (size_t)avail - at - 3);
		if (!hit) {
			at = (size_t)avail - 3;
			/* keep the window small so the buffer can slide */
			if (at > 4096) {
				tgz_buf_skip_to(&f->buf, tgz_buf_tell(&f->buf) + (int64_t)at - 1, &err);
				at = 1;
			}
			continue;
		}
		at = (size_t)(hit - p);
		if (hit[1] == 0x8b && hit[2] == 8 && (hit[3] & GZ_FEXTRA)) {
			const char *w2;
			bool unsup;
			int st = header_at(f, at, &h, &w2, &unsup, &err);
			if (st == HDR_IOERR) {
				set_error(s, &err);
				return;
			}
			if (st == HDR_OK)
				break;
		}
		at++;
		if (at > 4096) {
			tgz_buf_skip_to(&f->buf, tgz_buf_tell(&f->buf) + (int64_t)at - 1, &err);
			at = 1;
		}
	}
	int64_t next = tgz_buf_tell(&f->buf) + (int64_t)at;
	tgz_buf_skip_to(&f->buf, next, &err);
	s->damage.length = next - start;
	s->damage.last_time = h.meta.first_time;
	uint64_t base = f->have_prev ? f->prev_end_record : 0;
	if (h.meta.record_base >= base)
		s->damage.records = h.meta.record_base - base;
	br_error_set(&s->err, BR_ECORRUPT, 0, f->name, start,
		     "member %llu: %s; %lld bytes skipped up to the next valid member, "
		     "about %llu records lost between %llu and %llu ns",
		     (unsigned long long)f->members, why, (long long)s->damage.length,
		     (unsigned long long)s->damage.records,
		     (unsigned long long)s->damage.first_time,
		     (unsigned long long)s->damage.last_time);
	f->members++;
}

/* On a seekable file: hop over members ending before seek_t reading only
 * their headers. Stops at the first member that may hold a wanted record, or
 * at anything unusual, which the normal path then handles. */
static int hop_pread(tgz_fetch *f, br_error *err)
{
	int64_t pos = tgz_buf_tell(&f->buf);
	uint8_t hb[512];
	for (;;) {
		ssize_t n = br_input_pread(f->buf.in, hb, sizeof hb, pos, err);
		if (n < 0)
			return (int)n;
		tgz_hdr h;
		size_t need;
		const char *why;
		bool unsup;
		if (tgz_header_parse(hb, (size_t)n, &h, &need, &why) <= 0 ||
		    tgz_hdr_check(&h, &unsup) || (h.meta.flags & TGZ_FLAG_EOF) ||
		    h.meta.last_time >= f->seek_t)
			break;
		if (f->buf.in->size >= 0 && pos + h.member_size > f->buf.in->size)
			break; /* truncated: let the normal path report it */
		note_good(f, &h);
		pos += h.member_size;
		f->members++;
		f->skipped++;
	}
	f->seeking = false;
	return tgz_buf_skip_to(&f->buf, pos, err);
}

void tgz_fetch_next(tgz_fetch *f, tgz_rslot *s)
{
	br_error err;
	s->kind = TGZ_SLOT_END;
	if (f->done)
		return;
	if (f->seeking && f->buf.in->seekable && hop_pread(f, &err) < 0) {
		set_error(s, &err);
		f->done = true;
		return;
	}
	for (;;) {
		int64_t off = tgz_buf_tell(&f->buf);
		ssize_t avail = tgz_buf_fill(&f->buf, 1, &err);
		if (avail < 0) {
			set_error(s, &err);
			f->done = true;
			return;
		}
		if (avail == 0) {
			f->done = true;
			if (f->after_eof_member)
				return; /* clean end */
			s->kind = TGZ_SLOT_DAMAGE;
			s->off = off;
			s->index = f->members;
			memset(&s->damage, 0, sizeof s->damage);
			s->damage.offset = off;
			br_error_set(&s->err, BR_ETRUNC, 0, f->name, off,
				     "file ends after member %llu without the end-of-file "
				     "member: truncated",
				     (unsigned long long)f->members);
			return;
		}
		tgz_hdr h;
		const char *why;
		bool unsup;
		int st = header_at(f, 0, &h, &why, &unsup, &err);
		if (st == HDR_IOERR) {
			set_error(s, &err);
			f->done = true;
			return;
		}
		if (unsup) {
			br_error_set(&s->err, BR_EUNSUP, 0, f->name, off,
				     "member %llu: BR version %u is not supported",
				     (unsigned long long)f->members, h.meta.version);
			s->kind = TGZ_SLOT_ERROR;
			f->done = true;
			return;
		}
		if (st == HDR_BAD || st == HDR_SHORT) {
			/* A header running past the end of the file is either a
			 * truncated file or a damaged length field: if a valid
			 * member follows, it was damage. */
			resync(f, s, why, st == HDR_SHORT ? BR_ETRUNC : BR_ECORRUPT);
			if (s->kind != TGZ_SLOT_ERROR)
				f->after_eof_member = false;
			return;
		}
		/* a good header */
		avail = tgz_buf_fill(&f->buf, h.member_size, &err);
		if (avail < 0) {
			set_error(s, &err);
			f->done = true;
			return;
		}
		if ((size_t)avail < h.member_size) {
			s->kind = TGZ_SLOT_DAMAGE;
			s->off = off;
			s->index = f->members;
			s->hdr = h;
			s->damage = (br_damage){
				.offset = off,
				.length = avail,
				.range_known = true,
				.first_time = h.meta.first_time,
				.last_time = h.meta.last_time,
				.records = h.meta.records,
			};
			br_error_set(&s->err, BR_ETRUNC, 0, f->name, off,
				     "member %llu (%u records, %llu..%llu ns): file ends after "
				     "%zd of its %u bytes: truncated",
				     (unsigned long long)f->members, h.meta.records,
				     (unsigned long long)h.meta.first_time,
				     (unsigned long long)h.meta.last_time, avail, h.member_size);
			tgz_buf_skip_to(&f->buf, off + avail, &err);
			f->done = true;
			return;
		}
		note_good(f, &h);
		f->after_eof_member = (h.meta.flags & TGZ_FLAG_EOF) != 0;
		if (f->after_eof_member || (f->seeking && h.meta.last_time < f->seek_t)) {
			/* nothing to inflate: an end marker, or before the seek target
			 * (on a pipe: read but never inflated) */
			if (!f->after_eof_member)
				f->skipped++;
			f->members++;
			tgz_buf_skip_to(&f->buf, off + h.member_size, &err);
			continue;
		}
		f->seeking = false;
		s->kind = TGZ_SLOT_MEMBER;
		s->off = off;
		s->index = f->members++;
		s->hdr = h;
		s->clen = h.member_size;
		memcpy(s->cdata, f->buf.data + f->buf.pos, h.member_size);
		tgz_buf_skip_to(&f->buf, off + h.member_size, &err);
		return;
	}
}
