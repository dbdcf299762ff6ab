/* tgz_inflate.c — worker job: inflate one member and verify it.
 *
 * Everything that can be checked about a member is checked here, on the
 * worker, before any of its records is handed out: the deflate stream, CRC-32,
 * ISIZE, and the record framing against the BR subfield. So the consumer
 * either delivers a whole member or reports it as damaged, never half. */
#include "tgz_internal.h"
#include "blkreel/event.h"

#include <libdeflate.h>
#include <stdio.h>
#include <string.h>

static void verdict(tgz_rslot *s, int code, const char *fmt, unsigned long long a,
		    unsigned long long b)
{
	s->code = code;
	snprintf(s->why, sizeof s->why, fmt, a, b);
}

/* Walk the records of the inflated payload against the header, decoding
 * them into s->events on the way. */
static void check_records(tgz_rslot *s)
{
	const tgz_meta *m = &s->hdr.meta;
	size_t pos = 0;
	uint64_t n = 0, last = 0;
	while (pos < s->out_len) {
		const uint8_t *raw = s->out + pos;
		if (s->out_len - pos < BR_RECORD_SIZE) {
			verdict(s, BR_EFORMAT, "record %llu straddles the end of the member "
				"(%llu bytes left)", n, s->out_len - pos);
			return;
		}
		unsigned version = 0;
		int kind = br_record_probe_magic(raw, &version);
		if (kind == -2) {
			verdict(s, BR_EFORMAT, "record %llu has unsupported version %llu", n,
				version);
			return;
		}
		if (kind < 0) {
			verdict(s, BR_EFORMAT, "record %llu has no blk_io_trace magic%.0llu", n, 0);
			return;
		}
		/* decoded in place: the consumer hands these out without a copy */
		br_event *e = &s->events[n];
		br_record_decode(raw, kind == 1, e);
		if (n == 0)
			s->swapped = kind == 1;
		if (e->pdu_len > BR_PDU_MAX) {
			verdict(s, BR_EFORMAT, "record %llu has pdu_len %llu, too large", n,
				e->pdu_len);
			return;
		}
		if (s->out_len - pos - BR_RECORD_SIZE < e->pdu_len) {
			verdict(s, BR_EFORMAT, "record %llu straddles the end of the member "
				"(pdu_len %llu)", n, e->pdu_len);
			return;
		}
		if (n == 0 && e->time != m->first_time) {
			verdict(s, BR_EFORMAT, "first record time %llu differs from the header's %llu",
				e->time, m->first_time);
			return;
		}
		last = e->time;
		e->pdu = e->pdu_len ? raw + BR_RECORD_SIZE : NULL;
		pos += BR_RECORD_SIZE + e->pdu_len;
		n++;
	}
	s->nevents = n;
	if (n != m->records) {
		verdict(s, BR_EFORMAT, "holds %llu records, its header says %llu", n, m->records);
		return;
	}
	if (n && last != m->last_time)
		verdict(s, BR_EFORMAT, "last record time %llu differs from the header's %llu",
			last, m->last_time);
}

void tgz_inflate_run(tgz_job *job)
{
	tgz_rslot *s = (tgz_rslot *)job;
	const tgz_hdr *h = &s->hdr;
	s->code = 0;
	s->why[0] = 0;
	s->out_len = 0;
	s->nevents = 0;
	s->swapped = false;
	/* The header is parsed and checked already, so the deflate data is
	 * inflated raw and CRC-32 and ISIZE are checked here: the same work
	 * libdeflate_gzip_decompress does, but each failure keeps its own
	 * message. Output room is the format's limit, not usize, so a member
	 * that inflates to more than its header says is told apart. */
	size_t dlen = s->clen - h->hdr_len - TGZ_TRAILER_LEN;
	size_t in_used = 0, out_len = 0;
	enum libdeflate_result rc = libdeflate_deflate_decompress_ex(
		s->inflater, s->cdata + h->hdr_len, dlen, s->out, TGZ_PAYLOAD_MAX, &in_used, &out_len);
	if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
		verdict(s, BR_ECORRUPT, "inflates past 0xff00 bytes%.0llu%.0llu", 0, 0);
		return;
	}
	if (rc != LIBDEFLATE_SUCCESS) {
		/* libdeflate does not tell a cut stream from a corrupt one */
		verdict(s, BR_ECORRUPT, "deflate data is corrupt or ends early (libdeflate %llu, "
			"%llu bytes of deflate data)", (unsigned long long)rc, dlen);
		return;
	}
	s->out_len = out_len;
	if (in_used != dlen) {
		verdict(s, BR_ECORRUPT, "%llu stray bytes between deflate data and trailer%.0llu",
			dlen - in_used, 0);
		return;
	}
	const uint8_t *t = s->cdata + s->clen - TGZ_TRAILER_LEN;
	uint32_t crc = libdeflate_crc32(0, s->out, s->out_len);
	if (crc != tgz_le32(t)) {
		verdict(s, BR_ECORRUPT, "CRC-32 mismatch (computed %08llx, stored %08llx)", crc,
			tgz_le32(t));
		return;
	}
	if (tgz_le32(t + 4) != s->out_len || s->out_len != h->meta.usize) {
		verdict(s, BR_ECORRUPT, "size mismatch: inflated %llu bytes, ISIZE says %llu",
			s->out_len, tgz_le32(t + 4));
		if (tgz_le32(t + 4) == s->out_len)
			verdict(s, BR_EFORMAT, "inflated %llu bytes, BR says %llu", s->out_len,
				h->meta.usize);
		return;
	}
	check_records(s);
}
