/* ab.h — blkreel-replay --ab: one trace replayed in rounds onto two targets
 * (A B B A A B ...), each replay captured in-process, then the diagnosis
 * of A against B with the rounds as the unit of variance. */
#ifndef REPLAY_AB_H
#define REPLAY_AB_H

struct replay_opts;

/* The exit status: 0 done (report written), 1 a runtime failure or an
 * interruption (the rounds done stay in the folder), 2 a usage error. */
int ab_run(const struct replay_opts *o);

#endif
