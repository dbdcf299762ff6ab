/* spool.h — the replay reads its trace twice (a checking scan, then the
 * replay), so standard input is first copied to a temporary file. */
#ifndef REPLAY_SPOOL_H
#define REPLAY_SPOOL_H

#include <stddef.h>
#include "blkreel/error.h"

/* Copy standard input to a new temporary file; its path goes to path
 * (size bytes). 0 or a negative br_code. */
int spool_stdin(char *path, size_t size, br_error *err);

#endif
