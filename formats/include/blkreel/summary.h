/* blkreel/summary.h — what a trace contains, counted in one pass:
 * devices, time span, events by action, reads/writes/discards (count and
 * bytes) as queued (Q), issued (D) and completed (C), and processes.
 * The counting is shared so every tool reports the same numbers. */
#ifndef BLKREEL_SUMMARY_H
#define BLKREEL_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "blkreel/event.h"

#define BR_ACTION_CODES 32   /* __BLK_TA_* codes fit below this */

typedef struct br_io_count {
	uint64_t ios;
	uint64_t bytes;
} br_io_count;

typedef struct br_device_summary {
	uint32_t device;
	uint64_t events;                          /* non-notify records */
	uint64_t first_time, last_time;           /* absolute ns */
	uint64_t by_action[BR_ACTION_CODES];      /* indexed by br_event_code() */
	br_io_count io[BR_KIND_COUNT][BR_DIR_COUNT]; /* by stage and direction (event.h) */
	uint64_t flushes, fua, errors;            /* completions with flush/FUA/error */
} br_device_summary;

typedef struct br_process_summary {
	uint32_t pid;
	const char *comm;                         /* NULL if never named */
	uint64_t events;
	br_io_count queued[BR_DIR_COUNT];
} br_process_summary;

typedef struct br_summary br_summary;

br_summary *br_summary_new(void);
void br_summary_free(br_summary *s);
/* 0, or BR_ENOMEM. */
int br_summary_add(br_summary *s, const br_event *ev);

uint64_t br_summary_events(const br_summary *s);        /* all records */
uint64_t br_summary_notify_events(const br_summary *s); /* notify records */
uint64_t br_summary_first_time(const br_summary *s);    /* absolute ns, non-notify */
uint64_t br_summary_last_time(const br_summary *s);
/* Devices sorted by device number; processes by pid. */
size_t br_summary_ndevices(const br_summary *s);
const br_device_summary *br_summary_device(const br_summary *s, size_t i);
size_t br_summary_nprocesses(const br_summary *s);
const br_process_summary *br_summary_process(const br_summary *s, size_t i);

/* Direction of an event for counting: an empty flush is BR_DIR_OTHER (no
 * data moves), whatever read/write bit the kernel gave it. */
enum br_dir br_event_dir(const br_event *ev);

#endif
