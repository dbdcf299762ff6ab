/* capture_run.c — one capture: check, choose a backend, trace while the
 * command runs (or for -w, or until a signal), then stop, drain, write the
 * drops record, and put the kernel back, on every path (the parts it shares
 * with the library are in capture_core.c). */
#include "capture_run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "flight/trigger.h"
#include "list_backends.h"
#include "capture_core.h"
#include "command.h"
#include "devices.h"
#include "signals.h"
#include "tool/clock.h"
#include "tool/say.h"

#define PROG "blkreel-capture"

static bool trace_until_stopped(cap_capture *s)
{
	br_error err;
	br_error_clear(&err);
	s->t0 = tool_now_ns();
	const capture_cli *cli = s->cli;
	if (cli->command &&
	    cap_command_start(cli->command, strcmp(s->out.gz_path, "-") == 0, &s->child, &err)) {
		tool_say_error(PROG, NULL, &err);
		return false;
	}
	if (cap_capture_loop(s, &err)) {
		tool_say_error(PROG, "capture stopped", &err);
		return false;
	}
	return true;
}

/* The command outlived the capture (a signal, -w, an error): it gets the
 * same signal, or SIGTERM, at once; stop_command_wait collects it. */
static void stop_command(cap_capture *s, int sig)
{
	if (s->child > 0 && !s->child_done)
		kill(s->child, sig ? sig : SIGTERM);
}

static void stop_command_wait(cap_capture *s)
{
	if (s->child <= 0 || s->child_done)
		return;
	if (cap_command_wait(s->child, 5000, &s->child_status))
		s->child_done = true;
	else
		fprintf(stderr, "blkreel-capture: %s (pid %d) is still running\n", s->cli->command[0], (int)s->child);
}

int capture_run(const capture_cli *cli)
{
	if (cli->cleanup)
		return capture_cleanup();
	if (cli->trigger)
		return capture_trigger(cli->output);

	cap_capture s;
	memset(&s, 0, sizeof s);
	s.cli = cli;
	s.lock_fd = -1;
	br_error err;
	br_error_clear(&err);
	if (cli->list_backends && cli->ndevices == 0)
		return capture_list_backends(&s.cfg);
	if (cap_check_privileges(&err) || cap_capture_setup(&s, &err)) {
		tool_say_error(PROG, NULL, &err);
		free(s.drops);
		return 1;
	}
	if (cli->list_backends) {
		s.cfg.log = NULL;
		int rc = capture_list_backends(&s.cfg);
		free(s.drops);
		return rc;
	}
	if (cap_capture_open(&s)) {
		free(s.drops);
		return 1;
	}
	bool ok = trace_until_stopped(&s);
	uint64_t loop_end = tool_now_ns();
	double secs = (double)(loop_end - s.t0) / 1e9;
	s.cpu_tracing = cap_own_cpu();
	int sig = cap_signal_pending();
	stop_command(&s, sig);
	uint64_t total_drops = 0;
	ok = cap_capture_close(&s, secs, loop_end, &total_drops) && ok;
	stop_command_wait(&s);
	cap_sink_free(s.sink);
	cap_flight_free(s.flight);
	free(s.drops);

	/* A capture the user ends (Ctrl-C, SIGTERM, the terminal's hang-up SIGHUP) is a
	 * capture that worked, as with blktrace and perf record: the signal is
	 * not a failure of ours. With a command, its status is the answer. */
	int result = 0;
	if (!ok)
		result = 1;
	else if (cli->command)
		result = s.child_done ? s.child_status : 1;
	if (result == 0 && total_drops && !cli->allow_drops) {
		/* what was lost, each count once: records dropped, records bad, and
		 * the completions no record shows (lost records may be some of them) */
		char why[160] = "";
		size_t used = 0;
		const struct { uint64_t n; const char *what; } lost[] = {
			{ s.dropped, "records dropped" }, { s.bad, "bad records" },
			{ s.unrecorded, "completions unrecorded" },
			{ s.unwritten, "events not written for want of room" } };
		for (size_t i = 0; i < sizeof lost / sizeof lost[0]; i++)
			if (lost[i].n && used < sizeof why)
				used += (size_t)snprintf(why + used, sizeof why - used, "%s%llu %s", used ? ", " : " (",
							 (unsigned long long)lost[i].n, lost[i].what);
		if (used && used < sizeof why)
			snprintf(why + used, sizeof why - used, ")");
		fprintf(stderr, "blkreel-capture: %llu events lost%s; exit 1 (--allow-drops to accept)\n",
			(unsigned long long)total_drops, why);
		result = 1;
	}
	return result;
}
