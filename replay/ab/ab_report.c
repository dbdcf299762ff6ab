/* ab_report.c — the A/B run's report: the diagnosis first (A against B,
 * the rounds as the unit of variance), the detection floor, each metric's
 * rounds, each run's replay fidelity and capture. Text, Markdown and JSON
 * from the same numbers; each file goes to DIR/.NAME.tmp and is renamed into place,
 * so a report there is always whole. */
#include "ab_types.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/json.h"
#include "tool/html.h"

static const char *lab(const ab_ctx *c, size_t side)
{
	return c->label[side];
}

static size_t side_runs(const ab_ctx *c, int side)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nruns; i++)
		n += c->runs[i].done && c->runs[i].side == side;
	return n;
}

/* ---- text ---- */

static void diag_text(FILE *f, const ab_ctx *c)
{
	const br_diagnosis *d = &c->diag;
	const char *better = lab(c, d->better), *worse = lab(c, d->worse);
	size_t na = side_runs(c, 0), nb = side_runs(c, 1);
	for (size_t k = 0; k < d->nnotes; k++)
		fprintf(f, "Note: %s.\n", d->notes[k]);
	if (d->outcome == BR_OUTCOME_NONE) {
		fputs("Nothing to diagnose: a side's captures hold no completed request.\n", f);
		return;
	}
	if (!d->significant) {
		fprintf(f, "No significant difference between %s and %s over %zu vs %zu rounds: %.4g vs %.4g MB/s, "
			   "mean Q2C %.1f vs %.1f us (over these rounds a difference needs t >= %.1f, Student's "
			   "t at %.1f %% for their degrees of freedom; a cause of it needs Student's t at %.0f %% "
			   "and %.0f %% of it).\n",
			lab(c, 0), lab(c, 1), na, nb, d->x[d->better == 0 ? 0 : 1], d->x[d->better == 0 ? 1 : 0],
			(d->better == 0 ? d->q2c_mean[0] : d->q2c_mean[1]) / 1e3,
			(d->better == 0 ? d->q2c_mean[1] : d->q2c_mean[0]) / 1e3, d->t_need_outcome,
			100 * BR_DIAG_RUNS_ALPHA, 100 * BR_DIAG_RUNS_CAUSE_ALPHA, 100 * BR_DIAG_MIN_SHARE);
		return;
	}
	if (d->outcome == BR_OUTCOME_LATENCY)
		fprintf(f, "%s is slower per IO: mean Q2C %.1f us vs %.1f us (%.2fx, t = %.1f over %zu vs %zu "
			   "rounds); throughput does not differ significantly. Why:\n",
			worse, d->q2c_mean[1] / 1e3, d->q2c_mean[0] / 1e3, d->ratio, d->t_outcome, na, nb);
	else
		fprintf(f, "%s is slower: %.4g vs %.4g MB/s (%s %.2fx, t = %.1f over %zu vs %zu rounds). Why:\n",
			worse, d->x[1], d->x[0], better, d->ratio, fabs(d->t_outcome), na, nb);
	for (size_t k = 0; k < d->ncauses; k++)
		fprintf(f, "  - %s (%s, %.0f %% of the difference%s): %s.\n",
			br_diag_cause_name(d->causes[k].cause), br_diag_factor_name(d->causes[k].factor),
			100 * d->causes[k].share,
			d->causes[k].significant ? "" : ", not significant over the rounds", d->causes[k].evidence);
	if (!d->ncauses)
		fputs("  - no single cause reaches 5 % of the difference with significance.\n", f);
	if (d->nagainst) {
		fputs("Against that:\n", f);
		for (size_t k = 0; k < d->nagainst; k++)
			fprintf(f, "  - %s (%s, %.0f %% the other way): %s.\n",
				br_diag_cause_name(d->against[k].cause), br_diag_factor_name(d->against[k].factor),
				100 * d->against[k].share, d->against[k].evidence);
	}
}

static void floor_text(FILE *f, const ab_ctx *c)
{
	const ab_metric *x = &c->m[AB_M_X], *q = &c->m[AB_M_Q2C], *d2c = &c->m[AB_M_PHASE0 + BR_DP_D2C];
	fprintf(f, "\nDetection floor: over these rounds (%zu vs %zu) a difference smaller than", side_runs(c, 0),
		side_runs(c, 1));
	const ab_metric *ms[3] = { x, q, d2c };
	const char *what[3] = { "in throughput", "in mean Q2C", "in mean D2C" };
	bool any = false;
	for (int k = 0; k < 3; k++)
		if (ms[k]->present) {
			fprintf(f, "%s %.1f %% %s", any ? "," : "", 100 * ms[k]->floor, what[k]);
			any = true;
		}
	if (!any)
		fputs(" (no metric measured in every round)", f);
	fprintf(f, " could not be shown: it needs the |t| of Student's t at %.1f %% for its degrees of freedom "
		   "(column \"need\" below; at least %.1f) against the rounds' own spread within each side, and "
		   "at least %.0f %%.\n",
		100 * BR_DIAG_RUNS_ALPHA, BR_DIAG_T_MIN, 100 * (BR_DIAG_RUNS_MIN_RATIO - 1));
}

static void metrics_text(FILE *f, const ab_ctx *c)
{
	fprintf(f, "\nPer metric (geometric mean over the rounds; t: Welch over their logarithms):\n");
	fprintf(f, "  %-12s %12s %12s %8s %7s %5s %6s %7s  %s\n", "metric", lab(c, 0), lab(c, 1), "B/A", "t", "df",
		"need", "floor", "rounds A | rounds B");
	for (int m = 0; m < AB_M_COUNT; m++) {
		const ab_metric *mt = &c->m[m];
		if (!mt->present)
			continue;
		char name[24];
		snprintf(name, sizeof name, "%s%s%s%s", mt->name, *mt->unit ? " (" : "", mt->unit, *mt->unit ? ")" : "");
		fprintf(f, "  %-12.12s %12.4g %12.4g %8.3f %7.1f %5.1f %6.1f %6.1f%%  ", name, mt->mean[0] / mt->scale,
			mt->mean[1] / mt->scale, mt->ratio, mt->t, mt->df, mt->t_need, 100 * mt->floor);
		for (int s = 0; s < 2; s++) {
			for (size_t i = 0; i < mt->n[s]; i++)
				fprintf(f, "%s%.4g", i ? " " : "", mt->v[s][i] / mt->scale);
			fputs(s ? "\n" : " | ", f);
		}
	}
}

static void runs_text(FILE *f, const ab_ctx *c)
{
	fputs("\nRuns (in the order run): replay fidelity and capture:\n", f);
	fprintf(f, "  %3s %5s %-10s %8s %9s %9s %9s %9s %7s %10s %6s  %s\n", "run", "round", "side", "drift",
		"err p50", "err p99", "IOPS", "issued", "failed", "events", "lost", "trace");
	for (size_t i = 0; i < c->nruns; i++) {
		const ab_run_rec *r = &c->runs[i];
		if (!r->done) {
			fprintf(f, "  %3zu %5u %-10.10s interrupted: nothing kept\n", i + 1, r->round, lab(c, (size_t)r->side));
			continue;
		}
		const char *base = strrchr(r->trace, '/');
		fprintf(f, "  %3zu %5u %-10.10s %7.2f%% %7.1fus %7.1fus %9.0f %9llu %7llu %10llu %6llu  %s\n", i + 1,
			r->round, lab(c, (size_t)r->side), r->fid.drift_pct, (double)r->fid.err_p50 / 1e3,
			(double)r->fid.err_p99 / 1e3, r->fid.iops, (unsigned long long)r->fid.issued,
			(unsigned long long)r->fid.failed, (unsigned long long)r->cap.events,
			(unsigned long long)r->cap.lost, base ? base + 1 : r->trace);
	}
	double over = 0;
	size_t n = 0;
	for (size_t i = 0; i < c->nruns; i++)
		if (c->runs[i].done) {
			over += c->runs[i].cap_start_s + c->runs[i].cap_stop_s;
			n++;
		}
	double start = 0;
	for (size_t i = 0; i < c->nruns; i++)
		if (c->runs[i].done)
			start += c->runs[i].cap_start_s;
	if (n)
		fprintf(f, "  each capture took %.2f s to start and %.2f s to stop and finish its file, on average.\n",
			start / (double)n, (over - start) / (double)n);
}

static void order_text(FILE *f, const ab_ctx *c)
{
	for (size_t i = 0; i < c->nruns; i++)
		fprintf(f, "%s%s", i ? " " : "", c->runs[i].side ? "B" : "A");
}

static int text(FILE *f, const ab_ctx *c)
{
	fprintf(f, "blkreel-replay --ab: %s replayed onto A = %s (%s) and B = %s (%s)\n", c->o->inputs[0],
		lab(c, 0), c->dev[0], lab(c, 1), c->dev[1]);
	fprintf(f, "%u rounds a side, run in the order ", c->rounds);
	order_text(f, c);
	fprintf(f, " (counterbalanced: drift of the host and a first/second effect cancel); each round's own "
		   "trace is the unit of variance.\n\n");
	diag_text(f, c);
	floor_text(f, c);
	metrics_text(f, c);
	runs_text(f, c);
	fprintf(f, "\n%s: %s.\n", c->has_figure ? "Figure" : "No figure", c->figure_why);
	return ferror(f) ? -1 : 0;
}

/* ---- Markdown: the same, as a document ---- */

static int markdown(FILE *f, const ab_ctx *c)
{
	fprintf(f, "# %s against %s: %s replayed in rounds\n\n", lab(c, 0), lab(c, 1), c->o->inputs[0]);
	fprintf(f, "A = %s (`%s`), B = %s (`%s`); %u rounds a side, run in the order ", lab(c, 0), c->dev[0],
		lab(c, 1), c->dev[1], c->rounds);
	order_text(f, c);
	fputs("; each round is one sample.\n\n## Diagnosis\n\n", f);
	diag_text(f, c);
	floor_text(f, c);
	if (c->has_figure)
		fprintf(f, "\n![%s vs %s, the rounds overlaid](overlay.png)\n", lab(c, 0), lab(c, 1));
	else
		fprintf(f, "\nNo figure: %s.\n", c->figure_why);
	fprintf(f, "\n## Per metric\n\n| metric | %s | %s | B/A | t | df | need | floor | rounds A | rounds B |\n"
		   "|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
		lab(c, 0), lab(c, 1));
	for (int m = 0; m < AB_M_COUNT; m++) {
		const ab_metric *mt = &c->m[m];
		if (!mt->present)
			continue;
		fprintf(f, "| %s%s%s%s | %.4g | %.4g | %.3f | %.1f | %.1f | %.1f | %.1f %% |", mt->name,
			*mt->unit ? " (" : "", mt->unit, *mt->unit ? ")" : "", mt->mean[0] / mt->scale,
			mt->mean[1] / mt->scale, mt->ratio, mt->t, mt->df, mt->t_need, 100 * mt->floor);
		for (int s = 0; s < 2; s++) {
			fputc(' ', f);
			for (size_t i = 0; i < mt->n[s]; i++)
				fprintf(f, "%s%.4g", i ? ", " : "", mt->v[s][i] / mt->scale);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputs("\n## Runs\n\n| run | round | side | drift | issue error p50 | p99 | IOPS | failed | events "
	      "| lost | trace |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n", f);
	for (size_t i = 0; i < c->nruns; i++) {
		const ab_run_rec *r = &c->runs[i];
		if (!r->done)
			continue;
		const char *base = strrchr(r->trace, '/');
		fprintf(f, "| %zu | %u | %s | %.2f %% | %.1f us | %.1f us | %.0f | %llu | %llu | %llu | `%s` |\n", i + 1,
			r->round, lab(c, (size_t)r->side), r->fid.drift_pct, (double)r->fid.err_p50 / 1e3,
			(double)r->fid.err_p99 / 1e3, r->fid.iops, (unsigned long long)r->fid.failed,
			(unsigned long long)r->cap.events, (unsigned long long)r->cap.lost, base ? base + 1 : r->trace);
	}
	return ferror(f) ? -1 : 0;
}

/* ---- HTML: the same, as one page with the figure in it ---- */

/* What a text writer prints, as escaped HTML in a <pre>. */
static void pre_of(FILE *f, const ab_ctx *c, void (*write)(FILE *, const ab_ctx *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	write(m, c);
	fclose(m);
	fputs("<pre>", f);
	tool_html_esc(f, buf ? buf : "");
	fputs("</pre>\n", f);
	free(buf);
}

static void diag_and_floor(FILE *f, const ab_ctx *c)
{
	diag_text(f, c);
	floor_text(f, c);
}

static int html(FILE *f, const ab_ctx *c)
{
	char title[512];
	snprintf(title, sizeof title, "%s against %s: %s replayed in rounds", lab(c, 0), lab(c, 1), c->o->inputs[0]);
	tool_html_head(f, title);
	fputs("<h1>", f);
	tool_html_esc(f, title);
	fputs("</h1>\n<p>A = ", f);
	tool_html_esc(f, lab(c, 0));
	fputs(" (<code>", f);
	tool_html_esc(f, c->dev[0]);
	fputs("</code>), B = ", f);
	tool_html_esc(f, lab(c, 1));
	fputs(" (<code>", f);
	tool_html_esc(f, c->dev[1]);
	fprintf(f, "</code>); %u rounds a side, run in the order ", c->rounds);
	order_text(f, c);
	fputs("; each round is one sample.</p>\n<h2>Diagnosis</h2>\n", f);
	pre_of(f, c, diag_and_floor);
	char *png = c->has_figure ? tool_html_base64_file(c->figure) : NULL;
	if (png)
		fprintf(f, "<figure><img alt=\"the rounds overlaid\" src=\"data:image/png;base64,%s\"><figcaption>", png);
	else
		fputs("<p class=\"note\">No figure: ", f);
	tool_html_esc(f, c->has_figure && !png ? "overlay.png could not be read" : c->figure_why);
	fputs(png ? ".</figcaption></figure>\n" : ".</p>\n", f);
	free(png);
	fputs("<h2>Per metric</h2>\n", f);
	pre_of(f, c, metrics_text);
	fputs("<h2>Runs</h2>\n", f);
	pre_of(f, c, runs_text);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}

/* ---- JSON ---- */

static void diag_json(br_json *j, const ab_ctx *c)
{
	const br_diagnosis *d = &c->diag;
	br_json_key(j, "diagnosis");
	br_json_object(j);
	br_json_kstr(j, "outcome", br_diag_outcome_name(d->outcome));
	br_json_kbool(j, "significant", d->significant);
	br_json_kstr(j, "better", lab(c, d->better));
	br_json_kstr(j, "worse", lab(c, d->worse));
	br_json_kdouble(j, "ratio", d->ratio);
	br_json_kdouble(j, "t", d->t_outcome);
	br_json_kstr(j, "unit_of_variance", "round");
	br_json_key(j, "causes");
	br_json_array(j);
	for (size_t k = 0; d->significant && k < d->ncauses; k++)
		br_diag_cause_json(j, &d->causes[k], lab(c, d->worse));
	br_json_end(j);
	br_json_key(j, "against");
	br_json_array(j);
	for (size_t k = 0; d->significant && k < d->nagainst; k++)
		br_diag_cause_json(j, &d->against[k], lab(c, d->worse));
	br_json_end(j);
	br_json_key(j, "notes");
	br_json_array(j);
	for (size_t k = 0; k < d->nnotes; k++)
		br_json_str(j, d->notes[k]);
	br_json_end(j);
	br_json_end(j);
}

static void metrics_json(br_json *j, const ab_ctx *c)
{
	br_json_key(j, "metrics");
	br_json_object(j);
	for (int m = 0; m < AB_M_COUNT; m++) {
		const ab_metric *mt = &c->m[m];
		if (!mt->present)
			continue;
		br_json_key(j, mt->key);
		br_json_object(j);
		for (int s = 0; s < 2; s++) {
			br_json_key(j, s ? "b" : "a");
			br_json_array(j);
			for (size_t i = 0; i < mt->n[s]; i++)
				br_json_double(j, mt->v[s][i] / mt->scale);
			br_json_end(j);
		}
		br_json_kdouble(j, "mean_a", mt->mean[0] / mt->scale);
		br_json_kdouble(j, "mean_b", mt->mean[1] / mt->scale);
		br_json_kdouble(j, "ratio_b_a", mt->ratio);
		br_json_kdouble(j, "t", mt->t);
		br_json_kdouble(j, "df", mt->df);
		br_json_kdouble(j, "t_needed", mt->t_need);
		br_json_kdouble(j, "floor", mt->floor);
		br_json_kbool(j, "significant", mt->significant);
		br_json_end(j);
	}
	br_json_end(j);
}

static void runs_json(br_json *j, const ab_ctx *c)
{
	br_json_key(j, "runs");
	br_json_array(j);
	for (size_t i = 0; i < c->nruns; i++) {
		const ab_run_rec *r = &c->runs[i];
		br_json_object(j);
		br_json_kuint(j, "round", r->round);
		br_json_kstr(j, "side", r->side ? "b" : "a");
		br_json_kbool(j, "done", r->done);
		if (r->done) {
			br_json_kstr(j, "trace", r->trace);
			br_json_kstr(j, "fidelity", r->fidelity_json);
			br_json_kint(j, "replay_status", r->status);
			br_json_kuint(j, "issued", r->fid.issued);
			br_json_kuint(j, "failed", r->fid.failed);
			br_json_kdouble(j, "drift_pct", r->fid.drift_pct);
			br_json_kdouble(j, "issue_error_p50_us", (double)r->fid.err_p50 / 1e3);
			br_json_kdouble(j, "issue_error_p99_us", (double)r->fid.err_p99 / 1e3);
			br_json_kdouble(j, "iops", r->fid.iops);
			br_json_kstr(j, "capture_backend", r->cap.backend);
			br_json_kuint(j, "capture_events", r->cap.events);
			br_json_kuint(j, "capture_lost", r->cap.lost);
			br_json_kdouble(j, "capture_start_s", r->cap_start_s);
			br_json_kdouble(j, "capture_stop_s", r->cap_stop_s);
			br_json_kdouble(j, "wall_s", r->wall_s);
		}
		br_json_end(j);
	}
	br_json_end(j);
}

static int json(FILE *f, const ab_ctx *c, const char *path, br_error *err)
{
	br_json j;
	br_json_init(&j, f, BR_JSON_PRETTY);
	br_json_object(&j);
	br_json_kstr(&j, "tool", "blkreel-replay --ab");
	br_json_kstr(&j, "trace", c->o->inputs[0]);
	for (int s = 0; s < 2; s++) {
		br_json_key(&j, s ? "b" : "a");
		br_json_object(&j);
		br_json_kstr(&j, "label", c->label[s]);
		br_json_kstr(&j, "target", c->dev[s]);
		br_json_kuint(&j, "rounds", side_runs(c, s));
		br_json_end(&j);
	}
	br_json_kuint(&j, "rounds", c->rounds);
	br_json_kbool(&j, "interrupted", c->interrupted);
	br_json_kdouble(&j, "t_min", BR_DIAG_T_MIN);
	br_json_kdouble(&j, "alpha", BR_DIAG_RUNS_ALPHA);
	br_json_kdouble(&j, "cause_alpha", BR_DIAG_RUNS_CAUSE_ALPHA);
	br_json_kdouble(&j, "min_ratio", BR_DIAG_RUNS_MIN_RATIO);
	br_json_kdouble(&j, "detection_floor_mbps", c->m[AB_M_X].present ? c->m[AB_M_X].floor : NAN);
	br_json_kdouble(&j, "detection_floor_q2c", c->m[AB_M_Q2C].present ? c->m[AB_M_Q2C].floor : NAN);
	br_json_key(&j, "figure");
	br_json_object(&j);
	if (c->has_figure)
		br_json_kstr(&j, "file", "overlay.png");
	br_json_kstr(&j, c->has_figure ? "shows" : "none", c->figure_why);
	br_json_end(&j);
	diag_json(&j, c);
	metrics_json(&j, c);
	runs_json(&j, c);
	br_json_end(&j);
	return br_json_finish(&j, path, err);
}

/* Write one file whole or not at all: DIR/.NAME.tmp, then rename. */
enum { AB_TEXT, AB_MD, AB_HTML, AB_JSON };

static int atomic_write(const ab_ctx *c, const char *name, int kind, br_error *err)
{
	char tmp[1100], final[1100];
	snprintf(tmp, sizeof tmp, "%.1000s/.%s.tmp", c->dir, name);
	snprintf(final, sizeof final, "%.1000s/%s", c->dir, name);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
	int rc = kind == AB_JSON ? json(f, c, tmp, err)
		 : kind == AB_MD ? markdown(f, c)
		 : kind == AB_HTML ? html(f, c)
		 : text(f, c);
	if (kind != AB_JSON && rc)
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
	if (fflush(f) || fsync(fileno(f)))
		rc = rc ? rc : br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
	if (fclose(f) && !rc)
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
	if (!rc && rename(tmp, final))
		rc = br_error_set(err, BR_ESYS, errno, final, -1, "cannot rename %s into place", tmp);
	if (rc)
		unlink(tmp);
	return rc;
}

int ab_report_write(const ab_ctx *c, br_error *err)
{
	int rc = atomic_write(c, "report.json", AB_JSON, err);
	if (!rc)
		rc = atomic_write(c, "report.md", AB_MD, err);
	if (!rc)
		rc = atomic_write(c, "report.html", AB_HTML, err);
	if (!rc)
		rc = atomic_write(c, "report.txt", AB_TEXT, err);
	return rc;
}
