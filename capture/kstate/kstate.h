/* kstate.h — every change a capture makes to kernel state, written down
 * before it is made, so it can be undone on every path: the normal end, a
 * signal, an error, and (by the next run, through --cleanup) a kill -9.
 *
 * The record is /run/blkreel/capture-PID.state: a header line, then one line
 * per change ("file PATH OLD" = PATH held OLD before we wrote it; "relay DEV"
 * = a relay trace set up on DEV; "mount DIR" = we mounted tracefs/debugfs
 * there; "spool PATH" = an unfinished capture file, NAME.blktrace.spool;
 * "config TEXT" = what the capture was asked for: devices and filter, so
 * that --cleanup can read what the kernel still holds for it the same way).
 * Restoring walks it backwards. A spool is not kernel state: the capture
 * finishes it itself and forgets it; after a kill -9, --cleanup compresses
 * it into NAME.blktrace.gz, so nothing captured is lost.
 *
 * capture/kstate/ owns the kernel state a capture touches, one job a file:
 * journal.c (this record and its file), restore.c (undoing it), kfile.c
 * (one small kernel file read or written), leftovers.c (the state files of
 * captures no longer running), fs_mount.c and tracefs_util.c (tracefs and
 * debugfs), tracer_lock.c (the machine-wide tracer lock). It calls nothing
 * else of capture/ (capture_config.h's types aside); --cleanup, which also
 * needs the backends and the spool, is capture/cleanup.c. */
#ifndef BLKREEL_CAPTURE_KSTATE_H
#define BLKREEL_CAPTURE_KSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "blkreel/error.h"
#include "capture_config.h"
#include "kstate/kfile.h"

#define CAP_STATE_DIR "/run/blkreel"
#define CAP_KSTATE_MAX 256

typedef struct cap_kchange {
	enum { KS_FILE, KS_RELAY, KS_MOUNT, KS_SPOOL, KS_CONFIG, KS_SPLIT } kind;
	char path[256];
	char old[64];
} cap_kchange;

typedef struct cap_kstate {
	char path[256];        /* the state file; "" until the first change */
	char backend[32];
	cap_kchange ch[CAP_KSTATE_MAX];
	size_t n;
} cap_kstate;

void cap_kstate_init(cap_kstate *ks, const char *backend);

/* Write value to a kernel file (sysfs/tracefs), recording what it held first
 * (only the first time for a path: that is the value to go back to). */
int cap_kstate_write(cap_kstate *ks, const char *path, const char *value, br_error *err);
/* Record that a relay trace is being set up on device path (before BLKTRACESETUP). */
int cap_kstate_note_relay(cap_kstate *ks, const char *devpath, br_error *err);
/* Record that we mounted a filesystem at dir (after the mount worked). */
int cap_kstate_note_mount(cap_kstate *ks, const char *dir, br_error *err);
/* Record the spool of this capture (after it is created). */
int cap_kstate_note_spool(cap_kstate *ks, const char *spool, br_error *err);
/* The --split set's base name (NAME of NAME.blktrace.<cpu>), so that
 * --cleanup makes the set from the spool too. */
int cap_kstate_note_split(cap_kstate *ks, const char *split_base, br_error *err);
/* Record the devices and filter of cfg (not kernel state: for --cleanup).
 * Devices that do not fit the line are left out. */
int cap_kstate_note_config(cap_kstate *ks, const cap_config *cfg, br_error *err);
/* The config a loaded state file records into cfg (devices, filter, CPUs;
 * paths point into cfg itself); false when it has none. */
bool cap_kstate_config(const cap_kstate *ks, cap_config *cfg);
/* The --split base noted, or NULL. */
const char *cap_kstate_split(const cap_kstate *ks);
/* Forget the relay note once it is torn down. */
void cap_kstate_forget_relay(cap_kstate *ks, const char *devpath);
/* Forget the spool once the capture file is finished (the state file goes
 * when nothing is left in it). */
void cap_kstate_forget_spool(cap_kstate *ks);
/* Forget entry i (done with), and bring the state file in line. */
void cap_kstate_drop(cap_kstate *ks, size_t i);
/* The state file as ks now is: rewritten, or removed when ks holds
 * nothing (a failed rewrite is let be: the older file only names more
 * to undo). */
void cap_kstate_sync(cap_kstate *ks);

/* restore.c: undo every kernel change, newest first, going on past
 * failures (the first one is returned). Spool notes stay; the state file
 * is removed when nothing is left in it. */
int cap_kstate_restore(cap_kstate *ks, br_error *err);

#endif
