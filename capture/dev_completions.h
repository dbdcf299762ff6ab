/* dev_completions.h — the requests a block device says it completed
 * (its sysfs stat), to check a capture's C records against: a completion
 * the kernel counted that no record shows was lost without being counted
 * anywhere else (e.g. a tracepoint program the kernel did not run). */
#ifndef BLKREEL_CAPTURE_DEV_COMPLETIONS_H
#define BLKREEL_CAPTURE_DEV_COMPLETIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_config.h"

/* Requests of d completed so far: reads, writes, discards and flushes
 * (fields 1, 5, 12 and 16 of SYSFS/stat; the last two where the kernel has
 * them). Only for a request-based (blk-mq) device, whose every completion
 * fires block_rq_complete: its disk has an mq folder. false when d's count
 * cannot stand for its C records (bio-based, no stat). */
bool cap_dev_completed(const cap_device *d, uint64_t *ios);

/* Whether device i's C records can be checked against its count: not a
 * partition whose whole disk is traced too (the disk's rule takes the
 * partition's requests, so their C records carry the disk). */
bool cap_dev_countable(const cap_config *cfg, size_t i);

/* The completions counted between start and end that are not among the
 * recorded ones: a lower bound of those lost (a partial completion, or one
 * between the first count and the programs taking effect, only adds C
 * records). */
static inline uint64_t cap_dev_unrecorded(uint64_t start, uint64_t end, uint64_t recorded)
{
	uint64_t done = end >= start ? end - start : 0;
	return done > recorded ? done - recorded : 0;
}

/* The check of every backend (bpf, perf, tracefs): each countable device's
 * count once its completions are recorded, the C records read, the count
 * again before they stop. A backend that filters C records in the kernel
 * (bpf with -a, --pid or an LBA range) does not start it. */
typedef struct cap_dev_check {
	bool counted[CAP_MAX_DEVICES];
	uint64_t start[CAP_MAX_DEVICES], end[CAP_MAX_DEVICES], recorded[CAP_MAX_DEVICES];
	/* The backend's last read round stopped with records of the kernel's
	 * still unread (a bound per round): a count taken before it would find
	 * their completions unrecorded (capture/unrecorded_notes.h). */
	bool behind;
} cap_dev_check;

/* After the kernel records every completion of cfg's devices: a completion
 * between this count and the end has a record, or is lost. carries_c says
 * whether device i's C records carry its own dev_t (the backend knows);
 * NULL: all do. */
void cap_dev_check_start(cap_dev_check *c, const cap_config *cfg, bool (*carries_c)(const cap_device *d));
/* A C record the backend read (any device: others are ignored). */
void cap_dev_check_record(cap_dev_check *c, const cap_config *cfg, uint32_t dev);
/* The same, for a backend whose records already name the device's index. */
static inline void cap_dev_check_record_at(cap_dev_check *c, size_t i)
{
	if (i < CAP_MAX_DEVICES)
		c->recorded[i]++;
}
/* Before the kernel stops recording. */
void cap_dev_check_end(cap_dev_check *c, const cap_config *cfg);
/* After the drain: completions counted that no C record shows. */
uint64_t cap_dev_check_unrecorded(const cap_dev_check *c, const cap_config *cfg);
/* While tracing: each checked device's count now, into at (a device whose
 * count cannot be read now keeps its first count: it adds nothing). */
void cap_dev_check_count(const cap_dev_check *c, const cap_config *cfg, uint64_t at[CAP_MAX_DEVICES]);
/* The completions of the counts at that no C record read so far shows. */
uint64_t cap_dev_check_unrecorded_at(const cap_dev_check *c, const cap_config *cfg, const uint64_t *at);

#endif
