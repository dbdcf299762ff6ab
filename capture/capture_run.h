/* capture_run.h — one capture from start to end; returns the exit code. */
#ifndef BLKREEL_CAPTURE_RUN_H
#define BLKREEL_CAPTURE_RUN_H

#include "capture_cli.h"

/* 0, 1 (runtime failure or drops), the command's status, or 128+signal. */
int capture_run(const capture_cli *cli);

#endif
