/* signals.h — the tool's one piece of global state: which stop signal
 * (SIGINT, SIGTERM, SIGHUP) arrived. The capture loop polls it and then
 * stops cleanly; nothing is done inside the handler. */
#ifndef BLKREEL_CAPTURE_SIGNALS_H
#define BLKREEL_CAPTURE_SIGNALS_H

/* Catch the stop signals (no SA_RESTART, so a blocking poll returns) and
 * ignore SIGPIPE (a closed stdout is a write error, handled as such). */
void cap_signals_install(void);
/* The first stop signal received, or 0. */
int cap_signal_pending(void);
/* Put the defaults back (in the traced command's child before exec). */
void cap_signals_default(void);

#endif
