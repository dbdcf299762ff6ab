#include "backends/bpf_decode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/bpf/capture_record.h"

_Static_assert(sizeof(struct bcr_event) == 32, "record layout");
_Static_assert(sizeof(struct bcr_event_ext) == 48, "record layout");

#define HELD_MAX 256
struct held {
	struct bcr_event_ext r[HELD_MAX];
	unsigned n;
};

struct bpf_decoder {
	unsigned ncpu, ndevs;
	bool staging;
	uint64_t *completions; /* bpf_decoder_count_completions */
	uint32_t devs[BCR_MAX_DEVS];
	uint32_t actions[BCR_NKINDS];
	struct held *held; /* per CPU */
};

/* record kind -> BLK_TA_* with its category bits */
static uint32_t kind_action(unsigned kind)
{
	static const uint32_t act[BCR_NKINDS] = {
		[BCR_QUEUE] = BLK_TA_QUEUE,         [BCR_BACKMERGE] = BLK_TA_BACKMERGE,
		[BCR_FRONTMERGE] = BLK_TA_FRONTMERGE, [BCR_GETRQ] = BLK_TA_GETRQ,
		[BCR_BIO_COMPLETE] = BLK_TA_COMPLETE, [BCR_SPLIT] = BLK_TA_SPLIT,
		[BCR_BIO_REMAP] = BLK_TA_REMAP,     [BCR_INSERT] = BLK_TA_INSERT,
		[BCR_ISSUE] = BLK_TA_ISSUE,         [BCR_RQ_MERGE] = BLK_TA_BACKMERGE,
		[BCR_REQUEUE] = BLK_TA_REQUEUE,     [BCR_COMPLETE] = BLK_TA_COMPLETE,
		[BCR_RQ_REMAP] = BLK_TA_REMAP,      [BCR_PLUG] = BLK_TA_PLUG,
		[BCR_UNPLUG_IO] = BLK_TA_UNPLUG_IO, [BCR_UNPLUG_TIMER] = BLK_TA_UNPLUG_TIMER,
	};
	return kind < BCR_NKINDS ? act[kind] : 0;
}

size_t bpf_record_size(unsigned kind)
{
	return bcr_has_payload(kind) ? sizeof(struct bcr_event_ext) : sizeof(struct bcr_event);
}

bpf_decoder *bpf_decoder_new(unsigned ncpu, const uint32_t *devs, unsigned ndevs, bool staging)
{
	if (ncpu == 0 || ndevs > BCR_MAX_DEVS)
		return NULL;
	bpf_decoder *d = calloc(1, sizeof *d);
	if (!d || !(d->held = calloc(ncpu, sizeof *d->held))) {
		free(d);
		return NULL;
	}
	d->ncpu = ncpu;
	d->ndevs = ndevs;
	d->staging = staging;
	memcpy(d->devs, devs, ndevs * sizeof *devs);
	for (unsigned k = 0; k < BCR_NKINDS; k++)
		d->actions[k] = kind_action(k);
	return d;
}

void bpf_decoder_count_completions(bpf_decoder *d, uint64_t *per_dev)
{
	d->completions = per_dev;
}

void bpf_decoder_free(bpf_decoder *d)
{
	if (!d)
		return;
	free(d->held);
	free(d);
}

static void note_bad(bpf_bad *bad, size_t at)
{
	if (bad && bad->n++ == 0)
		bad->first_at = at;
}

/* One record into an event, and on to fn. false: a kind or device we do not know. */
static bool expand(const bpf_decoder *d, const void *data, size_t size, br_event *ev, uint8_t *pdu)
{
	const struct bcr_event *r = data;
	if (r->kind >= BCR_NKINDS || r->dev >= d->ndevs)
		return false;
	memset(ev, 0, sizeof *ev);
	ev->time = r->time;
	ev->sector = r->sector;
	ev->bytes = r->bytes;
	ev->action = d->actions[r->kind] | (uint32_t)r->cats << BLK_TC_SHIFT;
	ev->pid = r->pid;
	ev->device = d->devs[r->dev];
	ev->cpu = r->cpu;
	/* blk_status_to_errno for the codes of kernels 5.x/6.x: the ones a
	 * block device returns in practice; any other reads as -EIO */
	static const int16_t status_errno[] = {
		0,       -EOPNOTSUPP, -ETIMEDOUT, -ENOSPC, -ENOLINK,      -EREMOTEIO, -EBADE,
		-ENODATA, -EILSEQ,    -ENOMEM,    -EIO,    -EREMCHG,      -EAGAIN,    -EBUSY,
		-ETOOMANYREFS, -EOVERFLOW, -ENODEV, -ETIME, -EINVAL,
	};
	if (r->status)
		ev->error = (uint16_t)(r->status < sizeof status_errno / sizeof status_errno[0]
					       ? status_errno[r->status]
					       : -5);
	if (size >= sizeof(struct bcr_event_ext)) {
		const struct bcr_event_ext *x = data;
		if (r->kind == BCR_SPLIT || r->kind == BCR_UNPLUG_IO || r->kind == BCR_UNPLUG_TIMER) {
			/* blktrace's payload: the new sector / the depth, big-endian */
			uint64_t v = __builtin_bswap64(x->value);
			memcpy(pdu, &v, 8);
			ev->pdu = pdu;
			ev->pdu_len = 8;
		} else if (r->kind == BCR_BIO_REMAP || r->kind == BCR_RQ_REMAP) {
			/* struct blk_io_trace_remap, big-endian */
			uint32_t from = __builtin_bswap32(x->old_dev), to = __builtin_bswap32(ev->device);
			uint64_t sf = __builtin_bswap64(x->value);
			memcpy(pdu, &from, 4);
			memcpy(pdu + 4, &to, 4);
			memcpy(pdu + 8, &sf, 8);
			ev->pdu = pdu;
			ev->pdu_len = 16;
		}
	}
	return true;
}

bool bpf_record_event(const bpf_decoder *d, const void *rec, size_t size, uint32_t actions, br_event *ev,
		      uint8_t pdu[16])
{
	const struct bcr_event *r = rec;
	if (actions && (r->kind >= BCR_NKINDS || !(actions & 1u << (d->actions[r->kind] & 31))))
		return false;
	return expand(d, rec, size, ev, pdu);
}

static int emit_record(const bpf_decoder *d, const void *data, size_t size, bpf_emit_fn fn, void *arg, bpf_bad *bad,
		size_t at, br_error *err)
{
	br_event ev;
	uint8_t pdu[16];
	if (!expand(d, data, size, &ev, pdu)) {
		note_bad(bad, at);
		return 0;
	}
	return fn ? fn(arg, &ev, err) : 0;
}

/* Push cpu's held records older than time (all: every one). */
static int release_held(bpf_decoder *d, unsigned cpu, uint64_t time, bool all, bpf_emit_fn fn, void *arg,
			br_error *err)
{
	struct held *h = &d->held[cpu];
	unsigned k = 0;
	int rc = 0;
	while (k < h->n && (all || h->r[k].e.time < time)) {
		rc = emit_record(d, &h->r[k], bpf_record_size(h->r[k].e.kind), fn, arg, NULL, 0, err);
		if (rc < 0)
			break;
		k++;
	}
	if (k) {
		memmove(h->r, h->r + k, (h->n - k) * sizeof h->r[0]);
		h->n -= k;
	}
	return rc < 0 ? rc : 0;
}

static int hold(bpf_decoder *d, const struct bcr_event *r, size_t size, bpf_emit_fn fn, void *arg, br_error *err)
{
	struct held *h = &d->held[r->cpu];
	if (h->n == HELD_MAX) { /* make room: the oldest goes now */
		int rc = release_held(d, r->cpu, h->r[0].e.time + 1, false, fn, arg, err);
		if (rc < 0)
			return rc;
	}
	unsigned at = h->n;
	while (at > 0 && h->r[at - 1].e.time > r->time)
		at--;
	memmove(h->r + at + 1, h->r + at, (h->n - at) * sizeof h->r[0]);
	memset(&h->r[at], 0, sizeof h->r[at]);
	memcpy(&h->r[at], r, size);
	h->n++;
	return 0;
}

int bpf_batch_walk(unsigned ncpu, unsigned ndevs, const void *data, size_t size, unsigned *how, bpf_record_fn fn,
		   void *arg, bpf_bad *bad, br_error *err)
{
	struct bcr_batch b;
	if (size < sizeof b || size > BPF_BATCH_MAX) {
		note_bad(bad, 0);
		return 0;
	}
	memcpy(&b, data, sizeof b);
	if (b.len > size - sizeof b || (b.how != BCR_BATCH_STAGED && b.how != BCR_BATCH_DIRECT)) {
		note_bad(bad, 0);
		return 0;
	}
	if (how)
		*how = b.how;
	const uint8_t *start = data, *p = start + sizeof b, *end = p + b.len;
	for (unsigned i = 0; i < b.nrec; i++) {
		/* records are 8-byte aligned in the ring and in the spool's frames */
		const struct bcr_event *r = (const void *)p;
		if ((size_t)(end - p) < sizeof *r || (size_t)(end - p) < bpf_record_size(r->kind) || r->cpu >= ncpu) {
			note_bad(bad, (size_t)(p - start)); /* the framing cannot be trusted past here */
			return 0;
		}
		size_t rsize = bpf_record_size(r->kind);
		if (r->kind >= BCR_NKINDS || r->dev >= ndevs) {
			note_bad(bad, (size_t)(p - start)); /* skipped whole: not even its time is used */
		} else {
			int rc = fn(arg, r, rsize, err);
			if (rc < 0)
				return rc;
		}
		p += rsize;
	}
	return 0;
}

typedef struct decode_walk {
	bpf_decoder *d;
	bool direct;
	bpf_emit_fn fn;
	void *arg;
} decode_walk;

static int decode_record(void *arg, const void *rec, size_t size, br_error *err)
{
	decode_walk *w = arg;
	const struct bcr_event *r = rec;
	bpf_decoder *d = w->d;
	if (d->completions && (d->actions[r->kind] & 0xffff) == __BLK_TA_COMPLETE)
		d->completions[r->dev]++;
	if (w->direct && d->staging)
		return hold(d, r, size, w->fn, w->arg, err);
	if (d->held[r->cpu].n) {
		int rc = release_held(d, r->cpu, r->time, false, w->fn, w->arg, err);
		if (rc < 0)
			return rc;
	}
	return emit_record(d, rec, size, w->fn, w->arg, NULL, 0, err);
}

int bpf_decode_batch(bpf_decoder *d, const void *data, size_t size, bpf_emit_fn fn, void *arg, bpf_bad *bad,
		     br_error *err)
{
	unsigned how = BCR_BATCH_STAGED;
	if (size >= sizeof(struct bcr_batch))
		how = ((const struct bcr_batch *)data)->how;
	decode_walk w = { .d = d, .direct = how == BCR_BATCH_DIRECT, .fn = fn, .arg = arg };
	return bpf_batch_walk(d->ncpu, d->ndevs, data, size, NULL, decode_record, &w, bad, err);
}

typedef struct keep_walk {
	const uint8_t *in;
	uint8_t *out;
	size_t len;
	unsigned nrec;
	bool copied; /* a record was left out: what is kept now lives in out */
	bpf_record_fn fn;
	void *arg;
} keep_walk;

static int keep_record(void *arg, const void *rec, size_t size, br_error *err)
{
	keep_walk *k = arg;
	if (k->fn) {
		int rc = k->fn(k->arg, rec, size, err);
		if (rc < 0)
			return rc;
	}
	const uint8_t *at = k->in + sizeof(struct bcr_batch) + k->len;
	if (!k->copied && (const uint8_t *)rec != at) {
		/* the first record after one left out: the prefix kept so far moves to out */
		memcpy(k->out + sizeof(struct bcr_batch), k->in + sizeof(struct bcr_batch), k->len);
		k->copied = true;
	}
	if (k->copied)
		memcpy(k->out + sizeof(struct bcr_batch) + k->len, rec, size);
	k->len += size;
	k->nrec++;
	return 0;
}

int bpf_batch_keep(unsigned ncpu, unsigned ndevs, const void *data, size_t size, void *scratch,
		   const void **batch, size_t *kept, unsigned *nrec, bpf_record_fn fn, void *arg, bpf_bad *bad,
		   br_error *err)
{
	keep_walk k = { .in = data, .out = scratch, .fn = fn, .arg = arg };
	unsigned how = BCR_BATCH_STAGED;
	*batch = data;
	*kept = 0;
	*nrec = 0;
	int rc = bpf_batch_walk(ncpu, ndevs, data, size, &how, keep_record, &k, bad, err);
	if (rc < 0 || k.nrec == 0)
		return rc;
	*kept = sizeof(struct bcr_batch) + k.len;
	*nrec = k.nrec;
	struct bcr_batch b = { .len = (uint32_t)k.len, .nrec = (uint16_t)k.nrec, .how = (uint8_t)how };
	if (!k.copied && *kept == size && memcmp(data, &b, sizeof b) == 0)
		return 0; /* every record kept, as the ring gave them (the usual case): no copy */
	if (!k.copied)
		memcpy((uint8_t *)scratch + sizeof b, (const uint8_t *)data + sizeof b, k.len);
	memcpy(scratch, &b, sizeof b);
	*batch = scratch;
	return 0;
}

int bpf_decode_round(bpf_decoder *d, uint64_t flushed_before, const uint8_t *flushed, bool stopped, bpf_emit_fn fn,
		     void *arg, br_error *err)
{
	for (unsigned c = 0; c < d->ncpu; c++)
		if (d->held[c].n && (flushed[c] || stopped)) {
			int rc = release_held(d, c, flushed_before, stopped, fn, arg, err);
			if (rc < 0)
				return rc;
		}
	return 0;
}

int bpf_decode_finish(bpf_decoder *d, bpf_emit_fn fn, void *arg, br_error *err)
{
	for (unsigned c = 0; c < d->ncpu; c++) {
		int rc = release_held(d, c, 0, true, fn, arg, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}
