/* tool/progress.h — the one-line live status long work shows on a terminal
 * ("events, rate, elapsed"), and nothing at all when stderr is not a TTY.
 * Updates are rate-limited, so calling it per event is cheap. */
#ifndef BLKREEL_TOOL_PROGRESS_H
#define BLKREEL_TOOL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tool_progress {
	int fd;                /* -1 when disabled */
	uint64_t start_ns, last_ns;
	uint32_t countdown;    /* calls until the clock is looked at again */
	const char *label;
	bool drawn;
} tool_progress;

/* Enabled only when fd is a terminal and enable is true. */
void tool_progress_init(tool_progress *p, int fd, bool enable, const char *label);

/* Call often; redraws at most ~5 times a second. extra may be NULL. */
static inline void tool_progress_tick(tool_progress *p, uint64_t events, const char *extra);
void tool_progress_draw(tool_progress *p, uint64_t events, const char *extra, bool force);

/* Erase the line. */
void tool_progress_done(tool_progress *p);

static inline void tool_progress_tick(tool_progress *p, uint64_t events, const char *extra)
{
	if (p->fd < 0 || --p->countdown)
		return;
	p->countdown = 65536;
	tool_progress_draw(p, events, extra, false);
}

#endif
