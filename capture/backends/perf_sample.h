/* perf_sample.h — what the perf backend makes of one sample: the block
 * tracepoints it opens, the mapping of a sample's raw tracepoint record onto
 * a blk_io_trace event, and the completion check those samples feed. No
 * ring and no file descriptor here, so tests/capture/test_perf_check.c
 * drives it without a kernel. */
#ifndef BLKREEL_CAPTURE_PERF_SAMPLE_H
#define BLKREEL_CAPTURE_PERF_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "backends/tp_format.h"
#include "dev_completions.h"
#include "spool/sink.h"

enum perf_tp_kind { PERF_TP_BIO, PERF_TP_RQ, PERF_TP_COMPLETE, PERF_TP_SPLIT, PERF_TP_REMAP };

typedef struct perf_tp_def {
	const char *name;
	uint32_t action; /* BLK_TA_* with its category bits */
	enum perf_tp_kind kind;
} perf_tp_def;

#define PERF_NTP 13
extern const perf_tp_def perf_tp_defs[PERF_NTP];

typedef struct perf_decoder {
	const cap_config *cfg;
	tp_format fmt[PERF_NTP]; /* each tracepoint's record layout, where use[] */
	bool use[PERF_NTP];      /* the tracepoints opened */
	/* the devices' completions against the C records read: the kernel does
	 * not hand perf's sampling events every completion */
	cap_dev_check check;
	bool checking;
} perf_decoder;

/* Once every tracepoint in use[] is enabled: counts the devices'
 * completions, when a complete tracepoint is among them (the action mask
 * may leave them out) and for the devices whose C records carry their own
 * dev_t (not a partition's). */
void perf_decoder_check_start(perf_decoder *d);

/* One PERF_RECORD_SAMPLE's body (TID, TIME, RAW) seen on CPU cpu, pushed to
 * sink as an event; a record of no tracepoint in use is skipped (0). */
int perf_decoder_sample(perf_decoder *d, unsigned cpu, const uint8_t *p, size_t len, cap_sink *sink,
			br_error *err);

/* Before the tracepoints are disabled: a completion after it has no record. */
void perf_decoder_check_end(perf_decoder *d);

/* The check while it is on (NULL: no C records to check), and the
 * completions the checked devices counted that no C record shows. */
const cap_dev_check *perf_decoder_check(const perf_decoder *d);
uint64_t perf_decoder_unrecorded(const perf_decoder *d);

#endif
