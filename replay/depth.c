#include "depth.h"

depth_plan depth_choose(unsigned requested, bool no_stall, uint64_t trace_max,
			bool trace_has_completions, const target *targets, size_t ntargets,
			unsigned spare)
{
	depth_plan p = { 0 };
	for (size_t i = 0; i < ntargets; i++) {
		unsigned q = targets[i].queue_depth;
		if (q && (!p.queue || q < p.queue)) {
			p.queue = q;
			p.queue_of = targets[i].path;
		}
	}
	if (requested) {
		p.depth = requested;
		p.above_queue = p.queue && requested > p.queue;
		return p;
	}
	/* --no-stall keeps the trace's own depth, within reason (a trace without
	 * completions, e.g. an imported one, never brings it down) */
	uint64_t want = DEPTH_DEFAULT;
	if (no_stall && trace_has_completions && trace_max < DEPTH_DEFAULT)
		want = trace_max ? trace_max : 1;
	if (p.queue) {
		unsigned room = spare < p.queue ? p.queue - spare : 1;
		if (want > room) {
			want = room;
			p.spare = p.queue - room;
			p.capped = true;
		}
	}
	p.depth = (unsigned)want;
	return p;
}
