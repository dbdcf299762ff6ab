/* sweep_internal.h — the parts of a sweep (blkreel/sweep.h). */
#ifndef BLKREEL_SWEEP_INTERNAL_H
#define BLKREEL_SWEEP_INTERNAL_H

#include "blkreel/sweep.h"

/* The knee and the limit of one stack whose points and steps are filled
 * (sweep_limit.c). param names the parameter in the evidence. */
void sweep_judge(br_sweep_stack *st, const char *param);

#endif
