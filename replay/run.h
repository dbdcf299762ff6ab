/* run.h — one replay from options to report; returns the exit status. */
#ifndef REPLAY_RUN_H
#define REPLAY_RUN_H

#include <stdbool.h>
#include "blkreel/error.h"
#include "cli.h"
#include "report.h"

int replay_run(const replay_opts *o);

/* What a caller that runs replays in rounds (ab/) hooks into one replay. */
typedef struct replay_hooks {
	void *arg;
	/* after every check and the setup, just before the clock starts
	 * (NULL: none); nonzero stops the replay before any IO, err says why */
	int (*started)(void *arg, br_error *err);
	/* once every IO handed over has completed (or the replay stopped),
	 * whenever started returned 0 */
	void (*finished)(void *arg);
	/* polled while replaying (NULL: never): true stops the replay */
	bool (*stop)(void *arg);
	bool check_only;        /* the targets' checks and the trace's scan only */
	const char *label;      /* of the progress line (NULL: the tool's name) */
	fidelity *fid;          /* filled when the replay ran (may be NULL) */
	bool *ran;              /* set when it did */
} replay_hooks;

/* replay_run with hooks (h may be NULL): the exit status. */
int replay_run_hooked(const replay_opts *o, const replay_hooks *h);

#endif
