/* raw_spool.h — the bpf capture's spool of raw records, NAME.blktrace.spool.
 *
 * While the workload runs, a bpf capture to a file does as little as it
 * can per event: the BPF rings' records (batches of one CPU's 32/48-byte
 * records) go to the spool as they are, in big batched writes, with a few
 * small frames saying what the live path would have done between them (a
 * read round ended, the sink drained, a process name was learnt). After
 * tracing, raw_convert.c runs the same decoder and sink over the frames in
 * the same order, so the compressed file (and --split set) is the same the
 * live path would have written; --cleanup does the same after a kill -9.
 *
 * Layout (little-endian, the host's: the spool never leaves the machine):
 *   header: magic "BLKRRAW1", u32 header bytes, u32 version (1), u32 ncpu,
 *           u32 ndevices, u32 flags (RAW_STAGING), u32 pad, u32 devs[ndevices]
 *           (report dev_t), padded to 8 bytes;
 *   frames: u32 type, u32 length, then length payload bytes padded to 8
 *           (so the records in a batch stay 8-byte aligned). */
#ifndef BLKREEL_CAPTURE_RAW_SPOOL_H
#define BLKREEL_CAPTURE_RAW_SPOOL_H

#include <stdint.h>

#define RAW_MAGIC "BLKRRAW1"
#define RAW_MAGIC_LEN 8
#define RAW_VERSION 1
#define RAW_STAGING 1u

typedef struct raw_header {
	char magic[RAW_MAGIC_LEN];
	uint32_t header_bytes;
	uint32_t version;
	uint32_t ncpu;
	uint32_t ndevices;
	uint32_t flags;
	uint32_t pad;
	/* uint32_t devs[ndevices]; then padding to 8 */
} raw_header;

enum raw_frame_type {
	RAW_BATCH = 1,   /* one batch as read: struct bcr_batch + its events */
	RAW_ROUND = 2,   /* a read round ended: struct raw_round + u8 flushed[ncpu] */
	RAW_DRAIN = 3,   /* the sink drained: struct raw_drain */
	RAW_NAME = 4,    /* pid -> comm, learnt when the pid was first read: struct raw_name */
	RAW_MESSAGE = 5, /* a BLK_TN_MESSAGE record (the drops note): its text */
};

typedef struct raw_frame {
	uint32_t type;
	uint32_t len;
} raw_frame;

typedef struct raw_round {
	uint64_t flushed_before; /* CLOCK_MONOTONIC just before the round's snapshot of the regions */
	uint32_t stopped;        /* the programs were detached */
	uint32_t ncpu;
} raw_round;

typedef struct raw_drain {
	uint64_t now;            /* CLOCK_MONOTONIC the sink drained at */
	uint32_t all;            /* the final drain: everything */
	uint32_t pad;
} raw_drain;

typedef struct raw_name {
	uint32_t pid;
	char comm[16];
} raw_name;

/* Largest frame a writer makes (a batch is at most BPF_BATCH_MAX; a round
 * 1024 CPUs): anything longer is damage. */
#define RAW_FRAME_MAX (64u << 10)

static inline uint32_t raw_pad8(uint32_t n) { return (n + 7u) & ~7u; }

#endif
