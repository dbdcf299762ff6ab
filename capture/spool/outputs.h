/* outputs.h — the files a capture writes: NAME.blktrace.gz (or the
 * compressed stream on stdout) and, with --split, NAME.blktrace.<cpu>.
 *
 * To a file, the capture spools raw records to NAME.blktrace.spool and
 * compresses at the end (spool.h says why); to stdout it compresses live;
 * with --rotate it writes a series of files while tracing (rotate.h). */
#ifndef BLKREEL_CAPTURE_OUTPUTS_H
#define BLKREEL_CAPTURE_OUTPUTS_H

#include <stdbool.h>

#include "blkreel/error.h"
#include "blkreel/writer.h"
#include "capture_cli.h"
#include "spool/rotate.h"
#include "spool/sink.h"
#include "spool/spool_writer.h"

typedef struct cap_outputs {
	br_writer *live[2];     /* streaming to stdout: the writers fed while tracing */
	unsigned nlive;
	cap_spool *spool;       /* to a file: the spool fed while tracing */
	bool spooling;
	bool raw;               /* the spool holds raw records (raw_spool.h), converted at close */
	cap_sink_stats raw_stats; /* the conversion's counts (raw) */
	char spool_path[1040];
	char gz_path[1024];     /* "-" for stdout */
	char split_base[1024];  /* "" without --split */
	br_writer_opts final_opts;
	uint64_t final_events;  /* records in the finished file */
	cap_rotate *rotate;     /* --rotate: the series of files */
	cap_rotate_result rotated; /* what it wrote (after close) */
	char base[1024];        /* NAME with -D's folder (files: NAME.*) */
} cap_outputs;

/* Open them; name defaults to the first device's kernel name. With
 * --rotate, opened is called with each new spool's path (rotate.h). */
int cap_outputs_open(cap_outputs *o, const capture_cli *cli, const char *default_name,
		     void (*opened)(void *arg, const char *spool), void *arg, br_error *err);
/* Finish: with a spool, compress it (a raw one: convert it) into the final files and remove it.
 * Whatever fails, everything that could be made readable is. */
int cap_outputs_close(cap_outputs *o, br_error *err);
/* What the capture wrote so far (spool or stream), in bytes; with
 * --rotate, what its set of files takes on disk. */
uint64_t cap_outputs_bytes(const cap_outputs *o);
/* What the capture takes on disk now, with the room finishing its
 * current file will need: what --max-disk limits. */
uint64_t cap_outputs_disk_need(const cap_outputs *o);
/* Remove them (nothing was captured: do not leave files that look whole). */
void cap_outputs_abort(cap_outputs *o);

#endif
