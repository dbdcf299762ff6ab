/* spool_finish.h — a spool into the capture's finished files, so that no
 * file looks whole before it is: NAME.blktrace.gz is written as
 * NAME.blktrace.gz.part and the --split set as NAME.part.blktrace.<cpu>,
 * and only when every one is complete are they renamed into place (the
 * per-CPU files from the highest CPU down to 0, which blkparse needs
 * first, then the .gz). The spool stays until then, so a kill -9 at any
 * point leaves it to --cleanup, which runs this again. Used at the end of
 * a capture and by --cleanup. */
#ifndef BLKREEL_CAPTURE_SPOOL_FINISH_H
#define BLKREEL_CAPTURE_SPOOL_FINISH_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/writer.h"
#include "spool/sink.h"

typedef struct cap_finish {
	const char *spool;          /* NAME.blktrace.spool (event or raw, by its magic) */
	const char *gz;             /* NAME.blktrace.gz */
	const char *split_base;     /* NAME for NAME.blktrace.<cpu>; NULL or "": no split set */
	const br_writer_opts *opts; /* may be NULL */
	bool punch;                 /* give the spool's room back as it is read (full disk) */
	bool keep_on_error;         /* a failure still renames what was made (a full disk: keep
				     * what reached the spool); else nothing is put in place */
} cap_finish;

typedef struct cap_finish_result {
	bool raw;                   /* the spool held raw records */
	int64_t events;             /* records in the finished file */
	cap_sink_stats raw_stats;   /* the raw conversion's counts */
	unsigned split_files;       /* per-CPU files put in place */
} cap_finish_result;

/* 0, or a negative br_code with err set; the spool itself is not removed. */
int cap_spool_finish(const cap_finish *f, cap_finish_result *res, br_error *err);

/* Remove a set NAME.part.blktrace.* a killed finish left behind. */
void cap_spool_finish_remove_parts(const char *split_base);

#endif
