/* Event model: names, RWBS, remap payloads and the record codec. */
#include <criterion/criterion.h>
#include <endian.h>
#include <string.h>

#include "blkreel/event.h"

typedef struct rwbs_case {
	uint32_t categories;
	uint32_t bytes;
	const char *want;
} rwbs_case;

Test(event, rwbs_matches_blkparse_order)
{
	static const rwbs_case cases[] = {
		{ BLK_TC_READ, 4096, "R" },
		{ BLK_TC_WRITE, 4096, "W" },
		{ BLK_TC_WRITE | BLK_TC_SYNC, 4096, "WS" },
		{ BLK_TC_WRITE | BLK_TC_SYNC | BLK_TC_META, 4096, "WSM" },
		{ BLK_TC_READ | BLK_TC_AHEAD, 4096, "RA" },
		{ BLK_TC_READ | BLK_TC_AHEAD | BLK_TC_META, 4096, "RAM" },
		{ BLK_TC_DISCARD, 4096, "D" },
		{ BLK_TC_DISCARD | BLK_TC_WRITE | BLK_TC_SYNC, 4096, "DS" },
		{ BLK_TC_FLUSH, 0, "FN" },
		{ 0, 0, "N" },
		{ BLK_TC_FLUSH | BLK_TC_WRITE | BLK_TC_SYNC, 0, "FWS" },
		{ BLK_TC_FLUSH | BLK_TC_WRITE | BLK_TC_FUA | BLK_TC_SYNC | BLK_TC_META, 4096, "FWFSM" },
		{ BLK_TC_WRITE | BLK_TC_FUA, 4096, "WF" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		br_event ev = { .action = BLK_TA_QUEUE | BLK_TC_ACT(cases[i].categories),
				.bytes = cases[i].bytes };
		char out[BR_RWBS_MAX];
		cr_expect_str_eq(br_event_rwbs(&ev, out), cases[i].want, "case %zu", i);
	}
}

Test(event, action_names)
{
	static const struct {
		uint32_t action;
		const char *name;
	} cases[] = {
		{ BLK_TA_QUEUE, "Q" },      { BLK_TA_BACKMERGE, "M" }, { BLK_TA_FRONTMERGE, "F" },
		{ BLK_TA_GETRQ, "G" },      { BLK_TA_SLEEPRQ, "S" },   { BLK_TA_REQUEUE, "R" },
		{ BLK_TA_ISSUE, "D" },      { BLK_TA_COMPLETE, "C" },  { BLK_TA_PLUG, "P" },
		{ BLK_TA_UNPLUG_IO, "U" },  { BLK_TA_UNPLUG_TIMER, "UT" },
		{ BLK_TA_INSERT, "I" },     { BLK_TA_SPLIT, "X" },     { BLK_TA_BOUNCE, "B" },
		{ BLK_TA_REMAP, "A" },      { BLK_TN_MESSAGE, "m" },   { 0x1f, "?" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		br_event ev = { .action = cases[i].action };
		cr_expect_str_eq(br_event_action_name(&ev), cases[i].name, "case %zu", i);
	}
	br_event notify = { .action = BLK_TN_PROCESS };
	cr_expect(br_event_is_notify(&notify));
	cr_expect_eq(br_event_action_letter(&notify), 'N');
}

Test(event, remap_payload_is_big_endian)
{
	uint8_t pdu[16];
	uint32_t from = htobe32(BR_MKDEV(259, 1)), to = htobe32(BR_MKDEV(253, 0));
	uint64_t sector = htobe64(123456789);
	memcpy(pdu, &from, 4);
	memcpy(pdu + 4, &to, 4);
	memcpy(pdu + 8, &sector, 8);
	br_event ev = { .action = BLK_TA_REMAP | BLK_TC_ACT(BLK_TC_READ), .device = BR_MKDEV(8, 0),
			.pdu = pdu, .pdu_len = sizeof pdu };
	uint32_t dev;
	uint64_t sec;
	cr_assert(br_event_remap(&ev, &dev, &sec));
	cr_expect_eq(dev, BR_MKDEV(259, 1));
	cr_expect_eq(sec, 123456789);
	cr_expect_eq(br_event_display_device(&ev), BR_MKDEV(253, 0));
	ev.pdu_len = 8; /* short payload: no remap, record's own device */
	cr_expect_not(br_event_remap(&ev, &dev, &sec));
	cr_expect_eq(br_event_display_device(&ev), BR_MKDEV(8, 0));
}

Test(event, codec_round_trip_both_byte_orders)
{
	br_event ev = { .time = 0x0102030405060708ull, .sector = 0x1122334455667788ull,
			.bytes = 65536, .action = BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_WRITE),
			.pid = 4242, .device = BR_MKDEV(7, 3), .cpu = 5, .sequence = 99,
			.error = 5, .pdu_len = 0 };
	uint8_t raw[BR_RECORD_SIZE];
	br_record_encode(&ev, raw);
	unsigned version = 0;
	cr_assert_eq(br_record_probe_magic(raw, &version), 0);
	cr_expect_eq(version, 7);
	br_event back;
	br_record_decode(raw, false, &back);
	cr_expect_eq(back.time, ev.time);
	cr_expect_eq(back.sector, ev.sector);
	cr_expect_eq(back.bytes, ev.bytes);
	cr_expect_eq(back.action, ev.action);
	cr_expect_eq(back.pid, ev.pid);
	cr_expect_eq(back.device, ev.device);
	cr_expect_eq(back.cpu, ev.cpu);
	cr_expect_eq(back.sequence, ev.sequence);
	cr_expect_eq(back.error, ev.error);

	/* the same record as a big-endian machine writes it */
	uint8_t swapped[BR_RECORD_SIZE];
	for (int i = 0; i < 8; i += 4)
		for (int j = 0; j < 4; j++)
			swapped[i + j] = raw[i + 3 - j];
	for (int i = 8; i < 24; i += 8)
		for (int j = 0; j < 8; j++)
			swapped[i + j] = raw[i + 7 - j];
	for (int i = 24; i < 44; i += 4)
		for (int j = 0; j < 4; j++)
			swapped[i + j] = raw[i + 3 - j];
	for (int i = 44; i < 48; i += 2)
		for (int j = 0; j < 2; j++)
			swapped[i + j] = raw[i + 1 - j];
	cr_assert_eq(br_record_probe_magic(swapped, NULL), 1);
	br_record_decode(swapped, true, &back);
	cr_expect_eq(back.time, ev.time);
	cr_expect_eq(back.sector, ev.sector);
	cr_expect_eq(back.device, ev.device);
	cr_expect_eq(back.error, ev.error);
}

Test(event, probe_rejects_garbage_and_unknown_versions)
{
	uint8_t junk[4] = { 'h', 'e', 'l', 'l' };
	cr_expect_eq(br_record_probe_magic(junk, NULL), -1);
	uint32_t v6 = BLK_IO_TRACE_MAGIC | 6;
	unsigned version;
	cr_expect_eq(br_record_probe_magic((uint8_t *)&v6, &version), -2);
	cr_expect_eq(version, 6);
}

/* One rule for "ev belongs to device D": its own device, a remap whose IO
 * went to D, process names for every device, other notes by their device. */
Test(event, on_device_rule)
{
	const uint32_t dm = BR_MKDEV(253, 0), loop = BR_MKDEV(7, 3), other = BR_MKDEV(7, 9);
	br_event io = { .action = BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_WRITE), .device = loop };
	cr_expect(br_event_on_device(&io, loop));
	cr_expect_not(br_event_on_device(&io, other));
	/* logged on dm, the IO went to loop: dm's record, and loop's too */
	uint8_t pdu[16];
	uint32_t from = htobe32(dm), to = htobe32(loop);
	uint64_t sector = htobe64(4096);
	memcpy(pdu, &from, 4);
	memcpy(pdu + 4, &to, 4);
	memcpy(pdu + 8, &sector, 8);
	br_event remap = { .action = BLK_TA_REMAP | BLK_TC_ACT(BLK_TC_WRITE), .device = dm,
			   .pdu = pdu, .pdu_len = sizeof pdu };
	cr_expect(br_event_on_device(&remap, dm));
	cr_expect(br_event_on_device(&remap, loop));
	cr_expect_not(br_event_on_device(&remap, other));
	remap.pdu_len = 8; /* no payload to say where it went */
	cr_expect_not(br_event_on_device(&remap, loop));
	/* a payload naming loop on a record that is not a remap is no remap */
	br_event issue = { .action = BLK_TA_ISSUE, .device = dm, .pdu = pdu, .pdu_len = sizeof pdu };
	cr_expect_not(br_event_on_device(&issue, loop));
	br_event name = { .action = BLK_TN_PROCESS, .device = dm, .pdu = (const uint8_t *)"dd",
			  .pdu_len = 3 };
	cr_expect(br_event_on_device(&name, loop), "a pid's name is every device's");
	br_event cg_name = name;
	cg_name.action |= __BLK_TN_CGROUP;
	cr_expect(br_event_on_device(&cg_name, loop));
	br_event msg = { .action = BLK_TN_MESSAGE, .device = dm, .pdu = (const uint8_t *)"drops",
			 .pdu_len = 5 };
	cr_expect(br_event_on_device(&msg, dm));
	cr_expect_not(br_event_on_device(&msg, loop), "another device's message is not this one's");
	br_event stamp = { .action = BLK_TN_TIMESTAMP, .device = dm };
	cr_expect_not(br_event_on_device(&stamp, loop));
	cr_expect(br_event_on_device(&stamp, dm));
}
