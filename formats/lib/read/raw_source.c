/* A blk_io_trace stream read from a file or pipe.
 *
 * Records are decoded out of a large chunk buffer straight into a ring of
 * events, which next_batch hands out in place (no copy). A small reorder
 * window puts records that arrive slightly out of order back in the order
 * blkparse's pipe mode sorts by (time, device, sequence; arrival breaks
 * ties): a record is handed out once WINDOW - 1 records after it were read,
 * and a late one is insertion-sorted back, but never before a position
 * that one-at-a-time reading would have handed out already. So an ordered
 * stream — the common case — pays one comparison per record, and the
 * order is the same whether records are taken one by one or in runs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/record_v8.h" /* version-8 (blk_io_trace2) records */
#include "common/source.h"

#define CHUNK (1u << 20)
#define WINDOW 1024
/* Longest run next_batch hands out. The ring holds the window, the run
 * being read and the run handed out last (valid until the next call). */
#define RUN_MAX 1024
#define RING 4096 /* a power of two >= WINDOW + 2 * RUN_MAX */

typedef struct raw_source {
	br_source base;
	br_input in;
	uint8_t *buf;
	size_t pos, len;      /* unread bytes are buf[pos..len) */
	int64_t buf_offset;   /* file offset of buf[0] */
	bool eof;
	bool ended;           /* a clean end of records was read */
	int swap;             /* -1 until the first record is seen */
	uint64_t raw_bytes;
	/* events by stream position p at ev[p % RING], each owning the pdu
	 * buffer at the same index (swapped with it when sorted); [out, nread)
	 * are read and not handed out, sorted */
	br_event *ev;
	uint8_t **pdu;
	uint16_t *pdu_cap;
	uint64_t out, nread;
	/* a record that failed to read: the error comes once the records that
	 * one-at-a-time reading would still have handed out before it are out */
	int fail_rc;
	uint64_t fail_at;
	br_error fail_err;
} raw_source;

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

/* Decode one record into ring index k: 1, 0 at a clean end, or an error. */
static int read_record(raw_source *s, size_t k, br_error *err)
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
	br_event *dst = &s->ev[k];
	br_record_decode_any(raw, version, s->swap, dst);
	size_t pdu_len = dst->pdu_len;
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
	if (pdu_len) {
		if (pdu_len > s->pdu_cap[k]) {
			uint8_t *p = realloc(s->pdu[k], pdu_len);
			if (!p)
				return br_error_set(err, BR_ENOMEM, ENOMEM, s->in.name, off,
						    "out of memory");
			s->pdu[k] = p;
			s->pdu_cap[k] = (uint16_t)pdu_len;
		}
		memcpy(s->pdu[k], raw + hdr, pdu_len);
		dst->pdu = s->pdu[k];
	}
	s->pos += hdr + pdu_len;
	s->raw_bytes += hdr + pdu_len;
	return 1;
}

static bool before(const br_event *a, const br_event *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->device != b->device)
		return a->device < b->device;
	return a->sequence < b->sequence; /* equal: the earlier arrival stays first */
}

/* The record just read at position p moves back past every record that
 * sorts after it, down to position low at most. Events are swapped with
 * the pdu buffers they own. */
static void sort_back(raw_source *s, uint64_t p, uint64_t low)
{
	for (; p > low; p--) {
		size_t cur = p % RING, prev = (p - 1) % RING;
		if (!before(&s->ev[cur], &s->ev[prev]))
			break;
		br_event e = s->ev[cur];
		s->ev[cur] = s->ev[prev];
		s->ev[prev] = e;
		uint8_t *b = s->pdu[cur];
		s->pdu[cur] = s->pdu[prev];
		s->pdu[prev] = b;
		uint16_t c = s->pdu_cap[cur];
		s->pdu_cap[cur] = s->pdu_cap[prev];
		s->pdu_cap[prev] = c;
	}
}

/* Read until the next want records are settled (or the stream ends or
 * fails); returns how many are ready to hand out from s->out. */
static uint64_t settle(raw_source *s, uint64_t want)
{
	/* one at a time, record j is read once j - WINDOW + 1 records are out:
	 * positions before that are final by then */
	uint64_t target = s->out + want + WINDOW - 1;
	while (!s->ended && !s->fail_rc && s->nread < target) {
		uint64_t j = s->nread;
		int rc = read_record(s, j % RING, &s->fail_err);
		if (rc < 0) {
			s->fail_rc = rc;
			s->fail_at = j >= WINDOW ? j - WINDOW + 1 : 0;
			break;
		}
		if (rc == 0) {
			s->ended = true;
			break;
		}
		s->nread++;
		uint64_t low = j >= WINDOW ? j - WINDOW + 1 : 0;
		if (j > low)
			sort_back(s, j, low > s->out ? low : s->out);
	}
	uint64_t ready = s->ended ? s->nread : s->fail_rc ? s->fail_at
			 : s->nread >= WINDOW - 1 ? s->nread - (WINDOW - 1) : 0;
	return ready > s->out ? ready - s->out : 0;
}

static int raw_next_batch(br_source *src, const br_event **evs, size_t max, br_error *err)
{
	raw_source *s = (raw_source *)src;
	if (max > RUN_MAX)
		max = RUN_MAX;
	uint64_t n = settle(s, max);
	if (n == 0) {
		if (!s->fail_rc)
			return 0;
		if (err)
			*err = s->fail_err;
		return s->fail_rc;
	}
	size_t k = s->out % RING;
	if (n > max)
		n = max;
	if (n > RING - k) /* a run never wraps: the rest comes next call */
		n = RING - k;
	*evs = &s->ev[k];
	s->out += n;
	return (int)n;
}

static int raw_next(br_source *src, br_event *ev, br_error *err)
{
	const br_event *e;
	int n = raw_next_batch(src, &e, 1, err);
	if (n == 1)
		*ev = *e;
	return n;
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
	for (size_t i = 0; s->pdu && i < RING; i++)
		free(s->pdu[i]);
	free(s->pdu);
	free(s->pdu_cap);
	free(s->ev);
	free(s->buf);
	br_input_close(&s->in);
	free(s);
}

static const br_source_ops raw_ops = {
	.name = "blk_io_trace stream",
	.next = raw_next,
	.next_batch = raw_next_batch,
	.info = raw_info,
	.close = raw_close,
};

int br_raw_source_open(br_source **out, br_input *in, br_error *err)
{
	raw_source *s = calloc(1, sizeof *s);
	if (!s)
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	s->buf = malloc(CHUNK);
	s->ev = malloc(RING * sizeof *s->ev);
	s->pdu = calloc(RING, sizeof *s->pdu);
	s->pdu_cap = calloc(RING, sizeof *s->pdu_cap);
	if (!s->buf || !s->ev || !s->pdu || !s->pdu_cap) {
		raw_close(&s->base); /* with the input not yet taken */
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	}
	s->base.ops = &raw_ops;
	s->in = *in;
	s->swap = -1;
	*out = &s->base;
	return 0;
}
