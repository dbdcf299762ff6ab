/* test_rwbs.c — tracepoint RWBS strings back to blk_io_trace categories,
 * checked against blkparse's own rendering of the result (br_event_rwbs). */
#include <criterion/criterion.h>
#include <string.h>

#include "blkreel/event.h"
/* capture/'s modules come from its internal archive, through its headers */
#include "../../capture/backends/rwbs.h"

static const struct {
	const char *tp;        /* what the kernel's tracepoint says */
	uint32_t tc;           /* BLK_TC_* bits blktrace's probes would set */
	uint32_t bytes;
	const char *blkparse;  /* how blkparse renders those bits */
} cases[] = {
	{ "W", BLK_TC_WRITE, 4096, "W" },
	{ "WS", BLK_TC_WRITE | BLK_TC_SYNC, 4096, "WS" },
	{ "R", BLK_TC_READ, 4096, "R" },
	{ "RA", BLK_TC_READ | BLK_TC_AHEAD, 4096, "RA" },
	{ "RM", BLK_TC_READ | BLK_TC_META, 4096, "RM" },
	{ "FWFSM", BLK_TC_FLUSH | BLK_TC_WRITE | BLK_TC_FUA | BLK_TC_SYNC | BLK_TC_META, 4096, "FWFSM" },
	{ "FF", BLK_TC_FLUSH | BLK_TC_READ, 0, "FN" },   /* a flush op: blkparse says FN */
	{ "FN", BLK_TC_FLUSH | BLK_TC_READ, 0, "FN" },
	{ "D", BLK_TC_WRITE | BLK_TC_DISCARD, 4096, "D" },
	{ "DS", BLK_TC_WRITE | BLK_TC_DISCARD | BLK_TC_SYNC, 4096, "DS" },
	{ "N", BLK_TC_READ, 0, "N" },
};

Test(rwbs, table)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t tc = cap_rwbs_categories(cases[i].tp);
		cr_expect_eq(tc, cases[i].tc, "%s: categories 0x%x, want 0x%x", cases[i].tp, tc, cases[i].tc);
		br_event ev = { 0 };
		ev.action = BLK_TA_QUEUE | (tc << BLK_TC_SHIFT);
		ev.bytes = cases[i].bytes;
		char out[BR_RWBS_MAX];
		cr_expect_str_eq(br_event_rwbs(&ev, out), cases[i].blkparse, "%s", cases[i].tp);
	}
}
