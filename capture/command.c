#include "command.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "signals.h"
#include "tool/say.h"

int cap_command_start(char **argv, bool stdout_to_stderr, pid_t *pid, br_error *err)
{
	fflush(NULL);
	pid_t p = fork();
	if (p < 0)
		return br_error_set(err, BR_ESYS, errno, NULL, -1, "cannot start %s", argv[0]);
	if (p == 0) {
		cap_signals_default();
		if (stdout_to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[0], argv);
		tool_say("blkreel-capture", "cannot run %s: %s", argv[0], strerror(errno));
		_exit(127); /* the child only: the parent's clean-up is unaffected */
	}
	*pid = p;
	return 0;
}

static int decode(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 1;
}

bool cap_command_done(pid_t pid, int *status)
{
	int ws;
	pid_t r = waitpid(pid, &ws, WNOHANG);
	if (r == pid) {
		*status = decode(ws);
		return true;
	}
	return false;
}

bool cap_command_wait(pid_t pid, int timeout_ms, int *status)
{
	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		if (cap_command_done(pid, status))
			return true;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	return false;
}
