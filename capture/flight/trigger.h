/* trigger.h — blkreel-capture --trigger: find the flight captures running
 * on this machine (blkreel-capture processes given --flight; with a name,
 * those writing it) and send each SIGUSR1, which its loop takes as a
 * trigger. Says each one triggered; 1 when there was none. */
#ifndef BLKREEL_CAPTURE_FLIGHT_TRIGGER_H
#define BLKREEL_CAPTURE_FLIGHT_TRIGGER_H

/* name: -o NAME as the capture was given it (or NULL: every one). */
int capture_trigger(const char *name);

#endif
