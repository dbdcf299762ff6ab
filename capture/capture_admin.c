#include "capture_admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "devices.h"
#include "kstate/kstate.h"
#include "spool/sink.h"
#include "spool/spool.h"
#include "spool/spool_writer.h"
#include "kstate/tracefs_util.h"
#include "kstate/tracer_lock.h"
#include "tool/say.h"

#define PROG "blkreel-capture"

/* Start and stop a backend on cfg's devices, leaving nothing behind. */
static int trial(const cap_backend_ops *b, const cap_config *cfg, br_error *err)
{
	int rc = b->probe(err);
	if (rc)
		return rc;
	int lock = -1;
	if (b->flags & CAP_GLOBAL_TRACER) {
		lock = cap_tracer_lock(err);
		if (lock < 0)
			return lock;
	}
	void *st = calloc(1, b->state_size ? b->state_size : 1);
	if (!st) {
		cap_tracer_unlock(lock);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	cap_kstate ks;
	cap_kstate_init(&ks, b->name);
	rc = b->start(st, cfg, &ks, err);
	br_error e2;
	if (rc == 0)
		b->stop(st, &e2);
	b->close(st, &ks, &e2);
	if (cap_kstate_restore(&ks, &e2) && rc == 0) {
		*err = e2;
		rc = e2.code;
	}
	free(st);
	cap_tracer_unlock(lock);
	return rc;
}

int capture_list_backends(const cap_config *cfg)
{
	br_error err;
	bool root = cap_check_privileges(&err) == 0;
	for (size_t i = 0; i < cap_nbackends; i++) {
		const cap_backend_ops *b = cap_backends[i];
		br_error_clear(&err);
		int rc = !root ? BR_EINVAL : cfg->ndevices ? trial(b, cfg, &err) : b->probe(&err);
		char why[700];
		if (!root)
			snprintf(why, sizeof why, "needs root (CAP_SYS_ADMIN)");
		else if (rc)
			br_error_format(&err, why, sizeof why);
		printf("%-8s %-11s %s%s%s\n", b->name,
		       rc ? "unavailable" : cfg->ndevices ? "works" : "available", b->summary,
		       rc ? ": " : "", rc ? why : "");
	}
	if (root && !cfg->ndevices)
		printf("(probed only; add -d DEVICE to start and stop each one for real: relay's\n"
		       " lockdown refusal shows only then)\n");
	return 0;
}

static int resume_one(void *sink, const br_event *ev, br_error *err)
{
	(void)err;
	cap_sink_resume(sink, ev);
	return 0;
}

/* A killed capture whose backend's buffers outlive it (the blk tracer's
 * ring): append what they still hold to its spool, numbered on from what
 * the spool has, before the kernel state is put back (which empties them). */
static int salvage(const cap_kstate *ks, FILE *out, br_error *err)
{
	const cap_backend_ops *be = cap_backend_find(ks->backend);
	const char *spool = NULL;
	for (size_t i = 0; i < ks->n; i++)
		if (ks->ch[i].kind == KS_SPOOL)
			spool = ks->ch[i].path;
	cap_config *cfg = calloc(1, sizeof *cfg);
	if (!cfg)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	int rc = 0;
	if (!be || !be->salvage || !spool || access(spool, F_OK) || !cap_kstate_config(ks, cfg))
		goto done;
	cap_spool *sp = NULL;
	cap_sink *sink = NULL;
	if ((rc = cap_spool_open(&sp, spool, true, err)))
		goto done;
	/* No comm hook: the backend's name table wants its running state. */
	cap_sink_opts so = {
		.cfg = cfg,
		.filter = !(be->flags & CAP_KERNEL_FILTER),
		.sequence = !(be->flags & CAP_HAS_SEQUENCE),
		.names = !(be->flags & CAP_HAS_NAMES),
		.spool = sp,
		.window_ns = CAP_REORDER_WINDOW_NS,
	};
	if ((rc = cap_sink_new(&sink, &so, err)) == 0) {
		int64_t had = cap_spool_each(spool, resume_one, sink, err);
		rc = had < 0 ? (int)had : be->salvage(cfg, sink, err);
		cap_sink_stats st;
		cap_sink_stats_get(sink, &st);
		if (rc == 0 && out)
			fprintf(out, "  read %llu events the kernel still held for it (%s backend) into %s\n",
				(unsigned long long)st.written, be->name, spool);
	}
	cap_sink_free(sink);
	br_error ce;
	int crc = cap_spool_close(sp, &ce);
	if (crc && !rc) {
		rc = crc;
		*err = ce;
	}
done:
	free(cfg);
	return rc;
}

int capture_cleanup(void)
{
	br_error err;
	br_error_clear(&err);
	if (cap_check_privileges(&err)) {
		return tool_say_error(PROG, NULL, &err);
	}
	int n = cap_kstate_leftovers(NULL);
	if (n <= 0) {
		/* No record of ours; still say if the tracer is busy, since that is
		 * what the user probably wants to know. */
		char cur[64] = "";
		cap_kstate_read(CAP_TRACEFS "/current_tracer", cur, sizeof cur, &err);
		printf("blkreel-capture: no leftover state from earlier captures%s%s%s\n",
		       cur[0] && strcmp(cur, "nop") ? " (current_tracer is '" : "",
		       cur[0] && strcmp(cur, "nop") ? cur : "",
		       cur[0] && strcmp(cur, "nop") ? "', not ours)" : "");
		return 0;
	}
	int rc = cap_kstate_cleanup(stdout, salvage, &err);
	if (rc) {
		return tool_say_error(PROG, "cleanup", &err);
	}
	return 0;
}
