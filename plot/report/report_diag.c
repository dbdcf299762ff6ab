/* The diagnosis of a comparison: which pair is diagnosed, and the lines
 * every output shows (text, Markdown, HTML; the JSON has its own array). */
#include <math.h>
#include <stdio.h>

#include "report.h"

int report_diagnose(report_ctx *ctx, br_error *err)
{
	if (ctx->n < 2)
		return 0;
	size_t a = 0, b = 1;
	if (ctx->n > 2) { /* the fastest against the slowest */
		a = ctx->cmp.tput_best;
		b = a ? 0 : 1;
		for (size_t k = 0; k < ctx->n; k++)
			if (ctx->d[k].res->mbps < ctx->d[b].res->mbps)
				b = k;
	}
	ctx->diag_idx[0] = a;
	ctx->diag_idx[1] = b;
	int rc = br_diagnose(ctx->d[a].res->profile, ctx->d[b].res->profile, ctx->d[a].trace->label,
			     ctx->d[b].trace->label, &ctx->diag, err);
	if (!rc) {
		ctx->has_diag = true;
		br_cmp_sort_by_diagnosis(&ctx->cmp, &ctx->diag);
	}
	return rc;
}

static const char *label(const report_ctx *ctx, size_t which)
{
	return ctx->d[ctx->diag_idx[which]].trace->label;
}

static void identity(const br_diagnosis *d, const char *better, const char *worse,
		     report_line_fn fn, void *arg)
{
	char line[768];
	char amp[160] = "";
	if (d->outcome == BR_OUTCOME_WORK)
		snprintf(amp, sizeof amp, "; per byte of work add %+.3f (amplification: %.2f vs %.2f device "
					  "bytes per application byte) = ln %.2fx",
			 d->amp_term, d->amp[1], d->amp[0], d->ratio);
	snprintf(line, sizeof line,
		 "device MB/s = U x N_busy x S / R: %s %.3g = %.3f x %.2f x %.1f KiB / %.3f ms; %s %.3g = %.3f x "
		 "%.2f x %.1f KiB / %.3f ms. ln %.2fx = %.3f = %+.3f (U) %+.3f (N_busy) %+.3f (S) %+.3f "
		 "(R) %+.3f (residual)%s; t over the slices: U %.1f, N_busy %.1f, S %.1f, R %.1f.",
		 better, d->x[0], d->u[0], d->nbusy[0], d->s[0] / 1024, d->r[0] / 1e6, worse, d->x[1],
		 d->u[1], d->nbusy[1], d->s[1] / 1024, d->r[1] / 1e6, d->x[1] > 0 ? d->x[0] / d->x[1] : 0,
		 d->mbps_total,
		 d->terms[0], d->terms[1], d->terms[2], d->terms[3], d->residual[0] - d->residual[1],
		 amp, d->t_factor[0], d->t_factor[1], d->t_factor[2], d->t_factor[3]);
	fn(arg, REPORT_DIAG_IDENTITY, line);
}

void report_diag_lines(const report_ctx *ctx, report_line_fn fn, void *arg)
{
	const br_diagnosis *d = &ctx->diag;
	char line[768];
	const char *better = label(ctx, d->better), *worse = label(ctx, d->worse);
	for (size_t k = 0; k < d->nnotes; k++)
		fn(arg, REPORT_DIAG_NOTE, d->notes[k]);
	if (d->outcome == BR_OUTCOME_NONE)
		return; /* the note says why */
	if (!d->significant && ctx->d[ctx->diag_idx[0]].res->profile->nslices < 3) {
		snprintf(line, sizeof line,
			 "No significant difference can be shown: the traces are too short to cut into "
			 "time slices (%s %.3g vs %s %.3g MB/s).",
			 better, d->x[0], worse, d->x[1]);
		fn(arg, REPORT_DIAG_HEAD, line);
		return;
	}
	if (!d->significant) {
		snprintf(line, sizeof line,
			 "No significant difference: %s %.3g vs %s %.3g MB/s (%.2fx, t = %.1f over %zu "
			 "time slices; a cause needs t >= %.1f and %.0f %% of the difference).",
			 better, d->x[0], worse, d->x[1], d->ratio, fabs(d->t_outcome),
			 ctx->d[ctx->diag_idx[0]].res->profile->nslices, BR_DIAG_T_MIN,
			 100 * BR_DIAG_MIN_SHARE);
		fn(arg, REPORT_DIAG_HEAD, line);
		identity(d, better, worse, fn, arg);
		return;
	}
	if (d->outcome == BR_OUTCOME_LATENCY)
		snprintf(line, sizeof line, "%s is slower per IO: mean Q2C %.3f ms vs %.3f ms (%.2fx, t = %.1f); "
					    "throughput does not differ significantly. Why:",
			 worse, d->q2c_mean[1] / 1e6, d->q2c_mean[0] / 1e6, d->ratio, d->t_outcome);
	else if (d->outcome == BR_OUTCOME_WORK)
		snprintf(line, sizeof line,
			 "%s is slower: its applications got %.2f MB/s through against %.2f (%s %.2fx, t = "
			 "%.1f over the time slices). Why:",
			 worse, d->w[1], d->w[0], better, d->ratio, fabs(d->t_outcome));
	else
		snprintf(line, sizeof line, "%s is slower: %.3g vs %.3g MB/s (%s %.2fx, t = %.1f). Why:",
			 worse, d->x[1], d->x[0], better, d->ratio, fabs(d->t_outcome));
	fn(arg, REPORT_DIAG_HEAD, line);
	for (size_t k = 0; k < d->ncauses; k++) {
		const br_diag_cause *c = &d->causes[k];
		snprintf(line, sizeof line, "%s (%s, %.0f %% of the difference): %s.",
			 br_diag_cause_name(c->cause), br_diag_factor_name(c->factor),
			 100 * c->share, c->evidence);
		fn(arg, REPORT_DIAG_CAUSE, line);
	}
	if (!d->ncauses && d->nunconfirmed)
		fn(arg, REPORT_DIAG_CAUSE, "no cause is confirmed by one run per side (see below).");
	else if (!d->ncauses)
		fn(arg, REPORT_DIAG_CAUSE, "no single cause reaches 5 % of the difference with significance.");
	if (d->nunconfirmed) {
		snprintf(line, sizeof line,
			 "Unconfirmed by one run per side (only a timing shift, within the %.1fx by which the same "
			 "job captured twice in a row can differ on one host; replaying both stacks in rounds, "
			 "blkreel-replay --ab, would confirm or refute it):",
			 BR_DIAG_RERUN_RATIO);
		fn(arg, REPORT_DIAG_AGAINST_HEAD, line);
		for (size_t k = 0; k < d->nunconfirmed; k++) {
			const br_diag_cause *c = &d->unconfirmed[k];
			snprintf(line, sizeof line, "%s (%s %.2fx, %.0f %% of the difference): %s.",
				 br_diag_cause_name(c->cause), br_diag_factor_name(c->factor), c->shift, 100 * c->share,
				 c->evidence);
			fn(arg, REPORT_DIAG_AGAINST, line);
		}
	}
	if (d->nagainst) {
		fn(arg, REPORT_DIAG_AGAINST_HEAD, "Against that:");
		for (size_t k = 0; k < d->nagainst; k++) {
			const br_diag_cause *c = &d->against[k];
			snprintf(line, sizeof line, "%s (%s, %.0f %% the other way): %s.",
				 br_diag_cause_name(c->cause), br_diag_factor_name(c->factor), 100 * c->share,
				 c->evidence);
			fn(arg, REPORT_DIAG_AGAINST, line);
		}
	}
	if (d->outcome != BR_OUTCOME_LATENCY) {
		identity(d, better, worse, fn, arg);
		return;
	}
	snprintf(line, sizeof line,
		 "mean Q2C %.1f us vs %.1f us: %+.1f us; by IO class (direction, size, FUA/sync, seek) "
		 "%+.1f us from the mix of classes, %+.1f us from their rates; by phase Q2G %+.1f, G2I "
		 "%+.1f, Q2M %+.1f, I2D %+.1f, M2D %+.1f, D2C %+.1f us (residual %+.1f us).",
		 d->q2c_mean[1] / 1e3, d->q2c_mean[0] / 1e3, (d->q2c_mean[1] - d->q2c_mean[0]) / 1e3,
		 d->ko_q2c_mix / 1e3, d->ko_q2c_rate / 1e3, d->phase_delta[BR_DP_Q2G] / 1e3,
		 d->phase_delta[BR_DP_G2I] / 1e3, d->phase_delta[BR_DP_Q2M] / 1e3,
		 d->phase_delta[BR_DP_I2D] / 1e3, d->phase_delta[BR_DP_M2D] / 1e3,
		 d->phase_delta[BR_DP_D2C] / 1e3, d->q2c_residual / 1e3);
	fn(arg, REPORT_DIAG_IDENTITY, line);
}
