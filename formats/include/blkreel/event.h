/* blkreel/event.h — the one event model every tool shares.
 *
 * An event is one blk_io_trace record, decoded to host byte order. The
 * field meanings are the kernel's (linux/blktrace_api.h), so nothing is lost
 * when a trace goes through blkreel and back out to blkparse. Helpers below
 * give the derived views (action letter, RWBS, major/minor, remap payload). */
#ifndef BLKREEL_EVENT_H
#define BLKREEL_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/blktrace_api.h> /* BLK_TA_*, BLK_TC_*, BLK_TN_*, struct blk_io_trace */

/* The kernel's BLK_TC_ACT shifts a signed int, so BLK_TC_ACT(BLK_TC_FUA)
 * (bit 31) is undefined behaviour in C. Every BLK_TA_* and BLK_TN_* macro
 * expands through it at the point of use, so redefining it unsigned here
 * fixes them all for code that includes this header. */
#undef BLK_TC_ACT
#define BLK_TC_ACT(act) ((uint32_t)(act) << BLK_TC_SHIFT)

/* Size of the fixed part of a version-7 record on disk. */
#define BR_RECORD_SIZE 48
/* Largest pdu we accept; the kernel's largest real payloads are messages
 * and cgroup ids, far below this. Anything larger is treated as garbage. */
#define BR_PDU_MAX 4096

/* Device numbers in blk_io_trace use the kernel-internal encoding. */
#define BR_MINORBITS 20
#define BR_DEV_MAJOR(dev) ((unsigned)((dev) >> BR_MINORBITS))
#define BR_DEV_MINOR(dev) ((unsigned)((dev) & ((1U << BR_MINORBITS) - 1)))
#define BR_MKDEV(ma, mi) ((uint32_t)(((uint32_t)(ma) << BR_MINORBITS) | (uint32_t)(mi)))

typedef struct br_event {
	uint64_t time;       /* ns, the trace clock as recorded */
	uint64_t sector;     /* 512-byte sectors */
	uint32_t bytes;      /* transfer length */
	uint32_t action;     /* category bits << 16 | __BLK_TA_* / __BLK_TN_* */
	uint32_t pid;
	uint32_t device;     /* BR_MKDEV encoding */
	uint32_t cpu;
	uint32_t sequence;
	uint16_t error;
	uint16_t pdu_len;
	const uint8_t *pdu;  /* pdu_len bytes, exactly as on disk (remaps are
	                        big-endian there); valid until the next read */
	const char *comm;    /* process name known for pid, or NULL; valid for
	                        the reader's lifetime */
} br_event;

/* The __BLK_TA_* / __BLK_TN_* code without category bits or cgroup flag. */
static inline unsigned br_event_code(const br_event *ev)
{
	return ev->action & 0xff;
}

static inline bool br_event_is_notify(const br_event *ev)
{
	return (ev->action & BLK_TC_ACT(BLK_TC_NOTIFY)) != 0;
}

/* blkparse's one- or two-letter action name for a non-notify event:
 * "Q","M","F","G","S","R","D","C","P","U","UT","I","X","B","A","T"(abort),
 * "m"(message) ...; "?" for an unknown code. */
const char *br_event_action_name(const br_event *ev);

/* Single letter used in summaries and action masks (first letter of the
 * name above, 'N' for notify records). */
char br_event_action_letter(const br_event *ev);

/* blkparse's RWBS column (e.g. "WS", "RA", "FWFS", "N"), NUL terminated.
 * out must hold BR_RWBS_MAX bytes. Returns out. */
#define BR_RWBS_MAX 16
char *br_event_rwbs(const br_event *ev, char *out);

/* For an 'A' (remap) event with a valid payload: where the IO came from.
 * Returns false when the payload is missing or short. */
bool br_event_remap(const br_event *ev, uint32_t *from_device, uint64_t *from_sector);

/* For an 'A' event, the device the IO went to (from the payload), which
 * blkparse prints instead of the record's device; else ev->device. */
uint32_t br_event_display_device(const br_event *ev);

/* Whether ev belongs to device (BR_MKDEV encoding): the one rule for every
 * per-device view (blkreel-parse --dev, blkreel-report -d, the statistics).
 *   - an IO event: logged on device, or a remap ('A') whose IO went to
 *     device (br_event_display_device, the device blkparse prints);
 *   - a process-name record: every device's. A name is a pid's, not a
 *     device's, and one capture of several devices names each pid once,
 *     on the device of the first IO it saw from it (blkreel-capture), so a
 *     per-device view that kept only its own would lose names;
 *   - any other notify record (a message such as blkreel-capture's drops
 *     line, the kernel's start timestamp): the device it was logged on. */
bool br_event_on_device(const br_event *ev, uint32_t device);

/* Read/write classification from the category bits. */
static inline bool br_event_is_write(const br_event *ev)
{
	return (ev->action & BLK_TC_ACT(BLK_TC_WRITE)) != 0;
}
static inline bool br_event_is_discard(const br_event *ev)
{
	return (ev->action & BLK_TC_ACT(BLK_TC_DISCARD)) != 0;
}
static inline bool br_event_is_flush(const br_event *ev)
{
	return (ev->action & BLK_TC_ACT(BLK_TC_FLUSH)) != 0;
}
static inline bool br_event_is_read(const br_event *ev)
{
	return !br_event_is_write(ev) && !br_event_is_discard(ev) &&
	       (ev->action & BLK_TC_ACT(BLK_TC_READ)) != 0;
}

/* What an event records of an IO, as the statistics, the analysis and the
 * summary count it. The stage: queued (Q), issued (D), completed (C). */
enum br_kind { BR_KIND_Q, BR_KIND_D, BR_KIND_C, BR_KIND_COUNT };
/* The direction: reads, writes and the rest (no data moves, or neither a
 * read nor a write). The statistics and the analysis count the first
 * BR_STATS_DIRS, discards among the rest (br_stats_sdir in stats.h); the
 * summary counts discards apart (br_event_dir in summary.h). */
enum br_dir { BR_DIR_READ, BR_DIR_WRITE, BR_DIR_OTHER, BR_DIR_DISCARD, BR_DIR_COUNT };
#define BR_STATS_DIRS 3

/* On-disk record codec. decode reads BR_RECORD_SIZE bytes in either byte
 * order (swap = the record was written by a machine of the other
 * endianness) and leaves pdu/comm NULL; the caller attaches the payload.
 * encode writes the fixed part in host order (what blkparse on this
 * machine expects). Magic/version are checked by br_record_check(). */
void br_record_decode(const uint8_t *raw, bool swap, br_event *ev);
void br_record_encode(const br_event *ev, uint8_t *raw);

/* Classify the first 4 bytes of a record: 0 = native version-7 magic,
 * 1 = byte-swapped version-7 magic, -1 = not a blk_io_trace record,
 * -2 = right magic, unknown version (version returned in *version). */
int br_record_probe_magic(const uint8_t *raw, unsigned *version);

#endif
