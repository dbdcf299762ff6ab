#include "blkreel/summary.h"
#include "common/grow.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct br_summary {
	uint64_t events, notify;
	uint64_t first, last;
	bool any;
	br_device_summary *devs;
	size_t ndevs, capdevs;
	size_t last_dev;       /* cache: index of the device seen last */
	br_process_summary *procs;
	size_t nprocs, capprocs;
	size_t *proc_index;    /* open-addressing hash of pid → procs index + 1 */
	size_t proc_index_cap;
	bool sorted;
};

br_summary *br_summary_new(void)
{
	return calloc(1, sizeof(br_summary));
}

void br_summary_free(br_summary *s)
{
	if (!s)
		return;
	free(s->devs);
	free(s->procs);
	free(s->proc_index);
	free(s);
}

enum br_dir br_event_dir(const br_event *ev)
{
	/* The kernel marks a flush with the read bit (REQ_OP_FLUSH is not a
	 * write op); an empty flush moves no data and is no read. */
	if (br_event_is_flush(ev) && ev->bytes == 0)
		return BR_DIR_OTHER;
	if (br_event_is_discard(ev))
		return BR_DIR_DISCARD;
	if (br_event_is_write(ev))
		return BR_DIR_WRITE;
	if (ev->action & BLK_TC_ACT(BLK_TC_READ))
		return BR_DIR_READ;
	return BR_DIR_OTHER;
}

static br_device_summary *device_for(br_summary *s, uint32_t device)
{
	if (s->ndevs && s->devs[s->last_dev].device == device)
		return &s->devs[s->last_dev];
	for (size_t i = 0; i < s->ndevs; i++)
		if (s->devs[i].device == device) {
			s->last_dev = i;
			return &s->devs[i];
		}
	if (s->ndevs == s->capdevs) {
		br_device_summary *d = br_grow(s->devs, &s->capdevs, s->ndevs + 1, sizeof *d, 4);
		if (!d)
			return NULL;
		s->devs = d;
	}
	br_device_summary *d = &s->devs[s->ndevs];
	memset(d, 0, sizeof *d);
	d->device = device;
	s->last_dev = s->ndevs++;
	s->sorted = false;
	return d;
}

static size_t pid_hash(uint32_t pid, size_t cap)
{
	return (size_t)(pid * 2654435761u) & (cap - 1);
}

static int rehash(br_summary *s, size_t cap)
{
	size_t *idx = calloc(cap, sizeof *idx);
	if (!idx)
		return BR_ENOMEM;
	for (size_t i = 0; i < s->nprocs; i++) {
		size_t j = pid_hash(s->procs[i].pid, cap);
		while (idx[j])
			j = (j + 1) & (cap - 1);
		idx[j] = i + 1;
	}
	free(s->proc_index);
	s->proc_index = idx;
	s->proc_index_cap = cap;
	return 0;
}

static br_process_summary *process_for(br_summary *s, uint32_t pid)
{
	if (s->proc_index_cap == 0 || (s->nprocs + 1) * 2 > s->proc_index_cap) {
		if (rehash(s, s->proc_index_cap ? s->proc_index_cap * 2 : 64))
			return NULL;
	}
	size_t j = pid_hash(pid, s->proc_index_cap);
	while (s->proc_index[j]) {
		br_process_summary *p = &s->procs[s->proc_index[j] - 1];
		if (p->pid == pid)
			return p;
		j = (j + 1) & (s->proc_index_cap - 1);
	}
	if (s->nprocs == s->capprocs) {
		br_process_summary *p = br_grow(s->procs, &s->capprocs, s->nprocs + 1, sizeof *p, 32);
		if (!p)
			return NULL;
		s->procs = p;
	}
	br_process_summary *p = &s->procs[s->nprocs];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	s->proc_index[j] = ++s->nprocs;
	s->sorted = false;
	return p;
}

int br_summary_add(br_summary *s, const br_event *ev)
{
	s->events++;
	if (br_event_is_notify(ev)) {
		s->notify++;
		return 0;
	}
	if (!s->any || ev->time < s->first)
		s->first = ev->time;
	if (!s->any || ev->time > s->last)
		s->last = ev->time;
	s->any = true;
	br_device_summary *d = device_for(s, ev->device);
	if (!d)
		return BR_ENOMEM;
	if (!d->events || ev->time < d->first_time)
		d->first_time = ev->time;
	if (ev->time > d->last_time)
		d->last_time = ev->time;
	d->events++;
	unsigned code = br_event_code(ev);
	if (code < BR_ACTION_CODES)
		d->by_action[code]++;
	enum br_dir dir = br_event_dir(ev);
	int stage = -1;
	switch (code) {
	case __BLK_TA_QUEUE: stage = BR_STAGE_QUEUE; break;
	case __BLK_TA_ISSUE: stage = BR_STAGE_ISSUE; break;
	case __BLK_TA_COMPLETE: stage = BR_STAGE_COMPLETE; break;
	}
	if (stage >= 0) {
		d->io[stage][dir].ios++;
		d->io[stage][dir].bytes += ev->bytes;
	}
	if (code == __BLK_TA_COMPLETE) {
		d->flushes += br_event_is_flush(ev);
		d->fua += (ev->action & BLK_TC_ACT(BLK_TC_FUA)) != 0;
		d->errors += ev->error != 0;
	}
	br_process_summary *p = process_for(s, ev->pid);
	if (!p)
		return BR_ENOMEM;
	p->events++;
	if (ev->comm)
		p->comm = ev->comm;
	if (code == __BLK_TA_QUEUE) {
		p->queued[dir].ios++;
		p->queued[dir].bytes += ev->bytes;
	}
	return 0;
}

static int cmp_dev(const void *a, const void *b)
{
	const br_device_summary *x = a, *y = b;
	return (x->device > y->device) - (x->device < y->device);
}

static int cmp_proc(const void *a, const void *b)
{
	const br_process_summary *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Sorting happens lazily when results are asked for; adding afterwards
 * still works because the pid index is rebuilt. */
static void sort_once(const br_summary *cs)
{
	br_summary *s = (br_summary *)cs;
	if (s->sorted)
		return;
	qsort(s->devs, s->ndevs, sizeof *s->devs, cmp_dev);
	qsort(s->procs, s->nprocs, sizeof *s->procs, cmp_proc);
	s->last_dev = 0;
	if (s->proc_index_cap)
		rehash(s, s->proc_index_cap);
	s->sorted = true;
}

uint64_t br_summary_events(const br_summary *s) { return s->events; }
uint64_t br_summary_notify_events(const br_summary *s) { return s->notify; }
uint64_t br_summary_first_time(const br_summary *s) { return s->first; }
uint64_t br_summary_last_time(const br_summary *s) { return s->last; }

size_t br_summary_ndevices(const br_summary *s)
{
	return s->ndevs;
}

const br_device_summary *br_summary_device(const br_summary *s, size_t i)
{
	sort_once(s);
	return i < s->ndevs ? &s->devs[i] : NULL;
}

size_t br_summary_nprocesses(const br_summary *s)
{
	return s->nprocs;
}

const br_process_summary *br_summary_process(const br_summary *s, size_t i)
{
	sort_once(s);
	return i < s->nprocs ? &s->procs[i] : NULL;
}
