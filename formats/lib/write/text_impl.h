/* text_impl.h (internal) — state shared by text.c (event lines),
 * text_stats.c (blkparse's end-of-run counters) and text_summary.c (the
 * summary printed from them). Calls go one way: text_summary.c → text.c →
 * text_stats.c.
 *
 * The counters mirror blkparse's struct io_stats field for field, including
 * its quirks (a PC read queue adds to the fs qread_kb; requeues subtract
 * from the dispatch totals with unsigned wrap), because the summary must
 * come out byte-identical. */
#ifndef BLKREEL_TEXT_IMPL_H
#define BLKREEL_TEXT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/text.h"

/* blkparse's io_stats: [0] = read, [1] = write (its "rw" is just the
 * WRITE category bit). Byte remainders are kept apart from KiB, as blkparse
 * does, so the summary's (kb + (b >> 10)) rounding is the same. */
typedef struct br_io_stats {
	uint64_t q[2], q_kb[2], q_b[2];         /* queued */
	uint64_t i[2], i_kb[2], i_b[2];         /* issued (dispatched) */
	uint64_t c[2], c_kb[2], c_b[2];         /* completed */
	uint64_t m[2], m_kb[2], m_b[2];         /* merged */
	uint64_t rq[2];                         /* requeued */
	uint64_t q_pc[2], q_kb_pc[2], q_b_pc[2];
	uint64_t i_pc[2], i_kb_pc[2], i_b_pc[2];
	uint64_t rq_pc[2], c_pc[2];
	uint64_t io_unplugs, timer_unplugs;
} br_io_stats;

/* A run of missing sequence numbers on one CPU (blkparse's skip_info). */
typedef struct br_skip {
	uint64_t start, end;
} br_skip;

typedef struct br_cpu_stats {
	uint32_t cpu;
	uint64_t nelems;        /* every event seen on this CPU, printed or not */
	uint64_t last_seq;      /* UINT64_MAX before the first event */
	br_io_stats io;
	br_skip *skips;         /* in insertion order, like blkparse's list */
	size_t nskips, cap_skips;
} br_cpu_stats;

/* CPUs below this number are found through a direct index. */
#define BR_TEXT_DENSE_CPUS 1024

typedef struct br_dev_stats {
	uint32_t dev;
	br_cpu_stats **cpus;    /* in order of first appearance */
	size_t ncpus, cap_cpus;
	int32_t dense[BR_TEXT_DENSE_CPUS]; /* cpu -> index in cpus, -1 none */
	uint64_t events;        /* events printed (blkparse's pdi->events) */
	uint64_t first_time, last_time; /* relative ns, for Throughput */
	uint32_t cur_depth[2], max_depth[2]; /* unsigned int in blkparse */
} br_dev_stats;

struct br_text {
	int fd;
	char *fd_name;
	uint64_t written;       /* bytes written to fd so far: where a failed write failed */
	uint64_t origin;
	char *buf;
	size_t len, cap;
	int first_err;          /* first write error, reported again at close */
	br_dev_stats **devs;    /* in order of first appearance, like blkparse */
	size_t ndevs, cap_devs;
	br_dev_stats *last_dev; /* one-entry cache: traces are mostly one device */
	bool drv_data;          /* saw driver data: blkparse's closing notice */
	/* Thousands grouping as blkparse gets from setlocale(LC_NUMERIC,
	 * "en_US"): only when that locale exists on this machine. */
	char thousep[8];
	/* blkparse's file mode (`blkparse -i NAME` on a per-CPU set): the
	 * summary is under the set's name for all devices together, and
	 * sequence numbers are not checked (Skips stay 0). NULL = pipe mode. */
	char *label;
};

/* Make room for `need` more bytes (flushing); 0 or a negative br_code. */
int br_text_reserve(br_text *t, size_t need, br_error *err);

/* Statistics for the event (which blkparse keeps whether or not the line
 * is printed); called by br_text_event before formatting. Returns the
 * device's stats so the caller can tell whether the event is counted. */
br_dev_stats *br_text_stats_device(br_text *t, uint32_t dev, br_error *err);
br_cpu_stats *br_text_stats_cpu(br_dev_stats *d, uint32_t cpu, br_error *err);
/* blkparse's check_sequence (final pass): record forward skips. */
int br_text_stats_sequence(br_cpu_stats *c, uint32_t seq, br_error *err);
void br_text_stats_free(br_text *t);

#endif
