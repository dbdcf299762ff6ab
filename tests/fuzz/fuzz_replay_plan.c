/* libFuzzer target: fuzzed event streams (fuzz_events.h) through the
 * replay's planner (replay/plan.c): two targets of sizes the input picks,
 * every fitting mode, offset, reads-only, --source Q and buffered choices,
 * the devices mapped one by one or all onto one target. Every planned item
 * must lie inside its target (what the replay then issues). */
#include <stdio.h>

#include "fuzz_events.h"
#include "../../replay/io.h"
#include "../../replay/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	fe_stream s;
	if (fe_decode(data + 4, size - 4, &s))
		return 0;
	target t[2] = {
		{ .path = "a", .size = (uint64_t)(data[1] + 1) << (12 + (data[0] & 15)), .align = 512 },
		{ .path = "b", .size = (uint64_t)(data[2] + 1) << 9, .align = 4096, .blockdev = true },
	};
	plan_map maps[2] = { { .dev = BR_MKDEV(8, 0), .target = 0 },
			     { .dev = BR_MKDEV(253, 0), .target = 1 } };
	plan_map any = { .any = true, .target = (uint16_t)(data[3] & 1) };
	plan_cfg cfg = {
		.source_q = (data[0] & 0x10) != 0,
		.maps = (data[0] & 0x20) ? &any : maps,
		.nmaps = (data[0] & 0x20) ? 1 : 2,
		.targets = t,
		.ntargets = 2,
		.fit = (enum plan_fit)((data[3] >> 1) % 3),
		.offset = (uint64_t)(data[3] >> 3) << 9,
		.buffered = (data[0] & 0x40) != 0,
		.reads_only = (data[0] & 0x80) != 0,
	};
	/* --scale needs the scan's highest byte per target: a first pass */
	plan_state *p = plan_new(&cfg);
	if (p) {
		replay_item it[2];
		for (size_t i = 0; i < s.n; i++)
			plan_feed(p, &s.ev[i], it);
		memcpy(cfg.max_end, plan_totals_get(p)->max_end, sizeof cfg.max_end);
		plan_free(p);
	}
	p = plan_new(&cfg);
	if (p) {
		replay_item it[2];
		bool fits = cfg.fit != FIT_NONE;
		for (size_t i = 0; i < s.n; i++) {
			int n = plan_feed(p, &s.ev[i], it);
			for (int k = 0; k < n; k++) {
				if (it[k].target >= cfg.ntargets)
					abort();
				/* wrap and scale place every IO inside its target */
				if (fits && it[k].len <= t[it[k].target].size - cfg.offset &&
				    cfg.offset < t[it[k].target].size &&
				    it[k].off + it[k].len > t[it[k].target].size)
					abort();
			}
		}
		const plan_totals *tot = plan_totals_get(p);
		char name[32];
		for (size_t d = 0; d < tot->ndevices; d++)
			plan_dev_name(tot->devices[d], name, sizeof name);
		plan_free(p);
	}
	fe_free(&s);
	return 0;
}
