/* blkparse's end-of-run counters: per device and per CPU, kept while lines
 * are printed (text.c) and printed at the end (text_summary.c). The lowest
 * of the text files: it calls neither.
 *
 * Devices and CPUs are kept in blkparse's order: devices as first seen, CPUs
 * by number. Skips follow blkparse's pipe mode (`blkparse -i -`), the final
 * pass of its check_sequence(): a sequence number past the expected one
 * records the gap, one that falls inside a recorded gap shrinks or splits it
 * (with blkparse's split slip kept, so the counts agree). */
#include "text_impl.h"
#include "common/grow.h"

#include <stdlib.h>
#include <string.h>

br_dev_stats *br_text_stats_device(br_text *t, uint32_t dev, br_error *err)
{
	if (t->last_dev && t->last_dev->dev == dev)
		return t->last_dev;
	for (size_t i = 0; i < t->ndevs; i++)
		if (t->devs[i]->dev == dev)
			return t->last_dev = t->devs[i];
	if (t->ndevs == t->cap_devs) {
		br_dev_stats **nd = br_grow(t->devs, &t->cap_devs, t->ndevs + 1, sizeof *nd, 4);
		if (!nd)
			goto nomem;
		t->devs = nd;
	}
	br_dev_stats *d = calloc(1, sizeof *d);
	if (!d)
		goto nomem;
	d->dev = dev;
	for (size_t i = 0; i < BR_TEXT_DENSE_CPUS; i++)
		d->dense[i] = -1;
	t->devs[t->ndevs++] = d;
	return t->last_dev = d;
nomem:
	br_error_set(err, BR_ENOMEM, 0, t->fd_name, -1, "out of memory");
	return NULL;
}

br_cpu_stats *br_text_stats_cpu(br_dev_stats *d, uint32_t cpu, br_error *err)
{
	if (cpu < BR_TEXT_DENSE_CPUS) {
		if (d->dense[cpu] >= 0)
			return d->cpus[d->dense[cpu]];
	} else {
		/* Odd CPU numbers (damaged input) are rare: a scan is fine. */
		for (size_t i = 0; i < d->ncpus; i++)
			if (d->cpus[i]->cpu == cpu)
				return d->cpus[i];
	}
	if (d->ncpus == d->cap_cpus) {
		br_cpu_stats **nc = br_grow(d->cpus, &d->cap_cpus, d->ncpus + 1, sizeof *nc, 8);
		if (!nc)
			goto nomem;
		d->cpus = nc;
	}
	br_cpu_stats *c = calloc(1, sizeof *c);
	if (!c)
		goto nomem;
	c->cpu = cpu;
	c->last_seq = UINT64_MAX;
	if (cpu < BR_TEXT_DENSE_CPUS)
		d->dense[cpu] = (int32_t)d->ncpus;
	d->cpus[d->ncpus++] = c;
	return c;
nomem:
	br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	return NULL;
}

/* blkparse's insert_skip: extend a neighbouring gap (newest first), else
 * append a new one. */
static int insert_skip(br_cpu_stats *c, uint64_t start, uint64_t end, br_error *err)
{
	for (size_t k = c->nskips; k-- > 0;) {
		br_skip *s = &c->skips[k];
		if (end == s->start - 1) {
			s->start = start;
			return 0;
		} else if (start == s->end + 1) {
			s->end = end;
			return 0;
		}
	}
	if (c->nskips == c->cap_skips) {
		br_skip *ns = br_grow(c->skips, &c->cap_skips, c->nskips + 1, sizeof *ns, 4);
		if (!ns)
			return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
		c->skips = ns;
	}
	c->skips[c->nskips++] = (br_skip){ start, end };
	return 0;
}

int br_text_stats_sequence(br_cpu_stats *c, uint32_t seq, br_error *err)
{
	uint64_t expected = c->last_seq + 1;
	if (expected == 0 || seq == expected)
		return 0; /* the first event on a CPU is always accepted */
	/* blkparse's check_current_skips: a late arrival fills part of a gap. */
	for (size_t k = c->nskips; k-- > 0;) {
		br_skip *s = &c->skips[k];
		if (s->start <= seq && seq <= s->end) {
			if (s->start == seq) {
				if (s->end == seq) {
					memmove(s, s + 1, (c->nskips - k - 1) * sizeof *s);
					c->nskips--;
				} else {
					s->start++;
				}
			} else if (s->end == seq) {
				s->end--;
			} else {
				/* blkparse shrinks the gap first and then
				 * inserts (seq+1, seq-1), an empty range that
				 * counts as one skip of "length" -1. */
				s->end = seq - 1;
				return insert_skip(c, (uint64_t)seq + 1, s->end, err);
			}
			return 0;
		}
	}
	if (expected < seq)
		return insert_skip(c, expected, (uint64_t)seq - 1, err);
	return 0;
}

void br_text_stats_free(br_text *t)
{
	for (size_t i = 0; i < t->ndevs; i++) {
		br_dev_stats *d = t->devs[i];
		for (size_t j = 0; j < d->ncpus; j++) {
			free(d->cpus[j]->skips);
			free(d->cpus[j]);
		}
		free(d->cpus);
		free(d);
	}
	free(t->devs);
	t->devs = NULL;
	t->ndevs = t->cap_devs = 0;
	t->last_dev = NULL;
}
