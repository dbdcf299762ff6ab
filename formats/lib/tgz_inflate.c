/* tgz_inflate.c — worker job: inflate one member and verify it.
 *
 * Everything that can be checked about a member is checked here, on the
 * worker, before any of its records is handed out: the deflate stream, CRC-32,
 * ISIZE, and the record framing against the BR subfield. So the consumer
 * either delivers a whole member or reports it as damaged, never half. */
#include "tgz_internal.h"
#include "blkreel/event.h"

#include <stdio.h>
#include <string.h>

static void verdict(tgz_rslot *s, int code, const char *fmt, unsigned long long a,
		    unsigned long long b)
{
	s->code = code;
	snprintf(s->why, sizeof s->why, fmt, a, b);
}

/* Walk the records of the inflated payload against the header. */
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
		br_event ev;
		br_record_decode(raw, kind == 1, &ev);
		if (n == 0)
			s->swapped = kind == 1;
		if (ev.pdu_len > BR_PDU_MAX) {
			verdict(s, BR_EFORMAT, "record %llu has pdu_len %llu, too large", n,
				ev.pdu_len);
			return;
		}
		if (s->out_len - pos - BR_RECORD_SIZE < ev.pdu_len) {
			verdict(s, BR_EFORMAT, "record %llu straddles the end of the member "
				"(pdu_len %llu)", n, ev.pdu_len);
			return;
		}
		if (n == 0 && ev.time != m->first_time) {
			verdict(s, BR_EFORMAT, "first record time %llu differs from the header's %llu",
				ev.time, m->first_time);
			return;
		}
		last = ev.time;
		pos += BR_RECORD_SIZE + ev.pdu_len;
		n++;
	}
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
	int rc;
	s->code = 0;
	s->why[0] = 0;
	s->out_len = 0;
	s->swapped = false;
	if (!s->zs_ready) {
		memset(&s->zs, 0, sizeof s->zs);
		rc = inflateInit2(&s->zs, -15); /* raw deflate: we parsed the framing */
		if (rc != Z_OK) {
			verdict(s, BR_ENOMEM, "cannot set up zlib (-%llu)%.0llu", (unsigned long long)-rc, 0);
			return;
		}
		s->zs_ready = true;
	} else {
		inflateReset(&s->zs);
	}
	size_t dlen = s->clen - h->hdr_len - TGZ_TRAILER_LEN;
	s->zs.next_in = s->cdata + h->hdr_len;
	s->zs.avail_in = (uInt)dlen;
	s->zs.next_out = s->out;
	s->zs.avail_out = TGZ_PAYLOAD_MAX;
	rc = inflate(&s->zs, Z_FINISH);
	s->out_len = TGZ_PAYLOAD_MAX - s->zs.avail_out;
	if (rc != Z_STREAM_END) {
		if (rc == Z_BUF_ERROR && s->zs.avail_out == 0)
			verdict(s, BR_ECORRUPT, "inflates past 0xff00 bytes%.0llu%.0llu", 0, 0);
		else if (rc == Z_BUF_ERROR)
			verdict(s, BR_ECORRUPT, "deflate data ends early (%llu of %llu bytes "
				"inflated)", s->out_len, h->meta.usize);
		else
			verdict(s, BR_ECORRUPT, "inflate error (zlib -%llu)%.0llu", (unsigned long long)-rc, 0);
		return;
	}
	if (s->zs.avail_in != 0) {
		verdict(s, BR_ECORRUPT, "%llu stray bytes between deflate data and trailer%.0llu",
			s->zs.avail_in, 0);
		return;
	}
	const uint8_t *t = s->cdata + s->clen - TGZ_TRAILER_LEN;
	uint32_t crc = (uint32_t)crc32(0L, s->out, (uInt)s->out_len);
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
