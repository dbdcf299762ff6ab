#include "backends/ftrace_page.h"

#include <string.h>

#define PAGE_HDR 16
#define COMMIT_MASK ((1ull << 30) - 1)
#define MISSED_EVENTS (1ull << 31)
#define TYPE_PADDING 29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP 31
#define TS_BITS 59 /* absolute stamps carry the low 59 bits */

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* One blk record (data, len bytes) at time ts, if it is one of ours. */
static bool blk_record(const uint8_t *data, size_t len, uint64_t ts, const uint32_t *devices, size_t ndev,
		       br_event *ev)
{
	if (len < BR_RECORD_SIZE)
		return false;
	uint8_t raw[BR_RECORD_SIZE];
	memcpy(raw, data, BR_RECORD_SIZE);
	uint16_t pdu_len;
	memcpy(&pdu_len, raw + 46, 2);
	/* the record fills the event up to 4-byte alignment */
	size_t need = BR_RECORD_SIZE + (size_t)pdu_len;
	if (need > len || len - need > 7)
		return false;
	/* magic/sequence/time are the trace_entry here: put back a version-7
	 * header so the shared decoder applies */
	uint32_t magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION, zero = 0;
	memcpy(raw, &magic, 4);
	memcpy(raw + 4, &zero, 4);
	memcpy(raw + 8, &ts, 8);
	br_record_decode(raw, false, ev);
	bool ours = false;
	for (size_t i = 0; i < ndev && !ours; i++)
		ours = ev->device == devices[i];
	if (!ours)
		return false;
	ev->pdu = pdu_len ? data + BR_RECORD_SIZE : NULL;
	return true;
}

int ftrace_page_decode(const uint8_t *page, size_t len, const uint32_t *devices, size_t ndevices,
		       ftrace_record_fn fn, void *arg, ftrace_page_stats *stats, br_error *err)
{
	if (len < PAGE_HDR)
		return br_error_set(err, BR_EFORMAT, 0, NULL, -1, "short ring buffer page (%zu bytes)", len);
	uint64_t ts, commit;
	memcpy(&ts, page, 8);
	memcpy(&commit, page + 8, 8);
	if (commit & MISSED_EVENTS)
		stats->missed++;
	size_t size = (size_t)(commit & COMMIT_MASK);
	if (size > len - PAGE_HDR)
		return br_error_set(err, BR_EFORMAT, 0, NULL, -1, "ring buffer page claims %zu bytes of %zu", size,
				    len - PAGE_HDR);
	const uint8_t *p = page + PAGE_HDR, *end = p + size;
	while (p + 4 <= end) {
		uint32_t hdr = u32_at(p);
		unsigned type_len = hdr & 31;
		uint32_t delta = hdr >> 5;
		size_t evlen;
		const uint8_t *data;
		size_t dlen;
		switch (type_len) {
		case TYPE_PADDING:
			if (p + 8 > end || delta == 0)
				return 0; /* the rest of the page is padding */
			/* a discarded event: its time delta does not count (as the
			 * kernel's own reader has it) */
			p += 4 + (size_t)u32_at(p + 4);
			continue;
		case TYPE_TIME_EXTEND:
			if (p + 8 > end)
				return 0;
			ts += (uint64_t)delta | ((uint64_t)u32_at(p + 4) << 27);
			p += 8;
			continue;
		case TYPE_TIME_STAMP: {
			if (p + 8 > end)
				return 0;
			uint64_t abs = (uint64_t)delta | ((uint64_t)u32_at(p + 4) << 27);
			ts = (ts & ~((1ull << TS_BITS) - 1)) | (abs & ((1ull << TS_BITS) - 1));
			p += 8;
			continue;
		}
		case 0:
			if (p + 8 > end)
				return br_error_set(err, BR_EFORMAT, 0, NULL, -1, "torn ring buffer event");
			evlen = 4 + (size_t)u32_at(p + 4);
			data = p + 8;
			dlen = evlen >= 8 ? evlen - 8 : 0;
			break;
		default:
			evlen = 4 + (size_t)type_len * 4;
			data = p + 4;
			dlen = (size_t)type_len * 4;
			break;
		}
		if (evlen < 8 || p + evlen > end)
			return br_error_set(err, BR_EFORMAT, 0, NULL, -1, "ring buffer event of %zu bytes past the page end",
					    evlen);
		ts += delta;
		br_event ev;
		if (blk_record(data, dlen, ts, devices, ndevices, &ev)) {
			stats->records++;
			int rc = fn(arg, &ev, err);
			if (rc)
				return rc;
		} else {
			stats->foreign++;
		}
		p += evlen;
	}
	return 0;
}
