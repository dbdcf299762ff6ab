#include "clock.h"

#include <errno.h>
#include <sys/prctl.h>

int clock_min_slack(void)
{
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0)
		return -errno;
	return 0;
}

uint64_t clock_wait_until(uint64_t target, uint64_t spin_ns)
{
	uint64_t now = tool_now_ns();
	if (now + spin_ns < target) {
		uint64_t wake = target - spin_ns;
		struct timespec ts = { .tv_sec = (time_t)(wake / 1000000000ull),
				       .tv_nsec = (long)(wake % 1000000000ull) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = tool_now_ns();
	}
	while (now < target) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		now = tool_now_ns();
	}
	return now;
}
