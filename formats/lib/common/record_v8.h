/* record_v8.h (internal) — blk_io_trace2, the version-8 record (Linux
 * 6.19): 64 bytes, the action widened to 64 bits for zone and
 * write-zeroes categories. Layout (include/uapi/linux/blktrace_api.h):
 *   0 magic  4 sequence  8 time  16 sector  24 bytes  28 pid  32 action(u64)
 *   40 device  44 cpu  48 error  50 pdu_len  52 pad[12]; the pdu follows.
 * Note pid and action swap places compared with version 7.
 *
 * br_event keeps a 32-bit action (version 7's): bits 0-15 are the code,
 * 16-31 the version-1 categories, the same in both versions. The
 * categories above bit 31 are folded so every tool still counts the IO:
 * zone append and write-zeroes as writes, zone reset / reset-all as
 * discards (they drop data); zone open/close/finish carry no data and keep
 * no read/write bit. The full 64-bit action is returned too. */
#ifndef BLKREEL_RECORD_V8_H
#define BLKREEL_RECORD_V8_H

#include <stdbool.h>
#include <stdint.h>
#include "blkreel/event.h"

#define BR_RECORD_V8_SIZE 64
#define BR_RECORD_V8_VERSION 8

/* Version-2 categories (bits of the 64-bit action after the shift). */
#define BR_TC2_ZONE_APPEND (1ull << 16)
#define BR_TC2_ZONE_RESET (1ull << 17)
#define BR_TC2_ZONE_RESET_ALL (1ull << 18)
#define BR_TC2_ZONE_FINISH (1ull << 19)
#define BR_TC2_ZONE_OPEN (1ull << 20)
#define BR_TC2_ZONE_CLOSE (1ull << 21)
#define BR_TC2_WRITE_ZEROES (1ull << 22)
/* New action codes. */
#define BR_TA_ZONE_PLUG 18
#define BR_TA_ZONE_UNPLUG 19

/* The fixed header size for a record version: 48 (7), 64 (8), 0 unknown. */
unsigned br_record_header_size(unsigned version);

/* Decode the 64-byte fixed part of a version-8 record (swap = other byte
 * order); pdu/comm are left NULL. action64 (may be NULL) gets the full
 * action. */
void br_record_v8_decode(const uint8_t *raw, bool swap, br_event *ev, uint64_t *action64);

/* Fold a 64-bit action into br_event's 32 bits (see above). */
uint32_t br_action_fold_v8(uint64_t action64);

/* Like br_record_probe_magic() but accepting versions 7 and 8: 0 = native
 * byte order, 1 = swapped, -1 = not a blk_io_trace record, -2 = right
 * magic, unknown version (in *version). *header_size (may be NULL) gets
 * the fixed part's size, 48 or 64; the pdu follows it. Needs 4 bytes. */
int br_record_probe_any(const uint8_t *raw, unsigned *version, unsigned *header_size);

/* Decode the fixed part of a record of either version, as probed
 * (version 7: br_record_decode; 8: br_record_v8_decode). */
void br_record_decode_any(const uint8_t *raw, unsigned version, bool swap, br_event *ev);

/* Write a version-8 record header in host order (tests, converters). */
void br_record_v8_encode(const br_event *ev, uint64_t action64, uint8_t *raw);

#endif
