/* The HTML figure (for a sweep, blkreel-plot --sweep's figure of the
 * same labelled traces): blkreel-plot lives in plot/plot, outside the library,
 * so the report runs the installed program (beside this one unless --plot
 * names another) into a temporary PNG and embeds it as base64. When the
 * program is missing or fails, the page says so instead. */
#include "report.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool/html.h"
#include "tool/sibling.h"

char *report_figure(const report_ctx *ctx, const char *argv0, char *why, size_t whysize)
{
	if (ctx->cli->plot_bin && !*ctx->cli->plot_bin) {
		snprintf(why, whysize, "--no-figure was given");
		return NULL;
	}
	char progbuf[PATH_MAX + 16];
	const char *prog =
		tool_sibling_find("blkreel-plot", ctx->cli->plot_bin, argv0, progbuf, sizeof progbuf, why, whysize);
	if (!prog)
		return NULL;
	char dir[] = "/tmp/blkreel-report-XXXXXX";
	if (!mkdtemp(dir)) {
		snprintf(why, whysize, "no temporary directory: %s", strerror(errno));
		return NULL;
	}
	char png[sizeof dir + 16], devarg[32], win[64];
	snprintf(png, sizeof png, "%s/fig.png", dir);
	const char *args[10 + 4 * BR_CMP_MAX_TRACES];
	size_t n = 0;
	args[n++] = prog;
	if (ctx->has_sweep) { /* the sweep figure: the traces by their sweep labels */
		args[n++] = "--sweep";
		args[n++] = "-q";
	}
	for (size_t k = 0; k < ctx->n; k++) {
		args[n++] = "-t";
		args[n++] = ctx->d[k].trace->path;
		args[n++] = "-l";
		args[n++] = ctx->d[k].trace->label;
	}
	if (ctx->cli->an.stats.has_device) {
		report_dev(ctx->cli->an.stats.device, devarg, sizeof devarg);
		args[n++] = "--dev";
		args[n++] = devarg;
	}
	if (ctx->cli->read.has_from || ctx->cli->read.has_to) {
		char to[32] = "";
		if (ctx->cli->read.has_to)
			snprintf(to, sizeof to, "%.9f", (double)ctx->cli->read.to_ns / 1e9);
		snprintf(win, sizeof win, "%.9f:%s", (double)ctx->cli->read.from_ns / 1e9, to);
		args[n++] = "-x";
		args[n++] = win;
	}
	args[n++] = "-o";
	args[n++] = png;
	args[n] = NULL;

	char *out = NULL;
	if (!tool_sibling_run(args, why, whysize)) {
		out = tool_html_base64_file(png);
		snprintf(why, whysize, out ? "Figure rendered by blkreel-plot." : "could not read the figure %s", png);
	}
	unlink(png);
	rmdir(dir);
	return out;
}
