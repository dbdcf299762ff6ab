/* Derived views of an event (names, RWBS, remap payload) and the on-disk
 * record codec. Names and RWBS follow blkparse so text output and action
 * masks read the same as the classic tools. */
#include "blkreel/event.h"

#include <byteswap.h>
#include <endian.h>
#include <string.h>

static const char *const action_names[] = {
	[__BLK_TA_QUEUE] = "Q",        [__BLK_TA_BACKMERGE] = "M",
	[__BLK_TA_FRONTMERGE] = "F",   [__BLK_TA_GETRQ] = "G",
	[__BLK_TA_SLEEPRQ] = "S",      [__BLK_TA_REQUEUE] = "R",
	[__BLK_TA_ISSUE] = "D",        [__BLK_TA_COMPLETE] = "C",
	[__BLK_TA_PLUG] = "P",         [__BLK_TA_UNPLUG_IO] = "U",
	[__BLK_TA_UNPLUG_TIMER] = "UT", [__BLK_TA_INSERT] = "I",
	[__BLK_TA_SPLIT] = "X",        [__BLK_TA_BOUNCE] = "B",
	[__BLK_TA_REMAP] = "A",        [__BLK_TA_ABORT] = "T",
	[__BLK_TA_DRV_DATA] = "DR",
};

const char *br_event_action_name(const br_event *ev)
{
	if (br_event_is_notify(ev))
		return br_event_code(ev) == __BLK_TN_MESSAGE ? "m" : "N";
	unsigned code = br_event_code(ev);
	if (code < sizeof action_names / sizeof action_names[0] && action_names[code])
		return action_names[code];
	return "?";
}

char br_event_action_letter(const br_event *ev)
{
	if (br_event_is_notify(ev))
		return 'N';
	return br_event_action_name(ev)[0];
}

char *br_event_rwbs(const br_event *ev, char *out)
{
	uint32_t a = ev->action;
	int i = 0;
	if (a & BLK_TC_ACT(BLK_TC_FLUSH))
		out[i++] = 'F';
	if (a & BLK_TC_ACT(BLK_TC_DISCARD))
		out[i++] = 'D';
	else if (a & BLK_TC_ACT(BLK_TC_WRITE))
		out[i++] = 'W';
	else if (ev->bytes)
		out[i++] = 'R';
	else
		out[i++] = 'N';
	if (a & BLK_TC_ACT(BLK_TC_FUA))
		out[i++] = 'F';
	if (a & BLK_TC_ACT(BLK_TC_AHEAD))
		out[i++] = 'A';
	if (a & BLK_TC_ACT(BLK_TC_SYNC))
		out[i++] = 'S';
	if (a & BLK_TC_ACT(BLK_TC_META))
		out[i++] = 'M';
	out[i] = 0;
	return out;
}

/* The remap payload is big-endian on disk whatever the host order. */
bool br_event_remap(const br_event *ev, uint32_t *from_device, uint64_t *from_sector)
{
	if (br_event_code(ev) != __BLK_TA_REMAP || br_event_is_notify(ev) || !ev->pdu ||
	    ev->pdu_len < sizeof(struct blk_io_trace_remap))
		return false;
	uint32_t dev_from;
	uint64_t sec_from;
	memcpy(&dev_from, ev->pdu, 4);
	memcpy(&sec_from, ev->pdu + 8, 8);
	if (from_device)
		*from_device = be32toh(dev_from);
	if (from_sector)
		*from_sector = be64toh(sec_from);
	return true;
}

uint32_t br_event_display_device(const br_event *ev)
{
	if (br_event_code(ev) != __BLK_TA_REMAP || br_event_is_notify(ev) || !ev->pdu ||
	    ev->pdu_len < sizeof(struct blk_io_trace_remap))
		return ev->device;
	uint32_t dev_to;
	memcpy(&dev_to, ev->pdu + 4, 4);
	return be32toh(dev_to);
}

bool br_event_on_device(const br_event *ev, uint32_t device)
{
	if (ev->device == device)
		return true;
	if (br_event_is_notify(ev))
		return br_event_code(ev) == __BLK_TN_PROCESS;
	return br_event_code(ev) == __BLK_TA_REMAP && br_event_display_device(ev) == device;
}

/* Field offsets of struct blk_io_trace; spelled out so the codec does not
 * depend on the compiler's layout of the kernel header. */
enum {
	OFF_MAGIC = 0, OFF_SEQUENCE = 4, OFF_TIME = 8, OFF_SECTOR = 16,
	OFF_BYTES = 24, OFF_ACTION = 28, OFF_PID = 32, OFF_DEVICE = 36,
	OFF_CPU = 40, OFF_ERROR = 44, OFF_PDU_LEN = 46,
};

static inline uint16_t get16(const uint8_t *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? bswap_16(v) : v;
}
static inline uint32_t get32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? bswap_32(v) : v;
}
static inline uint64_t get64(const uint8_t *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? bswap_64(v) : v;
}

void br_record_decode(const uint8_t *raw, bool swap, br_event *ev)
{
	ev->sequence = get32(raw + OFF_SEQUENCE, swap);
	ev->time = get64(raw + OFF_TIME, swap);
	ev->sector = get64(raw + OFF_SECTOR, swap);
	ev->bytes = get32(raw + OFF_BYTES, swap);
	ev->action = get32(raw + OFF_ACTION, swap);
	ev->pid = get32(raw + OFF_PID, swap);
	ev->device = get32(raw + OFF_DEVICE, swap);
	ev->cpu = get32(raw + OFF_CPU, swap);
	ev->error = get16(raw + OFF_ERROR, swap);
	ev->pdu_len = get16(raw + OFF_PDU_LEN, swap);
	ev->pdu = NULL;
	ev->comm = NULL;
}

void br_record_encode(const br_event *ev, uint8_t *raw)
{
	uint32_t magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION;
	memcpy(raw + OFF_MAGIC, &magic, 4);
	memcpy(raw + OFF_SEQUENCE, &ev->sequence, 4);
	memcpy(raw + OFF_TIME, &ev->time, 8);
	memcpy(raw + OFF_SECTOR, &ev->sector, 8);
	memcpy(raw + OFF_BYTES, &ev->bytes, 4);
	memcpy(raw + OFF_ACTION, &ev->action, 4);
	memcpy(raw + OFF_PID, &ev->pid, 4);
	memcpy(raw + OFF_DEVICE, &ev->device, 4);
	memcpy(raw + OFF_CPU, &ev->cpu, 4);
	memcpy(raw + OFF_ERROR, &ev->error, 2);
	memcpy(raw + OFF_PDU_LEN, &ev->pdu_len, 2);
}

int br_record_probe_magic(const uint8_t *raw, unsigned *version)
{
	uint32_t m;
	memcpy(&m, raw, 4);
	for (int swapped = 0; swapped < 2; swapped++) {
		uint32_t v = swapped ? bswap_32(m) : m;
		if ((v & 0xffffff00u) == BLK_IO_TRACE_MAGIC) {
			if (version)
				*version = v & 0xff;
			if ((v & 0xff) != BLK_IO_TRACE_VERSION)
				return -2;
			return swapped;
		}
	}
	return -1;
}
