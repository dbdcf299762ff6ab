/* test_ftrace_page.c — decoding blk tracer records from ftrace ring buffer
 * pages: time deltas and extends, long events, padding, other entries. */
#include <criterion/criterion.h>
#include <string.h>

#include "blkreel/event.h"
/* capture/'s modules come from its internal archive, through its headers */
#include "../../capture/backends/ftrace_page.h"

typedef struct pagebuf {
	uint8_t b[4096];
	size_t n; /* bytes of data after the 16-byte header */
} pagebuf;

static void put32(pagebuf *p, uint32_t v)
{
	memcpy(p->b + 16 + p->n, &v, 4);
	p->n += 4;
}

static void put(pagebuf *p, const void *d, size_t len)
{
	memcpy(p->b + 16 + p->n, d, len);
	p->n += len;
}

/* A blk record as the tracer stores it: trace_entry over magic/sequence. */
static void blk_rec(uint8_t *r, uint64_t sector, uint32_t bytes, uint32_t action, uint32_t dev, uint16_t pdu_len)
{
	memset(r, 0, 48 + pdu_len);
	uint16_t type = 7;   /* some trace_entry type */
	memcpy(r, &type, 2);
	memcpy(r + 16, &sector, 8);
	memcpy(r + 24, &bytes, 4);
	memcpy(r + 28, &action, 4);
	uint32_t pid = 4242;
	memcpy(r + 32, &pid, 4);
	memcpy(r + 36, &dev, 4);
	memcpy(r + 46, &pdu_len, 2);
	for (int i = 0; i < pdu_len; i++)
		r[48 + i] = (uint8_t)(0xa0 + i);
}

static br_event got[8];
static int ngot;

static int collect(void *arg, const br_event *ev, br_error *err)
{
	(void)arg;
	(void)err;
	got[ngot] = *ev;
	ngot++;
	return 0;
}

Test(ftrace_page, deltas_extends_long_events_padding_and_foreign_entries)
{
	pagebuf p = { .n = 0 };
	const uint32_t dev = BR_MKDEV(7, 3);
	uint8_t r[64];
	/* 1: small event (type_len 12 = 48 bytes), delta 100 */
	blk_rec(r, 2048, 4096, BLK_TA_QUEUE | (BLK_TC_READ << BLK_TC_SHIFT), dev, 0);
	put32(&p, (100u << 5) | 12);
	put(&p, r, 48);
	/* time extend of 1 << 27 + 5 */
	put32(&p, (5u << 5) | 30);
	put32(&p, 1);
	/* 2: an event with an 8-byte pdu, long form (type_len 0, length word) */
	blk_rec(r, 4096, 0, BLK_TA_UNPLUG_IO, dev, 8);
	put32(&p, (7u << 5) | 0);
	put32(&p, 4 + 56);
	put(&p, r, 56);
	/* a discarded event: padding with a delta, skipped, its delta not counted */
	put32(&p, (999u << 5) | 29);
	put32(&p, 12); /* bytes after the header word, this one included */
	put32(&p, 0);
	put32(&p, 0);
	/* another device's record: foreign */
	blk_rec(r, 1, 512, BLK_TA_ISSUE, BR_MKDEV(8, 0), 0);
	put32(&p, (1u << 5) | 12);
	put(&p, r, 48);
	/* 3: a record whose length does not fit the layout: foreign */
	put32(&p, (1u << 5) | 2);
	put32(&p, 0xdeadbeef);
	put32(&p, 0);
	uint64_t ts0 = 1000000, commit = p.n;
	memcpy(p.b, &ts0, 8);
	memcpy(p.b + 8, &commit, 8);

	ngot = 0;
	ftrace_page_stats st = { 0 };
	br_error err;
	cr_assert_eq(ftrace_page_decode(p.b, 16 + p.n, &dev, 1, collect, NULL, &st, &err), 0, "%s", err.msg);
	cr_assert_eq(ngot, 2);
	cr_expect_eq(got[0].time, ts0 + 100);
	cr_expect_eq(got[0].sector, 2048);
	cr_expect_eq(got[0].bytes, 4096);
	cr_expect_eq(got[0].pid, 4242);
	cr_expect_eq(got[0].device, dev);
	cr_expect(br_event_is_read(&got[0]));
	cr_expect_eq(got[1].time, ts0 + 100 + 5 + (1ull << 27) + 7);
	cr_expect_eq(got[1].pdu_len, 8);
	cr_expect_eq(got[1].pdu[0], 0xa0);
	cr_expect_eq(got[1].pdu[7], 0xa7);
	cr_expect_eq(st.records, 2);
	cr_expect_eq(st.foreign, 2);
	cr_expect_eq(st.missed, 0);
}

Test(ftrace_page, missed_flag_and_damaged_pages)
{
	pagebuf p = { .n = 0 };
	uint64_t ts0 = 5, commit = (1ull << 31) | 0;
	memcpy(p.b, &ts0, 8);
	memcpy(p.b + 8, &commit, 8);
	ftrace_page_stats st = { 0 };
	br_error err;
	uint32_t dev = 1;
	cr_expect_eq(ftrace_page_decode(p.b, 16, &dev, 1, collect, NULL, &st, &err), 0);
	cr_expect_eq(st.missed, 1);
	commit = 5000; /* more than the page holds */
	memcpy(p.b + 8, &commit, 8);
	cr_expect_eq(ftrace_page_decode(p.b, 4096, &dev, 1, collect, NULL, &st, &err), BR_EFORMAT);
	/* an event running past the committed data */
	p.n = 0;
	put32(&p, (1u << 5) | 20);
	commit = 8;
	memcpy(p.b + 8, &commit, 8);
	cr_expect_eq(ftrace_page_decode(p.b, 4096, &dev, 1, collect, NULL, &st, &err), BR_EFORMAT);
}
