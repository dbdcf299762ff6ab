/* sink.h — where backends put events. The sink filters them (when the
 * kernel did not), looks up the process name of each new pid, numbers them
 * (sequence per CPU and device, from 1, as blkparse expects), merges the
 * per-CPU streams by time and writes them with a process-name record before
 * each pid's first event.
 *
 * capture/spool/ owns everything between a backend and the finished files,
 * and this is its entry point: the sink (sink.c), the per-CPU reorder
 * buffer (merge.c), process names (names.c), the spool file written while
 * tracing (spool_writer.c; the bpf backend's raw frames, raw_spool.h), its
 * conversion and compression once tracing is off (raw_convert.c, spool.c),
 * the finished files renamed into place only when whole (spool_finish.c),
 * a capture written as a series of files (rotate.c) and the output paths
 * (outputs.c). It may call the library's writers
 * (blkreel/writer.h), the tool layer's clock and write-all (tool/), the
 * capture's options and config (capture_cli.h, capture_config.h), the bpf
 * record's format and decoder (backends/bpf/capture_record.h,
 * backends/bpf_decode.h, for raw_convert.c only) and hooks.h (hooks build
 * only); never a backend's ops or kstate/: it changes no kernel state. It
 * is called by the backends (push, names, raw frames), capture_core.c
 * (outputs, sink, drains, the end) and cleanup.c (a killed capture's spool
 * into its files). */
#ifndef BLKREEL_CAPTURE_SINK_H
#define BLKREEL_CAPTURE_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/event.h"
#include "blkreel/writer.h"
#include "capture_config.h"
#include "spool/rotate.h"
#include "spool/spool_writer.h"

typedef struct cap_sink cap_sink;

/* A record the sink writes, handed to a function (cap_sink_opts.record). */
typedef int (*cap_record_fn)(void *arg, const br_event *ev, br_error *err);

/* How far a quiet stream may hold the others back (the capture's window). */
#define CAP_REORDER_WINDOW_NS (500ull * 1000 * 1000)
/* And how many events the reorder buffer may hold (about 100 MiB) before
 * the earliest go out anyway: memory stays bounded at any event rate; an
 * event that then comes older than one written is counted late. */
#define CAP_SINK_MAX_QUEUED (1u << 20)
/* The same for the events only the flight recorder's rules read (raw
 * mode): about 3 MiB. */
#define CAP_SINK_WATCH_MAX_QUEUED (1u << 15)

typedef struct cap_sink_opts {
	const cap_config *cfg;
	bool filter;        /* apply act_mask/pid/LBA range here */
	bool sequence;      /* fill in sequence numbers */
	bool names;         /* write process-name records */
	/* the backend's name table, used when /proc no longer has the pid */
	bool (*comm)(void *st, uint32_t pid, char *name, size_t size);
	void *comm_state;
	br_writer *out[2];  /* every event goes to each (compressed, per-CPU set) */
	unsigned nout;
	cap_spool *spool;   /* and to the spool, when there is one */
	uint64_t window_ns; /* how far a quiet stream may hold the others back */
	size_t max_queued;  /* events the reorder buffer may hold; 0 = CAP_SINK_MAX_QUEUED */
	/* Raw mode (a bpf capture to a file, raw_spool.h): the backend hands
	 * its ring records to cap_sink_raw_frame instead of pushing events;
	 * drains, messages and the names of new pids become frames of this
	 * spool, and the events are made after tracing (raw_convert.c). */
	cap_spool *raw;
	/* Raw mode into a flight ring (--flight, rotate.h with a raw header):
	 * the frames go to the ring's current file instead of raw; after the
	 * drain that ends a read round the next file starts when one is due,
	 * and the names of pids are written again in it (cap_sink_name_epoch). */
	bool raw_ring;
	/* Names only from the hints pushed with the events (the raw spool's
	 * conversion: /proc now may hold another process). */
	bool names_from_hints;
	/* --rotate: events go to the rotation's current file (rotate.h); before
	 * the first event that is due in a new one, file_note gives the text of
	 * the closing file's note (its drops: "" = none), written as its last
	 * record, and each file names its processes again. cut: the trace time
	 * up to which the closing file holds every event. */
	cap_rotate *rotate;
	void (*file_note)(void *arg, uint64_t cut, char *buf, size_t size);
	void *file_note_arg;
	/* Each event written, after it is (the flight recorder's rules). In
	 * raw mode nothing is written while tracing: the backend hands the
	 * sink the event of each record of the actions in observe_actions
	 * (bits 1 << __BLK_TA_*; 0 = all) as it reads it (cap_sink_watch_push),
	 * and the sink merges them into time order for observe. */
	void (*observe)(void *arg, const br_event *ev);
	void *observe_arg;
	uint32_t observe_actions;
	/* Every record written (events, names, notes) also goes to record
	 * (the flight ring's conversion: its window is cut from them). */
	cap_record_fn record;
	void *record_arg;
} cap_sink_opts;

int cap_sink_new(cap_sink **out, const cap_sink_opts *o, br_error *err);
void cap_sink_free(cap_sink *s);

/* Take one event of stream ev->cpu (records of one stream in time order).
 * comm_hint: the process name carried with the record, or NULL. */
int cap_sink_push(cap_sink *s, const br_event *ev, const char *comm_hint, br_error *err);
/* A name learnt from the kernel (an exec seen by perf). */
void cap_sink_comm(cap_sink *s, uint32_t pid, const char *comm);
/* Write what is safe to write now (all = the end: everything). Called after
 * each read round: a round that brought nothing means the backend's buffers
 * were empty, so after CAP_SINK_SETTLE_NS everything seen before it is safe
 * to write even when a stream stays quiet (the last events of a workload
 * do not wait for the next one). Also lets the spool write out its batch. */
int cap_sink_drain(cap_sink *s, bool all, br_error *err);
#define CAP_SINK_SETTLE_NS (100ull * 1000 * 1000)
/* The same at a given CLOCK_MONOTONIC time (the raw spool's conversion
 * drains when the live capture did). */
int cap_sink_drain_at(cap_sink *s, bool all, uint64_t now_ns, br_error *err);

/* Raw mode: is it, a frame of the raw spool (events: records it carries),
 * and a pid read from the backend's records (its name is learnt now and
 * written as a frame once; *named false while it has none: ask again). */
bool cap_sink_is_raw(const cap_sink *s);
int cap_sink_raw_frame(cap_sink *s, unsigned type, const void *payload, size_t len, uint64_t events,
		       br_error *err);
int cap_sink_raw_pid(cap_sink *s, uint32_t pid, bool *named, br_error *err);
/* Raw mode: does observe want the records' events (cap_sink_watch_push),
 * and of which actions (*actions: bits 1 << __BLK_TA_*; 0 = all)? */
bool cap_sink_raw_watching(const cap_sink *s, uint32_t *actions);
/* Raw mode: the event a record read makes, for observe only (nothing is
 * written; stream ev->cpu, whose records come in time order but for a few
 * read early, which observe takes in any order). The backend hands over
 * only events of the actions cap_sink_raw_watching names. */
int cap_sink_watch_push(cap_sink *s, const br_event *ev, br_error *err);
/* Raw mode: changes each time a new file starts, whose spool must name its
 * pids again (a backend that caches "named" forgets its cache then). */
unsigned cap_sink_name_epoch(const cap_sink *s);
/* Raw mode: the CLOCK_MONOTONIC time of the last drain (0 before any),
 * the trace's clock for backends whose records carry it (bpf). */
uint64_t cap_sink_raw_now(const cap_sink *s);

/* After a kill -9, --cleanup appends what the kernel still held to the
 * spool: tell the sink a record that is in the output already, so that
 * sequence numbers go on from it, its process names are not written again
 * and nothing older is written after it. */
void cap_sink_resume(cap_sink *s, const br_event *ev);
/* Drop mode (--on-full drop): while on, events are counted as unwritten
 * (sequence numbers still advance, so the gap shows) instead of written. */
void cap_sink_discard(cap_sink *s, bool on);
/* Start a new file of a rotated capture now (after a gap in drop mode,
 * SIGHUP, a flight trigger): the closing file gets its note unless
 * with_note is false (the capture's last note is in it). No-op without
 * --rotate or when the current file is empty. */
int cap_sink_new_file(cap_sink *s, bool with_note, br_error *err);

/* Write a BLK_TN_MESSAGE record after everything so far. */
int cap_sink_message(cap_sink *s, const char *text, br_error *err);

typedef struct cap_sink_stats {
	uint64_t pushed;     /* records the backend gave */
	uint64_t filtered;   /* dropped by the action mask / pid / LBA range */
	uint64_t written;    /* events written (not counting name records) */
	uint64_t names;      /* process-name records written */
	uint64_t late;       /* events that came after later ones had been written
	                        (time raised to keep the file in order) */
	uint64_t last_time;
	uint64_t newest;     /* the newest event time pushed */
	size_t peak_queued;
	uint64_t recorded;   /* raw mode: events put in the raw spool */
	uint64_t unwritten;  /* events not written while discarding (--on-full drop) */
	uint64_t early;      /* written before their time to keep the reorder buffer bounded */
	unsigned files;      /* --rotate: new files started */
} cap_sink_stats;
void cap_sink_stats_get(const cap_sink *s, cap_sink_stats *st);

#endif
