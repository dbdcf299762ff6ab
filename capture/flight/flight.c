#include "flight/flight.h"

#include <ctype.h>
#include <dirent.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "tool/clock.h"

#define MAX_PENDING 16
/* Events reach the sink up to its reorder window late: a trigger waits
 * this much wall time past its after-window before it is written (when
 * no event past the window says sooner that everything is in). */
#define SETTLE_NS (1000ull * 1000 * 1000)

typedef struct pending {
	uint64_t time;      /* trace time of the trigger */
	uint64_t deadline;  /* monotonic wall time by which the after-window is surely in */
	char why[256];
	unsigned more;      /* triggers within its window after it */
} pending;

struct cap_flight {
	cap_flight_opts o;
	char base[1040];
	watch *watch;
	pending q[MAX_PENDING];
	size_t nq;
	unsigned next_number, triggers, outputs;
	uint64_t first_time;
	bool any;
};

/* NAME.flight-NNNNN.blktrace.gz already there: the next number after them. */
static unsigned next_output_number(const char *base)
{
	char d1[1040], d2[1040], prefix[1100];
	snprintf(d1, sizeof d1, "%s", base);
	snprintf(d2, sizeof d2, "%s", base);
	const char *dir = dirname(d1);
	snprintf(prefix, sizeof prefix, "%s.flight-", basename(d2));
	size_t pl = strlen(prefix);
	unsigned highest = 0;
	DIR *d = opendir(dir);
	if (!d)
		return 1;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, prefix, pl) == 0 && isdigit((unsigned char)de->d_name[pl])) {
			unsigned n = (unsigned)strtoul(de->d_name + pl, NULL, 10);
			if (n > highest)
				highest = n;
		}
	closedir(d);
	return highest + 1;
}

int cap_flight_new(cap_flight **out, const cap_flight_opts *o, br_error *err)
{
	*out = NULL;
	cap_flight *f = calloc(1, sizeof *f);
	if (!f)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	f->o = *o;
	snprintf(f->base, sizeof f->base, "%s", o->base);
	f->o.base = f->base;
	if (o->nrules && !(f->watch = watch_new(o->rules, o->nrules))) {
		free(f);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	f->next_number = next_output_number(f->base);
	*out = f;
	return 0;
}

void cap_flight_free(cap_flight *f)
{
	if (!f)
		return;
	watch_free(f->watch);
	free(f);
}

static void output_path(const cap_flight *f, unsigned number, char *out, size_t size)
{
	snprintf(out, size, "%.1000s.flight-%05u.blktrace.gz", f->base, number);
}

static void trigger_at(cap_flight *f, uint64_t time, const char *why)
{
	f->triggers++;
	if (f->nq && time <= f->q[f->nq - 1].time + f->o.after_ns) {
		f->q[f->nq - 1].more++; /* inside the window of one pending: its file shows it */
		return;
	}
	if (f->nq == MAX_PENDING) {
		if (f->o.log)
			fprintf(f->o.log, "blkreel-capture: trigger %s ignored: %d already waiting for their window\n", why,
				MAX_PENDING);
		return;
	}
	pending *p = &f->q[f->nq++];
	p->time = time;
	p->deadline = tool_now_ns() + f->o.after_ns + SETTLE_NS;
	p->more = 0;
	snprintf(p->why, sizeof p->why, "%s", why);
	if (f->o.log) {
		char path[1100];
		output_path(f, f->next_number + (unsigned)f->nq - 1, path, sizeof path);
		fprintf(f->o.log, "blkreel-capture: trigger %s at %.3f s of the trace; %s follows in %.3g s\n", why,
			f->any && time >= f->first_time ? (double)(time - f->first_time) / 1e9 : 0.0, path,
			(double)f->o.after_ns / 1e9);
	}
}

void cap_flight_event(cap_flight *f, const br_event *ev)
{
	if (!f->any && !br_event_is_notify(ev)) {
		f->any = true;
		f->first_time = ev->time;
	}
	watch_hit hit;
	if (!f->watch || !watch_event(f->watch, ev, &hit))
		return;
	char what[128], why[256];
	watch_hit_text(&hit, what, sizeof what);
	snprintf(why, sizeof why, "%s (%s)", hit.rule->text, what);
	trigger_at(f, hit.time, why);
}

uint32_t cap_flight_actions(const cap_flight *f)
{
	return f->watch ? watch_actions(f->watch) : 0;
}

void cap_flight_seen(cap_flight *f, uint64_t time)
{
	if (!f->any) {
		f->any = true;
		f->first_time = time;
	}
}

void cap_flight_trigger(cap_flight *f, uint64_t now_ns, const char *why)
{
	trigger_at(f, now_ns, why);
}

/* The ring keeps what the oldest trigger waiting needs, however late its
 * window completes (a capture held off the CPU). */
static void hold(const cap_flight *f, cap_rotate *ring)
{
	uint64_t from = UINT64_MAX;
	if (f->nq)
		from = f->q[0].time > f->o.before_ns ? f->q[0].time - f->o.before_ns : 0;
	cap_rotate_hold(ring, from);
}

int cap_flight_poll(cap_flight *f, cap_sink *sink, cap_rotate *ring, uint64_t written_ns, bool end, br_error *err)
{
	uint64_t wall = tool_now_ns();
	while (f->nq) {
		pending *p = &f->q[0];
		if (!end && written_ns < p->time + f->o.after_ns && wall < p->deadline) {
			hold(f, ring);
			return 0;
		}
		/* the ring's file being written holds the window's end: it is
		 * closed first, so the output is made after it (at the end without
		 * a note: the capture's last drops note is in it already) */
		int rc = cap_sink_new_file(sink, !end, err);
		if (rc)
			return rc;
		char path[1100], note[600], more[64] = "";
		output_path(f, f->next_number++, path, sizeof path);
		if (p->more)
			snprintf(more, sizeof more, "; %u more trigger%s in the window after it", p->more, p->more == 1 ? "" : "s");
		snprintf(note, sizeof note,
			 "blkreel: flight trigger %s at trace time %llu ns; the %.3g s before it and %.3g s after%s", p->why,
			 (unsigned long long)p->time, (double)f->o.before_ns / 1e9, (double)f->o.after_ns / 1e9, more);
		uint64_t from = p->time > f->o.before_ns ? p->time - f->o.before_ns : 0;
		rc = cap_rotate_extract(ring, from, p->time + f->o.after_ns, path, note, p->time, err);
		if (rc)
			return rc;
		f->outputs++;
		memmove(f->q, f->q + 1, (f->nq - 1) * sizeof *f->q);
		f->nq--;
	}
	hold(f, ring);
	return 0;
}

unsigned cap_flight_triggers(const cap_flight *f)
{
	return f->triggers;
}

unsigned cap_flight_outputs(const cap_flight *f)
{
	return f->outputs;
}
