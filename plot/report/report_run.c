/* Load every trace, compare them, print the text report and write the
 * requested files. Every failure is printed once, here, with the file and
 * byte offset the library reported. */
#include "report_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tool/say.h"

#define PROG "blkreel-report"

static int w_json(FILE *f, const report_ctx *ctx, const void *arg)
{
	(void)arg;
	return report_json(f, ctx);
}

static int w_markdown(FILE *f, const report_ctx *ctx, const void *arg)
{
	(void)arg;
	return report_markdown(f, ctx);
}

static int w_html(FILE *f, const report_ctx *ctx, const void *arg)
{
	return report_html(f, ctx, arg);
}

static void print_error(const br_error *err)
{
	tool_say_error(PROG, NULL, err);
}

int report_run(const report_cli *cli, const char *argv0)
{
	report_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.cli = cli;
	ctx.d = calloc(cli->ntraces, sizeof *ctx.d);
	if (!ctx.d) {
		tool_say(PROG, "out of memory");
		return TOOL_EXIT_FAIL;
	}
	int status = 0;
	br_error err;
	br_error_clear(&err);
	report_perio perio = { 0 };
	report_out perio_out = { 0 };
	if (cli->per_io) {
		if (report_out_open(&perio_out, cli->per_io))
			status = 1;
		perio.f = perio_out.f;
		if (perio.f && report_perio_header(perio.f))
			status = 1;
	}
	for (size_t k = 0; k < cli->ntraces && !status; k++, ctx.n++) {
		if (report_load(cli, k, &ctx.d[k], perio.f ? &perio : NULL, &err)) {
			if (err.code == BR_ESYS && perio.f && ferror(perio.f))
				snprintf(err.file, sizeof err.file, "%s", cli->per_io);
			print_error(&err);
			status = 1;
		} else if (!ctx.d[k].res->totals->events) {
			char dev[32] = "";
			if (cli->an.stats.has_device)
				snprintf(dev, sizeof dev, " for device %u,%u", BR_DEV_MAJOR(cli->an.stats.device),
					 BR_DEV_MINOR(cli->an.stats.device));
			tool_say(PROG, "%s: no IO events%s%s", cli->traces[k].path, dev,
				 cli->read.has_from || cli->read.has_to ? " in the time window" : "");
			status = 1;
		}
	}
	if (perio_out.f && report_out_close(&perio_out, status == 0))
		status = 1;
	if (!status && ctx.n > 1) {
		const br_analysis_result *res[BR_CMP_MAX_TRACES];
		for (size_t k = 0; k < ctx.n; k++)
			res[k] = ctx.d[k].res;
		if (br_analysis_compare(res, ctx.n, &ctx.cmp, &err)) {
			print_error(&err);
			status = 1;
		} else {
			/* the sentences rank by ratio; the table then by contribution */
			report_sentences(&ctx);
			if (report_diagnose(&ctx, &err) || report_sweep(&ctx, &err)) {
				print_error(&err);
				status = 1;
			}
		}
	}
	if (!status && cli->text && (report_text(stdout, &ctx) || fflush(stdout))) {
		tool_say(PROG, "standard output: write failed");
		status = 1;
	}
	if (!status && cli->json && report_write_file(cli->json, w_json, &ctx, NULL))
		status = 1;
	if (!status && cli->markdown && report_write_file(cli->markdown, w_markdown, &ctx, NULL))
		status = 1;
	if (!status && cli->html) {
		char why[256] = "";
		char *png = report_figure(&ctx, argv0, why, sizeof why);
		ctx.figure_note = why;
		if (report_write_file(cli->html, w_html, &ctx, png))
			status = 1;
		free(png);
	}
	br_cmp_free(&ctx.cmp);
	report_sweep_free(&ctx);
	for (size_t k = 0; k < cli->ntraces; k++)
		report_data_free(&ctx.d[k]);
	free(ctx.d);
	return status;
}
