/* cleanup.c — blkreel-capture --cleanup: what captures that are no longer
 * running (kill -9, a crash) left behind, each said, then put right in
 * order: what the kernel's buffers still hold for it read into its spool
 * (the backend's salvage), the kernel state it changed put back
 * (kstate/restore.c), and its capture file finished from the spool
 * (spool/spool_finish.c). The one place --cleanup lives; kstate/ finds and
 * reads the state files (kstate/leftovers.h). */
#include "cleanup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "devices.h"
#include "kstate/kstate.h"
#include "kstate/leftovers.h"
#include "kstate/tracefs_util.h"
#include "spool/raw_convert.h"
#include "spool/sink.h"
#include "spool/spool.h"
#include "spool/spool_finish.h"
#include "tool/say.h"

#define PROG "blkreel-capture"

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

/* Finish a killed capture's files from its spool (unless the .gz exists
 * already): NAME.blktrace.gz and, when the capture was asked for one, the
 * --split set, each made as .part and renamed when whole (spool_finish.h);
 * then the spool is removed. A damaged spool stays, and nothing is put in
 * place. */
static int recover_spool(const char *spool, const char *split, FILE *out, br_error *err)
{
	if (access(spool, F_OK))
		return 0; /* gone already: nothing to do */
	char gz[300];
	size_t n = strlen(spool);
	if (n < 6 || strcmp(spool + n - 6, ".spool"))
		return br_error_set(err, BR_EINVAL, 0, spool, -1, "not a spool file name");
	snprintf(gz, sizeof gz, "%.*s.gz", (int)(n - 6), spool);
	/* killed while finishing: the unfinished files go, the spool is read again */
	char part[sizeof gz + 8];
	snprintf(part, sizeof part, "%s.part", gz);
	unlink(part);
	cap_spool_finish_remove_parts(split);
	if (access(gz, F_OK) == 0)
		return br_error_set(err, BR_EINVAL, 0, gz, -1, "exists; the spool %s is left as it is", spool);
	/* A raw spool is read, not punched: a damaged one stays for a look.
	 * An event spool is punched as it is read (it was before the raw one
	 * existed; its records are whole up to a torn tail). */
	bool raw = cap_raw_spool_is(spool);
	cap_finish fin = { .spool = spool, .gz = gz, .split_base = split, .punch = !raw };
	cap_finish_result res;
	int rc = cap_spool_finish(&fin, &res, err);
	if (rc)
		return rc;
	if (out) {
		fprintf(out, "  wrote %s (%lld %s)\n", gz, (long long)res.events,
			raw ? "events from the raw spool" : "records from the spool");
		if (split)
			fprintf(out, "  wrote the per-CPU set %s.blktrace.0-%u\n", split,
				res.split_files ? res.split_files - 1 : 0);
	}
	unlink(spool);
	return 0;
}

typedef struct cleanup_arg {
	FILE *out;
	br_error *err;
} cleanup_arg;

/* One leftover: said, salvaged, put back, its files finished. */
static int cleanup_one(const char *path, int pid, void *arg)
{
	cleanup_arg *a = arg;
	cap_kstate *ks = malloc(sizeof *ks);
	if (!ks)
		return BR_ENOMEM;
	int rc = cap_kstate_load(path, ks);
	if (rc == 0) {
		if (a->out)
			cap_kstate_describe(a->out, ks, pid);
		/* a failed salvage is said, but the kernel is put back all the same */
		br_error se;
		if (salvage(ks, a->out, &se) && a->out) {
			char msg[1200];
			fprintf(a->out, "  could not read what the kernel still held: %s\n",
				br_error_format(&se, msg, sizeof msg));
		}
		rc = cap_kstate_restore(ks, a->err);
		for (size_t i = ks->n; rc == 0 && i-- > 0;)
			if (ks->ch[i].kind == KS_SPOOL &&
			    (rc = recover_spool(ks->ch[i].path, cap_kstate_split(ks), a->out, a->err)) == 0)
				cap_kstate_drop(ks, i);
		for (size_t i = ks->n; rc == 0 && i-- > 0;)
			if (ks->ch[i].kind == KS_SPLIT) /* made with its spool */
				cap_kstate_drop(ks, i);
		if (a->out)
			fprintf(a->out, rc ? "  could not restore everything\n" : "  restored\n");
	}
	free(ks);
	return rc;
}

int capture_cleanup(void)
{
	br_error err;
	br_error_clear(&err);
	if (cap_check_privileges(&err))
		return tool_say_error(PROG, NULL, &err);
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
	cleanup_arg a = { stdout, &err };
	int rc = cap_kstate_each_leftover(cleanup_one, &a);
	if (rc < 0)
		return tool_say_error(PROG, "cleanup", &err);
	return 0;
}
