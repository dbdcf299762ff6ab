/* tool/clock.h — the tools' one clock: CLOCK_MONOTONIC in nanoseconds, for
 * elapsed times, deadlines and rates (never a wall-clock date). */
#ifndef BLKREEL_TOOL_CLOCK_H
#define BLKREEL_TOOL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t tool_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static inline uint64_t tool_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return tool_ns(&ts);
}

#endif
