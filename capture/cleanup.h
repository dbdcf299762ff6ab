/* cleanup.h — blkreel-capture --cleanup: put back what captures that are
 * no longer running left behind (kernel state, unfinished capture files). */
#ifndef BLKREEL_CAPTURE_CLEANUP_H
#define BLKREEL_CAPTURE_CLEANUP_H

/* Returns the exit code: 0 when everything was put back (or nothing was
 * left), 1 after saying what could not be. */
int capture_cleanup(void);

#endif
