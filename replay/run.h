/* run.h — one replay from options to report; returns the exit status. */
#ifndef REPLAY_RUN_H
#define REPLAY_RUN_H

#include "cli.h"

int replay_run(const replay_opts *o);

#endif
