/* pattern.h — what the replay writes, so a later read proves what was
 * written where. Every 512-byte sector of a write starts with a 32-byte
 * header (little-endian):
 *   0  char[8]  "BLKRPLY1"
 *   8  u64      the IO's byte offset on the traced device
 *  16  u64      the IO's sequence number in the plan
 *  24  u32      sector index within the IO
 *  28  u32      crc-free check: ~(low 32 bits of offset ^ sequence ^ index)
 * and the rest of the sector is filler byte (0xA5 ^ index&0xff). */
#ifndef REPLAY_PATTERN_H
#define REPLAY_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PATTERN_SECTOR 512
#define PATTERN_MAGIC "BLKRPLY1"

/* Prepare a whole buffer's filler once (call for each slot buffer). */
void pattern_init_buffer(void *buf, size_t len);
/* Stamp the per-sector headers of a write of len bytes. */
void pattern_stamp(void *buf, size_t len, uint64_t trace_off, uint64_t seq);
/* Check one sector read back: true when it carries the pattern; fills the
 * header fields. */
bool pattern_check(const void *sector, uint64_t *trace_off, uint64_t *seq, uint32_t *index);

#endif
