/* backend_bpf_region.h — the bpf backend's per-CPU event regions
 * (bpf/capture_record.h) from user space: mapped once, and each read round
 * a snapshot of every CPU's head, then the events below it handed on as
 * STAGED batches (the form the decoder and the raw spool take) and the
 * region given back up to there.
 *
 * A round reads the ring buffers between the snapshot and the regions: a
 * program that interrupted an append wrote its (older) event to the ring
 * before the events appended after it, so every event the snapshot covers
 * comes after the ring's events older than it, as the decoder needs. */
#ifndef BLKREEL_CAPTURE_BPF_REGION_H
#define BLKREEL_CAPTURE_BPF_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "backends/bpf/capture_record.h"
#include "backends/bpf_decode.h"
#include "blkreel/error.h"

typedef struct bpf_regions {
	struct bcr_ctl *ctl;   /* ncpu control blocks (mapped writable: user space sets tail) */
	size_t ctl_bytes;
	const uint8_t *data;   /* ncpu * elems elements, read-only */
	size_t data_bytes;
	unsigned ncpu, elems;
	uint64_t mask;         /* a region's bytes - 1 */
	uint64_t heads[1024];  /* the round's snapshot */
	_Alignas(8) uint8_t batch[BPF_BATCH_MAX];
} bpf_regions;

/* Bytes per CPU for a wanted size (a power of two): at least one element,
 * and small enough that the map of every CPU's stays under 2 GiB. */
uint64_t bpf_region_bytes(uint64_t want, unsigned ncpu);

/* Map the two arrays (ctl_fd: the ctls map, data_fd: the regions map,
 * ncpu * elems entries). */
int bpf_regions_map(bpf_regions *r, int ctl_fd, int data_fd, unsigned ncpu, unsigned elems, br_error *err);
void bpf_regions_unmap(bpf_regions *r);

/* The round's start: each CPU's head, and flushed[cpu] = no append was
 * under way on it, so every event it timed before this call is below
 * its head. */
void bpf_regions_snapshot(bpf_regions *r, uint8_t *flushed);

/* Each CPU's events from its tail up to the snapshot's head, in batches of
 * at most BPF_BATCH_MAX bytes, to fn (a negative return stops the read and
 * is returned); the region is then free up to there. A record of no known
 * kind ends that CPU's read (the rest up to the head is skipped) and counts
 * in *bad. Returns the batches handed on. */
typedef int (*bpf_region_fn)(void *arg, void *batch, size_t size);
int bpf_regions_read(bpf_regions *r, bpf_region_fn fn, void *arg, uint64_t *bad);

#endif
