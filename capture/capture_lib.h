/* capture_lib.h — capture as a library: another tool (blkreel-replay --ab)
 * traces a block device into a file while it does its own work, in its own
 * process, so no capture can be left running behind it. The tracing loop runs
 * on a thread of ours; stopping drains it, puts the kernel back (the state
 * journal of kstate/ covers a kill -9: blkreel-capture --cleanup) and
 * finishes the file. Built with the rest of capture/ but its main.c into
 * libblkreel-capture.a. */
#ifndef BLKREEL_CAPTURE_LIB_H
#define BLKREEL_CAPTURE_LIB_H

#include <stdint.h>

#include "blkreel/error.h"

typedef struct cap_lib cap_lib;

typedef struct cap_lib_counts {
	uint64_t events;    /* records in the finished file */
	uint64_t lost;      /* events dropped, bad or unrecorded (0: the trace is whole) */
	double secs;        /* traced for */
	char backend[16];
} cap_lib_counts;

/* Catch SIGINT, SIGTERM and SIGHUP (a capture running stops at once) and
 * ignore SIGPIPE; the caller polls cap_lib_interrupted() to stop its own work. */
void cap_lib_signals(void);
/* The stop signal received, or 0. */
int cap_lib_interrupted(void);

/* Root (or the capabilities) and a backend that works here: 0 or a br_code. */
int cap_lib_check(br_error *err);

/* Start tracing device (a path, /dev/loop3) into path (NAME.blktrace.gz;
 * the name is taken as the capture tool's -o takes it). backend NULL:
 * the first that works. On failure nothing is left behind. */
int cap_lib_start(cap_lib **out, const char *device, const char *path, const char *backend, br_error *err);
/* Stop, drain, put the kernel back, finish the file, free c (NULL: nothing).
 * 0 or a br_code (the file is then whatever could be made readable). */
int cap_lib_stop(cap_lib *c, cap_lib_counts *counts, br_error *err);

#endif
