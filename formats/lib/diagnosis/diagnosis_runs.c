/* Repeated runs pooled into one profile whose slices are the runs
 * (br_diag_pool_runs), and the identity's factors of a profile for
 * callers outside the library (blkreel/diagnosis.h). */
#include "diagnosis_internal.h"

#include <string.h>

void br_diag_factors_of(const br_diag_profile *p, br_diag_factors *f)
{
	diag_factors(p, f);
}

/* One run as one slice: its totals, as a time slice holds its part. */
static br_diag_slice run_slice(const br_diag_profile *p)
{
	return (br_diag_slice){
		.span = (double)p->span_ns, .busy = (double)p->busy_ns, .area = p->area,
		.bytes = (double)p->bytes, .n = (double)p->n, .d2c = p->d2c_data,
		.q2c = p->q2c_sum, .nq2c = (double)p->q2c_bios,
		.app = (double)(p->q_bytes > p->q_bytes_kernel ? p->q_bytes - p->q_bytes_kernel : 0),
	};
}

int br_diag_pool_runs(const br_diag_profile *const *runs, size_t n, br_diag_profile *out, br_error *err)
{
	if (n < 1 || n > BR_DIAG_SLICES)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "%zu runs: 1 to %d can be pooled", n,
				    BR_DIAG_SLICES);
	memset(out, 0, sizeof *out);
	uint64_t ender_best = 0;
	for (size_t i = 0; i < n; i++) {
		const br_diag_profile *p = runs[i];
		out->span_ns += p->span_ns;
		out->busy_ns += p->busy_ns;
		out->area += p->area;
		out->idle_held_ns += p->idle_held_ns;
		out->idle_flush_ns += p->idle_flush_ns;
		out->idle_host_ns += p->idle_host_ns;
		out->idle_gaps += p->idle_gaps;
		out->idle_gaps_chained += p->idle_gaps_chained;
		if (p->gap_ender_n > ender_best) {
			ender_best = p->gap_ender_n;
			memcpy(out->gap_ender, p->gap_ender, sizeof out->gap_ender);
		}
		out->pending_busy_area += p->pending_busy_area;
		out->x_bytes += p->x_bytes;
		out->bytes += p->bytes;
		out->n += p->n;
		out->read_bytes += p->read_bytes;
		out->write_bytes += p->write_bytes;
		out->d2c_data += p->d2c_data;
		out->d2c_flush += p->d2c_flush;
		out->n_flush += p->n_flush;
		out->n_fua += p->n_fua;
		out->depth_at_flush_sum += p->depth_at_flush_sum;
		out->q_bios += p->q_bios;
		out->q_bytes += p->q_bytes;
		out->ra_bios += p->ra_bios;
		out->ra_bytes += p->ra_bytes;
		out->q_bytes_kernel += p->q_bytes_kernel;
		out->kern_n += p->kern_n;
		out->kern_bytes += p->kern_bytes;
		out->merges += p->merges;
		out->splits += p->splits;
		out->requeues += p->requeues;
		out->lost_ios += p->lost_ios;
		out->refused_bios += p->refused_bios;
		out->refused_bytes += p->refused_bytes;
		if (p->devices > out->devices)
			out->devices = p->devices;
		for (size_t k = 0; k < BR_DIAG_CLASSES; k++) {
			out->cls[k].n += p->cls[k].n;
			out->cls[k].d2c_sum += p->cls[k].d2c_sum;
			out->cls[k].q2c_n += p->cls[k].q2c_n;
			out->cls[k].q2c_sum += p->cls[k].q2c_sum;
		}
		for (size_t k = 0; k < BR_DP_COUNT; k++) {
			out->phase_sum[k] += p->phase_sum[k];
			out->phase_n[k] += p->phase_n[k];
		}
		out->q2c_bios += p->q2c_bios;
		out->q2c_sum += p->q2c_sum;
		out->slice[i] = run_slice(p);
	}
	/* the gap ender's count is over the runs it ended most gaps in */
	out->gap_ender_n = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(runs[i]->gap_ender, out->gap_ender) == 0)
			out->gap_ender_n += runs[i]->gap_ender_n;
	out->nslices = n;
	out->runs = true;
	return 0;
}
