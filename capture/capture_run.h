/* capture_run.h — one capture from start to end; returns the exit code. */
#ifndef BLKREEL_CAPTURE_RUN_H
#define BLKREEL_CAPTURE_RUN_H

#include "capture_cli.h"

/* 0 (also when a stop signal ended it), 1 (runtime failure or drops), or the
 * command's status. */
int capture_run(const capture_cli *cli);

#endif
