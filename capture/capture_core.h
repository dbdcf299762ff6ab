/* capture_core.h — the parts of one capture that the tool (capture_run.c)
 * and the library other tools link (capture_lib.c) share: set up from a
 * capture_cli, open (outputs, backend, sink), the tracing loop, close (drain,
 * drops record, kernel put back, files finished). */
#ifndef BLKREEL_CAPTURE_CORE_H
#define BLKREEL_CAPTURE_CORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/backend.h"
#include "blkreel/error.h"
#include "capture_cli.h"
#include "capture_config.h"
#include "flight/flight.h"
#include "kstate/kstate.h"
#include "spool/outputs.h"
#include "spool/sink.h"
#include "unrecorded_notes.h"

typedef struct cap_capture {
	const capture_cli *cli;
	cap_config cfg;
	const cap_backend_ops *be;
	void *st;
	bool started;
	int lock_fd;
	cap_kstate ks;
	cap_outputs out;
	cap_sink *sink;
	pid_t child;
	int child_status;
	bool child_done;
	uint64_t *drops;
	uint64_t dropped;    /* records the rings dropped, read at the end */
	uint64_t bad;        /* the backend's bad records, read at the end */
	uint64_t missed;     /* runs of our programs the kernel skipped, read at the end */
	uint64_t unrecorded; /* completions the devices counted that no record shows */
	bool has_bad_count;  /* the backend counts them (the drops record says bad=N) */
	uint64_t t0;
	uint64_t bytes_written; /* the compressed file's size (records written, on stdout) */
	double cpu_tracing, cpu_after; /* our own CPU (user + system, all threads), s */
	double wall_after;      /* from the loop's end to the finished file, s */
	atomic_bool *stop;      /* set by another thread to end the loop (the library); NULL in the tool */
	/* --rotate: what the notes of the files closed so far counted (each
	 * file's note counts what was lost while it was written) */
	uint64_t *noted_drops;
	uint64_t noted_bad, noted_unwritten;
	cap_unrecorded_notes unrecorded_notes; /* and the completions no record shows */
	/* --max-disk / --reserve */
	uint64_t room_checked;  /* when the room was last checked (monotonic ns) */
	bool discarding;        /* --on-full drop: events are counted, not written */
	uint64_t unwritten;     /* events not written for want of room (at the end) */
	bool out_of_room;       /* the capture stopped for want of room */
	cap_flight *flight;     /* --flight */
	bool raw_ring;          /* --flight: its ring holds the backend's raw records */
	uint64_t status_at;     /* when the status file was last written (monotonic ns) */
	uint64_t status_events; /* events then, for the rate */
} cap_capture;

double cap_own_cpu(void);

/* Resolve the devices into s->cfg (s->cli set). 0 or a br_code. */
int cap_capture_setup(cap_capture *s, br_error *err);
/* Everything up to tracing: checks, outputs, backend, sink. 0, or 1 with
 * the reason said and nothing left behind. */
int cap_capture_open(cap_capture *s);
/* Trace until a stop signal, *s->stop, the command's end or -w. 0, or a
 * negative br_code (read or write failure: stop and keep the file). */
int cap_capture_loop(cap_capture *s, br_error *err);
/* After tracing, whatever happened: drain, write the drops record, put the
 * kernel back, finish the files, say what was captured (unless quiet).
 * false on any failure; *total_drops gets the events lost. */
bool cap_capture_close(cap_capture *s, double secs, uint64_t loop_end, uint64_t *total_drops);

#endif
