/* backend_bpf.c — the block tracepoints through BPF programs of our own
 * (capture/backends/bpf/capture.bpf.c): tp_btf programs (raw_tp where the kernel
 * refuses tp_btf) that keep only the traced devices, the action mask, the
 * pid and the LBA range, and write 32-byte records into a mapped region per
 * CPU (an interrupted append's into the CPU's BPF ring buffer), read here
 * every poll interval without wakeups (backend_bpf_region.h). To a file, the
 * records go raw to the spool (raw_spool.h) and become events after
 * tracing; otherwise bpf_decode.c expands them into the sink as they come.
 * Nothing machine-wide is changed: programs, links and maps belong to our
 * file descriptors, so a kill -9 leaves nothing attached and captures can
 * run side by side.
 *
 * Test and bench builds (hooks.h) add the hooks' modes, floors and damage:
 * every piece of that is inside #ifdef BLKREEL_TEST_HOOKS, and the release
 * build loads a BPF object compiled without it (hooks.bpf.h). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/backend_bpf_btf.h"
#include "backends/backend_bpf_devs.h"
#include "backends/backend_bpf_region.h"
#include "backends/bpf/capture_record.h"
#include "backends/bpf_decode.h"
#include "dev_completions.h"
#include "hooks.h"
#include "spool/raw_spool.h"
#include "capture.skel.h"
#include "spool/names.h"
#include "tool/clock.h"

/* per CPU: ~800k records, 1 s at this machine's peak rate (with 16 MiB a
 * capture starved for 0.6 s on the busy shared machine lost events): the
 * event region's size; the ring buffer, for interrupted appends only,
 * takes an eighth of it */
#define DEFAULT_RING_BYTES (32u << 20)

_Static_assert(sizeof(struct bcr_event) == 32, "record layout");
_Static_assert(sizeof(struct bcr_event_ext) == 48, "record layout");
_Static_assert(BLK_TC_READ == 1 && BLK_TC_QUEUE == 16 && BLK_TC_ISSUE == 64 && BLK_TC_COMPLETE == 128 &&
		       BLK_TC_AHEAD == 2048 && BLK_TC_META == 4096 && BLK_TC_DISCARD == 8192 &&
		       BLK_TC_FUA == 32768,
	       "capture.bpf.c's TC_* copies of BLK_TC_*");

enum tp_arg { A_BIO, A_RQ, A_QUEUE };

static const struct tp_def {
	const char *tp;
	const char *prog;   /* the tp_btf program; the raw_tp one adds _r */
	enum bcr_kind kind;
	enum tp_arg arg;
	int scalars;        /* scalar arguments the program reads */
	uint32_t action;    /* BLK_TA_* with its category bits */
} tp_defs[] = {
	{ "block_bio_queue", "blkr_queue", BCR_QUEUE, A_BIO, 0, BLK_TA_QUEUE },
	{ "block_bio_backmerge", "blkr_bmerge", BCR_BACKMERGE, A_BIO, 0, BLK_TA_BACKMERGE },
	{ "block_bio_frontmerge", "blkr_fmerge", BCR_FRONTMERGE, A_BIO, 0, BLK_TA_FRONTMERGE },
	{ "block_getrq", "blkr_getrq", BCR_GETRQ, A_BIO, 0, BLK_TA_GETRQ },
	{ "block_bio_complete", "blkr_bdone", BCR_BIO_COMPLETE, A_BIO, 0, BLK_TA_COMPLETE },
	{ "block_split", "blkr_split", BCR_SPLIT, A_BIO, 1, BLK_TA_SPLIT },
	{ "block_bio_remap", "blkr_bremap", BCR_BIO_REMAP, A_BIO, 2, BLK_TA_REMAP },
	{ "block_rq_insert", "blkr_insert", BCR_INSERT, A_RQ, 0, BLK_TA_INSERT },
	{ "block_rq_issue", "blkr_issue", BCR_ISSUE, A_RQ, 0, BLK_TA_ISSUE },
	{ "block_rq_merge", "blkr_rmerge", BCR_RQ_MERGE, A_RQ, 0, BLK_TA_BACKMERGE },
	{ "block_rq_requeue", "blkr_requeue", BCR_REQUEUE, A_RQ, 0, BLK_TA_REQUEUE },
	{ "block_rq_complete", "blkr_complete", BCR_COMPLETE, A_RQ, 2, BLK_TA_COMPLETE },
	{ "block_rq_remap", "blkr_rremap", BCR_RQ_REMAP, A_RQ, 2, BLK_TA_REMAP },
	{ "block_plug", "blkr_plug", BCR_PLUG, A_QUEUE, 0, BLK_TA_PLUG },
	{ "block_unplug", "blkr_unplug", BCR_UNPLUG_IO, A_QUEUE, 2, BLK_TA_UNPLUG_IO },
};
#define NTP (sizeof tp_defs / sizeof tp_defs[0])

static const char *const arg_struct[] = { "bio", "request", "request_queue" };

typedef struct bpf_state {
	const cap_config *cfg;
	struct capture_bpf *skel;
	struct bpf_link *links[NTP];
	int ring_fds[1024];
	unsigned nrings;
	struct ring_buffer *rb;
	ring_buffer_sample_fn on_batch; /* what the rings' records and the regions' batches go to */
	bool raw_tp;            /* fell back to raw_tp */
	bool wakeup;            /* a wakeup per record (a hook: off in release) */
	bool staging;           /* events to the per-CPU regions (a hook sends each to the ring) */
	bpf_regions regions;    /* staging: mapped after load */
	bpf_decoder *dec;       /* records into events (holds each CPU's direct records) */
	uint8_t *flushed;       /* per CPU: the round's snapshot found no append under way */
	bool stopped;           /* programs detached: nothing more comes */
	uint32_t devs[BCR_MAX_DEVS]; /* report dev_t per configured device */
	/* valid during read: the ring callback's destination */
	cap_sink *sink;
	bool raw;               /* the sink takes the ring records raw (raw_spool.h) */
	br_error *err;
	int rc;
	uint64_t bad;           /* records that did not pass the walk (bpf_bad): lost */
	uint64_t missed;        /* runs the kernel's recursion guard skipped, read at stop */
	/* the devices' completions against the C records read (bpf_unrecorded);
	 * started only when no filter leaves C records out */
	cap_dev_check check;
	bool checking;
	uint32_t named_pids[256]; /* raw: pid + 1 of pids whose name is in the spool (a cache) */
	unsigned named_epoch;     /* the sink's name epoch the cache is of (a flight ring's file) */
	bool watching;            /* raw: the sink's rules read records' events (--trigger-on) */
	uint32_t watch_actions;   /* of these actions (bits 1 << __BLK_TA_*; 0 = all) */
	uint32_t last_pid;        /* raw: the pid of the walk's last record */
	_Alignas(8) uint8_t scratch[BPF_BATCH_MAX]; /* raw: the batch as spooled */
#ifdef BLKREEL_TEST_HOOKS
	cap_hooks hooks;          /* cfg's, or none (--cleanup, --list-backends without devices) */
	uint64_t discarded_time;  /* the user hook's thrown-away work, kept from being optimised away */
	unsigned spoil_count;
	_Alignas(8) uint8_t spoiled[BPF_BATCH_MAX]; /* records are read in place: 8-byte aligned */
#endif
} bpf_state;

/* libbpf's messages: keep the last warning, so a failure can be said in one
 * line instead of libbpf's multi-line verifier dump on stderr. libbpf's print
 * hook is process-wide by its design; this is the only state behind it. */
static char libbpf_last[256];

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (getenv("BLKREEL_BPF_DEBUG")) /* the verifier's whole story, for bug reports */
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	char line[sizeof libbpf_last];
	vsnprintf(line, sizeof line, fmt, ap);
	line[strcspn(line, "\n")] = 0;
	if (line[0])
		memcpy(libbpf_last, line, sizeof line);
	return 0;
}

static void quiet_libbpf(void)
{
	libbpf_set_print(libbpf_log);
	libbpf_last[0] = 0;
}

/* Can this process load BPF programs at all? A two-instruction socket
 * filter answers without touching any tracepoint. */
static int bpf_permitted(br_error *err)
{
	struct bpf_insn prog[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },                        /* exit */
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "blkr_probe", "GPL", prog, 2, NULL);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, -fd, NULL, -1,
				    "loading BPF programs refused (needs CAP_BPF and CAP_PERFMON, or root)");
	close(fd);
	return 0;
}

static int bpf_probe(br_error *err)
{
	quiet_libbpf();
	const char *btf = bpf_btf_path();
	if (access(btf, R_OK))
		return br_error_set(err, BR_ESYS, errno, btf, -1,
				    "no kernel BTF (a kernel built with CONFIG_DEBUG_INFO_BTF is needed)");
	return bpf_permitted(err);
}

static bool kind_wanted(uint16_t mask, uint32_t action)
{
	const uint16_t io_bits = BLK_TC_READ | BLK_TC_WRITE | BLK_TC_FLUSH | BLK_TC_SYNC | BLK_TC_AHEAD |
				 BLK_TC_META | BLK_TC_DISCARD | BLK_TC_FUA;
	if (mask == 0xffff || (mask & io_bits))
		return true;
	return ((action >> 16) & mask) != 0;
}

#ifdef BLKREEL_TEST_HOOKS
/* The hooks (hooks.h), test and bench builds only: the kernel side's,
 * into the object's read-only data before load. */
static void hooks_rodata(const bpf_state *st, struct capture_bpf *s)
{
	const cap_hooks *h = &st->hooks;
	s->rodata->per_cpu_rings = !h->shared_ring;
	s->rodata->names = !h->no_names;
	s->rodata->hook_empty = h->empty;
	s->rodata->hook_noring = h->noring;
	s->rodata->hook_pair_cost = h->pair_cost;
	s->rodata->hook_direct_every = h->direct_every;
	s->rodata->hook_skip_c_every = h->skip_c_every;
}
#endif

/* Open the object, set its read-only data from cfg and the kernel's
 * prototypes, choose the programs, create the rings and load it. */
static int load(bpf_state *st, const bpf_tp_args *args, const bool *use, bool raw_tp, size_t ring_bytes,
		br_error *err)
{
	const cap_config *cfg = st->cfg;
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	if (getenv("BLKREEL_BTF"))
		opts.btf_custom_path = bpf_btf_path();
	st->skel = capture_bpf__open_opts(&opts);
	if (!st->skel)
		return br_error_set(err, BR_ESYS, errno, NULL, -1, "opening the BPF object: %s", libbpf_last);
	struct capture_bpf *s = st->skel;
	int nrules = bpf_dev_rules(cfg, (struct bcr_dev *)s->rodata->devs, err);
	if (nrules < 0)
		return nrules;
	s->rodata->ndevs = (bcr_u32)nrules;
	s->rodata->act_mask = cfg->act_mask;
	s->rodata->filter_pid = cfg->pid;
	s->rodata->start_lba = cfg->start_lba;
	s->rodata->end_lba = cfg->end_lba;
	s->rodata->wakeup = st->wakeup;
	s->rodata->staging = st->staging;
#ifdef BLKREEL_TEST_HOOKS
	hooks_rodata(st, s);
#endif
	for (size_t t = 0; t < NTP; t++) {
		unsigned k = tp_defs[t].kind;
		s->rodata->arg_main[k] = args[t].main;
		s->rodata->arg_x1[k] = args[t].x1 < 0 ? 0 : args[t].x1;
		s->rodata->arg_x2[k] = args[t].x2 < 0 ? 0 : args[t].x2;
		char name[64];
		snprintf(name, sizeof name, "%s_r", tp_defs[t].prog);
		struct bpf_program *btf_prog = bpf_object__find_program_by_name(s->obj, tp_defs[t].prog);
		struct bpf_program *raw_prog = bpf_object__find_program_by_name(s->obj, name);
		if (!btf_prog || !raw_prog)
			return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "the BPF object lacks %s", tp_defs[t].prog);
		bpf_program__set_autoload(btf_prog, use[t] && !raw_tp);
		bpf_program__set_autoload(raw_prog, use[t] && raw_tp);
	}
	uint64_t region_bytes = bpf_region_bytes(ring_bytes, cfg->ncpu);
	unsigned elems = (unsigned)(region_bytes >> BCR_REGION_SHIFT);
	s->rodata->region_elems = elems;
	s->rodata->region_mask = region_bytes - 1;
	bpf_map__set_max_entries(s->maps.ctls, cfg->ncpu);
	bpf_map__set_max_entries(s->maps.regions, st->staging ? cfg->ncpu * elems : 1);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (st->staging) /* the ring takes only interrupted appends */
		ring_bytes = ring_bytes / 8 < page ? page : ring_bytes / 8;
	if (s->rodata->per_cpu_rings) {
		st->nrings = cfg->ncpu;
		for (unsigned c = 0; c < st->nrings; c++) {
			char name[BPF_OBJ_NAME_LEN];
			snprintf(name, sizeof name, "blkr_ring%u", c % 10000);
			int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0, (__u32)ring_bytes, NULL);
			if (fd < 0)
				return br_error_set(err, BR_ESYS, -fd, NULL, -1, "creating a %zu KiB BPF ring buffer",
						    ring_bytes >> 10);
			st->ring_fds[c] = fd;
		}
		bpf_map__set_max_entries(s->maps.rings, st->nrings);
		bpf_map__set_inner_map_fd(s->maps.rings, st->ring_fds[0]);
	} else {
		size_t total = ring_bytes;
		while (total < ring_bytes * cfg->ncpu)
			total *= 2;
		bpf_map__set_max_entries(s->maps.ring, (__u32)total);
	}
	int rc = capture_bpf__load(s);
	if (rc)
		return br_error_set(err, BR_ESYS, -rc, NULL, -1, "loading the BPF programs (%s): %s",
				    raw_tp ? "raw_tp" : "tp_btf", libbpf_last);
	for (unsigned c = 0; s->rodata->per_cpu_rings && c < st->nrings; c++) {
		__u32 key = c;
		if (bpf_map_update_elem(bpf_map__fd(s->maps.rings), &key, &st->ring_fds[c], BPF_ANY))
			return br_error_set(err, BR_ESYS, errno, NULL, -1, "installing ring buffer %u", c);
	}
	if (st->staging)
		return bpf_regions_map(&st->regions, bpf_map__fd(s->maps.ctls), bpf_map__fd(s->maps.regions), cfg->ncpu,
				       elems, err);
	return 0;
}

static void unload(bpf_state *st)
{
	bpf_regions_unmap(&st->regions);
	for (size_t t = 0; t < NTP; t++) {
		bpf_link__destroy(st->links[t]);
		st->links[t] = NULL;
	}
	ring_buffer__free(st->rb);
	st->rb = NULL;
	bpf_decoder_free(st->dec);
	st->dec = NULL;
	free(st->flushed);
	st->flushed = NULL;
	capture_bpf__destroy(st->skel);
	st->skel = NULL;
	for (unsigned c = 0; c < st->nrings; c++)
		if (st->ring_fds[c] >= 0) {
			close(st->ring_fds[c]);
			st->ring_fds[c] = -1;
		}
	st->nrings = 0;
}

/* The decoder counts the completions (bpf_decoder_count_completions; a
 * bio's counts too: the check stays a lower bound). */
static int to_sink(void *arg, const br_event *ev, br_error *err)
{
	bpf_state *st = arg;
	return cap_sink_push(st->sink, ev, NULL, err);
}

/* Raw: each record the walk keeps. A completion is counted (for
 * bpf_unrecorded), and a new pid's name is learnt now, while /proc still
 * has it (a small cache keeps this off most records). */
static int raw_record(void *arg, const void *rec, size_t size, br_error *err)
{
	bpf_state *st = arg;
	const struct bcr_event *r = rec;
	if (r->kind == BCR_COMPLETE)
		cap_dev_check_record_at(&st->check, r->dev);
	if (st->watching) { /* --flight --trigger-on: the rules read the event it makes */
		br_event ev;
		uint8_t pdu[16];
		if (bpf_record_event(st->dec, rec, size, st->watch_actions, &ev, pdu)) {
			int rc = cap_sink_watch_push(st->sink, &ev, err);
			if (rc)
				return rc;
		}
	}
	if (r->pid == st->last_pid)
		return 0;
	st->last_pid = r->pid;
	uint32_t *slot = &st->named_pids[r->pid & 255];
	if (*slot == r->pid + 1)
		return 0;
	bool named;
	int rc = cap_sink_raw_pid(st->sink, r->pid, &named, err);
	if (rc == 0 && named)
		*slot = r->pid + 1;
	return rc;
}

/* Raw: the records the live path's decoder would use (bpf_batch_keep, the
 * same walk) go to the spool as a ring record of their own; the others are
 * counted, so the spool holds only what converts. */
static int spool_raw(bpf_state *st, const uint8_t *data, size_t size)
{
	bpf_bad bad = { 0 };
	const void *batch;
	size_t kept;
	unsigned nrec;
	st->last_pid = 0xffffffffu;
	int rc = bpf_batch_keep(st->cfg->ncpu, (unsigned)st->cfg->ndevices, data, size, st->scratch, &batch, &kept,
				&nrec, raw_record, st, &bad, st->err);
	st->bad += bad.n;
	if (rc < 0 || kept == 0)
		return rc;
	return cap_sink_raw_frame(st->sink, RAW_BATCH, batch, kept, nrec, st->err);
}

/* A ring record: a batch of events of one CPU, spooled raw or decoded
 * into the sink. */
static int on_record(void *ctx, void *data, size_t size)
{
	bpf_state *st = ctx;
	int rc;
	if (st->raw) {
		rc = spool_raw(st, data, size);
	} else {
		bpf_bad bad = { 0 };
		rc = bpf_decode_batch(st->dec, data, size, to_sink, st, &bad, st->err);
		st->bad += bad.n;
	}
	if (rc < 0)
		st->rc = rc;
	return rc < 0 ? rc : 0;
}

#ifdef BLKREEL_TEST_HOOKS
/* The hooks' user-space side. The bench's floors: programs or user space
 * that write or keep no record (no completion count to check them by). */
static bool hooks_floor(const bpf_state *st)
{
	const cap_hooks *h = &st->hooks;
	return h->user != CAP_USER_SINK || h->empty || h->noring;
}

/* Records to the raw spool: not when a user hook takes them before the
 * sink (nowalk spools them itself), nor with the live path asked for. */
static bool hooks_allow_raw(const bpf_state *st)
{
	const cap_hooks *h = &st->hooks;
	return (h->user == CAP_USER_SINK || h->user == CAP_USER_NOWALK) && !h->spool_events;
}

/* CAP_USER_DECODE: each decoded event thrown away. */
static int decode_only(void *arg, const br_event *ev, br_error *err)
{
	(void)err;
	bpf_state *st = arg;
	st->discarded_time ^= ev->time;
	return 0;
}

/* CAP_USER_WALK: what the raw spool's walk reads of a record, thrown away. */
static int walk_only(void *arg, const void *rec, size_t size, br_error *err)
{
	(void)size;
	(void)err;
	bpf_state *st = arg;
	st->discarded_time ^= ((const struct bcr_event *)rec)->pid;
	return 0;
}

/* on_record with the spoil and user hooks in front of it. */
static int on_record_hooked(void *ctx, void *data, size_t size)
{
	bpf_state *st = ctx;
	const cap_hooks *h = &st->hooks;
	if (h->user == CAP_USER_DISCARD)
		return 0;
	if (h->spoil_every && ++st->spoil_count % h->spoil_every == 0 && size <= sizeof st->spoiled &&
	    size >= sizeof(struct bcr_batch) + sizeof(struct bcr_event)) {
		/* the batch's first record of a kind nobody knows (the ring's
		 * pages are read-only: a copy) */
		memcpy(st->spoiled, data, size);
		st->spoiled[sizeof(struct bcr_batch) + offsetof(struct bcr_event, kind)] = 0xee;
		data = st->spoiled;
	}
	int rc;
	bpf_bad bad = { 0 };
	if (h->user == CAP_USER_WALK) {
		const void *batch;
		size_t kept;
		unsigned nrec;
		rc = bpf_batch_keep(st->cfg->ncpu, (unsigned)st->cfg->ndevices, data, size, st->scratch, &batch, &kept,
				    &nrec, walk_only, st, &bad, st->err);
	} else if (h->user == CAP_USER_NOWALK) {
		const struct bcr_batch *b = data;
		rc = size < sizeof *b ? 0 : cap_sink_raw_frame(st->sink, RAW_BATCH, data, size, b->nrec, st->err);
	} else if (h->user == CAP_USER_DECODE) {
		rc = bpf_decode_batch(st->dec, data, size, decode_only, st, &bad, st->err);
		st->bad += bad.n;
	} else {
		return on_record(ctx, data, size);
	}
	if (rc < 0)
		st->rc = rc;
	return rc < 0 ? rc : 0;
}
#endif

/* Tracepoint t's program in the loaded object (tp_btf, or its raw_tp twin). */
static struct bpf_program *tp_program(const bpf_state *st, size_t t)
{
	char name[64];
	snprintf(name, sizeof name, "%s%s", tp_defs[t].prog, st->raw_tp ? "_r" : "");
	return bpf_object__find_program_by_name(st->skel->obj, name);
}

static int attach(bpf_state *st, const bool *use, br_error *err)
{
	for (size_t t = 0; t < NTP; t++) {
		if (!use[t])
			continue;
		struct bpf_program *p = tp_program(st, t);
		st->links[t] = p ? bpf_program__attach(p) : NULL;
		if (!st->links[t])
			return br_error_set(err, BR_ESYS, errno, NULL, -1, "attaching to %s: %s", tp_defs[t].tp,
					    libbpf_last);
	}
	return 0;
}

/* The traced devices' completed requests, now that the programs are
 * attached; only when every C record of theirs is kept (no filter, the
 * completion program attached, records written and going to the sink). */
static void start_counts(bpf_state *st)
{
	const cap_config *cfg = st->cfg;
	bool complete = false;
	for (size_t t = 0; t < NTP; t++)
		if (tp_defs[t].kind == BCR_COMPLETE)
			complete = st->links[t] != NULL;
#ifdef BLKREEL_TEST_HOOKS
	if (hooks_floor(st))
		return;
#endif
	if (!complete || cfg->act_mask != 0xffff || cfg->pid || cfg->start_lba || cfg->end_lba)
		return;
	cap_dev_check_start(&st->check, cfg, NULL);
	st->checking = true;
}

static int bpf_start(void *vst, const cap_config *cfg, cap_kstate *ks, br_error *err)
{
	(void)ks; /* nothing machine-wide: every object is tied to our fds */
	bpf_state *st = vst;
	st->cfg = cfg;
	for (unsigned c = 0; c < sizeof st->ring_fds / sizeof st->ring_fds[0]; c++)
		st->ring_fds[c] = -1;
	quiet_libbpf();
	if (cfg->ncpu > sizeof st->ring_fds / sizeof st->ring_fds[0])
		return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "more than %zu CPUs",
				    sizeof st->ring_fds / sizeof st->ring_fds[0]);
	for (size_t i = 0; i < cfg->ndevices; i++)
		st->devs[i] = cfg->devices[i].dev;
	st->staging = true;
#ifdef BLKREEL_TEST_HOOKS
	if (cfg->hooks)
		st->hooks = *cfg->hooks;
	st->missed = st->hooks.missed_add; /* as if the kernel had skipped this many runs */
	st->wakeup = st->hooks.wakeup;
	st->staging = !st->hooks.no_stage;
	st->raw_tp = st->hooks.raw_tp;
#endif
	struct btf *btf = btf__parse(bpf_btf_path(), NULL);
	if (!btf)
		return br_error_set(err, BR_ESYS, errno, bpf_btf_path(), -1, "cannot read the kernel's BTF");
	bpf_tp_args args[NTP];
	bool use[NTP], any = false;
	int rc = 0;
	for (size_t t = 0; t < NTP && !rc; t++) {
		rc = bpf_btf_tp_args(btf, tp_defs[t].tp, arg_struct[tp_defs[t].arg], &args[t], err);
		use[t] = !rc && args[t].present && kind_wanted(cfg->act_mask, tp_defs[t].action);
		if (use[t] && tp_defs[t].scalars > 0 && args[t].x1 < 0)
			use[t] = false;
		if (use[t] && tp_defs[t].scalars > 1 && args[t].x2 < 0)
			use[t] = false;
		any |= use[t];
	}
	btf__free(btf);
	if (rc)
		return rc;
	if (!any)
		return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "no block tracepoints for this action mask");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t want = cfg->buf_size ? cfg->buf_size * (cfg->buf_count ? cfg->buf_count : 1) : DEFAULT_RING_BYTES;
	size_t ring_bytes = page;
	while (ring_bytes < want)
		ring_bytes *= 2;
	rc = load(st, args, use, st->raw_tp, ring_bytes, err);
	if (rc && !st->raw_tp) {
		/* a kernel without tp_btf for these tracepoints: try raw_tp */
		char first[BR_ERROR_MSG_MAX];
		snprintf(first, sizeof first, "%s", err->msg);
		unload(st);
		st->raw_tp = true;
		rc = load(st, args, use, true, ring_bytes, err);
		if (rc) {
			char both[2 * BR_ERROR_MSG_MAX];
			snprintf(both, sizeof both, "%.200s; %.300s", first, err->msg);
			snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, both);
		} else if (cfg->log) {
			fprintf(cfg->log, "blkreel-capture: tp_btf refused (%s); using raw_tp\n", first);
		}
	}
	if (rc)
		return rc;
	if ((rc = attach(st, use, err)))
		return rc;
	start_counts(st);
#ifdef BLKREEL_TEST_HOOKS
	if (cfg->log && st->hooks.raw_tp)
		fprintf(cfg->log, "blkreel-capture: bpf: raw_tp programs (BLKREEL_BPF_ATTACH=raw_tp)\n");
#endif
	struct capture_bpf *s = st->skel;
	st->dec = bpf_decoder_new(cfg->ncpu, st->devs, (unsigned)cfg->ndevices, st->staging);
	if (!st->dec || !(st->flushed = calloc(cfg->ncpu, 1)))
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	if (st->checking)
		bpf_decoder_count_completions(st->dec, st->check.recorded);
	ring_buffer_sample_fn cb = on_record; /* chosen once: nothing else per record */
#ifdef BLKREEL_TEST_HOOKS
	if (st->hooks.user != CAP_USER_SINK || st->hooks.spoil_every)
		cb = on_record_hooked;
#endif
	st->on_batch = cb;
	if (s->rodata->per_cpu_rings) {
		st->rb = ring_buffer__new(st->ring_fds[0], cb, st, NULL);
		for (unsigned c = 1; st->rb && c < st->nrings; c++)
			if (ring_buffer__add(st->rb, st->ring_fds[c], cb, st)) {
				ring_buffer__free(st->rb);
				st->rb = NULL;
			}
	} else {
		st->rb = ring_buffer__new(bpf_map__fd(s->maps.ring), cb, st, NULL);
	}
	if (!st->rb)
		return br_error_set(err, BR_ESYS, errno, NULL, -1, "mapping the BPF ring buffers: %s", libbpf_last);
	return 0;
}

static int bpf_fds(void *vst, struct pollfd *pfd, int max)
{
	bpf_state *st = vst;
	/* Without wakeups the poll timeout is the drain timer. */
	if (!st->wakeup || !st->rb || max < 1)
		return 0;
	pfd[0] = (struct pollfd){ .fd = ring_buffer__epoll_fd(st->rb), .events = POLLIN };
	return 1;
}

/* A region's batch: as a ring record. */
static int on_region_batch(void *arg, void *batch, size_t size)
{
	bpf_state *st = arg;
	st->on_batch(st, batch, size);
	return st->rc;
}

static int bpf_read(void *vst, cap_sink *sink, br_error *err)
{
	bpf_state *st = vst;
	if (!st->rb)
		return 0;
	st->sink = sink;
	st->err = err;
	st->rc = 0;
	st->raw = cap_sink_is_raw(sink);
#ifdef BLKREEL_TEST_HOOKS
	st->raw = st->raw && hooks_allow_raw(st);
#endif
	st->watching = st->raw && cap_sink_raw_watching(sink, &st->watch_actions);
	if (st->raw && cap_sink_name_epoch(sink) != st->named_epoch) {
		/* a new file of a flight ring: it names its pids again */
		memset(st->named_pids, 0, sizeof st->named_pids);
		st->named_epoch = cap_sink_name_epoch(sink);
	}
	uint64_t flushed_before = tool_now_ns(); /* CLOCK_MONOTONIC: bpf_ktime_get_ns's clock */
	if (st->staging)
		bpf_regions_snapshot(&st->regions, st->flushed);
	int n = ring_buffer__consume(st->rb);
	if (st->rc < 0)
		return st->rc;
	if (n < 0)
		return br_error_set(err, BR_ESYS, -n, NULL, -1, "reading the BPF ring buffers");
	if (st->staging) {
		int batches = bpf_regions_read(&st->regions, on_region_batch, st, &st->bad);
		if (batches < 0)
			return batches;
		n += batches;
	}
	int rc;
	if (st->raw) {
		/* the round's end, for the conversion's decoder: a round frame */
		uint8_t frame[sizeof(raw_round) + 1024];
		raw_round r = { .flushed_before = flushed_before, .stopped = st->stopped, .ncpu = st->cfg->ncpu };
		memcpy(frame, &r, sizeof r);
		memcpy(frame + sizeof r, st->flushed, st->cfg->ncpu);
		rc = cap_sink_raw_frame(sink, RAW_ROUND, frame, sizeof r + st->cfg->ncpu, 0, err);
	} else {
		rc = bpf_decode_round(st->dec, flushed_before, st->flushed, st->stopped, to_sink, st, err);
	}
	return rc < 0 ? rc : n;
}

/* The runs the kernel skipped for one attached program (its recursion guard,
 * see backend.h's missed), as the kernel counts them; 0 where unknown. */
static uint64_t program_misses(const bpf_state *st, size_t t)
{
	struct bpf_program *p = tp_program(st, t);
	struct bpf_prog_info info;
	__u32 len = sizeof info;
	memset(&info, 0, sizeof info);
	if (!p || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return 0;
	return info.recursion_misses;
}

static int bpf_stop(void *vst, br_error *err)
{
	(void)err;
	bpf_state *st = vst;
	/* Counted before the detach: a completion after it has no record, one
	 * between the count and the detach only adds a record. */
	if (st->checking)
		cap_dev_check_end(&st->check, st->cfg);
	/* Detaching stops the programs; records already written stay in the rings. */
	for (size_t t = 0; t < NTP; t++) {
		if (!st->links[t])
			continue;
		bpf_link__destroy(st->links[t]);
		st->links[t] = NULL;
		st->missed += program_misses(st, t); /* final once detached */
	}
	st->stopped = true;
	return 0;
}

static const cap_dev_check *bpf_completions(void *vst)
{
	const bpf_state *st = vst;
	return st->checking ? &st->check : NULL;
}

static uint64_t bpf_missed(void *vst)
{
	return ((bpf_state *)vst)->missed;
}

static void bpf_drops(void *vst, uint64_t *drops, unsigned ncpu)
{
	bpf_state *st = vst;
	if (!st->skel)
		return;
	int n = libbpf_num_possible_cpus();
	if (n <= 0)
		return;
	uint64_t *v = calloc((size_t)n, sizeof *v);
	__u32 zero = 0;
	if (v && bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.drops), &zero, v) == 0)
		for (int c = 0; c < n && (unsigned)c < ncpu; c++)
			drops[c] += v[c];
	free(v);
}

static uint64_t bpf_bad_records(void *vst)
{
	return ((bpf_state *)vst)->bad;
}

static bool bpf_comm(void *vst, uint32_t pid, char *name, size_t size)
{
	bpf_state *st = vst;
	char comm[16];
	if (!st->skel || size == 0 || bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.comms), &pid, comm))
		return false;
	snprintf(name, size, "%.*s", (int)sizeof comm, comm);
	return name[0] != 0;
}

/* The raw spool's header: what the conversion needs to decode the records
 * without us. 0 (events as usual) in the hooks' measurement modes and their
 * live path to a file (kept for comparison). */
static size_t bpf_raw_header(void *vst, void *buf, size_t size)
{
	bpf_state *st = vst;
	const cap_config *cfg = st->cfg;
	size_t need = raw_pad8((uint32_t)(sizeof(raw_header) + 4 * cfg->ndevices));
#ifdef BLKREEL_TEST_HOOKS
	if (!hooks_allow_raw(st))
		return 0;
#endif
	if (size < need || cfg->ncpu > 1024)
		return 0;
	raw_header h = { .header_bytes = (uint32_t)need, .version = RAW_VERSION, .ncpu = cfg->ncpu,
			 .ndevices = (uint32_t)cfg->ndevices, .flags = st->staging ? RAW_STAGING : 0 };
	memcpy(h.magic, RAW_MAGIC, RAW_MAGIC_LEN);
	memset(buf, 0, need);
	memcpy(buf, &h, sizeof h);
	memcpy((uint8_t *)buf + sizeof h, st->devs, 4 * cfg->ndevices);
	return need;
}

static int bpf_close(void *vst, cap_kstate *ks, br_error *err)
{
	(void)ks;
	(void)err;
	unload(vst);
	return 0;
}

const cap_backend_ops cap_backend_bpf = {
	.name = "bpf",
	.summary = "BPF programs on the block tracepoints (tp_btf, raw_tp), per-CPU mapped regions, kernel-side filters",
	.flags = CAP_KERNEL_FILTER,
	.state_size = sizeof(bpf_state),
	.probe = bpf_probe,
	.start = bpf_start,
	.fds = bpf_fds,
	.read = bpf_read,
	.stop = bpf_stop,
	.drops = bpf_drops,
	.bad_records = bpf_bad_records,
	.missed = bpf_missed,
	.completions = bpf_completions,
	.comm = bpf_comm,
	.close = bpf_close,
	.raw_header = bpf_raw_header,
};
