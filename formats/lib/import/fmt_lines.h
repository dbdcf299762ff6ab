/* fmt_lines.h (internal) — lines out of a br_input, plain or gzip.
 *
 * Lines are handed out in place (no copy): the newline (and a CR before
 * it) is replaced by NUL. gzip input (any number of members, e.g.
 * blkreplay's .load.gz) is inflated on the fly; offsets are then positions
 * in the uncompressed text. Memory is flat: one chunk buffer. */
#ifndef BLKREEL_FMT_LINES_H
#define BLKREEL_FMT_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include <zlib.h>
#include "common/input.h"

typedef struct fmt_lines {
	br_input *in;
	bool gz;
	bool gz_done;         /* the compressed input is exhausted */
	bool in_member;       /* inflating inside a gzip member */
	z_stream zs;
	uint8_t *zbuf;        /* compressed bytes */
	char *buf;            /* text; buf[start..end) unread */
	size_t cap, start, end;
	int64_t buf_offset;   /* text offset of buf[0] */
	bool eof;
	bool discarding;      /* inside an over-long line */
	uint64_t lineno;
} fmt_lines;

/* True when the bytes start a gzip member. */
bool fmt_lines_is_gzip(const uint8_t *data, size_t len);

int fmt_lines_open(fmt_lines *l, br_input *in, br_error *err);
/* Next line: 1 with line, len and offset (of the line start) set, 0 at the
 * end. too_long is set for a line over FMT_LINE_MAX (its head is given;
 * the rest is skipped). */
int fmt_lines_next(fmt_lines *l, char **line, size_t *len, int64_t *offset, bool *too_long,
		   br_error *err);
/* Bytes of text consumed so far (for info). */
int64_t fmt_lines_text_bytes(const fmt_lines *l);
void fmt_lines_close(fmt_lines *l);

/* Inflate (when gzip) or copy up to out_cap bytes from the start of a
 * peek window, for content probes. Returns bytes produced. */
size_t fmt_lines_peek_text(const uint8_t *data, size_t len, uint8_t *out, size_t out_cap);

#endif
