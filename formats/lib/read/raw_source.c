/* A blk_io_trace stream read from a file or pipe.
 *
 * Records are decoded out of a large chunk buffer. A small reorder window
 * puts records that arrive slightly out of order back in the order
 * blkparse's pipe mode sorts by (time, device, sequence; arrival breaks
 * ties). The window is a ring kept sorted: an in-order record is appended
 * at the tail in O(1), a late one is insertion-sorted from the tail, so an
 * ordered stream — the common case — pays no more than a copy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/record_v8.h" /* version-8 (blk_io_trace2) records */
#include "common/source.h"

#define CHUNK (1u << 20)
#define WINDOW 1024

typedef struct slot {
	br_event ev;
	uint8_t *pdu;
	size_t pdu_cap;
	uint64_t arrival;
} slot;

typedef struct raw_source {
	br_source base;
	br_input in;
	uint8_t *buf;
	size_t pos, len;      /* unread bytes are buf[pos..len) */
	int64_t buf_offset;   /* file offset of buf[0] */
	bool eof;
	int swap;             /* -1 until the first record is seen */
	uint64_t arrivals;
	uint64_t raw_bytes;
	slot ring[WINDOW];    /* ring[head .. head+count) sorted, indices mod WINDOW */
	size_t head, count;
} raw_source;

static bool slot_before(const slot *a, const slot *b)
{
	if (a->ev.time != b->ev.time)
		return a->ev.time < b->ev.time;
	if (a->ev.device != b->ev.device)
		return a->ev.device < b->ev.device;
	if (a->ev.sequence != b->ev.sequence)
		return a->ev.sequence < b->ev.sequence;
	return a->arrival < b->arrival;
}

/* Make at least `need` unread bytes available unless the input ends. */
static int fill(raw_source *s, size_t need, br_error *err)
{
	if (s->len - s->pos >= need || s->eof)
		return 0;
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->buf_offset += (int64_t)s->pos;
		s->len -= s->pos;
		s->pos = 0;
	}
	while (s->len < need && !s->eof) {
		ssize_t r = br_input_read(&s->in, s->buf + s->len, CHUNK - s->len, err);
		if (r < 0)
			return (int)r;
		if (r == 0)
			s->eof = true;
		s->len += (size_t)r;
	}
	return 0;
}

/* Decode one record into a slot: 1, 0 at a clean end, or an error. */
static int read_record(raw_source *s, slot *dst, br_error *err)
{
	int rc = fill(s, BR_RECORD_SIZE, err);
	if (rc)
		return rc;
	size_t avail = s->len - s->pos;
	int64_t off = s->buf_offset + (int64_t)s->pos;
	if (avail == 0)
		return 0;
	if (avail < BR_RECORD_SIZE)
		return br_error_set(err, BR_ETRUNC, 0, s->in.name, off,
				    "record cut short (%zu of %d bytes)", avail, BR_RECORD_SIZE);
	const uint8_t *raw = s->buf + s->pos;
	unsigned version = 0, hdr = 0;
	int kind = br_record_probe_any(raw, &version, &hdr); /* versions 7 and 8 */
	if (kind == -2)
		return br_error_set(err, BR_EUNSUP, 0, s->in.name, off,
				    "blk_io_trace version %u is not supported", version);
	if (kind < 0) {
		uint32_t m;
		memcpy(&m, raw, 4);
		return br_error_set(err, BR_EFORMAT, 0, s->in.name, off,
				    "bad magic 0x%08x: not a blk_io_trace record", m);
	}
	if (s->swap < 0)
		s->swap = kind;
	else if (s->swap != kind)
		return br_error_set(err, BR_EFORMAT, 0, s->in.name, off,
				    "record byte order changes in the middle of the stream");
	if (avail < hdr) { /* a version-8 header is 64 bytes */
		rc = fill(s, hdr, err);
		if (rc)
			return rc;
		avail = s->len - s->pos;
		if (avail < hdr)
			return br_error_set(err, BR_ETRUNC, 0, s->in.name, off,
					    "record cut short (%zu of %u bytes)", avail, hdr);
		raw = s->buf + s->pos;
	}
	br_record_decode_any(raw, version, s->swap, &dst->ev);
	size_t pdu_len = dst->ev.pdu_len;
	if (pdu_len > BR_PDU_MAX)
		return br_error_set(err, BR_EFORMAT, 0, s->in.name, off,
				    "absurd pdu length %zu (limit %d)", pdu_len, BR_PDU_MAX);
	if (avail < hdr + pdu_len) {
		rc = fill(s, hdr + pdu_len, err);
		if (rc)
			return rc;
		avail = s->len - s->pos;
		if (avail < hdr + pdu_len)
			return br_error_set(err, BR_ETRUNC, 0, s->in.name, off,
					    "record cut short (%zu of %zu bytes)", avail,
					    hdr + pdu_len);
		raw = s->buf + s->pos;
	}
	if (pdu_len > dst->pdu_cap) {
		uint8_t *p = realloc(dst->pdu, pdu_len);
		if (!p)
			return br_error_set(err, BR_ENOMEM, ENOMEM, s->in.name, off, "out of memory");
		dst->pdu = p;
		dst->pdu_cap = pdu_len;
	}
	if (pdu_len)
		memcpy(dst->pdu, raw + hdr, pdu_len);
	dst->ev.pdu = pdu_len ? dst->pdu : NULL;
	dst->arrival = s->arrivals++;
	s->pos += hdr + pdu_len;
	s->raw_bytes += hdr + pdu_len;
	return 1;
}

static inline slot *at(raw_source *s, size_t i)
{
	return &s->ring[(s->head + i) % WINDOW];
}

/* The record just read into the tail position moves back past every
 * record that sorts after it. Slots are swapped whole, so each keeps its
 * own pdu buffer. */
static void sort_tail(raw_source *s)
{
	for (size_t i = s->count - 1; i > 0; i--) {
		slot *cur = at(s, i), *prev = at(s, i - 1);
		if (!slot_before(cur, prev))
			break;
		slot tmp = *cur;
		*cur = *prev;
		*prev = tmp;
		cur->ev.pdu = cur->ev.pdu_len ? cur->pdu : NULL;
		prev->ev.pdu = prev->ev.pdu_len ? prev->pdu : NULL;
	}
}

static int raw_next(br_source *src, br_event *ev, br_error *err)
{
	raw_source *s = (raw_source *)src;
	/* The slot handed out last time sits just before head; the caller is
	 * done with it, so filling the ring may reuse it. */
	while (s->count < WINDOW && !(s->eof && s->pos == s->len)) {
		int rc = read_record(s, at(s, s->count), err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		s->count++;
		if (s->count > 1)
			sort_tail(s);
	}
	if (s->count == 0)
		return 0;
	slot *first = at(s, 0);
	s->head = (s->head + 1) % WINDOW;
	s->count--;
	*ev = first->ev;
	return 1;
}

static void raw_info(br_source *src, br_input_info *info)
{
	raw_source *s = (raw_source *)src;
	info->kind = BR_INPUT_STREAM;
	info->byteswapped = s->swap == 1;
	info->raw_bytes += s->raw_bytes;
}

static void raw_close(br_source *src)
{
	raw_source *s = (raw_source *)src;
	if (!s)
		return;
	for (size_t i = 0; i < WINDOW; i++)
		free(s->ring[i].pdu);
	free(s->buf);
	br_input_close(&s->in);
	free(s);
}

static const br_source_ops raw_ops = {
	.name = "blk_io_trace stream",
	.next = raw_next,
	.info = raw_info,
	.close = raw_close,
};

int br_raw_source_open(br_source **out, br_input *in, br_error *err)
{
	raw_source *s = calloc(1, sizeof *s);
	uint8_t *buf = malloc(CHUNK);
	if (!s || !buf) {
		free(s);
		free(buf);
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	}
	s->base.ops = &raw_ops;
	s->in = *in;
	s->buf = buf;
	s->swap = -1;
	*out = &s->base;
	return 0;
}
