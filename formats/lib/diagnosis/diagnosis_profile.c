/* The diagnosis profile of one trace (blkreel/diagnosis.h), fed by the
 * report's analysis from the one pairing engine: busy time as the union
 * of the completed requests' D→C intervals (so an IO that never completes
 * is never "in flight"), idle time by what the block layer held, the
 * service time of each IO class, the sizes queued and merged, and the
 * same per time slice for the significance test. */
#include "diagnosis_internal.h"
#include "blkreel/analysis.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define FIRST_WIDTH 1000000ull    /* 1 ms */
#define CHAINED_NS 100000ull      /* a Q this soon after the last C waited for it */
#define NEAR_SECTORS 2048ull      /* 1 MiB: a short seek */

void diag_init(diag_acc *d)
{
	memset(d, 0, sizeof(*d));
	d->width = FIRST_WIDTH;
}

static void coarsen(diag_acc *d)
{
	size_t n = (d->nfine + 1) / 2;
	for (size_t k = 0; k < n; k++) {
		br_diag_slice acc = d->fine[2 * k];
		if (2 * k + 1 < d->nfine) {
			const br_diag_slice *x = &d->fine[2 * k + 1];
			acc.span += x->span;
			acc.busy += x->busy;
			acc.area += x->area;
			acc.bytes += x->bytes;
			acc.n += x->n;
			acc.d2c += x->d2c;
			acc.q2c += x->q2c;
			acc.nq2c += x->nq2c;
			acc.app += x->app;
		}
		d->fine[k] = acc;
	}
	memset(&d->fine[n], 0, (DIAG_FINE - n) * sizeof(br_diag_slice));
	d->nfine = n;
	d->width *= 2;
}

static size_t slice_at(diag_acc *d, uint64_t t)
{
	uint64_t rel = t > d->origin ? t - d->origin : 0;
	while (rel / d->width >= DIAG_FINE)
		coarsen(d);
	size_t k = (size_t)(rel / d->width);
	if (k >= d->nfine)
		d->nfine = k + 1;
	return k;
}

/* Spread [from, to) over the slices it covers: field += weight * overlap. */
static void spread(diag_acc *d, uint64_t from, uint64_t to, size_t field, double weight)
{
	if (to <= from)
		return;
	slice_at(d, to); /* coarsen first: indices below stay valid */
	while (from < to) {
		size_t k = slice_at(d, from);
		uint64_t end = d->origin + (k + 1) * d->width;
		uint64_t seg = (to < end ? to : end) - from;
		double *f = (double *)((char *)&d->fine[k] + field);
		*f += weight * (double)seg;
		from += seg;
	}
}

/* The union of D→C intervals: completions come in time order, so a new
 * interval [d, c) swallows the latest stretches it overlaps; stretches
 * older than DIAG_RUNS are final and go to the slices. */
static void busy_commit(diag_acc *d, uint64_t lo, uint64_t hi)
{
	d->p.busy_ns += hi - lo;
	spread(d, lo, hi, offsetof(br_diag_slice, busy), 1.0);
}

static void busy_add(diag_acc *d, uint64_t lo, uint64_t hi)
{
	if (lo < d->runs_floor)
		lo = d->runs_floor;
	if (hi <= lo)
		return;
	while (d->nruns) {
		diag_run *r = &d->runs[(d->run0 + d->nruns - 1) % DIAG_RUNS];
		if (r->hi < lo)
			break;
		if (r->lo < lo)
			lo = r->lo;
		if (r->hi > hi)
			hi = r->hi;
		d->nruns--;
	}
	if (d->nruns == DIAG_RUNS) {
		diag_run *old = &d->runs[d->run0];
		busy_commit(d, old->lo, old->hi);
		d->runs_floor = old->hi;
		d->run0 = (d->run0 + 1) % DIAG_RUNS;
		d->nruns--;
		if (lo < d->runs_floor)
			lo = d->runs_floor;
	}
	d->runs[(d->run0 + d->nruns) % DIAG_RUNS] = (diag_run){ lo, hi };
	d->nruns++;
}

static bool kernel_thread(const char *comm)
{
	static const char *const prefixes[] = {
		"kworker", "jbd2", "xfsaild", "btrfs-", "kswapd", "flush-", "writeback", "md", "dm",
	};
	if (!comm)
		return false;
	for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++)
		if (!strncmp(comm, prefixes[k], strlen(prefixes[k])))
			return true;
	return false;
}

/* Names are interned by the reader (one pointer per name): a few slots,
 * the least counted one reused when full. */
static void count_ender(diag_acc *d, const char *comm)
{
	if (!comm)
		return;
	size_t n = sizeof d->enders / sizeof d->enders[0], low = 0;
	for (size_t k = 0; k < n; k++) {
		if (d->enders[k].comm == comm) {
			d->enders[k].n++;
			return;
		}
		if (d->enders[k].n < d->enders[low].n)
			low = k;
	}
	d->enders[low].comm = comm;
	d->enders[low].n = 1;
}

static size_t queued_slot(uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (DIAG_QUEUED_BY - 1);
}

void diag_event(diag_acc *d, const br_stats *s, const br_event *ev)
{
	uint64_t t = ev->time;
	if (!d->started) {
		d->started = true;
		d->origin = d->last_t = t;
		d->runs_floor = t;
	}
	if (t > d->last_t) {
		/* the state between the previous event and this one */
		uint64_t dt = t - d->last_t;
		/* as the events say now, less the IOs already known lost */
		uint32_t raw = s->raw_inflight;
		uint32_t inflight = raw > s->lost_open ? raw - s->lost_open : 0;
		uint32_t waiting = raw + s->stale_pending;
		uint32_t pending = s->pt.live > waiting ? s->pt.live - waiting : 0;
		if (!inflight) {
			if (pending)
				d->p.idle_held_ns += dt;
			else if (d->last_c_flush)
				d->p.idle_flush_ns += dt;
			else
				d->gap_host_ns += dt; /* booked by what ends the gap */
		} else {
			d->p.pending_busy_area += (double)pending * (double)dt;
		}
		d->last_t = t;
	}
	unsigned code = br_event_code(ev);
	if (code == __BLK_TA_QUEUE && d->gap_host_ns) {
		/* the host was idle with nothing queued and then queued a
		 * flush: that gap is the flush's own submission path (an
		 * fsync entering the kernel after the write it waited for),
		 * time the device would not have sat idle without it */
		if (br_event_is_flush(ev))
			d->p.idle_flush_ns += d->gap_host_ns;
		else
			d->p.idle_host_ns += d->gap_host_ns;
		d->gap_host_ns = 0;
	}
	if (code == __BLK_TA_QUEUE && ev->bytes) {
		if (s->raw_inflight <= s->lost_open && s->pt.live <= s->raw_inflight + s->stale_pending &&
		    d->gap_open) {
			d->p.idle_gaps++;
			if (t - d->last_c <= CHAINED_NS)
				d->p.idle_gaps_chained++;
			count_ender(d, ev->comm);
			d->gap_open = false;
		}
		d->p.q_bios++;
		d->p.q_bytes += ev->bytes;
		if (ev->action & BLK_TC_ACT(BLK_TC_AHEAD)) {
			d->p.ra_bios++;
			d->p.ra_bytes += ev->bytes;
		}
		if (ev->comm != d->kcomm || !d->kcomm) { /* names are interned: one per pid */
			d->kcomm = ev->comm;
			d->kcomm_kernel = kernel_thread(ev->comm);
		}
		if (d->kcomm_kernel)
			d->p.q_bytes_kernel += ev->bytes;
		else
			d->fine[slice_at(d, t)].app += (double)ev->bytes;
		size_t slot = queued_slot(ev->device, ev->sector);
		d->queued_by[slot].sector = ev->sector;
		d->queued_by[slot].dev = ev->device;
		d->queued_by[slot].used = true;
		d->queued_by[slot].kernel = d->kcomm_kernel;
	} else if (code == __BLK_TA_BACKMERGE || code == __BLK_TA_FRONTMERGE) {
		d->p.merges++;
	} else if (code == __BLK_TA_SPLIT) {
		d->p.splits++;
	} else if (code == __BLK_TA_REQUEUE) {
		d->p.requeues++;
	} else if (code == __BLK_TA_ISSUE && !ev->bytes && br_event_is_flush(ev)) {
		d->p.depth_at_flush_sum += s->raw_inflight > s->lost_open ? s->raw_inflight - s->lost_open : 0;
	}
}

static diag_dev *dev_of(diag_acc *d, uint32_t dev)
{
	for (size_t k = 0; k < d->ndevs; k++)
		if (d->devs[k].dev == dev)
			return &d->devs[k];
	if (d->ndevs == sizeof d->devs / sizeof d->devs[0])
		return &d->devs[d->ndevs - 1]; /* many devices: share the last slot */
	diag_dev *x = &d->devs[d->ndevs++];
	x->dev = dev;
	return x;
}

void diag_issued(diag_acc *d, br_stats *s, const br_event *ev)
{
	if (!ev->bytes)
		return;
	uint64_t sec = ev->sector;
	uint32_t i = s->last_issued;
	diag_dev *x = dev_of(d, ev->device);
	unsigned seek = 0;
	if (x->seen) {
		uint64_t dist = sec > x->last_end ? sec - x->last_end : x->last_end - sec;
		seek = dist <= s->opts.seek_sectors ? 0 : dist <= NEAR_SECTORS ? 1 : 2;
	}
	x->seen = true;
	x->last_end = sec + (ev->bytes >> 9);
	if (i < s->pt.used && (s->pt.r[i].flags & RQ_D) && s->pt.r[i].start == sec)
		s->pt.r[i].aux = seek + 1;
}

static unsigned size_class(uint64_t bytes)
{
	return bytes <= 4096 ? 0 : bytes <= 16384 ? 1 : bytes <= 65536 ? 2 : bytes <= 262144 ? 3 : 4;
}

void diag_refused(diag_acc *d, const pair_table *t, uint32_t i, const br_event *ev)
{
	const pair_req *r = &t->r[i];
	uint64_t bytes = ev->bytes;
	if (d->p.q_bios)
		d->p.q_bios--;
	d->p.q_bytes -= bytes < d->p.q_bytes ? bytes : d->p.q_bytes;
	size_t slot = queued_slot(r->dev, r->start);
	bool kernel = d->queued_by[slot].used && d->queued_by[slot].kernel &&
		      d->queued_by[slot].sector == r->start && d->queued_by[slot].dev == r->dev;
	if (kernel) {
		d->p.q_bytes_kernel -= bytes < d->p.q_bytes_kernel ? bytes : d->p.q_bytes_kernel;
	} else if (r->flags & RQ_Q) {
		br_diag_slice *sl = &d->fine[slice_at(d, r->q)];
		sl->app = sl->app > (double)bytes ? sl->app - (double)bytes : 0;
	}
}

void diag_complete(diag_acc *d, const br_stats *s, const pair_table *t, uint32_t i,
		   const br_event *ev)
{
	const pair_req *r = &t->r[i];
	uint64_t c = ev->time;
	d->last_c = c;
	d->gap_open = true;
	bool empty = r->end == r->start;
	/* an fsync's own bio completes, empty, right after the flush it
	 * issued (C FN 0, then C WS 0): the device stays idle after a flush */
	if (!empty || (r->flags & RQ_FLUSH))
		d->last_c_flush = empty && (r->flags & RQ_FLUSH);
	double q2c = s->done_q2c_sum, nq = (double)s->done_q2c_n;
	if (nq) {
		br_diag_slice *sq = &d->fine[slice_at(d, c)];
		sq->q2c += q2c;
		sq->nq2c += nq;
	}
	if (!(r->flags & RQ_D) || (r->flags & RQ_LOST))
		return; /* a lost IO completing late is not in flight here either */
	uint64_t from = r->d < c ? r->d : c;
	double d2c = (double)(c - from);
	busy_add(d, from, c);
	d->p.area += d2c;
	spread(d, from, c, offsetof(br_diag_slice, area), 1.0);
	if (empty) {
		d->p.n_flush++;
		d->p.d2c_flush += d2c;
		return;
	}
	uint64_t bytes = (r->end - r->start) << 9;
	d->p.n++;
	d->p.bytes += bytes;
	size_t slot = queued_slot(r->dev, r->start);
	if (d->queued_by[slot].used && d->queued_by[slot].kernel && d->queued_by[slot].sector == r->start &&
	    d->queued_by[slot].dev == r->dev) {
		d->p.kern_n++;
		d->p.kern_bytes += bytes;
	}
	d->p.d2c_data += d2c;
	bool write = br_event_is_write(ev);
	if (write)
		d->p.write_bytes += bytes;
	else
		d->p.read_bytes += bytes;
	bool fua = ev->action & BLK_TC_ACT(BLK_TC_FUA);
	if (fua)
		d->p.n_fua++;
	bool sync = fua || (ev->action & BLK_TC_ACT(BLK_TC_SYNC));
	unsigned seek = r->aux ? r->aux - 1 : 0;
	unsigned k = (((write ? 1u : 0u) * BR_DIAG_SIZES + size_class(bytes)) * 2 + (sync ? 1u : 0u)) *
			     BR_DIAG_SEEKS + seek;
	d->p.cls[k].n++;
	d->p.cls[k].d2c_sum += d2c;
	d->p.cls[k].q2c_n += s->done_q2c_n;
	d->p.cls[k].q2c_sum += s->done_q2c_sum;
	br_diag_slice *sl = &d->fine[slice_at(d, c)];
	sl->bytes += (double)bytes;
	sl->n += 1;
	sl->d2c += d2c;
}

void diag_finish(diag_acc *d, const br_stats *s, const br_hist *phase)
{
	br_diag_profile *p = &d->p;
	const br_stats_totals *t = br_stats_get_totals(s);
	for (size_t k = 0; k < d->nruns; k++) {
		const diag_run *r = &d->runs[(d->run0 + k) % DIAG_RUNS];
		busy_commit(d, r->lo, r->hi);
	}
	d->nruns = 0;
	p->idle_host_ns += d->gap_host_ns; /* a gap the trace ends in */
	d->gap_host_ns = 0;
	p->span_ns = t->last_ns > t->first_ns ? t->last_ns - t->first_ns : 0;
	p->lost_ios = t->lost_ios;
	p->refused_bios = t->refused_bios;
	p->refused_bytes = t->refused_bytes;
	p->devices = (uint32_t)t->ndevices;
	p->x_bytes = t->bytes[0] + t->bytes[1] + t->bytes[2];
	/* per bio, as btt weighs them: the phases a bio's Q2C is made of */
	static const enum br_phase map[BR_DP_COUNT] = {
		BR_PHASE_Q2G, BR_PHASE_G2I, BR_PHASE_Q2M, BR_PHASE_I2D, BR_PHASE_M2D, BR_PHASE_D2C,
	};
	for (int k = 0; k < BR_DP_COUNT; k++) {
		p->phase_sum[k] = phase[map[k]].sum;
		p->phase_n[k] = phase[map[k]].count;
	}
	p->q2c_sum = phase[BR_PHASE_Q2C].sum;
	p->q2c_bios = phase[BR_PHASE_Q2C].count;
	size_t top = 0;
	for (size_t k = 1; k < sizeof d->enders / sizeof d->enders[0]; k++)
		if (d->enders[k].n > d->enders[top].n)
			top = k;
	if (d->enders[top].comm) {
		snprintf(p->gap_ender, sizeof p->gap_ender, "%s", d->enders[top].comm);
		p->gap_ender_n = d->enders[top].n;
	}
	/* each fine slice's span: its part of [first, last event] */
	for (size_t k = 0; k < d->nfine; k++) {
		uint64_t lo = d->origin + k * d->width, hi = lo + d->width;
		if (hi > d->last_t)
			hi = d->last_t;
		d->fine[k].span = hi > lo ? (double)(hi - lo) : 0;
	}
	/* fold the fine slices into BR_DIAG_SLICES equal ones (fewer on
	 * short traces: at least two fine slices each) */
	size_t nf = d->nfine, ns = nf / 2 < BR_DIAG_SLICES ? nf / 2 : BR_DIAG_SLICES;
	memset(p->slice, 0, sizeof(p->slice));
	p->nslices = ns;
	for (size_t k = 0; ns && k < nf; k++) {
		size_t g = k * ns / nf;
		br_diag_slice *o = &p->slice[g];
		const br_diag_slice *x = &d->fine[k];
		o->span += x->span;
		o->busy += x->busy;
		o->area += x->area;
		o->bytes += x->bytes;
		o->n += x->n;
		o->d2c += x->d2c;
		o->q2c += x->q2c;
		o->nq2c += x->nq2c;
		o->app += x->app;
	}
}
