/* One trace's headline numbers, computed once from the shared statistics. */
#include "summary_row.h"

#include <stdio.h>
#include <string.h>

void trace_row_of(const plot_trace *t, trace_row *r)
{
	const br_stats_totals *s = t->tot;
	double span = s->events ? (double)(s->last_ns - s->first_ns) / 1e9 : 0;
	r->runtime_s = span;
	r->ios = (double)(s->ios[0] + s->ios[1] + s->ios[2]);
	r->mb = (double)(s->bytes[BR_DIR_READ] + s->bytes[BR_DIR_WRITE]) / 1e6; /* data moved */
	r->mbps = span > 0 ? r->mb / span : 0;
	r->iops = span > 0 ? r->ios / span : 0;
	r->seeks_ps = span > 0 ? (double)s->seeks / span : 0;
	r->d2c50 = s->d2c.count ? (double)br_hist_quantile(&s->d2c, 0.5) : -1;
	r->d2c99 = s->d2c.count ? (double)br_hist_quantile(&s->d2c, 0.99) : -1;
	r->q2c50 = s->q2c.count ? (double)br_hist_quantile(&s->q2c, 0.5) : -1;
	r->q2c99 = s->q2c.count ? (double)br_hist_quantile(&s->q2c, 0.99) : -1;
}

void format_latency(double ns, char *buf, size_t n)
{
	if (ns < 0)
		snprintf(buf, n, "\xe2\x80\x93");
	else if (ns < 1e6)
		snprintf(buf, n, "%.0f \xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.*f ms", ns < 1e7 ? 2 : 1, ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", ns / 1e9);
}

void trace_row_text(const plot_trace *t, char *buf, size_t n)
{
	trace_row r;
	trace_row_of(t, &r);
	char a[24], b[24], c[24], d[24];
	format_latency(r.d2c50, a, sizeof(a));
	format_latency(r.d2c99, b, sizeof(b));
	format_latency(r.q2c50, c, sizeof(c));
	format_latency(r.q2c99, d, sizeof(d));
	const br_stats_totals *s = t->tot;
	snprintf(buf, n,
		 "%s (%s): run time %.6f s, %.0f IOs (%s events), %.3f MB, %.3f MB/s, %.1f IO/s, "
		 "%.1f seeks/s, D2C p50 %s p99 %s, Q2C p50 %s p99 %s, in flight max %u avg %.2f, "
		 "never completed %llu (%llu left out of in flight), never issued %llu",
		 t->label, t->path, r.runtime_s, r.ios, br_stats_kind_name(s->io_kind), r.mb, r.mbps,
		 r.iops, r.seeks_ps, a, b, c, d, s->inflight_max, s->inflight_avg,
		 (unsigned long long)s->never_completed, (unsigned long long)s->lost_ios,
		 (unsigned long long)s->never_issued);
	size_t used = strlen(buf);
	if (s->completed_untimed && used < n) /* only a capture that counted unrecorded completions */
		snprintf(buf + used, n - used, ", completed untimed %llu", (unsigned long long)s->completed_untimed);
}
