/* raw_convert.h — a raw spool (raw_spool.h) into the capture's outputs:
 * the frames read back in order through the bpf decoder and the sink
 * (names from the spool's own name frames, drains at the times the live
 * capture drained), so the file is the one the live path would have
 * written. Also what --cleanup runs on a killed capture's raw spool. */
#ifndef BLKREEL_CAPTURE_RAW_CONVERT_H
#define BLKREEL_CAPTURE_RAW_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/writer.h"
#include "spool/sink.h"

/* Does path start with the raw spool's magic? (false: an event spool, spool.h) */
bool cap_raw_spool_is(const char *path);

/* Convert the raw spool at path into out[0..n-1]. punch: give each part
 * read back to the disk at once (a full disk needs the room). A torn last
 * frame (a kill -9 mid-write) ends the spool; anything else that does not
 * parse is an error naming the file and byte offset, and nothing after it
 * is written. stats (may be NULL) gets the sink's counts. Returns the
 * events written (>= 0) or a negative br_code. */
int64_t cap_raw_convert(const char *path, bool punch, br_writer *const *out, unsigned n, cap_sink_stats *stats,
			br_error *err);

/* Consecutive raw spools of one capture (a flight ring's files, each with
 * its header; the first need not start the capture) through one decoder
 * and sink, in order: every record the sink writes (events, process
 * names, notes) goes to record. Errors name the file and byte offset.
 * Returns the events made or a negative br_code. */
int64_t cap_raw_convert_files(const char *const *paths, size_t n, cap_record_fn record, void *arg, br_error *err);

#endif
