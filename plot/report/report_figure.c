/* The HTML figure (for a sweep, blkreel-plot --sweep's figure of the
 * same labelled traces): blkreel-plot lives in plot/plot, outside the library,
 * so the report runs the installed program (beside this one unless --plot
 * names another) into a temporary PNG and embeds it as base64. When the
 * program is missing or fails, the page says so instead. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
	if (!out)
		return NULL;
	size_t i = 0;
	for (; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = tab[(v >> 6) & 63];
		*o++ = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = 0;
	return out;
}

/* The plot program to run, or NULL (why filled). */
static const char *find_plot(const report_ctx *ctx, const char *argv0, char *buf, size_t size,
			     char *why, size_t whysize)
{
	const char *p = ctx->cli->plot_bin;
	if (p && !*p) {
		snprintf(why, whysize, "--no-figure was given");
		return NULL;
	}
	if (!p) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n > 0)
			self[n] = 0;
		else
			snprintf(self, sizeof self, "%s", argv0);
		char *slash = strrchr(self, '/');
		if (slash)
			slash[1] = 0;
		else
			self[0] = 0;
		snprintf(buf, size, "%sblkreel-plot", self);
		p = buf;
	}
	if (access(p, X_OK)) {
		snprintf(why, whysize, "blkreel-plot is not installed (%s)", p);
		return NULL;
	}
	return p;
}

char *report_figure(const report_ctx *ctx, const char *argv0, char *why, size_t whysize)
{
	char progbuf[PATH_MAX + 16];
	const char *prog = find_plot(ctx, argv0, progbuf, sizeof progbuf, why, whysize);
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
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawn(&pid, prog, &fa, NULL, (char *const *)args, environ);
	posix_spawn_file_actions_destroy(&fa);
	int st = 0;
	if (rc) {
		snprintf(why, whysize, "could not run %s: %s", prog, strerror(rc));
	} else if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, whysize, "%s failed (status %d)", prog, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	} else {
		FILE *f = fopen(png, "rb");
		unsigned char *buf = NULL;
		long len = -1;
		if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
		    (buf = malloc((size_t)len)) && fread(buf, 1, (size_t)len, f) == (size_t)len)
			out = base64(buf, (size_t)len);
		if (!out)
			snprintf(why, whysize, "could not read the figure %s", png);
		else
			snprintf(why, whysize, "Figure rendered by blkreel-plot.");
		free(buf);
		if (f)
			fclose(f);
	}
	unlink(png);
	rmdir(dir);
	return out;
}
