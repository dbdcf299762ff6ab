/* Round ticks (1-2-5 steps) and compact labels. */
#include "axes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double nice_ceil(double v)
{
	if (!(v > 0))
		return 1;
	double e = pow(10, floor(log10(v)));
	static const double m[] = { 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
	for (int i = 0; i < 11; i++)
		if (m[i] * e >= v * (1 - 1e-9))
			return m[i] * e;
	return 10 * e;
}

static double step_for(double span, int maxn)
{
	double raw = span / (maxn > 1 ? maxn - 1 : 1);
	double e = pow(10, floor(log10(raw)));
	static const double m[] = { 1, 2, 5, 10 };
	for (int i = 0; i < 4; i++)
		if (m[i] * e >= raw * (1 - 1e-9))
			return m[i] * e;
	return 10 * e;
}

void nice_ticks(double lo, double hi, int maxn, ticks *t)
{
	memset(t, 0, sizeof(*t));
	if (maxn < 2)
		maxn = 2;
	if (maxn > TICKS_MAX)
		maxn = TICKS_MAX;
	if (!(hi > lo))
		hi = lo + 1;
	double step = step_for(hi - lo, maxn);
	double first = ceil(lo / step - 1e-9) * step;
	for (double v = first; v <= hi + step * 1e-9 && t->n < TICKS_MAX; v += step)
		t->v[t->n++] = fabs(v) < step * 1e-9 ? 0 : v;
	t->step = step;
	int dec = 0;
	double s = step;
	while (dec < 9 && fabs(s - round(s)) > 1e-9 * (s > 1 ? s : 1)) {
		s *= 10;
		dec++;
	}
	t->decimals = dec;
}

void tick_label(double v, int decimals, char *buf, size_t n)
{
	double a = fabs(v);
	if (a >= 1e6 && decimals == 0) {
		double m = v / 1e6;
		snprintf(buf, n, fabs(m - round(m)) < 1e-9 ? "%.0fM" : "%.1fM", m);
	} else if (a >= 1e4 && decimals == 0) {
		double k = v / 1e3;
		snprintf(buf, n, fabs(k - round(k)) < 1e-9 ? "%.0fk" : "%.1fk", k);
	} else {
		snprintf(buf, n, "%.*f", decimals, v);
	}
}

void time_unit(double span_ns, double *div, const char **name)
{
	if (span_ns >= 2e9) {
		*div = 1e9;
		*name = "s";
	} else if (span_ns >= 2e6) {
		*div = 1e6;
		*name = "ms";
	} else {
		*div = 1e3;
		*name = "\xc2\xb5s";
	}
}

void format_width(double ns, char *buf, size_t n)
{
	if (ns >= 1e9)
		snprintf(buf, n, "%g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, n, "%g ms", ns / 1e6);
	else
		snprintf(buf, n, "%g \xc2\xb5s", ns / 1e3);
}

void offset_unit(double max_mb, double *div, const char **name)
{
	if (max_mb >= 1e7) {
		*div = 1e6;
		*name = "TB";
	} else if (max_mb >= 1e4) {
		*div = 1e3;
		*name = "GB";
	} else {
		*div = 1;
		*name = "MB";
	}
}
