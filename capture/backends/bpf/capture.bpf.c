// SPDX-License-Identifier: GPL-2.0
/* capture.bpf.c — blkreel-capture's BPF programs: one per block tracepoint,
 * each as tp_btf (typed arguments, plain loads) and as raw_tp (the fallback:
 * the same fields through bpf_probe_read_kernel). They read only the fields a
 * blk_io_trace needs, keep only the traced devices, the action mask, the pid
 * and the LBA range, and write a 32-byte record (48 with a payload) into the
 * CPU's event region (capture_record.h). Argument positions come from user
 * space, which reads the tracepoints' prototypes from the kernel's BTF at
 * load time. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "capture_record.h"
#include "hooks.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* BLK_TC_* (linux/blktrace_api.h, an ABI): backend_bpf.c checks they agree */
#define TC_READ (1u << 0)
#define TC_WRITE (1u << 1)
#define TC_FLUSH (1u << 2)
#define TC_SYNC (1u << 3)
#define TC_QUEUE (1u << 4)
#define TC_REQUEUE (1u << 5)
#define TC_ISSUE (1u << 6)
#define TC_COMPLETE (1u << 7)
#define TC_AHEAD (1u << 11)
#define TC_META (1u << 12)
#define TC_DISCARD (1u << 13)
#define TC_FUA (1u << 15)

/* Set by user space before load (read-only data, so the verifier knows them
 * and drops the branches they rule out). */
const volatile bcr_u32 ndevs = 0;
const volatile struct bcr_dev devs[BCR_MAX_DEVS] = {};
const volatile bcr_u16 act_mask = 0xffff;
const volatile bcr_u32 filter_pid = 0;
const volatile bcr_u64 start_lba = 0, end_lba = 0;
const volatile bool per_cpu_rings = true;
const volatile bool wakeup = false;
const volatile bool staging = true;  /* events to the CPU's region (off: one ring record per event) */
const volatile bool names = true;
/* the test and bench hooks' knobs: hooks.bpf.h */
/* Argument positions (tracepoint args, without the leading void *). For each
 * tracepoint: the bio/request/queue pointer, and its scalars in order. */
const volatile int arg_main[BCR_NKINDS] = {};
const volatile int arg_x1[BCR_NKINDS] = {};
const volatile int arg_x2[BCR_NKINDS] = {};

struct ring_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ring_inner);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* pid -> comm, written the first time a thread is seen (user space reads it
 * when /proc no longer has the pid); the CPU's two most recent threads
 * (struct cpu_state) skip the lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, char[16]);
} comms SEC(".maps");

/* The verifier wants every context load at a fixed offset from the
 * unmodified context pointer; written in C, clang merges the cases into one
 * load from ctx + 8 * i, so each case is one load instruction of its own. */
#define CTX_LOAD(ctx, off, v) asm volatile("%0 = *(u64 *)(%1 + " #off ")" : "=r"(v) : "r"(ctx))

static __always_inline __u64 ctx_arg(__u64 *ctx, int i)
{
	__u64 v;
	switch (i) {
	case 0: CTX_LOAD(ctx, 0, v); break;
	case 1: CTX_LOAD(ctx, 8, v); break;
	case 2: CTX_LOAD(ctx, 16, v); break;
	case 3: CTX_LOAD(ctx, 24, v); break;
	default: CTX_LOAD(ctx, 32, v); break;
	}
	return v;
}

/* Plain loads under tp_btf, probe reads under raw_tp; `direct` is a
 * constant in every caller, so each program keeps one of the two. */
#define RD(direct, p, ...) ((direct) ? ((p)->__VA_ARGS__) : BPF_CORE_READ(p, __VA_ARGS__))

static __always_inline __u16 op_categories(__u32 opf)
{
	__u16 c = 0;
	switch (opf & 0xff) { /* REQ_OP_MASK */
	case REQ_OP_WRITE: c = TC_WRITE; break;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE: c = TC_WRITE | TC_DISCARD; break;
	case REQ_OP_FLUSH: c = TC_FLUSH | TC_READ; break;
	default: c = TC_READ; break; /* R, and N for the others, as blk_fill_rwbs */
	}
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		c |= TC_FLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		c |= TC_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		c |= TC_AHEAD;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		c |= TC_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		c |= TC_META;
	return c;
}

/* Index of the configured device an event belongs to, or -1. stage is a
 * constant in every caller; only request-stage rules have a sector range
 * (a partition's place on its disk), so bio events never read the sector. */
static __always_inline int match_dev(__u32 dev, __u32 stage, __u64 sector)
{
	for (__u32 i = 0; i < BCR_MAX_DEVS; i++) {
		if (i >= ndevs)
			break;
		if (devs[i].dev != dev || !(devs[i].stages & stage))
			continue;
		if (stage == BCR_STAGE_RQ && devs[i].hi && (sector < devs[i].lo || sector >= devs[i].hi))
			continue;
		return devs[i].index;
	}
	return -1;
}

static __always_inline void count_drops(__u32 n)
{
	__u32 zero = 0;
	__u64 *d = bpf_map_lookup_elem(&drops, &zero);
	if (d)
		*d += n;
}

/* Each CPU's control block (struct bcr_ctl) and event region
 * (capture_record.h): one lookup of each per event. Appending in place,
 * where user space reads, costs the traced thread less than a ring
 * reservation per event (a lock with interrupts off) or a copy of staged
 * events into the ring (the copy was 37 of the 120 ns per IO the programs
 * added to fio's thread: capture_progs.sh with a one-off hook that left it
 * out, see 1639fc1's message). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set by user space: one per CPU */
	__type(key, __u32);
	__type(value, struct bcr_ctl);
} ctls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set by user space: region_elems per CPU */
	__type(key, __u32);
	__type(value, struct bcr_region_elem);
} regions SEC(".maps");

const volatile __u32 region_elems = 1; /* elements per CPU */
const volatile __u64 region_mask = BCR_REGION_ELEM - 1; /* a CPU's region's bytes - 1 (a power of 2) */

/* The current thread's name into comms, unless the CPU saw it last or
 * before last. An interrupting program runs for the same thread, so it
 * can only repeat the work, never undo it. */
static __always_inline void note_comm(struct bcr_ctl *st, __u32 tid)
{
	__u32 key = tid + 1;
	if (st->named[0] == key)
		return;
	__u32 prev = st->named[0];
	st->named[0] = key;
	if (st->named[1] == key) {
		st->named[1] = prev;
		return;
	}
	st->named[1] = prev;
	if (bpf_map_lookup_elem(&comms, &tid))
		return;
	char comm[16];
	bpf_get_current_comm(comm, sizeof comm);
	bpf_map_update_elem(&comms, &tid, comm, BPF_NOEXIST);
}

/* Programs nest only through interrupts (tracepoints run with preemption
 * off), and an interrupting program finishes before the one it interrupted
 * goes on. So the flag is plain memory: a program that finds it set (it
 * interrupted an append) writes its event to the ring on its own instead. */
#define COMPILER_BARRIER() asm volatile("" ::: "memory")

/* The head is published after the record it covers: x86 keeps stores in
 * order, so a compiler barrier is enough there; elsewhere an exchange
 * orders them. */
static __always_inline void publish_head(struct bcr_ctl *st, __u64 head)
{
	COMPILER_BARRIER();
#if defined(__TARGET_ARCH_x86)
	st->head = head;
#else
	__sync_lock_test_and_set(&st->head, head);
#endif
}

static __always_inline void *reserve(__u32 cpu, __u64 size)
{
	if (per_cpu_rings) {
		void *rb = bpf_map_lookup_elem(&rings, &cpu);
		if (!rb)
			return NULL;
		return bpf_ringbuf_reserve(rb, size, 0);
	}
	return bpf_ringbuf_reserve(&ring, size, 0);
}

static __always_inline void fill(struct bcr_event *e, __u64 now, __u8 kind, __u16 cats, int dev, __u64 sector,
				 __u32 bytes, __u32 tid, __u8 status, __u32 cpu, bool ext, __u64 value, __u32 old_dev)
{
	e->time = now;
	e->sector = sector;
	e->bytes = bytes;
	e->pid = tid;
	e->cats = cats;
	e->kind = kind;
	e->status = status;
	e->dev = (__u8)dev;
	e->pad = 0;
	e->cpu = (__u16)cpu;
	if (ext) {
		struct bcr_event_ext *x = (struct bcr_event_ext *)e;
		x->value = value;
		x->old_dev = old_dev;
		x->pad = 0;
	}
}

/* The common tail: pid, action mask, LBA range, then the record. ext is
 * whether it carries a payload. Returns 0 (a tracepoint's return is ignored). */
static __always_inline int emit(__u8 kind, __u16 act_cat, int dev, __u64 sector, __u32 bytes, __u32 opf,
				__u8 status, bool ext, __u64 value, __u32 old_dev)
{
	__u16 cats = kind == BCR_PLUG || kind == BCR_UNPLUG_IO || kind == BCR_UNPLUG_TIMER ? 0 : op_categories(opf);
	if (act_mask != 0xffff && !((cats | act_cat) & act_mask))
		return 0;
	if (sector && (sector < start_lba || (end_lba && sector > end_lba)))
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (filter_pid && tid != filter_pid)
		return 0;
	__u32 cpu = bpf_get_smp_processor_id();
	struct bcr_ctl *st = bpf_map_lookup_elem(&ctls, &cpu);
	if (!st)
		return 0;
	if (hook_noring) {
		bpf_ktime_get_ns();
		if (names)
			note_comm(st, tid);
		return 0;
	}
	if (hook_skip_c_every && kind == BCR_COMPLETE && ++st->c_tick % hook_skip_c_every == 0)
		return 0;
	__u32 size = ext ? sizeof(struct bcr_event_ext) : sizeof(struct bcr_event);
	bool forced = staging && hook_direct_every && ++st->tick % hook_direct_every == 0;
	if (staging && !st->busy && !forced) {
		st->busy = 1;
		COMPILER_BARRIER();
		/* the time after taking the region: an interrupting program
		 * that wrote to the ring before this is also earlier */
		__u64 now = bpf_ktime_get_ns();
		__u64 head = st->head;
		__u64 tail = *(volatile __u64 *)&st->tail;
		__u64 pos = head & region_mask;
		__u32 key = cpu * region_elems + (__u32)(pos >> BCR_REGION_SHIFT);
		struct bcr_region_elem *r = bpf_map_lookup_elem(&regions, &key);
		if (head - tail > region_mask + 1 - size || !r) {
			count_drops(1); /* user space has not read the region: full */
		} else {
			__u32 off = (__u32)pos & (BCR_REGION_ELEM - 1);
			fill((struct bcr_event *)(r->data + off), now, kind, cats, dev, sector, bytes, tid, status, cpu,
			     ext, value, old_dev);
			publish_head(st, head + size);
		}
		COMPILER_BARRIER();
		st->busy = 0;
	} else {
		__u64 now = bpf_ktime_get_ns();
		struct bcr_batch *b = reserve(cpu, sizeof *b + size);
		if (!b) {
			count_drops(1);
			return 0;
		}
		b->len = size;
		b->nrec = 1;
		b->how = BCR_BATCH_DIRECT;
		b->pad = 0;
		fill((struct bcr_event *)(b + 1), now, kind, cats, dev, sector, bytes, tid, status, cpu, ext, value,
		     old_dev);
		bpf_ringbuf_submit(b, wakeup ? 0 : BPF_RB_NO_WAKEUP);
	}
	if (names)
		note_comm(st, tid);
	return 0;
}

static __always_inline int bio_dev(struct bio *bio, bool direct, __u32 *dev)
{
	struct block_device *bdev = RD(direct, bio, bi_bdev);
	if (!bdev)
		return -1;
	*dev = RD(direct, bdev, bd_dev);
	return 0;
}

static __always_inline int disk_dev(struct request_queue *q, bool direct, __u32 *dev)
{
	if (!q)
		return -1;
	struct gendisk *disk = RD(direct, q, disk);
	if (!disk)
		return -1;
	__u32 major = (__u32)RD(direct, disk, major);
	__u32 minor = (__u32)RD(direct, disk, first_minor);
	*dev = major << 20 | minor; /* the kernel's MKDEV, as disk_devt */
	return 0;
}

/* Q, M, F, G, bio completions, split, bio remap. */
static __always_inline int on_bio(__u64 *ctx, __u8 kind, __u16 act_cat, bool direct)
{
#ifdef BLKREEL_TEST_HOOKS
	if (hook_empty)
		return floor_only();
#endif
	struct bio *bio = (struct bio *)ctx_arg(ctx, arg_main[kind]);
	__u32 dev;
	if (!bio || bio_dev(bio, direct, &dev))
		return 0;
	int idx = match_dev(dev, BCR_STAGE_BIO, 0);
	if (idx < 0)
		return 0;
	__u64 sector = RD(direct, bio, bi_iter.bi_sector);
	__u32 size = RD(direct, bio, bi_iter.bi_size);
#ifdef BLKREEL_TEST_HOOKS
	if (hook_pair_cost && (kind == BCR_QUEUE || kind == BCR_GETRQ))
		pair_touch((__u64)bio, kind);
#endif
	__u32 opf = RD(direct, bio, bi_opf);
	__u8 status = 0;
	if (kind == BCR_BIO_COMPLETE)
		status = RD(direct, bio, bi_status);
	__u32 bytes = size & ~511u; /* nr_sector << 9, as the tracepoints report it */
	if (kind == BCR_SPLIT)
		return emit(kind, act_cat, idx, sector, 0, opf, 0, true, (__u32)ctx_arg(ctx, arg_x1[kind]), 0);
	if (kind == BCR_BIO_REMAP)
		return emit(kind, act_cat, idx, sector, bytes, opf, 0, true, ctx_arg(ctx, arg_x2[kind]),
			    (__u32)ctx_arg(ctx, arg_x1[kind]));
	return emit(kind, act_cat, idx, sector, bytes, opf, status, false, 0, 0);
}

/* I, D, merge into a request, R, C, request remap. */
static __always_inline int on_rq(__u64 *ctx, __u8 kind, __u16 act_cat, bool direct)
{
#ifdef BLKREEL_TEST_HOOKS
	if (hook_empty)
		return floor_only();
#endif
	struct request *rq = (struct request *)ctx_arg(ctx, arg_main[kind]);
	__u32 dev;
	if (!rq || disk_dev(RD(direct, rq, q), direct, &dev))
		return 0;
	__u32 opf = RD(direct, rq, cmd_flags);
#ifdef BLKREEL_TEST_HOOKS
	if (hook_pair_cost && (kind == BCR_ISSUE || kind == BCR_COMPLETE))
		pair_touch((__u64)RD(direct, rq, bio), kind);
#endif
	__u64 pos = RD(direct, rq, __sector);
	__u32 len = RD(direct, rq, __data_len);
	__u32 op = opf & 0xff;
	bool passthrough = op == REQ_OP_DRV_IN || op == REQ_OP_DRV_OUT;
	/* blk_rq_trace_sector: no sector for passthrough or an unset position */
	__u64 sector = passthrough || pos == (__u64)-1 ? 0 : pos;
	int idx = match_dev(dev, BCR_STAGE_RQ, sector);
	if (idx < 0)
		return 0;
	__u32 bytes = len;
	__u8 status = 0;
	if (kind == BCR_COMPLETE) {
		/* partial completions fire once per part: each reports its bytes */
		sector = pos;
		status = (__u8)ctx_arg(ctx, arg_x1[kind]);
		bytes = (__u32)ctx_arg(ctx, arg_x2[kind]) & ~511u;
	} else if (kind == BCR_REQUEUE) {
		bytes = passthrough ? 0 : len & ~511u;
	} else if (kind == BCR_RQ_REMAP) {
		return emit(kind, act_cat, idx, pos, len & ~511u, opf, 0, true, ctx_arg(ctx, arg_x2[kind]),
			    (__u32)ctx_arg(ctx, arg_x1[kind]));
	}
	return emit(kind, act_cat, idx, sector, bytes, opf, status, false, 0, 0);
}

/* P, U (explicit: UNPLUG_IO, from the timer: UNPLUG_TIMER). */
static __always_inline int on_queue(__u64 *ctx, __u8 kind, bool direct)
{
#ifdef BLKREEL_TEST_HOOKS
	if (hook_empty)
		return floor_only();
#endif
	struct request_queue *q = (struct request_queue *)ctx_arg(ctx, arg_main[kind]);
	__u32 dev;
	if (disk_dev(q, direct, &dev))
		return 0;
	int idx = match_dev(dev, BCR_STAGE_RQ, 0);
	if (idx < 0)
		return 0;
	if (kind == BCR_PLUG)
		return emit(kind, TC_QUEUE, idx, 0, 0, 0, 0, false, 0, 0);
	__u32 depth = (__u32)ctx_arg(ctx, arg_x1[kind]);
	bool explicit = (__u8)ctx_arg(ctx, arg_x2[kind]);
	return emit(explicit ? BCR_UNPLUG_IO : BCR_UNPLUG_TIMER, TC_QUEUE, idx, 0, 0, 0, 0, true, depth, 0);
}

#define BIO_PROGS(name, tp, kind, cat)                                                                             \
	SEC("tp_btf/" tp) int blkr_##name(__u64 *ctx) { return on_bio(ctx, kind, cat, true); }                    \
	SEC("raw_tp/" tp) int blkr_##name##_r(__u64 *ctx) { return on_bio(ctx, kind, cat, false); }
#define RQ_PROGS(name, tp, kind, cat)                                                                              \
	SEC("tp_btf/" tp) int blkr_##name(__u64 *ctx) { return on_rq(ctx, kind, cat, true); }                     \
	SEC("raw_tp/" tp) int blkr_##name##_r(__u64 *ctx) { return on_rq(ctx, kind, cat, false); }
#define Q_PROGS(name, tp, kind)                                                                                    \
	SEC("tp_btf/" tp) int blkr_##name(__u64 *ctx) { return on_queue(ctx, kind, true); }                       \
	SEC("raw_tp/" tp) int blkr_##name##_r(__u64 *ctx) { return on_queue(ctx, kind, false); }

BIO_PROGS(queue, "block_bio_queue", BCR_QUEUE, TC_QUEUE)
BIO_PROGS(bmerge, "block_bio_backmerge", BCR_BACKMERGE, TC_QUEUE)
BIO_PROGS(fmerge, "block_bio_frontmerge", BCR_FRONTMERGE, TC_QUEUE)
BIO_PROGS(getrq, "block_getrq", BCR_GETRQ, TC_QUEUE)
BIO_PROGS(bdone, "block_bio_complete", BCR_BIO_COMPLETE, TC_COMPLETE)
BIO_PROGS(split, "block_split", BCR_SPLIT, 0)
BIO_PROGS(bremap, "block_bio_remap", BCR_BIO_REMAP, TC_QUEUE)
RQ_PROGS(insert, "block_rq_insert", BCR_INSERT, TC_QUEUE)
RQ_PROGS(issue, "block_rq_issue", BCR_ISSUE, TC_ISSUE)
RQ_PROGS(rmerge, "block_rq_merge", BCR_RQ_MERGE, TC_QUEUE)
RQ_PROGS(requeue, "block_rq_requeue", BCR_REQUEUE, TC_REQUEUE)
RQ_PROGS(complete, "block_rq_complete", BCR_COMPLETE, TC_COMPLETE)
RQ_PROGS(rremap, "block_rq_remap", BCR_RQ_REMAP, TC_QUEUE)
Q_PROGS(plug, "block_plug", BCR_PLUG)
Q_PROGS(unplug, "block_unplug", BCR_UNPLUG_IO)
