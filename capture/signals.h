/* signals.h — the tool's one piece of global state: which stop signal
 * (SIGINT, SIGTERM, SIGHUP) arrived, and how many of the signals that ask
 * a running capture for something (SIGUSR1: a flight trigger; SIGUSR2: a
 * status line; SIGHUP when it writes a series of files: start the next).
 * The capture loop polls them; nothing is done inside the handler. */
#ifndef BLKREEL_CAPTURE_SIGNALS_H
#define BLKREEL_CAPTURE_SIGNALS_H

#include <stdbool.h>

/* Catch the stop signals and the requests (no SA_RESTART, so a blocking
 * poll returns) and ignore SIGPIPE (a closed stdout is a write error,
 * handled as such). hup_is_request: SIGHUP asks for a new file instead of
 * ending the capture (--rotate, --flight: a service's reload). */
void cap_signals_install(bool hup_is_request);
/* The first stop signal received, or 0. */
int cap_signal_pending(void);
/* How many times sig (SIGUSR1, SIGUSR2, or SIGHUP as a request) arrived
 * since the last call. */
unsigned cap_signal_take(int sig);
/* Put the defaults back (in the traced command's child before exec). */
void cap_signals_default(void);

#endif
