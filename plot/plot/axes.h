/* axes.h — round tick values and their labels. */
#ifndef BLKREEL_PLOT_AXES_H
#define BLKREEL_PLOT_AXES_H

#include <stddef.h>

#define TICKS_MAX 24

typedef struct ticks {
	double v[TICKS_MAX];
	int n;
	double step;
	int decimals;      /* digits after the point that the step needs */
} ticks;

/* The smallest 1-2-5 x 10^k value >= v (v > 0). */
double nice_ceil(double v);
/* Ticks at multiples of a 1-2-5 step inside [lo, hi], at most maxn. */
void nice_ticks(double lo, double hi, int maxn, ticks *t);
/* A tick label: "0.25", "40", "12k", "1.5M" (k/M for large values). */
void tick_label(double v, int decimals, char *buf, size_t n);

/* A time unit fitting a span in ns: divisor (ns per unit) and name. */
void time_unit(double span_ns, double *div, const char **name);
/* "1 s", "20 ms", "500 us" for a bucket width. */
void format_width(double ns, char *buf, size_t n);

/* Unit for offsets up to max_mb: MB, GB or TB (divisor from MB). */
void offset_unit(double max_mb, double *div, const char **name);

#endif
