/* capture_record.h — what the capture's BPF programs hand to user space:
 * the layout of one ring buffer record and of the configuration the
 * programs read from their read-only data. Included by the BPF object
 * (clang -target bpf, with vmlinux.h) and by backend_bpf.c (the project's
 * compiler), so it uses only fixed-width types both define. */
#ifndef BLKREEL_CAPTURE_BPF_RECORD_H
#define BLKREEL_CAPTURE_BPF_RECORD_H

#ifndef __bpf__
#include <stdint.h>
typedef uint8_t bcr_u8;
typedef uint16_t bcr_u16;
typedef uint32_t bcr_u32;
typedef uint64_t bcr_u64;
#else
typedef __u8 bcr_u8;
typedef __u16 bcr_u16;
typedef __u32 bcr_u32;
typedef __u64 bcr_u64;
#endif

/* Which tracepoint a record comes from (user space maps it to BLK_TA_*). */
enum bcr_kind {
	BCR_QUEUE, BCR_BACKMERGE, BCR_FRONTMERGE, BCR_GETRQ, BCR_BIO_COMPLETE, BCR_SPLIT, BCR_BIO_REMAP,
	BCR_INSERT, BCR_ISSUE, BCR_RQ_MERGE, BCR_REQUEUE, BCR_COMPLETE, BCR_RQ_REMAP, BCR_PLUG,
	BCR_UNPLUG_IO, BCR_UNPLUG_TIMER,
	BCR_NKINDS
};

/* One event: 32 bytes. Sector, length and category bits as blktrace would
 * record them; the device as an index into the configured device table. */
struct bcr_event {
	bcr_u64 time;     /* bpf_ktime_get_ns: CLOCK_MONOTONIC, as the perf backend */
	bcr_u64 sector;
	bcr_u32 bytes;
	bcr_u32 pid;      /* the current thread, as blktrace records it */
	bcr_u16 cats;     /* BLK_TC_* bits of the operation (from its REQ_* flags) */
	bcr_u8 kind;      /* enum bcr_kind */
	bcr_u8 status;    /* blk_status_t of completions */
	bcr_u8 dev;       /* index into bcr_config.devs */
	bcr_u8 pad;
	bcr_u16 cpu;
};

/* Split, remap and unplug carry a payload: 48 bytes. */
struct bcr_event_ext {
	struct bcr_event e;
	bcr_u64 value;    /* split: new sector; remap: old sector; unplug: depth */
	bcr_u32 old_dev;  /* remap: the device it came from (kernel dev_t) */
	bcr_u32 pad;
};

/* Where the programs put events: each CPU appends to its own region of an
 * mmapped array (the map `regions`), which user space reads in place, so
 * nothing is copied in the traced thread's time; the region's head says
 * how far it is written. A program that interrupted another of ours while
 * it appended writes its one event to the CPU's BPF ring buffer instead
 * (a DIRECT batch): it reaches user space before older events still being
 * appended, and user space puts it back in its place.
 *
 * User space hands both on as batches, one CPU's events in time order: a
 * STAGED batch holds events read from a region, a DIRECT batch is one
 * ring buffer record. The raw spool keeps them in this form. */
struct bcr_batch {
	bcr_u32 len;      /* bytes of events after this header */
	bcr_u16 nrec;     /* events in it */
	bcr_u8 how;       /* BCR_BATCH_* */
	bcr_u8 pad;
};
#define BCR_BATCH_STAGED 0
#define BCR_BATCH_DIRECT 1

/* A CPU's region is a ring of bytes made of `region_elems` array elements
 * (head modulo their total picks the element and the offset in it). A
 * record that starts near an element's end runs on into its slack, and the
 * next one starts as far into the next element: records never wrap. */
#define BCR_REGION_SHIFT 18
#define BCR_REGION_ELEM (1u << BCR_REGION_SHIFT)
#define BCR_REGION_SLACK 64u
struct bcr_region_elem {
	bcr_u8 data[BCR_REGION_ELEM + BCR_REGION_SLACK];
};

/* One CPU's control block (the map `ctls`, mmapped by user space too): the
 * programs' cache line, then user space's. */
struct bcr_ctl {
	bcr_u32 busy;     /* a program of ours is appending on this CPU */
	bcr_u32 tick;     /* events seen, for hook_direct_every */
	bcr_u32 c_tick;   /* completions seen, for hook_skip_c_every */
	/* tid + 1 of the CPU's two most recent threads (0: none), newest
	 * first: two, because a submitter and the worker completing its IO
	 * often take turns on one CPU */
	bcr_u32 named[2];
	bcr_u32 pad0;
	bcr_u64 head;     /* bytes appended; set after the record is written */
	bcr_u8 pad1[32];
	bcr_u64 tail;     /* bytes user space has read; only it writes this line */
	bcr_u8 pad2[56];
};

/* The kinds whose records are the 48-byte bcr_event_ext. */
static inline int bcr_has_payload(unsigned kind)
{
	return kind == BCR_SPLIT || kind == BCR_BIO_REMAP || kind == BCR_RQ_REMAP || kind == BCR_UNPLUG_IO ||
	       kind == BCR_UNPLUG_TIMER;
}

/* The bench's floors (BLKREEL_BPF_EMPTY): programs that return at once
 * (=1), or that only read the clock once, as each record needs, and store
 * it in a per-CPU slot (=clock). Neither writes a record. */
#define BCR_EMPTY_RETURN 1u
#define BCR_EMPTY_CLOCK 2u

#define BCR_MAX_DEVS 64
#define BCR_STAGE_BIO 1u /* bio events: the device (partition) the bio was sent to */
#define BCR_STAGE_RQ 2u  /* request events: the whole disk's dev_t */

/* One device match rule: events of stage with this dev_t (and, for a
 * partition's request stage, sector in [lo, hi)) belong to devs[index]. */
struct bcr_dev {
	bcr_u32 dev;
	bcr_u8 stages;
	bcr_u8 index;
	bcr_u16 pad;
	bcr_u64 lo, hi;   /* hi 0 = no range */
};

#endif
