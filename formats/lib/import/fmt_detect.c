/* Which text format is this? Each probe looks at the first few complete
 * lines; a format matches when at least two thirds of the non-comment
 * lines among the first few look like its records, so one malformed line
 * near the top still gets its proper "line N" error (or is skipped with
 * --skip-bad) instead of "unknown format". blkreplay needs one record or
 * its column header anywhere in the window, as its files open with free
 * text. */
#include "fmt_detect.h"

#include <stdlib.h>
#include <string.h>

#include "fmt_lines.h"
#include "fmt_text.h"

#define PROBE_LINES 8
#define PROBE_TEXT (64 * 1024)

typedef bool (*line_probe)(const char *line, size_t len);

typedef struct text_format {
	const fmt_format *fmt;
	line_probe probe;
	bool any_line;   /* one matching line is enough (files with free-text headers) */
} text_format;

/* Most specific first. */
static const text_format formats[] = {
	{ &fmt_fio, fmt_fio_probe, false },
	{ &fmt_blkparse, fmt_blkparse_probe, false },
	{ &fmt_msr, fmt_msr_probe, false },
	{ &fmt_fiu, fmt_fiu_probe, false },
	{ &fmt_disksim, fmt_disksim_probe, false },
	{ &fmt_blkreplay, fmt_blkreplay_probe, true },
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* Does the text match f? Lines are copied so probes see a NUL. */
static bool matches(const text_format *f, const uint8_t *text, size_t len)
{
	if (!fmt_looks_text(text, len > 512 ? 512 : len))
		return false;
	const char *starts[256];
	size_t lens[256];
	size_t max = f->any_line ? 256 : PROBE_LINES;
	size_t n = fmt_probe_lines(text, len, starts, lens, max);
	size_t checked = 0, matched = 0;
	for (size_t i = 0; i < n; i++) {
		char line[512];
		size_t l = lens[i] < sizeof line - 1 ? lens[i] : sizeof line - 1;
		memcpy(line, starts[i], l);
		line[l] = 0;
		bool comment = l == 0 || line[0] == '#';
		if (f->fmt == &fmt_msr && i == 0 && strncmp(line, "Timestamp,", 10) == 0)
			comment = false; /* the header itself matches */
		if (comment)
			continue;
		bool ok = f->probe(line, l);
		if (f->any_line && ok)
			return true;
		if (!f->any_line) {
			if (f->fmt == &fmt_fio)
				return ok; /* the header line decides */
			checked++;
			matched += ok;
		}
	}
	return !f->any_line && matched > 0 && matched * 3 >= checked * 2;
}

static bool probe_one(const fmt_format *fmt, const uint8_t *data, size_t len)
{
	uint8_t *text = malloc(PROBE_TEXT); /* not static: readers may open on any thread */
	if (!text)
		return false;
	size_t n = fmt_lines_peek_text(data, len, text, PROBE_TEXT);
	bool ok = false;
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].fmt == fmt)
			ok = matches(&formats[i], text, n);
	free(text);
	return ok;
}

#define FMT_ENTRY(n)                                                                        \
	bool br_fmt_probe_##n(const uint8_t *data, size_t len)                              \
	{                                                                                   \
		return !fmt_lines_is_gzip(data, len) && probe_one(&fmt_##n, data, len);      \
	}                                                                                   \
	int br_fmt_open_##n(br_source **out, br_input *in, const br_reader_opts *opts,      \
			    br_error *err)                                                  \
	{                                                                                   \
		return fmt_source_open(out, in, &fmt_##n, opts, err);                       \
	}
FMT_ENTRY(blkparse)
FMT_ENTRY(blkreplay)
FMT_ENTRY(disksim)
FMT_ENTRY(msr)
FMT_ENTRY(fiu)
FMT_ENTRY(fio)

/* Look at up to 4 KiB (the most the input can peek) and pick a format. */
static const fmt_format *pick(br_input *in, br_error *err, int *rc)
{
	const uint8_t *data;
	ssize_t n = br_input_peek(in, BR_INPUT_PEEK_MAX, &data, err);
	*rc = 0;
	if (n < 0) {
		*rc = (int)n;
		return NULL;
	}
	uint8_t *text = malloc(PROBE_TEXT);
	if (!text) {
		*rc = br_error_set(err, BR_ENOMEM, 0, in->name, -1, "out of memory");
		return NULL;
	}
	size_t tn = fmt_lines_peek_text(data, (size_t)n, text, PROBE_TEXT);
	const fmt_format *found = NULL;
	for (size_t i = 0; i < NFORMATS && !found; i++)
		if (matches(&formats[i], text, tn))
			found = formats[i].fmt;
	free(text);
	if (found)
		return found;
	*rc = br_error_set(err, BR_EFORMAT, 0, in->name, 0,
			   "text in no format blkreel reads (blkparse, blkreplay, DiskSim, MSR, FIU, "
			   "fio iolog); --input-format names one");
	return NULL;
}

static bool text_like(const uint8_t *data, size_t len)
{
	uint8_t text[512];
	size_t n = fmt_lines_peek_text(data, len, text, sizeof text);
	/* the last bytes of a window may be a cut multi-byte character */
	if (n > 8)
		n -= 4;
	return n > 0 && fmt_looks_text(text, n);
}

bool br_fmt_probe_text(const uint8_t *data, size_t len)
{
	return !fmt_lines_is_gzip(data, len) && text_like(data, len);
}

/* gzip'd text: the member must not carry our header subfields (FEXTRA),
 * and what it inflates to must be text, which a blk_io_trace stream never
 * is (its first bytes are the binary magic). */
bool br_fmt_probe_text_gz(const uint8_t *data, size_t len)
{
	if (!fmt_lines_is_gzip(data, len) || len < 4 || (data[3] & 4))
		return false;
	return text_like(data, len);
}

int br_fmt_open_text(br_source **out, br_input *in, const br_reader_opts *opts, br_error *err)
{
	int rc;
	const fmt_format *f = pick(in, err, &rc);
	if (!f)
		return rc;
	return fmt_source_open(out, in, f, opts, err);
}

int br_fmt_open_text_gz(br_source **out, br_input *in, const br_reader_opts *opts, br_error *err)
{
	return br_fmt_open_text(out, in, opts, err);
}
