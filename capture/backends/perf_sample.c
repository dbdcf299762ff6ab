/* perf_sample.c — one perf sample's raw tracepoint record as a blk_io_trace
 * event, and the completion check (see perf_sample.h). */
#include <string.h>

#include "backends/perf_sample.h"
#include "backends/rwbs.h"
#include "devices.h"
#include "spool/names.h"

const perf_tp_def perf_tp_defs[PERF_NTP] = {
	{ "block_bio_queue", BLK_TA_QUEUE, PERF_TP_BIO },
	{ "block_bio_backmerge", BLK_TA_BACKMERGE, PERF_TP_BIO },
	{ "block_bio_frontmerge", BLK_TA_FRONTMERGE, PERF_TP_BIO },
	{ "block_getrq", BLK_TA_GETRQ, PERF_TP_BIO },
	{ "block_rq_insert", BLK_TA_INSERT, PERF_TP_RQ },
	{ "block_rq_issue", BLK_TA_ISSUE, PERF_TP_RQ },
	{ "block_rq_merge", BLK_TA_BACKMERGE, PERF_TP_RQ },
	{ "block_rq_requeue", BLK_TA_REQUEUE, PERF_TP_RQ },
	{ "block_rq_complete", BLK_TA_COMPLETE, PERF_TP_COMPLETE },
	{ "block_bio_complete", BLK_TA_COMPLETE, PERF_TP_COMPLETE },
	{ "block_split", BLK_TA_SPLIT, PERF_TP_SPLIT },
	{ "block_bio_remap", BLK_TA_REMAP, PERF_TP_REMAP },
	{ "block_rq_remap", BLK_TA_REMAP, PERF_TP_REMAP },
};

_Static_assert(sizeof perf_tp_defs / sizeof perf_tp_defs[0] == PERF_NTP, "PERF_NTP");

/* block_rq_complete carries the disk's dev_t (rq->q->disk), never a
 * partition's: the filter keeps no C record of a partition to check. */
static bool disk_carries_c(const cap_device *d)
{
	return !cap_device_is_partition(d);
}

/* Once every completion is sampled: a completion after the count has a C
 * record, unless the kernel did not hand it to us. Only when a complete
 * tracepoint is open (the action mask may leave them out). */
void perf_decoder_check_start(perf_decoder *d)
{
	for (size_t t = 0; t < PERF_NTP; t++)
		d->checking |= d->use[t] && perf_tp_defs[t].kind == PERF_TP_COMPLETE;
	if (d->checking)
		cap_dev_check_start(&d->check, d->cfg, disk_carries_c);
}

/* Tracepoint index for a raw record's common_type (its tracepoint id). */
static int tp_index(const perf_decoder *d, uint16_t type)
{
	for (size_t t = 0; t < PERF_NTP; t++)
		if (d->use[t] && d->fmt[t].id == type)
			return (int)t;
	return -1;
}

int perf_decoder_sample(perf_decoder *d, unsigned c, const uint8_t *p, size_t len, cap_sink *sink, br_error *err)
{
	/* TID (pid, tid), TIME, RAW (size, data) */
	if (len < 8 + 8 + 4)
		return 0;
	uint64_t time;
	uint32_t pid_tid[2], rawlen;
	memcpy(pid_tid, p, 8);
	memcpy(&time, p + 8, 8);
	memcpy(&rawlen, p + 16, 4);
	const uint8_t *raw = p + 20;
	if (20 + (size_t)rawlen > len || rawlen < 2)
		return 0;
	uint16_t type;
	memcpy(&type, raw, 2);
	int t = tp_index(d, type);
	if (t < 0)
		return 0;
	const tp_format *f = &d->fmt[t];
	char rwbs[16], comm[CAP_COMM_LEN];
	tp_get_str(raw, rawlen, f->rwbs, rwbs, sizeof rwbs);
	tp_get_str(raw, rawlen, f->comm, comm, sizeof comm);
	uint32_t kdev = (uint32_t)tp_get(raw, rawlen, f->dev);
	br_event ev;
	memset(&ev, 0, sizeof ev);
	ev.time = time;
	ev.sector = tp_get(raw, rawlen, f->sector);
	ev.action = perf_tp_defs[t].action | (cap_rwbs_categories(rwbs) << BLK_TC_SHIFT);
	ev.pid = pid_tid[1];
	ev.device = kdev; /* the tracepoints' dev_t is the kernel's MKDEV, as in blk_io_trace */
	ev.cpu = c;
	uint64_t nr = tp_get(raw, rawlen, f->nr_sector);
	ev.bytes = f->bytes.offset >= 0 ? (uint32_t)tp_get(raw, rawlen, f->bytes) : (uint32_t)(nr << 9);
	ev.error = (uint16_t)(int32_t)tp_get(raw, rawlen, f->error);
	uint8_t pdu[16];
	switch (perf_tp_defs[t].kind) {
	case PERF_TP_SPLIT: {
		/* blktrace's split payload: the new sector, big-endian */
		uint64_t ns = __builtin_bswap64(tp_get(raw, rawlen, f->new_sector));
		memcpy(pdu, &ns, 8);
		ev.pdu = pdu;
		ev.pdu_len = 8;
		ev.bytes = 0;
		break;
	}
	case PERF_TP_REMAP: {
		/* struct blk_io_trace_remap, big-endian: device_from, device_to, sector_from */
		uint32_t from = __builtin_bswap32((uint32_t)tp_get(raw, rawlen, f->old_dev));
		uint32_t to = __builtin_bswap32(kdev);
		uint64_t sf = __builtin_bswap64(tp_get(raw, rawlen, f->old_sector));
		memcpy(pdu, &from, 4);
		memcpy(pdu + 4, &to, 4);
		memcpy(pdu + 8, &sf, 8);
		ev.pdu = pdu;
		ev.pdu_len = 16;
		break;
	}
	case PERF_TP_COMPLETE:
		/* before the core's filters: the check is of what the kernel handed over */
		if (d->checking)
			cap_dev_check_record(&d->check, d->cfg, kdev);
		break;
	default: break;
	}
	return cap_sink_push(sink, &ev, comm[0] ? comm : NULL, err);
}

void perf_decoder_check_end(perf_decoder *d)
{
	if (d->checking)
		cap_dev_check_end(&d->check, d->cfg);
}

const cap_dev_check *perf_decoder_check(const perf_decoder *d)
{
	return d->checking ? &d->check : NULL;
}

uint64_t perf_decoder_unrecorded(const perf_decoder *d)
{
	return d->checking ? cap_dev_check_unrecorded(&d->check, d->cfg) : 0;
}
