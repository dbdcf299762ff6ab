/* leftovers.h — the state files (kstate.h) in CAP_STATE_DIR of captures
 * that are no longer running (a kill -9, a crash), and of those that are:
 * which running capture owns a kernel file, each leftover loaded or
 * described. Putting them back is --cleanup's (capture/cleanup.c). */
#ifndef BLKREEL_CAPTURE_LEFTOVERS_H
#define BLKREEL_CAPTURE_LEFTOVERS_H

#include <stdio.h>

#include "kstate/kstate.h"

/* The pid of a running capture whose state file records a change to path
 * (a per-device trace/enable, a relay device), or 0. */
int cap_kstate_owner(const char *path);

/* Calls fn for the state file at path of every capture that is no longer
 * running (pid: the one it names). Returns how many there are, or the
 * first non-zero fn returned. */
typedef int (*cap_kstate_leftover_fn)(const char *path, int pid, void *arg);
int cap_kstate_each_leftover(cap_kstate_leftover_fn fn, void *arg);

/* A state file into ks (its path kept in ks->path); -1 when unreadable. */
int cap_kstate_load(const char *path, cap_kstate *ks);

/* One line per change a loaded leftover of capture pid records, on out. */
void cap_kstate_describe(FILE *out, const cap_kstate *ks, int pid);

/* Leftover state files: each described on out (when not NULL). Returns how
 * many there are. */
int cap_kstate_leftovers(FILE *out);

#endif
