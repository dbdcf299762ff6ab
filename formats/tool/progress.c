#include "tool/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool/clock.h"

void tool_progress_init(tool_progress *p, int fd, bool enable, const char *label)
{
	memset(p, 0, sizeof *p);
	p->fd = (enable && isatty(fd)) ? fd : -1;
	p->start_ns = p->last_ns = tool_now_ns();
	p->countdown = 65536;
	p->label = label ? label : "";
}

void tool_progress_draw(tool_progress *p, uint64_t events, const char *extra, bool force)
{
	if (p->fd < 0)
		return;
	uint64_t now = tool_now_ns();
	if (!force && now - p->last_ns < 200000000ull)
		return;
	p->last_ns = now;
	double elapsed = (double)(now - p->start_ns) / 1e9;
	double rate = elapsed > 0 ? (double)events / elapsed : 0;
	char line[256];
	int n = snprintf(line, sizeof line, "\r%s%s%llu events, %.2f M events/s, %.1f s%s%s\033[K",
			 p->label, *p->label ? ": " : "", (unsigned long long)events, rate / 1e6,
			 elapsed, extra ? ", " : "", extra ? extra : "");
	if (n > 0 && write(p->fd, line, (size_t)n) > 0)
		p->drawn = true;
}

void tool_progress_done(tool_progress *p)
{
	if (p->fd >= 0 && p->drawn && write(p->fd, "\r\033[K", 4) < 0)
		p->drawn = false;
	p->drawn = false;
}
