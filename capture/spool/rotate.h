/* rotate.h — a capture written as a series of files (--rotate):
 * NAME.00001.blktrace.gz, NAME.00002.blktrace.gz, ..., each a time slice
 * of the one merged, numbered stream the sink writes.
 *
 * The sink writes events in time order to the current file's spool,
 * NAME.NNNNN.blktrace.spool. Before the first event at or past the file's
 * end (its period over, in trace time, or its estimated compressed size
 * reached) it asks for the next file: the spool is closed and queued and a
 * new one opened, so the seam falls between two consecutive events of the
 * merged stream and no event is lost or doubled. A thread of its own, at
 * low priority, compresses the queued spools in order into their .gz
 * (made as .part and renamed when whole: spool_finish.c), removes each
 * spool, says so in one line, and removes the oldest files of the set
 * beyond --keep N or --keep-size. Files of the same NAME that an earlier
 * capture left are part of the set: numbering goes on after them and they
 * count towards --keep.
 *
 * Only the capture's thread calls these functions; the finishing thread
 * is internal. */
#ifndef BLKREEL_CAPTURE_ROTATE_H
#define BLKREEL_CAPTURE_ROTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "blkreel/error.h"
#include "blkreel/writer.h"
#include "spool/spool_writer.h"

typedef struct cap_rotate cap_rotate;

typedef struct cap_rotate_opts {
	const char *base;      /* NAME (with -D's folder): files are NAME.NNNNN.blktrace.gz */
	uint64_t period_ns;    /* a new file every period of trace time; 0 = no time limit */
	uint64_t size;         /* a new file once this one would compress to about size bytes; 0 = none */
	unsigned keep;         /* keep the newest keep files; 0 = all */
	uint64_t keep_bytes;   /* and at most this many bytes of them; 0 = no limit */
	br_writer_opts write;  /* how each file is compressed (threads: 1 while tracing) */
	FILE *log;             /* one line per file written or removed; NULL = quiet */
	bool no_sync;          /* the bench's no_sync hook (hooks build only) */
	/* Flight recorder (--flight): the files stay spools (nothing is
	 * compressed while tracing) in a ring: a file is removed once the one
	 * after it starts more than keep_ns before the newest; cap_rotate_extract
	 * makes the output. keep and keep_bytes are not used. The ring's files
	 * are removed at the end (and those an earlier capture left, at open). */
	bool ring;
	uint64_t keep_ns;
	/* Called with each new spool's path before it is created (the capture
	 * notes it in its state file, for --cleanup; a spool finished is
	 * removed, and the capture forgets the spools it no longer finds). */
	void (*opened)(void *arg, const char *spool);
	void *opened_arg;
} cap_rotate_opts;

/* Open the first file's spool. */
int cap_rotate_open(cap_rotate **out, const cap_rotate_opts *o, br_error *err);

/* The current file's spool (valid until cap_rotate_next). */
cap_spool *cap_rotate_spool(cap_rotate *r);

/* Should an event at time (trace ns) go to a new file? The first event
 * starts the first period. */
bool cap_rotate_due(cap_rotate *r, uint64_t time);

/* --flight with a backend that spools raw records (raw_spool.h): every
 * file of the ring starts with this header (the current one now, which
 * must be empty) and holds raw frames; an extraction converts the files
 * it needs through one decoder (raw_convert.h). */
int cap_rotate_set_raw_header(cap_rotate *r, const void *header, size_t len, br_error *err);

/* Close the current file's spool, queue it for finishing, open the next;
 * time: the first event the new file takes. */
int cap_rotate_next(cap_rotate *r, uint64_t time, br_error *err);

/* Bytes the set takes on disk now: the files in place (this capture's and
 * earlier ones' it keeps), the spools, what is being compressed. */
uint64_t cap_rotate_disk_bytes(cap_rotate *r);

/* --flight: keep the ring's files that may hold events at or after
 * from_ns (a trigger waiting for its after-window needs them, however long
 * that takes); UINT64_MAX: none held. */
void cap_rotate_hold(cap_rotate *r, uint64_t from_ns);

/* --flight: once every file queued so far is done, write the events of
 * [from_ns, to_ns] (trace time) in the files of the ring into out (made as
 * out.part, renamed when whole), with every note those files hold, and
 * note (a BLK_TN_MESSAGE) at note_ns. The files it needs are not removed
 * meanwhile. Done in order with the files, by the thread; said in one line. */
int cap_rotate_extract(cap_rotate *r, uint64_t from_ns, uint64_t to_ns, const char *out, const char *note,
		       uint64_t note_ns, br_error *err);

typedef struct cap_rotate_result {
	unsigned written;      /* files this capture put in place */
	unsigned removed;      /* files removed for --keep / --keep-size */
	unsigned failed;       /* spools that could not be finished (left for --cleanup) */
	uint64_t events;       /* records in the files written */
	uint64_t bytes;        /* their size */
	unsigned first, last;  /* numbers of the first and last file written */
	unsigned extracted;    /* --flight: outputs written */
} cap_rotate_result;

/* Queue the last file, wait until every queued file is finished, stop the
 * thread, free. The first error, if any; res always filled. */
int cap_rotate_close(cap_rotate *r, cap_rotate_result *res, br_error *err);

/* Stop at once: the current spool is closed and removed (nothing was
 * captured), queued ones are finished; then free. */
void cap_rotate_abort(cap_rotate *r);

/* NAME.NNNNN.blktrace.<ext>; five digits, more past 99999. */
void cap_rotate_path(char *out, size_t size, const char *base, unsigned number, const char *ext);

#endif
