/* Fast line reading for the text formats: memchr over a large chunk, no
 * stdio, optional inflate (see fmt_lines.h). */
#include "fmt_lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_text.h"

#define CHUNK (1u << 20)
#define ZCHUNK (1u << 18)

bool fmt_lines_is_gzip(const uint8_t *data, size_t len)
{
	return len >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8;
}

int fmt_lines_open(fmt_lines *l, br_input *in, br_error *err)
{
	memset(l, 0, sizeof *l);
	l->in = in;
	const uint8_t *data;
	ssize_t n = br_input_peek(in, 3, &data, err);
	if (n < 0)
		return (int)n;
	l->gz = fmt_lines_is_gzip(data, (size_t)n);
	l->cap = CHUNK;
	l->buf = malloc(CHUNK + 1);
	if (!l->buf)
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	if (l->gz) {
		l->zbuf = malloc(ZCHUNK);
		if (!l->zbuf || inflateInit2(&l->zs, 16 + MAX_WBITS) != Z_OK) {
			free(l->zbuf);
			free(l->buf);
			l->zbuf = NULL;
			l->buf = NULL;
			return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
		}
	}
	return 0;
}

/* Append up to room bytes of text at dst: returns bytes, 0 at the end. */
static ssize_t produce(fmt_lines *l, char *dst, size_t room, br_error *err)
{
	if (!l->gz)
		return br_input_read(l->in, dst, room, err);
	l->zs.next_out = (Bytef *)dst;
	l->zs.avail_out = (uInt)room;
	while (l->zs.avail_out == room) {
		if (l->zs.avail_in == 0 && !l->gz_done) {
			ssize_t r = br_input_read(l->in, l->zbuf, ZCHUNK, err);
			if (r < 0)
				return r;
			if (r == 0)
				l->gz_done = true;
			l->zs.next_in = l->zbuf;
			l->zs.avail_in = (uInt)r;
		}
		if (l->zs.avail_in == 0 && l->gz_done) {
			if (l->in_member)
				return br_error_set(err, BR_ETRUNC, 0, l->in->name, l->in->offset,
						    "gzip data ends inside a member (truncated file)");
			break;
		}
		l->in_member = true;
		int zr = inflate(&l->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			/* another gzip member may follow (concatenated .gz) */
			inflateReset(&l->zs);
			l->in_member = false;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			return br_error_set(err, BR_ECORRUPT, 0, l->in->name, l->in->offset,
					    "gzip data is damaged (%s)", l->zs.msg ? l->zs.msg : "inflate error");
		}
	}
	return (ssize_t)(room - l->zs.avail_out);
}

static int refill(fmt_lines *l, br_error *err)
{
	if (l->start) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->buf_offset += (int64_t)l->start;
		l->end -= l->start;
		l->start = 0;
	}
	while (l->end < l->cap && !l->eof) {
		ssize_t r = produce(l, l->buf + l->end, l->cap - l->end, err);
		if (r < 0)
			return (int)r;
		if (r == 0)
			l->eof = true;
		l->end += (size_t)r;
		if (r > 0)
			break;
	}
	return 0;
}

int fmt_lines_next(fmt_lines *l, char **line, size_t *len, int64_t *offset, bool *too_long,
		   br_error *err)
{
	*too_long = false;
	for (;;) {
		char *s = l->buf + l->start;
		size_t avail = l->end - l->start;
		char *nl = avail ? memchr(s, '\n', avail) : NULL;
		if (l->discarding) {
			if (nl) {
				l->start += (size_t)(nl - s) + 1;
				l->discarding = false;
				continue;
			}
			l->start = l->end;
			if (l->eof)
				return 0;
			int rc = refill(l, err);
			if (rc)
				return rc;
			continue;
		}
		if (nl || (l->eof && avail) || avail >= FMT_LINE_MAX) {
			size_t n = nl ? (size_t)(nl - s) : avail;
			if (!nl && avail >= FMT_LINE_MAX) {
				n = FMT_LINE_MAX;
				*too_long = true;
				l->discarding = true;
			}
			*offset = l->buf_offset + (int64_t)l->start;
			l->start += n + (nl && !*too_long ? 1 : 0);
			if (*too_long)
				l->start = l->end;
			if (n && s[n - 1] == '\r')
				n--;
			s[n] = 0;
			*line = s;
			*len = n;
			l->lineno++;
			return 1;
		}
		if (l->eof)
			return 0;
		int rc = refill(l, err);
		if (rc)
			return rc;
	}
}

int64_t fmt_lines_text_bytes(const fmt_lines *l)
{
	return l->buf_offset + (int64_t)l->start;
}

void fmt_lines_close(fmt_lines *l)
{
	if (l->gz && l->zbuf)
		inflateEnd(&l->zs);
	free(l->zbuf);
	free(l->buf);
	l->zbuf = NULL;
	l->buf = NULL;
}

size_t fmt_lines_peek_text(const uint8_t *data, size_t len, uint8_t *out, size_t out_cap)
{
	if (!fmt_lines_is_gzip(data, len)) {
		size_t n = len < out_cap ? len : out_cap;
		memcpy(out, data, n);
		return n;
	}
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return 0;
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)out_cap;
	/* a truncated window ends in Z_BUF_ERROR: what came out is still good */
	(void)inflate(&zs, Z_SYNC_FLUSH);
	size_t n = out_cap - zs.avail_out;
	inflateEnd(&zs);
	return n;
}
