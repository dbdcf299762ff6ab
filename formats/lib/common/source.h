/* source.h (internal) — one time-ordered event source inside a reader.
 *
 * A reader merges sources (a raw stream file, one per-CPU file, a
 * compressed file) by time. Each kind of source is an ops table; the reader
 * only calls through these hooks.
 *
 * Contracts:
 *  next       fill *ev with the next event: return 1, 0 at the end, or a
 *             negative br_code with err set (file + byte offset). ev->pdu
 *             must stay valid until the next call on this source. ev->comm
 *             is left NULL (the reader fills it in).
 *  next_batch optional: *evs points at up to max next events (at least 1),
 *             valid with their pdus until the next call: return how many,
 *             0 at the end, or a negative br_code with err set. Mixes with
 *             next in any order.
 *  seek_time  optional: position so the next event returned is the first
 *             with time >= t (absolute). Sources without an index leave it
 *             NULL and the reader reads and drops. Notify records before t
 *             may still be returned (process names stay known).
 *  first_time optional: the time of the first event, cheaply (from an
 *             index), or -1 if unknown without reading.
 *  info       fill the source-specific parts of br_input_info.
 *  close      free everything; the source struct itself included. */
#ifndef BLKREEL_SOURCE_H
#define BLKREEL_SOURCE_H

#include "blkreel/reader.h"
#include "input.h"

typedef struct br_source br_source;

typedef struct br_source_ops {
	const char *name;
	int (*next)(br_source *src, br_event *ev, br_error *err);
	int (*next_batch)(br_source *src, const br_event **evs, size_t max, br_error *err);
	int (*seek_time)(br_source *src, uint64_t t, br_error *err);
	int64_t (*first_time)(br_source *src);
	void (*info)(br_source *src, br_input_info *info);
	void (*close)(br_source *src);
} br_source_ops;

struct br_source {
	const br_source_ops *ops;
};

/* Raw blk_io_trace stream over an opened input (takes ownership of in
 * on success). A small reorder window sorts records that arrive slightly
 * out of time order (concatenated per-CPU pipes). */
int br_raw_source_open(br_source **out, br_input *in, br_error *err);

/* Compressed trace file / plain gzip stream over an opened input (takes
 * ownership of in on success). */
int br_tgz_source_open(br_source **out, br_input *in, const br_reader_opts *opts,
		       br_error *err);

/* True when the peeked bytes start a gzip member. */
bool br_tgz_probe(const uint8_t *data, size_t len);

#endif
