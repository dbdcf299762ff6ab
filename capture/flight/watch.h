/* watch.h — the flight recorder's trigger rules (--trigger-on), evaluated
 * on the capture's events:
 *   d2c>TIME      a request's completion came TIME or more after its issue
 *   q2c>TIME      ... after it was queued
 *   inflight>N    more than N requests issued and not completed
 *   idle>TIME     no IO event for TIME (seen when IO resumes)
 * Events come in time order but for a few (a bpf CPU's record read before
 * older ones of its stage): requests are matched by device and sector, their
 * events in any order (a completion seen first waits for its issue). A
 * request whose completion is never seen (lost, or the device's) stops
 * counting once STALE_NS old. */
#ifndef BLKREEL_CAPTURE_FLIGHT_WATCH_H
#define BLKREEL_CAPTURE_FLIGHT_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkreel/event.h"

typedef enum { WATCH_D2C, WATCH_Q2C, WATCH_INFLIGHT, WATCH_IDLE } watch_kind;

typedef struct watch_rule {
	watch_kind kind;
	uint64_t limit;  /* ns, or requests for inflight */
	char text[48];   /* as given: d2c>50ms */
} watch_rule;

/* "d2c>50ms" → rule; -1 when it is not one (see the list above). */
int watch_rule_parse(const char *text, watch_rule *out);

typedef struct watch watch;

/* NULL when out of memory. rules are copied. */
watch *watch_new(const watch_rule *rules, size_t n);
void watch_free(watch *w);

/* What made a rule fire. */
typedef struct watch_hit {
	const watch_rule *rule;
	uint64_t time;     /* trace time the rule became true */
	uint64_t value;    /* the latency (ns), the requests in flight, the gap (ns) */
	uint32_t device;
	uint64_t sector;
} watch_hit;

/* One event of the merged stream; true when a rule fired (the first rule
 * in the order given, when several do). */
bool watch_event(watch *w, const br_event *ev, watch_hit *hit);

/* The actions the rules read (bits 1 << __BLK_TA_*; 0 = every one, as
 * idle> reads): a rule sees the same whether or not the others are
 * handed to it. */
uint32_t watch_actions(const watch *w);

/* Requests issued and not completed now. */
size_t watch_inflight(const watch *w);

/* hit as a phrase: "d2c 73.2 ms on 7,0 sector 1234". */
void watch_hit_text(const watch_hit *hit, char *buf, size_t size);

#endif
