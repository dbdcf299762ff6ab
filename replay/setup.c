/* setup.c — what a replay needs before the clock starts: targets opened
 * and checked, slot buffers, the engine. */
#include "run_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "safety.h"
#include "tool/say.h"

int setup_targets(run_ctx *c, br_error *err)
{
	const replay_opts *o = c->o;
	for (size_t i = 0; i < o->nmaps; i++) {
		size_t ti = c->ntargets;
		for (size_t j = 0; j < c->ntargets; j++)
			if (strcmp(c->targets[j].path, o->maps[i].path) == 0)
				ti = j;
		c->maps[i] = (plan_map){ .dev = o->maps[i].dev, .any = o->maps[i].any,
					 .target = (uint16_t)ti };
		if (ti < c->ntargets)
			continue;
		target *t = &c->targets[c->ntargets];
		int rc = target_stat(t, o->maps[i].path, err);
		if (!rc)
			rc = safety_check_use(t, o->write, o->force, err);
		/* O_EXCL, so nobody mounts or claims it while we write; only a
		 * --force replay that reads goes without */
		if (!rc)
			rc = target_open(t, o->write, o->write || !o->force, err);
		if (rc)
			return rc;
		c->ntargets++;
	}
	return 0;
}

int setup_check_content(run_ctx *c, br_error *err)
{
	if (c->o->force)
		return 0;
	for (size_t i = 0; i < c->ntargets; i++) {
		int rc = safety_check_content(&c->targets[i], c->o->write, c->scan.devices,
					      c->scan.ndevices, err);
		if (rc)
			return rc;
	}
	return 0;
}

int setup_buffers(run_ctx *c, br_error *err)
{
	replay_state *s = &c->s;
	size_t len = (c->scan.max_len + 4095) / 4096 * 4096;
	if (!len)
		len = 4096;
	if (posix_memalign(&c->bufmem, 4096, len * s->depth))
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory for %u buffers of %zu bytes",
				    s->depth, len);
	s->ios = calloc(s->depth, sizeof *s->ios);
	s->free_slots = calloc(s->depth, sizeof *s->free_slots);
	if (!s->ios || !s->free_slots)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	/* with writes, every buffer gets the pattern's filler now, before the
	 * clock starts: done on the timing thread at a slot's first write, it
	 * cost 80 us per 512 KiB (measured), on the schedule of the IOs due */
	bool fill = c->o->write;
	if (!fill)
		memset(c->bufmem, 0, len * s->depth);
	for (unsigned i = 0; i < s->depth; i++) {
		s->ios[i].slot = i;
		s->ios[i].buf = (char *)c->bufmem + (size_t)i * len;
		s->free_slots[i] = s->depth - 1 - i;
		if (fill) {
			memset(s->ios[i].buf, 0, len);
			pattern_init_buffer(s->ios[i].buf, len);
			s->ios[i].clean_len = (uint32_t)len;
		}
	}
	s->nfree = s->depth;
	return 0;
}

int setup_engine(run_ctx *c, struct iovec *iov, br_error *err)
{
	replay_state *s = &c->s;
	size_t len = (c->scan.max_len + 4095) / 4096 * 4096;
	for (unsigned i = 0; i < s->depth; i++)
		iov[i] = (struct iovec){ s->ios[i].buf, len ? len : 4096 };
	engine_cfg cfg = { .depth = s->depth, .bufs = iov, .threads = c->o->threads,
			   .complete = replay_complete, .ctx = s };
	for (size_t i = 0; engine_list[i]; i++) {
		const engine_ops *e = engine_list[i];
		if (c->o->engine && strcmp(c->o->engine, e->name))
			continue;
		if (engine_check(e))
			continue;
		s->eng_state = calloc(1, e->state_size);
		if (!s->eng_state)
			return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
		int rc = e->init(s->eng_state, &cfg, err);
		if (!rc) {
			s->eng = e;
			c->engine_up = true;
			return 0;
		}
		free(s->eng_state);
		s->eng_state = NULL;
		if (c->o->engine || !engine_list[i + 1])
			return rc;
		char msg[1024];
		tool_say("blkreel-replay", "%s unavailable (%s); using %s", e->name,
			 br_error_format(err, msg, sizeof msg), engine_list[i + 1]->name);
		br_error_clear(err);
	}
	return br_error_set(err, BR_EINVAL, 0, NULL, -1, "no IO engine available");
}
