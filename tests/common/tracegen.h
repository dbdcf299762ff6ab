/* tracegen.h — build small blk_io_trace files for tests. */
#ifndef BLKREEL_TRACEGEN_H
#define BLKREEL_TRACEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "blkreel/event.h"

/* A growable byte buffer of encoded records. */
typedef struct tg_buf {
	uint8_t *data;
	size_t len, cap;
} tg_buf;

/* Append one record (fixed part + pdu); swap = write the other byte order. */
void tg_append(tg_buf *b, const br_event *ev, bool swap);
/* A plain IO event. */
br_event tg_io(uint64_t time, uint32_t device, uint32_t cpu, uint32_t action, uint64_t sector,
	       uint32_t bytes, uint32_t pid);
/* A BLK_TN_PROCESS notify record naming pid. The pdu points at name. */
br_event tg_process(uint64_t time, uint32_t cpu, uint32_t pid, const char *name);
/* A remap ('A') record, logged on device (the queue the bio now enters),
 * for an IO now at sector on to_dev that came from from_dev at
 * from_sector. pdu (the caller's 16 bytes) receives the big-endian
 * payload; the event points at it. */
br_event tg_remap(uint64_t time, uint32_t device, uint32_t action, uint64_t sector, uint32_t bytes,
		  uint32_t from_dev, uint32_t to_dev, uint64_t from_sector, uint8_t pdu[16]);
/* Append n events in time order (stable for equal times), numbering them
 * from sequence 1 as one per-CPU file would. Sorts ev in place. */
void tg_append_sorted(tg_buf *b, br_event *ev, size_t n);
int tg_write(const tg_buf *b, const char *path);
void tg_free(tg_buf *b);

/* Common full actions (with category bits). */
#define TG_Q_W (BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_WRITE))
#define TG_Q_R (BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_READ))
#define TG_D_W (BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_WRITE))
#define TG_D_R (BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_READ))
#define TG_C_W (BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_WRITE))
#define TG_C_R (BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_READ))

/* Process names are whatever bytes the kernel had (15 at most): quotes,
 * backslashes, control characters, DEL, bytes that are not UTF-8, a
 * multi-byte sequence cut short. */
extern const char tg_hostile_a[], tg_hostile_b[];
/* A trace at path: pid 10 named tg_hostile_a and pid 11 tg_hostile_b, 20
 * 4 KiB IOs each (Q, D, C on 8,0), writes or reads. 0 ok, -1 on error. */
int tg_write_hostile(const char *path, bool writes);

/* A simulated run's events, put in any order and then sorted by time,
 * events at the same time keeping the order they were put in. */
typedef struct tg_run_event {
	br_event ev;
	uint64_t order;
} tg_run_event;
typedef struct tg_run {
	tg_run_event *e;
	size_t n, cap;
} tg_run;
/* Append ev; the copy in the run (to adjust), or NULL when out of memory. */
br_event *tg_run_put(tg_run *r, br_event ev);
void tg_run_sort(tg_run *r);
void tg_run_free(tg_run *r);
/* The run's events through a new analysis, finished; NULL with *err set. */
struct br_analysis;
struct br_analysis *tg_run_analyse(const tg_run *r, br_error *err);

#endif
