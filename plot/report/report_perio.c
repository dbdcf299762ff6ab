/* --per-io: one line per completed bio, like btt -p, with times in ns
 * from the trace's first event; written as the trace is read. */
#include "report.h"

#include <stdio.h>

int report_perio_header(FILE *f)
{
	return fputs("label\tdevice\tpid\tsector\tsectors\tq_ns\tg_ns\ti_ns\tm_ns\td_ns\tc_ns\tq2c_ns\td2c_ns\n",
		     f) < 0 ? -1 : 0;
}

static long long rel(uint64_t t, uint64_t origin)
{
	return t ? (long long)(t - origin) : -1;
}

int report_perio_bio(void *arg, const br_analysis_bio *b)
{
	const report_perio *p = arg;
	char dev[32];
	int n = fprintf(p->f, "%s\t%s\t%u\t%llu\t%llu\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%llu\t%lld\n",
			p->label, report_dev(b->device, dev, sizeof dev), b->pid,
			(unsigned long long)b->sector, (unsigned long long)b->sectors,
			rel(b->q_ns, p->origin), rel(b->g_ns, p->origin), rel(b->i_ns, p->origin),
			rel(b->m_ns, p->origin), rel(b->d_ns, p->origin), rel(b->c_ns, p->origin),
			(unsigned long long)(b->c_ns - b->q_ns),
			b->d_ns ? (long long)(b->c_ns - b->d_ns) : -1);
	return n < 0 ? BR_ESYS : 0;
}
