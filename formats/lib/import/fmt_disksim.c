/* DiskSim ASCII traces: "time devno blkno size flags", block number and
 * size in 512-byte sectors, flags bit 0 set = read. DiskSim's own traces
 * give the time in milliseconds with a fraction; MQSim's (and other
 * simulators' "DiskSim-like" traces) give integer nanoseconds. A time with
 * a decimal point is read as milliseconds, an integer as nanoseconds, and
 * the note says which was seen. One event per IO (D), no response time. */
#include <stdio.h>

#include "fmt_num.h"
#include "fmt_text.h"

typedef struct disksim_state {
	bool seen_ms, seen_ns;
} disksim_state;

static void update_note(disksim_state *st, fmt_ctx *c)
{
	snprintf(c->note, sizeof c->note,
		 "one event per IO: D at the request time (%s), no completion (the format has no "
		 "response time); device number N becomes device 0,N; sectors of 512 bytes",
		 st->seen_ms && st->seen_ns ? "times with a decimal point read as ms, integers as ns"
		 : st->seen_ms ? "milliseconds, DiskSim style" : "integer nanoseconds, MQSim style");
}

static int parse(void *state, fmt_ctx *c, char *line, size_t len)
{
	disksim_state *st = state;
	const char *p = line, *end = line + len;
	fmt_skip_ws(&p);
	if (p == end || *p == '#')
		return FMT_OK;
	const char *t0 = p;
	while (p < end && *p != '.' && !fmt_is_space(*p))
		p++;
	bool ms = *p == '.';
	p = t0;
	uint64_t t, dev, blk, size, flags;
	if (!fmt_fixed(&p, ms ? 6 : 0, &t) || !fmt_is_space(*p))
		return fmt_bad(c, "bad time");
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &dev) || dev >= (1u << BR_MINORBITS))
		return fmt_bad(c, "bad device number");
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &blk) || blk > (UINT64_MAX >> 9))
		return fmt_bad(c, "bad block number");
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &size) || size > UINT32_MAX / 512)
		return fmt_bad(c, "bad size (sectors)");
	fmt_skip_ws(&p);
	if (!fmt_u64(&p, &flags) || !fmt_at_end(p, end))
		return fmt_bad(c, "bad flags");
	if ((ms && !st->seen_ms) || (!ms && !st->seen_ns)) {
		st->seen_ms |= ms;
		st->seen_ns |= !ms;
		update_note(st, c);
	}
	return fmt_emit_io(c, t, BR_MKDEV(0, dev), blk, (uint32_t)(size * 512),
			   (flags & 1) ? BLK_TC_READ : BLK_TC_WRITE, 0, false, 0);
}

bool fmt_disksim_probe(const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	uint64_t v;
	fmt_skip_ws(&p);
	if (!fmt_fixed(&p, 6, &v) || !fmt_is_space(*p))
		return false;
	for (int i = 0; i < 4; i++) {
		fmt_skip_ws(&p);
		if (!fmt_u64(&p, &v))
			return false;
	}
	return fmt_at_end(p, end);
}

const fmt_format fmt_disksim = {
	.name = "DiskSim ASCII",
	.note = "one event per IO: D at the request time, no completion (the format has no "
		"response time); device number N becomes device 0,N; sectors of 512 bytes",
	.state_size = sizeof(disksim_state),
	.parse = parse,
};
