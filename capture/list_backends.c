/* list_backends.c — blkreel-capture --list-backends (list_backends.h). */
#include "list_backends.h"

#include <stdio.h>
#include <stdlib.h>

#include "backends/backend.h"
#include "devices.h"
#include "kstate/kstate.h"
#include "kstate/tracer_lock.h"

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
