/* tgz_buf.c — a read buffer over br_input for walking gzip members.
 *
 * The reader needs to look at a whole member (up to 64 KiB) or a header
 * before deciding what to do with it, and to scan forward byte by byte after
 * damage; br_input only reads forward, so we keep a window of the file. */
#include "tgz_internal.h"

#include <stdlib.h>
#include <string.h>

int tgz_buf_init(tgz_buf *b, br_input *in, size_t cap)
{
	memset(b, 0, sizeof *b);
	b->in = in;
	b->off = in->offset;
	b->data = malloc(cap);
	if (!b->data)
		return BR_ENOMEM;
	b->cap = cap;
	return 0;
}

void tgz_buf_free(tgz_buf *b)
{
	free(b->data);
	b->data = NULL;
}

ssize_t tgz_buf_fill(tgz_buf *b, size_t need, br_error *err)
{
	if (need > b->cap)
		need = b->cap;
	if (b->len - b->pos >= need || b->eof)
		return (ssize_t)(b->len - b->pos);
	if (b->pos + need > b->cap) {
		/* slide the unread bytes to the front */
		memmove(b->data, b->data + b->pos, b->len - b->pos);
		b->off += (int64_t)b->pos;
		b->len -= b->pos;
		b->pos = 0;
	}
	while (b->len - b->pos < need) {
		/* Files: read generously, whole members at a time keeps syscalls
		 * few. Pipes: only what is needed, since br_input_read blocks
		 * until it has everything asked for and a live capture must not
		 * stall waiting for bytes we do not need yet. */
		size_t want = b->in->seekable ? b->cap - b->len : need - (b->len - b->pos);
		ssize_t r = br_input_read(b->in, b->data + b->len, want, err);
		if (r < 0)
			return r;
		b->len += (size_t)r;
		if ((size_t)r < want) {
			/* br_input_read is short only at end of file */
			b->eof = true;
			break;
		}
	}
	return (ssize_t)(b->len - b->pos);
}

int tgz_buf_skip_to(tgz_buf *b, int64_t off, br_error *err)
{
	int64_t end = b->off + (int64_t)b->len;
	if (off <= end) {
		b->pos = (size_t)(off - b->off);
		return 0;
	}
	int rc = br_input_skip_to(b->in, off, err);
	b->pos = b->len = 0;
	b->off = b->in->offset;
	b->eof = false;
	if (rc < 0)
		return rc;
	return 0;
}
