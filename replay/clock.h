/* clock.h — the replay's wait that lands on an absolute target of the tools'
 * clock (tool_now_ns): sleep until shortly before it, then spin. */
#ifndef REPLAY_CLOCK_H
#define REPLAY_CLOCK_H

#include <stdint.h>

#include "tool/clock.h"

/* Ask for 1 ns timer slack for the calling thread (prctl); 0 or -errno. */
int clock_min_slack(void);

/* Return at or just after target: clock_nanosleep(ABSTIME) to
 * target - spin_ns, then spin. Returns the time it returned at. */
uint64_t clock_wait_until(uint64_t target, uint64_t spin_ns);

#endif
