/* tgz_plain.c — a plain gzip of a blk_io_trace stream (`gzip run.blktrace.0`).
 *
 * No member headers to go by: inflate sequentially with zlib's own gzip
 * framing (it checks CRC and ISIZE), one member after another, and cut the
 * output into records. No seeking, no threads, no salvage. */
#include "common/record_v8.h" /* version-8 (blk_io_trace2) records */
#include "tgz_internal.h"
#include "blkreel/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define OUT_CAP (256 * 1024)
#define IN_CHUNK 65536

typedef struct plain_source {
	br_source base;
	br_input in;
	tgz_buf buf;
	z_stream zs;
	bool zs_ready;
	bool member_ended;      /* zlib finished a member; another may follow */
	bool input_done;
	uint8_t *out;
	size_t out_pos, out_len;
	int64_t out_off;        /* uncompressed offset of out[0] */
	int swap;               /* -1 until the first record says */
	uint64_t members, raw_bytes;
	int error;
	br_error saved;
} plain_source;

static int fail(plain_source *p, br_error *err, int code, int64_t off, const char *msg,
		long long a)
{
	if (!p->error)
		p->error = br_error_set(&p->saved, code, 0, p->in.name, off, msg, a);
	if (err)
		*err = p->saved;
	return p->error;
}

/* An input error already described in p->saved. */
static int io_fail(plain_source *p, br_error *err, int code)
{
	p->error = code;
	if (err)
		*err = p->saved;
	return code;
}

/* Inflate some more into out; sets input_done at the clean end. */
static int inflate_more(plain_source *p, br_error *err)
{
	ssize_t avail;
	if (p->member_ended) {
		avail = tgz_buf_fill(&p->buf, IN_CHUNK, &p->saved);
		if (avail < 0)
			return io_fail(p, err, (int)avail);
		if (avail == 0) {
			p->input_done = true;
			return 0;
		}
		const uint8_t *b = p->buf.data + p->buf.pos;
		if (avail < 2 || b[0] != 0x1f || b[1] != 0x8b)
			return fail(p, err, BR_EFORMAT, tgz_buf_tell(&p->buf),
				    "garbage after gzip member %lld", (long long)p->members - 1);
		inflateReset(&p->zs);
		p->member_ended = false;
		p->members++;
	}
	avail = tgz_buf_fill(&p->buf, IN_CHUNK, &p->saved);
	if (avail < 0)
		return io_fail(p, err, (int)avail);
	if (avail == 0)
		return fail(p, err, BR_ETRUNC, tgz_buf_tell(&p->buf),
			    "file ends inside gzip member %lld: truncated",
			    (long long)p->members - 1);
	p->zs.next_in = p->buf.data + p->buf.pos;
	p->zs.avail_in = (uInt)avail;
	p->zs.next_out = p->out + p->out_len;
	p->zs.avail_out = (uInt)(OUT_CAP - p->out_len);
	int rc = inflate(&p->zs, Z_NO_FLUSH);
	p->buf.pos += (size_t)avail - p->zs.avail_in;
	p->out_len = OUT_CAP - p->zs.avail_out;
	if (rc == Z_STREAM_END)
		p->member_ended = true;
	else if (rc == Z_MEM_ERROR)
		return fail(p, err, BR_ENOMEM, -1, "out of memory%.0lld", 0);
	else if (rc != Z_OK && rc != Z_BUF_ERROR)
		return fail(p, err, BR_ECORRUPT, tgz_buf_tell(&p->buf),
			    p->zs.msg ? "gzip member %lld is damaged (inflate failed)"
				      : "gzip member %lld is damaged",
			    (long long)p->members - 1);
	return 0;
}

/* Make n bytes available at out + out_pos; returns how many are (fewer only
 * at the end of the input) or a negative code. */
static ssize_t need_out(plain_source *p, size_t n, br_error *err)
{
	if (p->out_len - p->out_pos >= n)
		return (ssize_t)n;
	memmove(p->out, p->out + p->out_pos, p->out_len - p->out_pos);
	p->out_off += (int64_t)p->out_pos;
	p->out_len -= p->out_pos;
	p->out_pos = 0;
	while (p->out_len < n && !p->input_done) {
		int rc = inflate_more(p, err);
		if (rc < 0)
			return rc;
	}
	return (ssize_t)(p->out_len < n ? p->out_len : n);
}

static int plain_next(br_source *src, br_event *ev, br_error *err)
{
	plain_source *p = (plain_source *)src;
	if (p->error) {
		if (err)
			*err = p->saved;
		return p->error;
	}
	ssize_t got = need_out(p, BR_RECORD_SIZE, err);
	if (got < 0)
		return (int)got;
	if (got == 0)
		return 0;
	int64_t at = p->out_off + (int64_t)p->out_pos;
	if (got < BR_RECORD_SIZE)
		return fail(p, err, BR_ETRUNC, -1,
			    "decompressed stream ends inside the record at byte %lld", at);
	const uint8_t *raw = p->out + p->out_pos;
	unsigned version = 0, hdr = 0;
	int kind = br_record_probe_any(raw, &version, &hdr); /* versions 7 and 8 */
	if (kind == -2)
		return fail(p, err, BR_EUNSUP, -1,
			    "record at decompressed byte %lld has an unsupported version", at);
	if (kind < 0 || (p->swap >= 0 && kind != p->swap))
		return fail(p, err, BR_EFORMAT, -1,
			    "no blk_io_trace record at decompressed byte %lld", at);
	p->swap = kind;
	if (hdr > BR_RECORD_SIZE) { /* a version-8 header is 64 bytes */
		got = need_out(p, hdr, err);
		if (got < 0)
			return (int)got;
		if ((size_t)got < hdr)
			return fail(p, err, BR_ETRUNC, -1,
				    "decompressed stream ends inside the record at byte %lld", at);
		raw = p->out + p->out_pos;
	}
	br_record_decode_any(raw, version, kind == 1, ev);
	if (ev->pdu_len > BR_PDU_MAX)
		return fail(p, err, BR_EFORMAT, -1,
			    "record at decompressed byte %lld has an absurd pdu_len", at);
	size_t len = hdr + ev->pdu_len;
	got = need_out(p, len, err);
	if (got < 0)
		return (int)got;
	if ((size_t)got < len)
		return fail(p, err, BR_ETRUNC, -1,
			    "decompressed stream ends inside the record at byte %lld", at);
	raw = p->out + p->out_pos; /* need_out may have moved it */
	ev->pdu = ev->pdu_len ? raw + hdr : NULL;
	ev->comm = NULL;
	p->out_pos += len;
	p->raw_bytes += len;
	return 1;
}

static void plain_info(br_source *src, br_input_info *info)
{
	plain_source *p = (plain_source *)src;
	info->kind = BR_INPUT_COMPRESSED;
	info->indexed = false;
	info->members = p->members;
	info->members_skipped = 0;
	info->compressed_bytes = (uint64_t)tgz_buf_tell(&p->buf);
	info->raw_bytes = p->raw_bytes;
	info->byteswapped = p->swap == 1;
	info->ndamage = 0;
	info->damage = NULL;
}

static void plain_free(plain_source *p, bool close_input)
{
	if (p->zs_ready)
		inflateEnd(&p->zs);
	free(p->out);
	tgz_buf_free(&p->buf);
	if (close_input)
		br_input_close(&p->in);
	free(p);
}

static void plain_close(br_source *src)
{
	plain_free((plain_source *)src, true);
}

static const br_source_ops plain_ops = {
	.name = "gzip stream",
	.next = plain_next,
	.info = plain_info,
	.close = plain_close,
};

int tgz_plain_open(br_source **out, br_input *in, tgz_buf *buf, br_error *err)
{
	plain_source *p = calloc(1, sizeof *p);
	if (!p)
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	p->base.ops = &plain_ops;
	p->in = *in;
	p->buf = *buf;
	p->buf.in = &p->in; /* the buffer now reads through our copy */
	p->swap = -1;
	p->members = 1;
	p->out = malloc(OUT_CAP);
	/* 15 + 16: zlib parses and checks the gzip framing itself */
	if (!p->out || inflateInit2(&p->zs, 15 + 16) != Z_OK) {
		p->buf.data = NULL; /* still the caller's */
		plain_free(p, false);
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	}
	p->zs_ready = true;
	*out = &p->base;
	return 0;
}
