/* command.h — the traced command: started once tracing is on, its exit
 * status becomes ours. */
#ifndef BLKREEL_CAPTURE_COMMAND_H
#define BLKREEL_CAPTURE_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

#include "blkreel/error.h"

/* fork + execvp argv. stdout_to_stderr: the trace goes to our stdout, so
 * the command's output must not. 127 is its status when exec fails. */
int cap_command_start(char **argv, bool stdout_to_stderr, pid_t *pid, br_error *err);
/* Has it ended? Fills *status (exit code, or 128+signal) when it has. */
bool cap_command_done(pid_t pid, int *status);
/* Wait up to timeout_ms for it to end; false if it is still running. */
bool cap_command_wait(pid_t pid, int timeout_ms, int *status);

#endif
