/* The numbers behind a diagnosis: the factors of MB/s = U · N_busy · S / R
 * for a trace and for each of its time slices, the Welch t of a factor
 * between two traces over their slices, and the Kitagawa–Oaxaca split of
 * a change in mean service time (or Q2C) into mix and rate
 * (blkreel/diagnosis.h). */
#include "diagnosis_internal.h"

#include <math.h>

void diag_factors(const br_diag_profile *p, diag_fac *f)
{
	double span = (double)p->span_ns, busy = (double)p->busy_ns, n = (double)p->n;
	f->x = span > 0 ? (double)p->x_bytes / span * 1e3 : 0;   /* MB/s = bytes/ns * 1e3 */
	f->u = span > 0 ? busy / span : 0;
	f->nbusy = busy > 0 ? p->area / busy : 0;
	f->s = n > 0 ? (double)p->bytes / n : 0;
	f->r = n > 0 ? p->area / n : 0;
	/* ln X − (ln U + ln N + ln S − ln R) = ln(all completed bytes / paired bytes) */
	f->residual = f->x > 0 && f->u > 0 && f->nbusy > 0 && f->s > 0 && f->r > 0
		? log(f->x / 1e3) - (log(f->u) + log(f->nbusy) + log(f->s) - log(f->r)) : 0;
	f->q2c = p->q2c_bios ? p->q2c_sum / (double)p->q2c_bios : 0;
	double app = (double)(p->q_bytes > p->q_bytes_kernel ? p->q_bytes - p->q_bytes_kernel : 0);
	/* work is what processes queued; when journal and writeback threads
	 * queue nearly everything (buffered IO) it cannot be told apart */
	bool known = app >= DIAG_MIN_APP * (double)p->x_bytes && app > 0;
	f->w = known && span > 0 ? app / span * 1e3 : 0;
	f->amp = known ? (double)p->x_bytes / app : 0;
}

/* ln of metric m in slice k; false when undefined there. */
static bool slice_value(const br_diag_slice *sl, int m, double *v)
{
	double x;
	switch (m) {
	case DIAG_M_X: x = sl->span > 0 ? sl->bytes / sl->span : 0; break;
	case DIAG_M_U: x = sl->span > 0 ? sl->busy / sl->span : 0; break;
	case DIAG_M_N: x = sl->busy > 0 ? sl->area / sl->busy : 0; break;
	case DIAG_M_S: x = sl->n > 0 ? sl->bytes / sl->n : 0; break;
	case DIAG_M_R: x = sl->n > 0 && sl->area > 0 ? sl->n / sl->area : 0; break; /* 1/R */
	case DIAG_M_Q2C: x = sl->nq2c > 0 ? sl->q2c / sl->nq2c : 0; break;
	case DIAG_M_W: x = sl->span > 0 ? sl->app / sl->span : 0; break;
	case DIAG_M_AMP: x = sl->app > 0 ? sl->app / sl->bytes : 0; break; /* 1/amp */
	default: return false;
	}
	if (!(x > 0))
		return false;
	*v = log(x);
	return true;
}

/* The mean of metric m over the slices and the variance of that mean.
 * Slices next to each other are not independent (a cache warming, a
 * neighbour's burst, writeback spanning several): the variance of the
 * mean is taken with the slices' autocovariance up to NW_LAGS apart
 * (Newey–West, Bartlett weights), and never below the independent
 * slices' s²/n, so drift within a trace widens the interval and never
 * narrows it. */
#define NW_LAGS 2

static void moments(const br_diag_profile *p, int m, double *mean, double *var_mean, size_t *n)
{
	double v[BR_DIAG_SLICES], sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < p->nslices && k < BR_DIAG_SLICES; i++)
		if (slice_value(&p->slice[i], m, &v[k])) {
			sum += v[k];
			k++;
		}
	*n = k;
	*mean = k ? sum / (double)k : 0;
	*var_mean = 0;
	if (k < 2)
		return;
	double gamma[NW_LAGS + 1] = { 0 };
	for (size_t lag = 0; lag <= NW_LAGS && lag < k; lag++) {
		for (size_t i = lag; i < k; i++)
			gamma[lag] += (v[i] - *mean) * (v[i - lag] - *mean);
		gamma[lag] /= (double)k;
	}
	double lrv = gamma[0];
	for (size_t lag = 1; lag <= NW_LAGS && lag < k; lag++)
		lrv += 2.0 * (1.0 - (double)lag / (NW_LAGS + 1)) * gamma[lag];
	double iid = gamma[0] * (double)k / (double)(k - 1); /* the sample variance */
	/* runs are independent by design: their order says nothing */
	*var_mean = (p->runs || lrv < iid ? iid : lrv) / (double)k;
}

double diag_welch(const br_diag_profile *a, const br_diag_profile *b, int m)
{
	double ma, va, mb, vb;
	size_t na, nb;
	moments(a, m, &ma, &va, &na);
	moments(b, m, &mb, &vb, &nb);
	if (na < 3 || nb < 3)
		return 0; /* too few slices to tell noise from a difference */
	double se = sqrt(va + vb);
	double d = ma - mb;
	if (se <= 0)
		return fabs(d) > 1e-9 ? copysign(INFINITY, d) : 0;
	return d / se;
}

double diag_t_need(const br_diag_profile *a, const br_diag_profile *b, int m, double alpha)
{
	if (!a->runs || !b->runs)
		return BR_DIAG_T_MIN; /* time slices: 16 a side, their df is large */
	double ma, va, mb, vb;
	size_t na, nb;
	moments(a, m, &ma, &va, &na);
	moments(b, m, &mb, &vb, &nb);
	if (na < 2 || nb < 2)
		return BR_DIAG_T_MIN; /* diag_welch gives 0 then */
	double den = va * va / (double)(na - 1) + vb * vb / (double)(nb - 1);
	double df = den > 0 ? (va + vb) * (va + vb) / den : (double)(na + nb - 2);
	return br_diag_t_needed(df, alpha);
}

/* Kitagawa–Oaxaca over a grouping of the IO classes: group(k) maps a
 * class to its group (< ngroups). Δ = mean_w − mean_b = mix + rate with
 * mix = Σ Δp_g (r_w,g + r_b,g)/2 and rate = Σ Δr_g (p_w,g + p_b,g)/2; a
 * group one trace lacks takes the other's rate (no rate effect there). */
static void class_of(const br_diag_class *c, bool q2c, double *n, double *sum)
{
	*n = q2c ? (double)c->q2c_n : (double)c->n;
	*sum = q2c ? c->q2c_sum : c->d2c_sum;
}

static void ko(const br_diag_profile *w, const br_diag_profile *b, unsigned (*group)(unsigned),
	       unsigned ngroups, bool q2c, double *mix, double *rate)
{
	double nw[BR_DIAG_CLASSES] = { 0 }, sw[BR_DIAG_CLASSES] = { 0 };
	double nb[BR_DIAG_CLASSES] = { 0 }, sb[BR_DIAG_CLASSES] = { 0 };
	double tw = 0, tb = 0;
	for (unsigned k = 0; k < BR_DIAG_CLASSES; k++) {
		unsigned g = group(k);
		double n, sum;
		class_of(&w->cls[k], q2c, &n, &sum);
		nw[g] += n;
		sw[g] += sum;
		tw += n;
		class_of(&b->cls[k], q2c, &n, &sum);
		nb[g] += n;
		sb[g] += sum;
		tb += n;
	}
	*mix = *rate = 0;
	if (tw <= 0 || tb <= 0)
		return;
	for (unsigned g = 0; g < ngroups; g++) {
		if (!nw[g] && !nb[g])
			continue;
		double pw = nw[g] / tw, pb = nb[g] / tb;
		double rw = nw[g] ? sw[g] / nw[g] : sb[g] / nb[g];
		double rb = nb[g] ? sb[g] / nb[g] : rw;
		*mix += (pw - pb) * (rw + rb) / 2;
		*rate += (rw - rb) * (pw + pb) / 2;
	}
}

static unsigned g_all(unsigned k) { return k; }
static unsigned g_seek(unsigned k) { return k % BR_DIAG_SEEKS; }
/* size and direction (with sync/FUA): everything but the seek */
static unsigned g_size(unsigned k) { return k / BR_DIAG_SEEKS; }

void diag_ko(const br_diag_profile *w, const br_diag_profile *b, diag_ko_out *o)
{
	double rate;
	ko(w, b, g_all, BR_DIAG_CLASSES, false, &o->mix, &o->rate);
	ko(w, b, g_seek, BR_DIAG_SEEKS, false, &o->mix_seek, &rate);
	ko(w, b, g_size, BR_DIAG_CLASSES / BR_DIAG_SEEKS, false, &o->mix_size, &rate);
	ko(w, b, g_all, BR_DIAG_CLASSES, true, &o->q2c_mix, &o->q2c_rate);
}
