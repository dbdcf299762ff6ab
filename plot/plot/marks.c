/* IO marks into the density grid, with the trace's pid and device slots. */
#include "marks.h"

#include <stdio.h>

/* Slot of a pid in the trace's small table (255 = other). */
static uint8_t pid_slot(plot_trace *t, uint32_t pid, const char *comm, unsigned *last)
{
	if (*last < t->dens.npids && t->pids[*last] == pid)
		return (uint8_t)*last;
	for (unsigned i = 0; i < t->dens.npids; i++)
		if (t->pids[i] == pid) {
			*last = i;
			return (uint8_t)i;
		}
	if (t->dens.npids >= DENSITY_MAX_PIDS)
		return DENSITY_MAX_PIDS;
	unsigned i = t->dens.npids++;
	t->pids[i] = pid;
	snprintf(t->comms[i], sizeof(t->comms[i]), "%s", comm ? comm : "");
	*last = i;
	return (uint8_t)i;
}

/* Slot of a device in the trace's table (DENSITY_MAX_DEVS - 1 = other). */
static uint8_t dev_slot(plot_trace *t, uint32_t dev)
{
	for (unsigned i = 0; i < t->ndevs; i++)
		if (t->devs[i] == dev)
			return (uint8_t)i;
	if (t->ndevs >= DENSITY_MAX_DEVS)
		return DENSITY_MAX_DEVS - 1;
	t->devs[t->ndevs] = dev;
	return (uint8_t)t->ndevs++;
}

int plot_marks_add(plot_marks *m, const br_event *evs, int n, br_error *err)
{
	const plot_opts *o = m->o;
	plot_trace *t = m->t;
	for (int i = 0; i < n; i++) {
		const br_event *ev = &evs[i];
		if (br_event_is_notify(ev) || !ev->bytes)
			continue;
		uint64_t rel = ev->time - m->start;
		if (o->has_x && (rel < o->x0 || rel > o->x1))
			continue;
		unsigned code = br_event_code(ev);
		if (code != __BLK_TA_QUEUE && code != __BLK_TA_ISSUE && code != __BLK_TA_COMPLETE)
			continue;
		if (o->has_dev && !br_event_on_device(ev, o->dev))
			continue;
		int kind = code == __BLK_TA_COMPLETE ? BR_KIND_C
			   : code == __BLK_TA_ISSUE  ? BR_KIND_D
						     : BR_KIND_Q;
		/* once a better kind shows up the lesser ones need not be binned */
		if (kind < m->best_kind)
			continue;
		m->best_kind = kind;
		uint8_t pid = o->by_process ? pid_slot(t, ev->pid, ev->comm, &m->last_pid) : 0;
		if (density_add(&t->dens, ev->time, ev->sector, kind, br_stats_sdir(ev), pid,
				dev_slot(t, ev->device)))
			return br_error_set(err, BR_ENOMEM, 0, t->path, -1, "out of memory");
	}
	return 0;
}

int plot_marks_finish(plot_marks *m, br_error *err)
{
	if (density_finish(&m->t->dens))
		return br_error_set(err, BR_ENOMEM, 0, m->t->path, -1, "out of memory");
	return 0;
}
