/* Numbers for people: latencies, counts with three significant digits,
 * device names. */
#include "report.h"

#include <math.h>
#include <stdio.h>

char *report_ms(double ns, char *buf, size_t size)
{
	double ms = ns / 1e6;
	if (ms >= 1000.0)
		snprintf(buf, size, "%.2f s", ms / 1000.0);
	else if (ms >= 100.0)
		snprintf(buf, size, "%.0f ms", ms);
	else if (ms >= 10.0)
		snprintf(buf, size, "%.1f ms", ms);
	else if (ms >= 0.1 || ms == 0.0)
		snprintf(buf, size, "%.3f ms", ms);
	else
		snprintf(buf, size, "%.1f us", ns / 1e3);
	return buf;
}

char *report_num(double v, char *buf, size_t size)
{
	double a = fabs(v);
	if (a == 0.0 || a >= 100.0)
		snprintf(buf, size, "%.0f", v);
	else if (a >= 10.0)
		snprintf(buf, size, "%.1f", v);
	else if (a >= 1.0)
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.3g", v);
	return buf;
}

const char *report_dev(uint32_t dev, char *buf, size_t size)
{
	snprintf(buf, size, "%u,%u", BR_DEV_MAJOR(dev), BR_DEV_MINOR(dev));
	return buf;
}

double report_bytes_total(const uint64_t b[BR_STATS_DIRS])
{
	return (double)(b[0] + b[1] + b[2]);
}

double report_ios_total(const uint64_t n[BR_STATS_DIRS])
{
	return (double)(n[0] + n[1] + n[2]);
}
