#include "pattern.h"

#include <string.h>

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}
static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t check_word(uint64_t off, uint64_t seq, uint32_t idx)
{
	return ~((uint32_t)off ^ (uint32_t)seq ^ idx);
}

void pattern_init_buffer(void *buf, size_t len)
{
	uint8_t *p = buf;
	for (size_t s = 0; s + PATTERN_SECTOR <= len; s += PATTERN_SECTOR)
		memset(p + s + 32, 0xA5 ^ (int)((s / PATTERN_SECTOR) & 0xff), PATTERN_SECTOR - 32);
}

void pattern_stamp(void *buf, size_t len, uint64_t trace_off, uint64_t seq)
{
	uint8_t *p = buf;
	uint32_t idx = 0;
	for (size_t s = 0; s + PATTERN_SECTOR <= len; s += PATTERN_SECTOR, idx++) {
		memcpy(p + s, PATTERN_MAGIC, 8);
		put64(p + s + 8, trace_off);
		put64(p + s + 16, seq);
		put32(p + s + 24, idx);
		put32(p + s + 28, check_word(trace_off, seq, idx));
	}
}

bool pattern_check(const void *sector, uint64_t *trace_off, uint64_t *seq, uint32_t *index)
{
	const uint8_t *p = sector;
	if (memcmp(p, PATTERN_MAGIC, 8) != 0)
		return false;
	uint64_t off = get64(p + 8), sq = get64(p + 16);
	uint32_t idx = get32(p + 24);
	if (get32(p + 28) != check_word(off, sq, idx))
		return false;
	uint8_t fill = (uint8_t)(0xA5 ^ (idx & 0xff));
	for (size_t i = 32; i < PATTERN_SECTOR; i++)
		if (p[i] != fill)
			return false;
	if (trace_off)
		*trace_off = off;
	if (seq)
		*seq = sq;
	if (index)
		*index = idx;
	return true;
}
