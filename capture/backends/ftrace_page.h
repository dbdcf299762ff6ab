/* ftrace_page.h — decoding the blk tracer's records straight from the
 * ftrace ring buffer pages that per_cpu/cpuN/trace_pipe_raw hands out.
 *
 * trace_pipe formats every record in the kernel at read time (40 % of the
 * capture's profile, and it overran at 500 k events/s); trace_pipe_raw gives
 * whole pages for the price of a copy. A page is the header of
 * events/header_page (u64 timestamp, u64 commit = data length with the
 * "missed events" flags in bits 30-31) and the events of events/header_event
 * (u32 type_len:5 time_delta:27, then an optional u32 length). A blk tracer
 * record is a struct blk_io_trace (version 7 layout) whose first 16 bytes
 * hold the generic trace_entry instead of magic/sequence/time; its time is
 * the ring buffer's. */
#ifndef BLKREEL_CAPTURE_FTRACE_PAGE_H
#define BLKREEL_CAPTURE_FTRACE_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/event.h"

typedef struct ftrace_page_stats {
	uint64_t records;   /* blk records decoded */
	uint64_t foreign;   /* other ftrace entries (trace_marker, ...), skipped */
	uint64_t missed;    /* pages that said events were lost before them */
} ftrace_page_stats;

/* Calls fn for each blk record on the page (len bytes as read). devices:
 * the traced devices; a record of another device, or one whose length does
 * not fit the blk_io_trace layout, is another ftrace entry and skipped.
 * Returns 0 or fn's negative result; BR_EFORMAT for a damaged page. */
typedef int (*ftrace_record_fn)(void *arg, const br_event *ev, br_error *err);
int ftrace_page_decode(const uint8_t *page, size_t len, const uint32_t *devices, size_t ndevices,
		       ftrace_record_fn fn, void *arg, ftrace_page_stats *stats, br_error *err);

#endif
