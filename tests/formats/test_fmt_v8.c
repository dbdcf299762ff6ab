/* blk_io_trace2 (version 8) records: layout, byte order, and the folding of
 * the 64-bit action into br_event's 32 bits (record_v8.h). */
#include <criterion/criterion.h>
#include <byteswap.h>
#include <string.h>

#include "common/record_v8.h"

static br_event sample(void)
{
	br_event ev = { 0 };
	ev.sequence = 7;
	ev.time = 123456789012ull;
	ev.sector = 0x1122334455ull;
	ev.bytes = 8192;
	ev.pid = 4242;
	ev.device = BR_MKDEV(259, 1);
	ev.cpu = 3;
	ev.error = 5;
	ev.pdu_len = 16;
	return ev;
}

Test(fmt_v8, layout_matches_the_kernel_header)
{
	uint8_t raw[BR_RECORD_V8_SIZE];
	br_event ev = sample();
	uint64_t act = BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_WRITE);
	br_record_v8_encode(&ev, act, raw);
	uint32_t u32;
	uint64_t u64;
	memcpy(&u32, raw, 4);
	cr_expect_eq(u32, 0x65617408u);
	memcpy(&u32, raw + 28, 4);
	cr_expect_eq(u32, 4242, "pid sits before the action in version 8");
	memcpy(&u64, raw + 32, 8);
	cr_expect_eq(u64, act);
	memcpy(&u32, raw + 40, 4);
	cr_expect_eq(u32, ev.device);
	cr_expect_eq(br_record_header_size(7), 48);
	cr_expect_eq(br_record_header_size(8), 64);
	cr_expect_eq(br_record_header_size(6), 0);
}

Test(fmt_v8, decode_both_byte_orders)
{
	uint8_t raw[BR_RECORD_V8_SIZE], sw[BR_RECORD_V8_SIZE];
	br_event ev = sample(), out;
	uint64_t act = BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_READ | BLK_TC_SYNC), a64;
	br_record_v8_encode(&ev, act, raw);
	br_record_v8_decode(raw, false, &out, &a64);
	cr_expect_eq(a64, act);
	cr_expect_eq(out.action, (uint32_t)act);
	cr_expect_eq(out.time, ev.time);
	cr_expect_eq(out.sector, ev.sector);
	cr_expect_eq(out.pid, ev.pid);
	cr_expect_eq(out.cpu, 3);
	cr_expect_eq(out.error, 5);
	cr_expect_eq(out.pdu_len, 16);
	cr_expect(br_event_is_read(&out));
	/* the same record written on a machine of the other endianness */
	static const struct { int off, len; } f[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 4 }, { 28, 4 }, { 32, 8 },
		{ 40, 4 }, { 44, 4 }, { 48, 2 }, { 50, 2 },
	};
	memcpy(sw, raw, sizeof sw);
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		for (int b = 0; b < f[i].len; b++)
			sw[f[i].off + b] = raw[f[i].off + f[i].len - 1 - b];
	br_event out2;
	br_record_v8_decode(sw, true, &out2, &a64);
	cr_expect_eq(a64, act);
	cr_expect_eq(out2.time, ev.time);
	cr_expect_eq(out2.sector, ev.sector);
	cr_expect_eq(out2.device, ev.device);
	cr_expect_eq(out2.pdu_len, 16);
}

Test(fmt_v8, zone_actions_fold_to_what_tools_count)
{
	/* zone append completion: a write */
	uint32_t a = br_action_fold_v8(BLK_TA_COMPLETE | ((uint64_t)BR_TC2_ZONE_APPEND << 16));
	br_event ev = { .action = a, .bytes = 4096 };
	cr_expect_eq(br_event_code(&ev), __BLK_TA_COMPLETE);
	cr_expect(br_event_is_write(&ev));
	/* zone reset: drops data like a discard */
	ev.action = br_action_fold_v8(BLK_TA_ISSUE | ((uint64_t)BR_TC2_ZONE_RESET << 16));
	cr_expect(br_event_is_discard(&ev));
	/* zone open: no data, neither read nor write */
	ev.action = br_action_fold_v8(BLK_TA_ISSUE | ((uint64_t)BR_TC2_ZONE_OPEN << 16));
	cr_expect(!br_event_is_write(&ev) && !br_event_is_read(&ev));
	/* new action codes keep their number */
	ev.action = br_action_fold_v8(BR_TA_ZONE_PLUG | BLK_TC_ACT(BLK_TC_QUEUE));
	cr_expect_eq(br_event_code(&ev), BR_TA_ZONE_PLUG);
	/* write-zeroes: a write */
	ev.action = br_action_fold_v8(BLK_TA_QUEUE | ((uint64_t)BR_TC2_WRITE_ZEROES << 16));
	cr_expect(br_event_is_write(&ev));
}

Test(fmt_v8, probe_and_decode_any_version)
{
	uint8_t v8[BR_RECORD_V8_SIZE], v7[BR_RECORD_SIZE];
	br_event ev = sample(), out;
	ev.action = BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_WRITE);
	br_record_v8_encode(&ev, ev.action, v8);
	br_record_encode(&ev, v7);
	unsigned version, size;
	cr_expect_eq(br_record_probe_any(v8, &version, &size), 0);
	cr_expect_eq(version, 8);
	cr_expect_eq(size, 64);
	br_record_decode_any(v8, version, false, &out);
	cr_expect_eq(out.action, ev.action);
	cr_expect_eq(out.pid, ev.pid);
	cr_expect_eq(br_record_probe_any(v7, &version, &size), 0);
	cr_expect_eq(version, 7);
	cr_expect_eq(size, 48);
	br_record_decode_any(v7, version, false, &out);
	cr_expect_eq(out.pid, ev.pid);
	cr_expect_eq(out.sector, ev.sector);
	uint32_t m = bswap_32(0x65617408u);
	memcpy(v8, &m, 4);
	cr_expect_eq(br_record_probe_any(v8, &version, &size), 1);
	m = 0x65617409u;
	memcpy(v8, &m, 4);
	cr_expect_eq(br_record_probe_any(v8, &version, &size), -2);
	cr_expect_eq(version, 9);
	m = 0x12345678u;
	memcpy(v8, &m, 4);
	cr_expect_eq(br_record_probe_any(v8, &version, &size), -1);
}
