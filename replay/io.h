/* io.h — one IO as the replayer plans, issues and completes it. */
#ifndef REPLAY_IO_H
#define REPLAY_IO_H

#include <stdbool.h>
#include <stdint.h>

enum replay_kind { RK_READ, RK_WRITE, RK_FLUSH, RK_DISCARD, RK_COUNT };

/* A planned IO, produced in trace order by the planner. */
typedef struct replay_item {
	uint64_t t_trace;      /* trace-clock ns (absolute) of the source event */
	uint64_t trace_off;    /* byte offset on the traced device */
	uint64_t off;          /* byte offset on the target after fitting/alignment */
	uint32_t len;          /* bytes (0 for a flush) */
	uint32_t trace_dev;    /* BR_MKDEV of the traced device */
	uint32_t pid;
	uint16_t target;       /* index into the target table */
	uint8_t kind;          /* enum replay_kind */
	bool fua;              /* write with RWF_DSYNC */
	bool buffered;         /* not aligned for O_DIRECT: send through the buffered fd */
	uint64_t seq;          /* plan order, from 0 */
	uint64_t deps;         /* --closed: replay completions the original had seen */
} replay_item;

/* An IO in flight: lives in a slot from submission to completion. */
typedef struct replay_io {
	replay_item it;
	int fd;                /* file descriptor to use */
	unsigned slot;         /* index of this io and of its buffer */
	void *buf;             /* slot buffer (aligned) */
	uint32_t clean_len;    /* leading bytes of buf holding the pattern filler
	                          (a read into the slot overwrites it) */
	uint64_t t_target;     /* CLOCK_MONOTONIC ns the IO was due */
	uint64_t t_submit;     /* when the timing thread handed it over (Q) */
	uint64_t t_issue;      /* when it went to the kernel (D) */
	/* set by the timing thread: send it so that the kernel waits instead of
	 * refusing it (engine_uring.c) */
	bool would_split;      /* larger than the device takes in one request */
	bool beyond_queue;     /* more in flight than the device's queue holds */
} replay_io;

const char *replay_kind_name(enum replay_kind k);

#endif
