/* blkparse's end-of-run summary, printed from the counters of
 * text_stats.c through text.c's output buffer (show_device_and_cpu_stats
 * and dump_io_stats in blkparse). The top of the text files: text.c never
 * calls it. Summary-only code, so stdio formatting is fine here. */
#include "text_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string for the summary text. */
typedef struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void sb_str(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* %'<width>llu: grouped by thousands when the en_US locale exists. */
static void sb_num(sbuf *b, const br_text *t, uint64_t v, int width)
{
	char digits[24], out[64];
	int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
	size_t seplen = strlen(t->thousep);
	size_t o = 0;
	for (int i = 0; i < n; i++) {
		if (seplen && i > 0 && (n - i) % 3 == 0) {
			memcpy(out + o, t->thousep, seplen);
			o += seplen;
		}
		out[o++] = digits[i];
	}
	for (int pad = width - (int)o; pad > 0; pad--)
		sb_add(b, " ", 1);
	sb_add(b, out, o);
}

/* blkparse's size_cnv: at most ~6 digits, then K/M/G/P (starting one step
 * up for KiB values); no suffix character at all for plain counts. */
static void sb_size(sbuf *b, const br_text *t, uint64_t num, bool in_kb)
{
	static const char suff[] = { 0, 'K', 'M', 'G', 'P' };
	unsigned i = in_kb ? 1 : 0;
	while (num > 1000 * 1000ULL && i < sizeof suff - 1) {
		i++;
		num /= 1000;
	}
	sb_num(b, t, num, 8);
	if (suff[i])
		sb_add(b, &suff[i], 1);
}

static void sb_count_kb(sbuf *b, const br_text *t, const char *label, uint64_t n,
			uint64_t kb, uint64_t bytes, const char *end)
{
	sb_str(b, label);
	sb_size(b, t, n, false);
	sb_str(b, ", ");
	sb_size(b, t, kb + (bytes >> 10), true);
	sb_str(b, "iB");
	sb_str(b, end);
}

static void sb_count(sbuf *b, const br_text *t, const char *label, uint64_t n, const char *end)
{
	sb_str(b, label);
	sb_size(b, t, n, false);
	sb_str(b, end);
}

/* blkparse's dump_io_stats; d is given for per-CPU blocks (depth lines). */
static void dump_io_stats(sbuf *b, const br_text *t, const br_dev_stats *d,
			  const br_io_stats *s, const char *title)
{
	sb_str(b, title);
	sb_str(b, "\n");
	sb_count_kb(b, t, " Reads Queued:    ", s->q[0], s->q_kb[0], s->q_b[0], "\t");
	sb_count_kb(b, t, " Writes Queued:    ", s->q[1], s->q_kb[1], s->q_b[1], "\n");
	sb_count_kb(b, t, " Read Dispatches: ", s->i[0], s->i_kb[0], s->i_b[0], "\t");
	sb_count_kb(b, t, " Write Dispatches: ", s->i[1], s->i_kb[1], s->i_b[1], "\n");
	sb_count(b, t, " Reads Requeued:  ", s->rq[0], "\t\t");
	sb_count(b, t, " Writes Requeued:  ", s->rq[1], "\n");
	sb_count_kb(b, t, " Reads Completed: ", s->c[0], s->c_kb[0], s->c_b[0], "\t");
	sb_count_kb(b, t, " Writes Completed: ", s->c[1], s->c_kb[1], s->c_b[1], "\n");
	sb_count_kb(b, t, " Read Merges:     ", s->m[0], s->m_kb[0], s->m_b[0], "\t");
	sb_count_kb(b, t, " Write Merges:     ", s->m[1], s->m_kb[1], s->m_b[1], "\n");
	if (d) {
		sb_str(b, " Read depth:      ");
		sb_num(b, t, d->max_depth[0], 8);
		sb_str(b, "        \t Write depth:      ");
		sb_num(b, t, d->max_depth[1], 8);
		sb_str(b, "\n");
	}
	if (s->q_pc[0] || s->q_pc[1] || s->i_pc[0] || s->i_pc[1] || s->rq_pc[0] ||
	    s->rq_pc[1] || s->c_pc[0] || s->c_pc[1]) {
		sb_count_kb(b, t, " PC Reads Queued: ", s->q_pc[0], s->q_kb_pc[0], s->q_b_pc[0], "\t");
		sb_count_kb(b, t, " PC Writes Queued: ", s->q_pc[1], s->q_kb_pc[1], s->q_b_pc[1], "\n");
		sb_count_kb(b, t, " PC Read Disp.:   ", s->i_pc[0], s->i_kb_pc[0], s->i_b_pc[0], "\t");
		sb_count_kb(b, t, " PC Write Disp.:   ", s->i_pc[1], s->i_kb_pc[1], s->i_b_pc[1], "\n");
		sb_count(b, t, " PC Reads Req.:   ", s->rq_pc[0], "\t\t");
		sb_count(b, t, " PC Writes Req.:   ", s->rq_pc[1], "\n");
		sb_count(b, t, " PC Reads Compl.: ", s->c_pc[0], "\t\t");
		sb_count(b, t, " PC Writes Compl.: ", s->c_pc[1], "\n");
	}
	sb_str(b, " IO unplugs:      ");
	sb_num(b, t, s->io_unplugs, 8);
	sb_str(b, "        \t Timer unplugs:    ");
	sb_num(b, t, s->timer_unplugs, 8);
	sb_str(b, "\n");
}

static void add_stats(br_io_stats *to, const br_io_stats *from)
{
	/* every field is a uint64_t counter */
	uint64_t *a = (uint64_t *)to;
	const uint64_t *f = (const uint64_t *)from;
	for (size_t k = 0; k < sizeof *to / sizeof(uint64_t); k++)
		a[k] += f[k];
}

static int cmp_cpu(const void *a, const void *b)
{
	uint32_t x = (*(br_cpu_stats *const *)a)->cpu, y = (*(br_cpu_stats *const *)b)->cpu;
	return x < y ? -1 : x > y;
}

static void dump_device(sbuf *b, const br_text *t, br_dev_stats *d)
{
	/* blkparse's buffer sizes, so long set names are cut where it cuts
	 * them: 31 characters in titles, 46 per title, 47 in "Events". */
	char name[32], title[47], evname[48];
	if (t->label)
		snprintf(evname, sizeof evname, "%s", t->label);
	else
		snprintf(evname, sizeof evname, "%u,%u", BR_DEV_MAJOR(d->dev), BR_DEV_MINOR(d->dev));
	size_t nl = strnlen(evname, sizeof name - 1);
	memcpy(name, evname, nl);
	name[nl] = 0;
	br_io_stats total;
	memset(&total, 0, sizeof total);
	int shown = 0;

	/* CPUs print by number; the dense index refers to positions, so sort
	 * a copy. */
	br_cpu_stats **cpus = malloc((d->ncpus ? d->ncpus : 1) * sizeof *cpus);
	if (!cpus) {
		b->oom = true;
		return;
	}
	memcpy(cpus, d->cpus, d->ncpus * sizeof *cpus);
	qsort(cpus, d->ncpus, sizeof *cpus, cmp_cpu);
	uint64_t skips = 0, seq_skips = 0;
	for (size_t j = 0; j < d->ncpus; j++) {
		br_cpu_stats *c = cpus[j];
		for (size_t k = 0; k < c->nskips; k++) {
			skips++;
			seq_skips += c->skips[k].end - c->skips[k].start + 1;
		}
		if (!c->nelems)
			continue;
		add_stats(&total, &c->io);
		snprintf(title, sizeof title, "CPU%d (%s):", (int)c->cpu, name);
		dump_io_stats(b, t, d, &c->io, title);
		shown++;
	}
	free(cpus);
	if (shown > 1) {
		snprintf(title, sizeof title, "Total (%s):", name);
		sb_str(b, "\n");
		dump_io_stats(b, t, NULL, &total, title);
	}

	uint64_t rrate = 0, wrate = 0;
	uint64_t msec = (d->last_time - d->first_time) / 1000000;
	if (msec) {
		rrate = (1000 * total.c_kb[0] + total.c_b[0]) / msec;
		wrate = (1000 * total.c_kb[1] + total.c_b[1]) / msec;
	}
	sb_str(b, "\nThroughput (R/W): ");
	sb_num(b, t, rrate, 0);
	sb_str(b, "KiB/s / ");
	sb_num(b, t, wrate, 0);
	sb_str(b, "KiB/s\nEvents (");
	sb_str(b, evname);
	sb_str(b, "): ");
	sb_num(b, t, d->events, 0);
	sb_str(b, " entries\nSkips: ");
	sb_num(b, t, skips, 0);
	sb_str(b, " forward (");
	sb_num(b, t, seq_skips, 0);
	double ratio = 0.0;
	if (skips || d->events)
		ratio = 100.0 * ((double)seq_skips / (double)(d->events + seq_skips));
	char pct[32];
	snprintf(pct, sizeof pct, " - %5.1f%%)\n", ratio);
	sb_str(b, pct);
}

int br_text_summary(br_text *t, br_error *err)
{
	sbuf b = { 0 };
	for (size_t i = 0; i < t->ndevs; i++) {
		if (i > 0)
			sb_str(&b, "\n");
		dump_device(&b, t, t->devs[i]);
	}
	if (b.oom) {
		free(b.p);
		return br_error_set(err, BR_ENOMEM, 0, t->fd_name, -1, "out of memory");
	}
	int rc = 0;
	if (b.len) {
		rc = br_text_reserve(t, b.len, err);
		if (!rc) {
			memcpy(t->buf + t->len, b.p, b.len);
			t->len += b.len;
		}
	}
	free(b.p);
	return rc;
}
