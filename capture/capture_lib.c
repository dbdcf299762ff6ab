/* capture_lib.c — one capture run on a thread of ours for another tool
 * (capture_lib.h): the same capture core as the tool's (capture_core.c),
 * quiet, stopped by the caller instead of a command's end. */
#include "capture_lib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_core.h"
#include "devices.h"
#include "signals.h"
#include "tool/clock.h"

struct cap_lib {
	capture_cli cli;
	cap_capture s;
	atomic_bool stop;
	pthread_t thread;
	int loop_rc;
	br_error loop_err;
	uint64_t loop_end;
};

void cap_lib_signals(void)
{
	cap_signals_install(false);
}

int cap_lib_interrupted(void)
{
	return cap_signal_pending();
}

int cap_lib_check(br_error *err)
{
	return cap_check_privileges(err);
}

static void *loop_main(void *arg)
{
	cap_lib *c = arg;
	br_error_clear(&c->loop_err);
	c->loop_rc = cap_capture_loop(&c->s, &c->loop_err);
	c->loop_end = tool_now_ns();
	return NULL;
}

int cap_lib_start(cap_lib **out, const char *device, const char *path, const char *backend, br_error *err)
{
	*out = NULL;
	cap_lib *c = calloc(1, sizeof *c);
	if (!c)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	c->cli.devices[0] = device;
	c->cli.ndevices = 1;
	c->cli.output = path;
	c->cli.act_mask = 0xffff;
	c->cli.backend = backend;
	c->cli.quiet = true;
	c->s.cli = &c->cli;
	c->s.lock_fd = -1;
	c->s.stop = &c->stop;
	int rc = cap_capture_setup(&c->s, err);
	if (rc) {
		free(c->s.drops);
		free(c);
		return rc;
	}
	/* it said why on stderr, as the tool does */
	if (cap_capture_open(&c->s)) {
		free(c->s.drops);
		free(c);
		return br_error_set(err, BR_ESYS, 0, device, -1, "the capture did not start (see above)");
	}
	c->s.t0 = tool_now_ns();
	int e = pthread_create(&c->thread, NULL, loop_main, c);
	if (e) {
		uint64_t drops;
		cap_capture_close(&c->s, 0, tool_now_ns(), &drops);
		cap_sink_free(c->s.sink);
		free(c->s.drops);
		free(c);
		return br_error_set(err, BR_ESYS, e, NULL, -1, "starting the capture thread");
	}
	*out = c;
	return 0;
}

int cap_lib_stop(cap_lib *c, cap_lib_counts *counts, br_error *err)
{
	if (!c)
		return 0;
	atomic_store(&c->stop, true);
	pthread_join(c->thread, NULL);
	double secs = (double)(c->loop_end - c->s.t0) / 1e9;
	c->s.cpu_tracing = cap_own_cpu();
	const char *be = c->s.be->name;
	uint64_t lost = 0;
	bool ok = cap_capture_close(&c->s, secs, c->loop_end, &lost);
	if (counts) {
		*counts = (cap_lib_counts){ .events = c->s.out.final_events, .lost = lost, .secs = secs };
		snprintf(counts->backend, sizeof counts->backend, "%s", be);
	}
	int rc = 0;
	if (c->loop_rc) {
		*err = c->loop_err;
		rc = c->loop_rc;
	} else if (!ok) {
		rc = br_error_set(err, BR_ESYS, 0, c->s.out.gz_path, -1, "the capture did not finish cleanly (see above)");
	}
	cap_sink_free(c->s.sink);
	free(c->s.drops);
	free(c);
	return rc;
}
