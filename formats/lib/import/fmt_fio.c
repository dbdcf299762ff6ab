/* fio iolog versions 2 and 3 ("fio version N iolog" on the first line).
 *   v2: "FILE ACTION [OFFSET LENGTH]"; "FILE wait USEC" advances the clock.
 *   v3: "USEC FILE ACTION [OFFSET LENGTH]", the time in microseconds.
 * Each read/write/trim becomes a D event (trim = discard), sync/datasync a
 * flush with no data; add/open/close only register the file. Files are
 * numbered in order of first appearance from 0: file N → device 0,N.
 * Offsets are bytes and must be whole 512-byte sectors (exact conversion).
 * fio logs no completions, so there is no C. */
#include <stdlib.h>
#include <string.h>

#include "fmt_num.h"
#include "fmt_text.h"

#define MAX_FILES 4096

typedef struct fio_state {
	int version;          /* 0 until the header is read */
	uint64_t clock_ns;    /* v2: sum of waits */
	char *files[MAX_FILES];
	size_t nfiles;
} fio_state;

static void free_state(void *state)
{
	fio_state *st = state;
	for (size_t i = 0; i < st->nfiles; i++)
		free(st->files[i]);
}

static int file_index(fio_state *st, const char *f, size_t n, uint32_t *idx)
{
	for (size_t i = 0; i < st->nfiles; i++)
		if (strncmp(st->files[i], f, n) == 0 && st->files[i][n] == 0) {
			*idx = (uint32_t)i;
			return 0;
		}
	if (st->nfiles == MAX_FILES)
		return FMT_BAD;
	char *copy = strndup(f, n);
	if (!copy)
		return BR_ENOMEM;
	st->files[st->nfiles] = copy;
	*idx = (uint32_t)st->nfiles++;
	return 0;
}

static int parse(void *state, fmt_ctx *c, char *line, size_t len)
{
	fio_state *st = state;
	const char *p = line, *end = line + len;
	if (!st->version) {
		if (strcmp(line, "fio version 2 iolog") == 0)
			st->version = 2;
		else if (strcmp(line, "fio version 3 iolog") == 0)
			st->version = 3;
		else
			return fmt_bad(c, "not a fio iolog (first line must be 'fio version 2 iolog' "
					  "or 'fio version 3 iolog')");
		return FMT_OK;
	}
	fmt_skip_ws(&p);
	if (p == end)
		return FMT_OK;
	uint64_t t = st->clock_ns;
	if (st->version == 3) {
		uint64_t us;
		if (!fmt_u64(&p, &us) || !fmt_is_space(*p) || us > UINT64_MAX / 1000)
			return fmt_bad(c, "bad timestamp (microseconds)");
		t = us * 1000;
		fmt_skip_ws(&p);
	}
	const char *file, *act;
	size_t flen, alen;
	fmt_token(&p, 0, &file, &flen);
	fmt_skip_ws(&p);
	fmt_token(&p, 0, &act, &alen);
	if (!flen || !alen)
		return fmt_bad(c, "want %sFILE ACTION [OFFSET LENGTH]", st->version == 3 ? "TIME " : "");
	fmt_skip_ws(&p);
	uint64_t off = 0, length = 0;
	bool has_io = p < end;
	if (has_io) {
		if (!fmt_u64(&p, &off))
			return fmt_bad(c, "bad offset");
		fmt_skip_ws(&p);
		bool is_wait = fmt_tok_is(act, alen, "wait");
		/* v2 "wait USEC" may come without the length field */
		if (!(is_wait && p == end) && (!fmt_u64(&p, &length) || length > UINT32_MAX))
			return fmt_bad(c, "bad length");
		if (!fmt_at_end(p, end))
			return fmt_bad(c, "trailing characters after length");
	}
	uint32_t cat;
	if (fmt_tok_is(act, alen, "add") || fmt_tok_is(act, alen, "open") ||
	    fmt_tok_is(act, alen, "close")) {
		if (has_io)
			return fmt_bad(c, "file action with an offset");
		uint32_t idx;
		int rc = file_index(st, file, flen, &idx);
		return rc == FMT_BAD ? fmt_bad(c, "more than %d files", MAX_FILES) : rc;
	} else if (fmt_tok_is(act, alen, "wait")) {
		if (st->version == 3)
			return fmt_bad(c, "'wait' is not allowed in version 3");
		if (!has_io || off > (UINT64_MAX - st->clock_ns) / 1000)
			return fmt_bad(c, "bad wait");
		st->clock_ns += off * 1000;
		return FMT_OK;
	} else if (fmt_tok_is(act, alen, "read")) {
		cat = BLK_TC_READ;
	} else if (fmt_tok_is(act, alen, "write")) {
		cat = BLK_TC_WRITE;
	} else if (fmt_tok_is(act, alen, "trim")) {
		cat = BLK_TC_DISCARD | BLK_TC_WRITE;
	} else if (fmt_tok_is(act, alen, "sync") || fmt_tok_is(act, alen, "datasync")) {
		cat = BLK_TC_FLUSH | BLK_TC_READ; /* no data, like a block-layer flush */
		off = length = 0;
		has_io = true;
	} else {
		return fmt_bad(c, "unknown action '%.*s'", (int)(alen > 12 ? 12 : alen), act);
	}
	if (!has_io)
		return fmt_bad(c, "IO action without offset and length");
	if (off % 512)
		return fmt_bad(c, "offset %llu is not a multiple of 512 bytes", (unsigned long long)off);
	uint32_t idx;
	int rc = file_index(st, file, flen, &idx);
	if (rc == FMT_BAD)
		return fmt_bad(c, "more than %d files", MAX_FILES);
	if (rc)
		return rc;
	if (st->version == 3)
		st->clock_ns = t;
	return fmt_emit_io(c, t, BR_MKDEV(0, idx), off >> 9, (uint32_t)length, cat, 0, false, 0);
}

bool fmt_fio_probe(const char *line, size_t len)
{
	(void)len;
	return strcmp(line, "fio version 2 iolog") == 0 || strcmp(line, "fio version 3 iolog") == 0;
}

const fmt_format fmt_fio = {
	.name = "fio iolog",
	.note = "one event per IO: D at the logged time (v3: microseconds; v2: the sum of "
		"waits), no completion; trim = discard, sync = flush; files numbered from 0 in "
		"order of appearance: file N → device 0,N; byte offsets must be 512-byte aligned",
	.state_size = sizeof(fio_state),
	.parse = parse,
	.free_state = free_state,
};
