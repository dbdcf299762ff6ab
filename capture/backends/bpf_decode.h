/* bpf_decode.h — the bpf backend's compact records (bpf/capture_record.h)
 * expanded into br_events, with each CPU's stream kept in time order.
 *
 * Pure C, no libbpf: the live path (backend_bpf.c, records straight from
 * the rings) and the raw spool's conversion after tracing (raw_convert.c,
 * the same ring records read back from the file) run the same code, so
 * both give the same events in the same order.
 *
 * A batch holds one CPU's events (read from its region, or one ring
 * record). A DIRECT batch (a program that interrupted another's append to
 * the CPU's region) reaches the ring before the region's events older than
 * it: it is held back, in time order, until the CPU's first later event,
 * or until a read round whose snapshot found no append under way on that
 * CPU (bpf_decode_round). */
#ifndef BLKREEL_CAPTURE_BPF_DECODE_H
#define BLKREEL_CAPTURE_BPF_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/event.h"

/* Where decoded events go; a negative return stops the decoding. */
typedef int (*bpf_emit_fn)(void *arg, const br_event *ev, br_error *err);

typedef struct bpf_decoder bpf_decoder;

/* devs: the report dev_t of each configured device (record dev indexes
 * it); staging: the programs append to regions (direct batches are held). */
bpf_decoder *bpf_decoder_new(unsigned ncpu, const uint32_t *devs, unsigned ndevs, bool staging);
void bpf_decoder_free(bpf_decoder *d);
/* Count each completion record decoded into per_dev[its device index] as
 * its batch is walked, held back or not (a read round's records are then
 * all counted by its end: the completion check, dev_completions.h). */
void bpf_decoder_count_completions(bpf_decoder *d, uint64_t *per_dev);

/* Records the decoder could not use: a record of an unknown kind or
 * device is skipped (its time is not used either), damaged framing (a bad
 * batch header, a record cut short, a CPU out of range) ends the batch;
 * each counts once in n. The live path and the raw spool's walk keep
 * exactly the same records (both go through bpf_batch_walk); such records
 * from the kernel are counted and reported as lost, a spool reader makes
 * them an error at first_at, the byte offset within the batch. */
typedef struct bpf_bad {
	unsigned n;
	size_t first_at;
} bpf_bad;

/* The longest batch either path takes (the backend cuts what it reads from
 * a region into batches of at most this; a ring record is one event): a
 * longer one is damage, as is a longer frame in the raw spool. */
#define BPF_BATCH_MAX (64u << 10)

/* Each usable record of one ring record, in order; a negative return of fn
 * stops the walk and is returned. how (may be NULL): the batch's BCR_BATCH_*. */
typedef int (*bpf_record_fn)(void *arg, const void *rec, size_t size, br_error *err);
int bpf_batch_walk(unsigned ncpu, unsigned ndevs, const void *data, size_t size, unsigned *how, bpf_record_fn fn,
		   void *arg, bpf_bad *bad, br_error *err);

/* Walk one ring record's events into fn (NULL: check only). Returns 0 or
 * fn's negative br_code; bad (may be NULL) counts what was not used. */
int bpf_decode_batch(bpf_decoder *d, const void *data, size_t size, bpf_emit_fn fn, void *arg, bpf_bad *bad,
		     br_error *err);

/* The raw spool's walk: the usable records (fn, may be NULL, sees each) as
 * a ring record of their own at *batch, *kept its bytes (0: nothing
 * usable), *nrec its records; what the decoder makes of it is what it makes
 * of data. *batch is data itself when every record is kept, else scratch
 * (size bytes at least), where they were copied. */
int bpf_batch_keep(unsigned ncpu, unsigned ndevs, const void *data, size_t size, void *scratch,
		   const void **batch, size_t *kept,
		   unsigned *nrec, bpf_record_fn fn, void *arg, bpf_bad *bad, br_error *err);

/* The end of a read round: flushed[cpu] says the round's snapshot found no
 * append under way on that CPU (every event it timed before flushed_before
 * was read), flushed_before the time just before the snapshot; stopped:
 * the programs were detached (everything held goes). */
int bpf_decode_round(bpf_decoder *d, uint64_t flushed_before, const uint8_t *flushed, bool stopped, bpf_emit_fn fn,
		     void *arg, br_error *err);

/* Everything still held, in order (end of a spool cut short). */
int bpf_decode_finish(bpf_decoder *d, bpf_emit_fn fn, void *arg, br_error *err);

/* One record the walk kept as the event it makes (no holding back, no
 * order), when its action is in actions (bits 1 << __BLK_TA_*; 0 = any):
 * pdu is its payload's room. false: another action, or a kind or device
 * not known. */
bool bpf_record_event(const bpf_decoder *d, const void *rec, size_t size, uint32_t actions, br_event *ev,
		      uint8_t pdu[16]);

/* Size of a record of this kind (32, or 48 with a payload). */
size_t bpf_record_size(unsigned kind);

#endif
