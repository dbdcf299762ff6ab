/* spool_writer.h — the capture's raw spool, NAME.blktrace.spool, written so
 * that a capture killed at any moment (kill -9, the OOM killer, a crash)
 * leaves all but its last second on disk for `--cleanup` to finish.
 *
 * Records are encoded into a batch buffer; the batch goes to the file with
 * one write(2) when it is full and, at low rates, once it holds data older
 * than CAP_SPOOL_FLUSH_NS (the capture loop calls cap_spool_tick every
 * round). write(2) puts it in the page cache, which survives the process;
 * a thread of its own fdatasyncs the file about once a second, so it also
 * survives a crash of the machine, and the event path never waits on the
 * disk. */
#ifndef BLKREEL_CAPTURE_SPOOL_WRITER_H
#define BLKREEL_CAPTURE_SPOOL_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/event.h"

#define CAP_SPOOL_BATCH (1u << 20)
#define CAP_SPOOL_FLUSH_NS (250ull * 1000 * 1000)
#define CAP_SPOOL_SYNC_NS (1000ull * 1000 * 1000)

typedef struct cap_spool cap_spool;

/* Create (truncate) path, or with append keep what it holds and add to it;
 * starts the sync thread. */
int cap_spool_open(cap_spool **out, const char *path, bool append, br_error *err);
/* Queue one record (the merged, numbered output of the sink). */
int cap_spool_write(cap_spool *s, const br_event *ev, br_error *err);
/* Queue raw bytes: a head and a body (either may be empty) written as one
 * piece of the file, followed by zero bytes up to pad (the raw spool's
 * frames, raw_spool.h). events: how many records they carry (counted). */
int cap_spool_append(cap_spool *s, const void *head, size_t hlen, const void *body, size_t blen, size_t pad,
		     uint64_t events, br_error *err);
#ifdef BLKREEL_TEST_HOOKS
/* The bench's no_sync hook (capture/hooks.h): no background fdatasync. */
void cap_spool_no_sync(cap_spool *s);
#endif
/* Write out the batch if its oldest record waited CAP_SPOOL_FLUSH_NS
 * (monotonic now_ns); also reports a failed background sync. */
int cap_spool_tick(cap_spool *s, uint64_t now_ns, br_error *err);
/* Write out what is left, sync, stop the thread, close; first error. NULL is fine. */
int cap_spool_close(cap_spool *s, br_error *err);

/* Did a write to the spool fail (a full disk)? */
bool cap_spool_failed(const cap_spool *s);
/* Bytes handed to the spool so far (written or batched), and records. */
uint64_t cap_spool_bytes(const cap_spool *s);
uint64_t cap_spool_records(const cap_spool *s);

#endif
