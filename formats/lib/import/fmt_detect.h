/* fmt_detect.h (internal) — the text formats' entries for the probe table
 * in input_detect.c: one probe + open per format (--input-format forces
 * one by name), plus "text" and "text.gz", which look further into the
 * input than the table's peek window and pick the format themselves. */
#ifndef BLKREEL_FMT_DETECT_H
#define BLKREEL_FMT_DETECT_H

#include "common/source.h"

#define FMT_DECLARE(n) \
	bool br_fmt_probe_##n(const uint8_t *data, size_t len); \
	int br_fmt_open_##n(br_source **out, br_input *in, const br_reader_opts *opts, br_error *err);
FMT_DECLARE(blkparse)
FMT_DECLARE(blkreplay)
FMT_DECLARE(disksim)
FMT_DECLARE(msr)
FMT_DECLARE(fiu)
FMT_DECLARE(fio)
/* any text / gzip'd text in one of the formats above */
FMT_DECLARE(text)
FMT_DECLARE(text_gz)
#undef FMT_DECLARE

#endif
