/* spool.h — replaying the capture's spool file into the final outputs.
 *
 * Compressing while the workload runs costs it CPU (zlib was two thirds of
 * the capture's own CPU time at 500 k events/s on 2 vCPUs), so a capture to
 * a file writes the merged, numbered, named records raw to NAME.blktrace.spool
 * (a memcpy and a write per 1 MiB) and compresses them once tracing is off. */
#ifndef BLKREEL_CAPTURE_SPOOL_H
#define BLKREEL_CAPTURE_SPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/writer.h"

/* Read every whole record of the spool at path and write it to each of
 * out[0..n-1]. punch: each part read is punched out of the spool at once,
 * so a full disk has room for the compressed file (the spool is gone
 * after; a kill -9 meanwhile loses what was punched, so only when the
 * room is needed). Returns records replayed (>= 0) or a negative br_code;
 * a torn last record is ignored. */
int64_t cap_spool_replay(const char *path, bool punch, br_writer *const *out, unsigned n, br_error *err);

/* Call fn for every whole record of the spool at path, in order, without
 * changing it (a torn last record is ignored). Returns records seen or a
 * negative br_code (fn's, or a read error with the spool's offset). */
typedef int (*cap_spool_record_fn)(void *arg, const br_event *ev, br_error *err);
int64_t cap_spool_each(const char *path, cap_spool_record_fn fn, void *arg, br_error *err);

#endif
