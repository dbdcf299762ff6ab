/* tracer_lock.h — the machine-wide lock on the kernel's one blk tracer and
 * relay interface: flock on /run/lock/blkreel-tracer.lock, shared with the
 * tests, the sample scripts and experiments. */
#ifndef BLKREEL_CAPTURE_TRACER_LOCK_H
#define BLKREEL_CAPTURE_TRACER_LOCK_H

#include "blkreel/error.h"

#define CAP_TRACER_LOCK "/run/lock/blkreel-tracer.lock"

/* Take the lock without waiting. Returns an fd (>= 0) to pass to
 * cap_tracer_unlock, or CAP_LOCK_INHERITED when the holder is one of our
 * ancestors (a test or script took it for us), or a negative br_code with
 * "another capture (pid N, NAME) is using the tracer" in err. */
#define CAP_LOCK_INHERITED (1 << 20)
int cap_tracer_lock(br_error *err);
void cap_tracer_unlock(int fd);

#endif
