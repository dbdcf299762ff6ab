/* The |t| a difference over repeated runs must reach (br_diag_t_needed):
 * with 3 rounds a side, Welch's t has 2 to 4 degrees of freedom, and a
 * fixed bar of 3 lets through 4-10 % of differences that are only noise
 * (the same target replayed against itself was "diagnosed" in 1 run of 10).
 * Student's t quantile is found by bisection on its tail, computed from the
 * regularized incomplete beta function (its continued fraction evaluated
 * by the modified Lentz method). */
#include "diagnosis_internal.h"

#include <math.h>

#define LENTZ_TINY 1e-300
#define LENTZ_EPS 1e-14
#define LENTZ_MAX_TERMS 400

static double lentz_guard(double v)
{
	return fabs(v) < LENTZ_TINY ? LENTZ_TINY : v;
}

/* The continued fraction of I_x(a, b), converging for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	double c = 1, d = 1 / lentz_guard(1 - (a + b) * x / (a + 1)), h = d;
	for (int m = 1; m <= LENTZ_MAX_TERMS; m++) {
		double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 / lentz_guard(1 + even * d);
		c = lentz_guard(1 + even / c);
		h *= d * c;
		double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 / lentz_guard(1 + odd * d);
		c = lentz_guard(1 + odd / c);
		double step = d * c;
		h *= step;
		if (fabs(step - 1) < LENTZ_EPS)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double incomplete_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double br_diag_t_two_tailed(double t, double df)
{
	if (!(df > 0))
		return NAN;
	return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double br_diag_t_needed(double df, double alpha)
{
	if (!(df >= 1))
		df = 1; /* Welch's df is at least the smaller side's n - 1; below 1 only when a side has no spread */
	double lo = 0, hi = 1e6;
	for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (br_diag_t_two_tailed(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi > BR_DIAG_T_MIN ? hi : BR_DIAG_T_MIN;
}
