/* tgz_member.c — build and parse the gzip member header of the compressed
 * trace file (docs/compressed-format.md, "Member header"). */
#include "tgz_internal.h"

#include <string.h>
#include <zlib.h> /* crc32 for FHCRC */

void tgz_header_build(uint8_t out[TGZ_HEADER_LEN], const tgz_meta *m, uint32_t member_size)
{
	uint8_t *p = out;
	p[0] = 0x1f;
	p[1] = 0x8b;
	p[2] = 8;
	p[3] = GZ_FEXTRA | GZ_FHCRC;
	tgz_put32(p + 4, 0);              /* MTIME: none, keeps output reproducible */
	p[8] = 0;                         /* XFL */
	p[9] = 3;                         /* OS: Unix */
	tgz_put16(p + 10, 4 + 2 + 4 + TGZ_BR_LEN);
	p += 12;
	p[0] = 'B', p[1] = 'C';
	tgz_put16(p + 2, 2);
	tgz_put16(p + 4, (uint16_t)(member_size - 1));
	p += 6;
	p[0] = 'B', p[1] = 'R';
	tgz_put16(p + 2, TGZ_BR_LEN);
	p += 4;
	p[0] = (uint8_t)m->version;
	p[1] = (uint8_t)m->flags;
	tgz_put16(p + 2, 0);
	tgz_put32(p + 4, m->records);
	tgz_put32(p + 8, m->usize);
	tgz_put64(p + 12, m->first_time);
	tgz_put64(p + 20, m->last_time);
	tgz_put64(p + 28, m->record_base);
	p += TGZ_BR_LEN;
	/* FHCRC lets a reader tell an intact header (whose time range it can
	 * trust) from a damaged one. */
	uLong crc = crc32(0L, out, (uInt)(p - out));
	tgz_put16(p, (uint16_t)(crc & 0xffff));
}

void tgz_eof_build(uint8_t out[TGZ_EOF_LEN], uint64_t last_time, uint64_t record_base,
		   bool big_endian)
{
	tgz_meta m = {
		.version = TGZ_VERSION,
		.flags = TGZ_FLAG_EOF | (big_endian ? TGZ_FLAG_BIG_ENDIAN : 0),
		.first_time = last_time,
		.last_time = last_time,
		.record_base = record_base,
	};
	tgz_header_build(out, &m, TGZ_EOF_LEN);
	uint8_t *p = out + TGZ_HEADER_LEN;
	p[0] = 0x03; /* final fixed-Huffman block holding only end-of-block */
	p[1] = 0x00;
	memset(p + 2, 0, TGZ_TRAILER_LEN); /* CRC-32 of nothing, ISIZE 0 */
}

/* Walk the extra field's subfields; pick out BC and BR, skip the rest. */
static int parse_extra(const uint8_t *x, size_t xlen, tgz_hdr *h, const char **why)
{
	size_t i = 0;
	while (i < xlen) {
		if (xlen - i < 4) {
			*why = "extra field ends inside a subfield header";
			return TGZ_PARSE_BAD;
		}
		uint8_t si1 = x[i], si2 = x[i + 1];
		size_t slen = tgz_le16(x + i + 2);
		const uint8_t *d = x + i + 4;
		if (slen > xlen - i - 4) {
			*why = "subfield overruns the extra field";
			return TGZ_PARSE_BAD;
		}
		if (si1 == 'B' && si2 == 'C' && !h->has_bc) {
			if (slen != 2) {
				*why = "BC subfield has the wrong length";
				return TGZ_PARSE_BAD;
			}
			h->has_bc = true;
			h->member_size = (uint32_t)tgz_le16(d) + 1;
		} else if (si1 == 'B' && si2 == 'R' && !h->has_br) {
			if (slen < 1) {
				*why = "BR subfield is empty";
				return TGZ_PARSE_BAD;
			}
			h->has_br = true;
			h->meta.version = d[0];
			if (d[0] == TGZ_VERSION) {
				if (slen < TGZ_BR_LEN) {
					*why = "BR subfield is too short for version 1";
					return TGZ_PARSE_BAD;
				}
				h->meta.flags = d[1];
				h->meta.records = tgz_le32(d + 4);
				h->meta.usize = tgz_le32(d + 8);
				h->meta.first_time = tgz_le64(d + 12);
				h->meta.last_time = tgz_le64(d + 20);
				h->meta.record_base = tgz_le64(d + 28);
			}
		}
		i += 4 + slen;
	}
	return 1;
}

/* Length of a zero-terminated string field starting at p, or 0 when the
 * terminator is not within the len bytes available. */
static size_t zstring_len(const uint8_t *p, size_t len)
{
	const uint8_t *z = memchr(p, 0, len);
	return z ? (size_t)(z - p) + 1 : 0;
}

int tgz_header_parse(const uint8_t *buf, size_t len, tgz_hdr *h, size_t *need,
		     const char **why)
{
	memset(h, 0, sizeof *h);
	*why = NULL;
	if (len < 10) {
		*need = 10;
		if (len >= 1 && buf[0] != 0x1f)
			goto notgz;
		if (len >= 2 && buf[1] != 0x8b)
			goto notgz;
		return TGZ_PARSE_NEED;
	}
	if (buf[0] != 0x1f || buf[1] != 0x8b)
		goto notgz;
	if (buf[2] != 8) {
		*why = "unknown compression method";
		return TGZ_PARSE_BAD;
	}
	unsigned flg = buf[3];
	if (flg & 0xe0) {
		*why = "reserved gzip flag bits set";
		return TGZ_PARSE_BAD;
	}
	size_t pos = 10;
	if (flg & GZ_FEXTRA) {
		if (len < pos + 2) {
			*need = pos + 2;
			return TGZ_PARSE_NEED;
		}
		size_t xlen = tgz_le16(buf + pos);
		pos += 2;
		if (len < pos + xlen) {
			*need = pos + xlen;
			return TGZ_PARSE_NEED;
		}
		if (parse_extra(buf + pos, xlen, h, why) < 0)
			return TGZ_PARSE_BAD;
		pos += xlen;
	}
	for (unsigned f = GZ_FNAME; f <= GZ_FCOMMENT; f <<= 1) {
		if (!(flg & f))
			continue;
		size_t n = zstring_len(buf + pos, len - pos);
		if (!n) {
			/* the string may be long; ask for a bit more each time */
			*need = len + 256;
			return TGZ_PARSE_NEED;
		}
		pos += n;
	}
	if (flg & GZ_FHCRC) {
		if (len < pos + 2) {
			*need = pos + 2;
			return TGZ_PARSE_NEED;
		}
		uLong crc = crc32(0L, buf, (uInt)pos);
		if ((crc & 0xffff) != tgz_le16(buf + pos)) {
			*why = "header CRC mismatch";
			return TGZ_PARSE_BAD;
		}
		pos += 2;
	}
	h->hdr_len = pos;
	return (int)pos;
notgz:
	*why = "not a gzip member (bad magic)";
	return TGZ_PARSE_BAD;
}

const char *tgz_hdr_check(const tgz_hdr *h, bool *unsupported)
{
	*unsupported = false;
	if (!h->has_bc)
		return "no BC subfield";
	if (!h->has_br)
		return "no BR subfield";
	if (h->meta.version != TGZ_VERSION) {
		*unsupported = true;
		return "unsupported BR version";
	}
	const tgz_meta *m = &h->meta;
	if ((uint64_t)h->member_size < h->hdr_len + 2 + TGZ_TRAILER_LEN)
		return "BC member size smaller than its header";
	if (m->usize > TGZ_PAYLOAD_MAX)
		return "BR payload size above 0xff00";
	if ((m->records == 0) != (m->usize == 0))
		return "BR record count and payload size disagree";
	if ((uint64_t)m->records * 48 > m->usize)
		return "BR record count too large for the payload";
	if (m->first_time > m->last_time)
		return "BR first time after last time";
	if ((m->flags & TGZ_FLAG_EOF) && m->records != 0)
		return "end-of-file member with records";
	return NULL;
}
