/* blkreel/progress.h — the one-line live status long work shows on a
 * terminal ("events, rate, elapsed"), and nothing at all when stderr is
 * not a TTY. Updates are rate-limited, so calling it per event is cheap. */
#ifndef BLKREEL_PROGRESS_H
#define BLKREEL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct br_progress {
	int fd;                /* -1 when disabled */
	uint64_t start_ns, last_ns;
	uint32_t countdown;    /* calls until the clock is looked at again */
	const char *label;
	bool drawn;
} br_progress;

/* Enabled only when fd is a terminal and enable is true. */
void br_progress_init(br_progress *p, int fd, bool enable, const char *label);

/* Call often; redraws at most ~5 times a second. extra may be NULL. */
static inline void br_progress_tick(br_progress *p, uint64_t events, const char *extra);
void br_progress_draw(br_progress *p, uint64_t events, const char *extra, bool force);

/* Erase the line. */
void br_progress_done(br_progress *p);

static inline void br_progress_tick(br_progress *p, uint64_t events, const char *extra)
{
	if (p->fd < 0 || --p->countdown)
		return;
	p->countdown = 65536;
	br_progress_draw(p, events, extra, false);
}

#endif
