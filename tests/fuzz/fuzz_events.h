/* fuzz_events.h — shared by the fuzz targets that feed event streams to the
 * consumers of the readers (statistics, analysis, plot data, replay plan):
 * the fuzz input becomes a sequence of br_event as a reader hands them out,
 * 16 input bytes per event, so the fuzzer explores the event space itself
 * (action and category mixes, devices, time jumps and ties, sizes from 0 to
 * huge, remaps, notify records) instead of the on-disk format.
 *
 *   byte 0      action: an entry of fe_actions, or (>= 0xf0) a raw 32-bit
 *               action from bytes 12..15 (any code, any category bits)
 *   byte 1      category bits (read/write/sync/ahead/meta/discard/flush/fua)
 *   bytes 2..3  time step; byte 4 low nibble scales it (<< n), bit 4 makes
 *               the step go back in time (a stream beyond the reader's
 *               reorder window), bits 5..6 pick one of 4 devices
 *   bytes 5..8  sector (<< byte 4 bit 7 ? 16 : 0)
 *   bytes 9..10 size in sectors (0 allowed)
 *   byte 11     pid (a few values, so pids repeat), byte 12 error, byte 13 cpu
 *   bytes 12..15 for a remap: the source sector delta */
#ifndef BLKREEL_FUZZ_EVENTS_H
#define BLKREEL_FUZZ_EVENTS_H

#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/event.h"

enum { FE_BYTES = 16, FE_PDU = 16 };

typedef struct fe_stream {
	br_event *ev;
	uint8_t (*pdu)[FE_PDU];
	size_t n;
} fe_stream;

static const uint32_t fe_actions[] = {
	BLK_TA_QUEUE, BLK_TA_GETRQ, BLK_TA_INSERT, BLK_TA_ISSUE, BLK_TA_COMPLETE,
	BLK_TA_BACKMERGE, BLK_TA_FRONTMERGE, BLK_TA_REQUEUE, BLK_TA_REMAP, BLK_TA_PLUG,
	BLK_TA_UNPLUG_IO, BLK_TA_UNPLUG_TIMER, BLK_TA_SPLIT, BLK_TA_SLEEPRQ, BLK_TA_BOUNCE,
	BLK_TA_DRV_DATA, BLK_TN_PROCESS, BLK_TN_TIMESTAMP, BLK_TN_MESSAGE,
};

static inline uint32_t fe_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Decode data into s (free with fe_free). */
static inline int fe_decode(const uint8_t *data, size_t size, fe_stream *s)
{
	s->n = size / FE_BYTES;
	s->ev = calloc(s->n ? s->n : 1, sizeof *s->ev);
	s->pdu = calloc(s->n ? s->n : 1, sizeof *s->pdu);
	if (!s->ev || !s->pdu) {
		free(s->ev);
		free(s->pdu);
		return -1;
	}
	static const uint32_t devs[4] = { BR_MKDEV(8, 0), BR_MKDEV(8, 16), BR_MKDEV(253, 0),
					  BR_MKDEV(259, 1) };
	static const char *const names[4] = { "fio", "kworker/u8:2", "swapper/0", "jbd2/sda1-8" };
	uint64_t t = 1000000000ull;
	for (size_t i = 0; i < s->n; i++) {
		const uint8_t *b = data + i * FE_BYTES;
		br_event *e = &s->ev[i];
		uint32_t cat = 0;
		static const uint32_t bits[8] = { BLK_TC_READ, BLK_TC_WRITE, BLK_TC_SYNC, BLK_TC_AHEAD,
						  BLK_TC_META, BLK_TC_DISCARD, BLK_TC_FLUSH, BLK_TC_FUA };
		for (int k = 0; k < 8; k++)
			if (b[1] & (1u << k))
				cat |= bits[k];
		uint32_t act = b[0] >= 0xf0 ? fe_le32(b + 12)
					    : fe_actions[b[0] % (sizeof fe_actions / sizeof fe_actions[0])];
		if (b[0] < 0xf0 && !(act & BLK_TC_ACT(BLK_TC_NOTIFY)))
			act |= (uint32_t)cat << BLK_TC_SHIFT;
		uint64_t step = (uint64_t)(b[2] | b[3] << 8) << (b[4] & 15);
		if (b[4] & 0x10)
			t = t > step ? t - step : 0;
		else
			t += step;
		e->time = t;
		e->action = act;
		e->device = devs[(b[4] >> 5) & 3];
		e->sector = (uint64_t)fe_le32(b + 5) << ((b[4] & 0x80) ? 16 : 0);
		e->bytes = (uint32_t)(b[9] | b[10] << 8) * 512u;
		e->pid = 100 + (b[11] & 7);
		e->error = b[12] < 0xf8 ? 0 : (uint16_t)(b[12] & 7);
		e->cpu = b[13] & 3;
		e->sequence = (uint32_t)i + 1;
		uint8_t *pdu = s->pdu[i];
		unsigned code = br_event_code(e);
		if (act == BLK_TN_PROCESS) {
			const char *nm = names[b[11] & 3];
			e->pdu_len = (uint16_t)strlen(nm);
			memcpy(pdu, nm, e->pdu_len);
			e->pdu = pdu;
		} else if (code == __BLK_TA_REMAP && b[0] < 0xf0) {
			uint32_t v = htobe32(e->device);
			memcpy(pdu, &v, 4);
			v = htobe32(devs[(b[14] >> 6) & 3]);
			memcpy(pdu + 4, &v, 4);
			uint64_t from = htobe64(e->sector - (fe_le32(b + 12) & 0xffffff));
			memcpy(pdu + 8, &from, 8);
			e->pdu_len = 16;
			e->pdu = pdu;
		} else if ((code == __BLK_TA_UNPLUG_IO || code == __BLK_TA_UNPLUG_TIMER ||
			    code == __BLK_TA_SPLIT) && b[0] < 0xf0) {
			uint64_t v = htobe64(fe_le32(b + 12));
			memcpy(pdu, &v, 8);
			e->pdu_len = 8;
			e->pdu = pdu;
		} else if (b[15] & 1 && b[0] >= 0xf0) {
			e->pdu_len = (uint16_t)(b[15] >> 4); /* a payload of any length up to 15 */
			memcpy(pdu, b, e->pdu_len);
			e->pdu = pdu;
		}
		if (e->pid == 102)
			e->comm = names[b[13] >> 6];
	}
	return 0;
}

static inline void fe_free(fe_stream *s)
{
	free(s->ev);
	free(s->pdu);
}

#endif
