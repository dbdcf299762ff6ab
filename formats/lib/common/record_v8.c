/* Version-8 (blk_io_trace2) record decoding; see record_v8.h. */
#include "record_v8.h"

#include <byteswap.h>
#include <string.h>

enum {
	V8_MAGIC = 0, V8_SEQUENCE = 4, V8_TIME = 8, V8_SECTOR = 16, V8_BYTES = 24,
	V8_PID = 28, V8_ACTION = 32, V8_DEVICE = 40, V8_CPU = 44, V8_ERROR = 48,
	V8_PDU_LEN = 50,
};

static uint16_t rd16(const uint8_t *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? bswap_16(v) : v;
}
static uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? bswap_32(v) : v;
}
static uint64_t rd64(const uint8_t *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? bswap_64(v) : v;
}

unsigned br_record_header_size(unsigned version)
{
	return version == 7 ? BR_RECORD_SIZE : version == BR_RECORD_V8_VERSION ? BR_RECORD_V8_SIZE : 0;
}

uint32_t br_action_fold_v8(uint64_t a)
{
	uint32_t out = (uint32_t)a; /* code and version-1 categories line up */
	uint64_t cat2 = a >> 16;
	if (cat2 & (BR_TC2_ZONE_APPEND | BR_TC2_WRITE_ZEROES))
		out |= BLK_TC_ACT(BLK_TC_WRITE);
	if (cat2 & (BR_TC2_ZONE_RESET | BR_TC2_ZONE_RESET_ALL))
		out |= BLK_TC_ACT(BLK_TC_DISCARD) | BLK_TC_ACT(BLK_TC_WRITE);
	return out;
}

void br_record_v8_decode(const uint8_t *raw, bool swap, br_event *ev, uint64_t *action64)
{
	uint64_t a = rd64(raw + V8_ACTION, swap);
	ev->sequence = rd32(raw + V8_SEQUENCE, swap);
	ev->time = rd64(raw + V8_TIME, swap);
	ev->sector = rd64(raw + V8_SECTOR, swap);
	ev->bytes = rd32(raw + V8_BYTES, swap);
	ev->pid = rd32(raw + V8_PID, swap);
	ev->action = br_action_fold_v8(a);
	ev->device = rd32(raw + V8_DEVICE, swap);
	ev->cpu = rd32(raw + V8_CPU, swap);
	ev->error = rd16(raw + V8_ERROR, swap);
	ev->pdu_len = rd16(raw + V8_PDU_LEN, swap);
	ev->pdu = NULL;
	ev->comm = NULL;
	if (action64)
		*action64 = a;
}

void br_record_v8_encode(const br_event *ev, uint64_t action64, uint8_t *raw)
{
	uint32_t magic = BLK_IO_TRACE_MAGIC | BR_RECORD_V8_VERSION;
	memset(raw, 0, BR_RECORD_V8_SIZE);
	memcpy(raw + V8_MAGIC, &magic, 4);
	memcpy(raw + V8_SEQUENCE, &ev->sequence, 4);
	memcpy(raw + V8_TIME, &ev->time, 8);
	memcpy(raw + V8_SECTOR, &ev->sector, 8);
	memcpy(raw + V8_BYTES, &ev->bytes, 4);
	memcpy(raw + V8_PID, &ev->pid, 4);
	memcpy(raw + V8_ACTION, &action64, 8);
	memcpy(raw + V8_DEVICE, &ev->device, 4);
	memcpy(raw + V8_CPU, &ev->cpu, 4);
	memcpy(raw + V8_ERROR, &ev->error, 2);
	memcpy(raw + V8_PDU_LEN, &ev->pdu_len, 2);
}

int br_record_probe_any(const uint8_t *raw, unsigned *version, unsigned *header_size)
{
	uint32_t m;
	memcpy(&m, raw, 4);
	for (int swapped = 0; swapped < 2; swapped++) {
		uint32_t v = swapped ? bswap_32(m) : m;
		if ((v & 0xffffff00u) != BLK_IO_TRACE_MAGIC)
			continue;
		unsigned ver = v & 0xff;
		if (version)
			*version = ver;
		unsigned size = br_record_header_size(ver);
		if (header_size)
			*header_size = size;
		return size ? swapped : -2;
	}
	return -1;
}

void br_record_decode_any(const uint8_t *raw, unsigned version, bool swap, br_event *ev)
{
	if (version == BR_RECORD_V8_VERSION)
		br_record_v8_decode(raw, swap, ev, NULL);
	else
		br_record_decode(raw, swap, ev);
}
