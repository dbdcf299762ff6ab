/* blkreel/writer.h — write events back out in the forms other tools read.
 *
 *   BR_OUT_STREAM      one merged blk_io_trace stream (what `blkparse -d`
 *                      writes; `blkparse -i FILE`-style pipes read it)
 *   BR_OUT_SPLIT       a per-CPU set PATH.blktrace.<cpu>, one file per cpu
 *                      field value, for blkparse/btt/iowatcher file mode
 *   BR_OUT_COMPRESSED  our compressed trace file (docs/compressed-format.md)
 *
 * Records are written in host byte order, exactly as decoded (sequence
 * numbers, cpu, pdu), so a read/write round trip is byte-identical for
 * native input. The compressed writer requires non-decreasing time. */
#ifndef BLKREEL_WRITER_H
#define BLKREEL_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "blkreel/event.h"

typedef struct br_writer br_writer;

enum br_output_kind {
	BR_OUT_STREAM = 1,
	BR_OUT_SPLIT,
	BR_OUT_COMPRESSED,
	BR_OUT_FIO_IOLOG,   /* fio iolog v3 of the issued IOs, for fio --read_iolog */
	BR_OUT_CSV,         /* one row per IO: time, device, op, offset, bytes, latency */
	BR_OUT_PERFETTO,    /* Chrome Trace Event JSON for Perfetto's UI / chrome://tracing */
};

#define BR_LEVEL_DEFAULT 6   /* within a few % of gzip -6 */
#define BR_LEVEL_FAST 1      /* for high-rate capture */

typedef struct br_writer_opts {
	int level;          /* deflate level 1..9; 0 = BR_LEVEL_DEFAULT */
	unsigned threads;   /* compressor threads; 0 = online CPUs */
} br_writer_opts;

/* "-" writes to standard output (not for BR_OUT_SPLIT). The file is
 * created or truncated. */
int br_writer_open(br_writer **out, enum br_output_kind kind, const char *path,
		   const br_writer_opts *opts, br_error *err);

/* The name of cpu's file in the per-CPU set PATH (BR_OUT_SPLIT):
 * "PATH.blktrace.<cpu>", cut to size. */
void br_split_path(char *out, size_t size, const char *path, unsigned cpu);

/* Guess the kind from an output name: "*.gz" → compressed, "*.iolog" →
 * fio iolog, "*.csv" → CSV, "*.perfetto.json" → Trace Event JSON,
 * otherwise a stream. (--split is asked for
 * explicitly.) */
enum br_output_kind br_output_kind_for_path(const char *path);

int br_writer_write(br_writer *w, const br_event *ev, br_error *err);

/* Finish the output (the compressed writer adds its end marker) and free
 * the writer. Returns the first error seen; NULL is fine. */
int br_writer_close(br_writer *w, br_error *err);

/* Give up: close and remove what was written (a failed conversion must not
 * leave a partial file that looks whole). NULL is fine. */
void br_writer_abort(br_writer *w);

/* Events and bytes written so far. */
uint64_t br_writer_events(const br_writer *w);
uint64_t br_writer_bytes(const br_writer *w);

#endif
