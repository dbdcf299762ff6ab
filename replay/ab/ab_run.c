/* ab_run.c — blkreel-replay --ab from start to end: the folder, both
 * targets checked before anything runs, the rounds in counterbalanced order
 * (A B, B A, A B, ...), each replay captured by the capture library in this
 * process, then the statistics and the report. A stop signal ends the run
 * between or inside a round: the capture is stopped and the kernel put
 * back, the round under way is removed, the rounds done stay. */
#include "ab.h"
#include "ab_types.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "tool/clock.h"
#include "tool/say.h"

static double now_s(void)
{
	return (double)tool_now_ns() / 1e9;
}

static int say(const br_error *err)
{
	return tool_say_error("blkreel-replay", NULL, err);
}

/* One run's hooks: the capture starts just before the replay's clock and
 * stops once its last IO completed. */
typedef struct run_hooks {
	ab_ctx *c;
	ab_run_rec *r;
	char part[1100];          /* the capture's name while it runs */
	cap_lib *cap;
	int cap_rc;
	br_error cap_err;
} run_hooks;

static int hook_started(void *arg, br_error *err)
{
	run_hooks *h = arg;
	double t0 = now_s();
	int rc = cap_lib_start(&h->cap, h->c->dev[h->r->side], h->part, NULL, err);
	h->r->cap_start_s = now_s() - t0;
	return rc;
}

static void hook_finished(void *arg)
{
	run_hooks *h = arg;
	double t0 = now_s();
	br_error_clear(&h->cap_err);
	h->cap_rc = cap_lib_stop(h->cap, &h->r->cap, &h->cap_err);
	h->cap = NULL;
	h->r->cap_stop_s = now_s() - t0;
}

static bool hook_stop(void *arg)
{
	(void)arg;
	return cap_lib_interrupted() != 0;
}

static replay_opts run_opts(const ab_ctx *c, int side, cli_map *map, const char *report)
{
	replay_opts ro = *c->o;
	*map = (cli_map){ .any = true, .path = c->dev[side] };
	ro.maps = map;
	ro.nmaps = 1;
	ro.output = NULL;
	ro.report = report;
	ro.quiet = true;
	ro.progress = c->o->progress && !c->o->quiet;
	ro.ab[0] = ro.ab[1] = NULL;
	return ro;
}

/* Both targets pass replay's checks (use, content, size) before any round. */
static int preflight(ab_ctx *c)
{
	for (int s = 0; s < 2; s++) {
		cli_map map;
		replay_opts ro = run_opts(c, s, &map, NULL);
		ro.progress = false;
		replay_hooks h = { .check_only = true };
		int st = replay_run_hooked(&ro, &h);
		if (st) {
			fprintf(stderr, "blkreel-replay: --ab: %s (%s) refused; nothing was replayed\n", c->label[s],
				c->dev[s]);
			return st;
		}
	}
	return 0;
}

static void path_in(const ab_ctx *c, char *out, size_t size, const char *fmt, unsigned round, const char *label)
{
	char name[256];
	snprintf(name, sizeof name, fmt, round, label);
	snprintf(out, size, "%.800s/%s", c->dir, name);
}

static void remove_part(const char *part)
{
	char p[1200];
	snprintf(p, sizeof p, "%s.blktrace.gz", part);
	unlink(p);
	snprintf(p, sizeof p, "%s.blktrace.spool", part);
	unlink(p);
}

/* One replay of one side, captured. 0, 1 (stop: failed or interrupted). */
static int one_run(ab_ctx *c, ab_run_rec *r, size_t idx)
{
	const char *label = c->label[r->side];
	run_hooks hk = { .c = c, .r = r };
	path_in(c, hk.part, sizeof hk.part, ".round%u-%s.part", r->round, label);
	path_in(c, r->trace, sizeof r->trace, "round%u-%s.blktrace.gz", r->round, label);
	path_in(c, r->fidelity_json, sizeof r->fidelity_json, "round%u-%s.replay.json", r->round, label);
	char fid_tmp[1200], progress[96];
	snprintf(fid_tmp, sizeof fid_tmp, "%s.replay.json", hk.part);
	snprintf(progress, sizeof progress, "run %zu of %zu: round %u, %s", idx + 1, (size_t)c->rounds * 2, r->round,
		 label);
	cli_map map;
	replay_opts ro = run_opts(c, r->side, &map, fid_tmp);
	bool ran = false;
	replay_hooks h = { .arg = &hk, .started = hook_started, .finished = hook_finished, .stop = hook_stop,
			   .label = progress, .fid = &r->fid, .ran = &ran };
	double t0 = now_s();
	r->status = replay_run_hooked(&ro, &h);
	r->wall_s = now_s() - t0;
	if (ran && hk.cap_rc)
		say(&hk.cap_err);
	if (!ran || hk.cap_rc || cap_lib_interrupted()) {
		remove_part(hk.part);
		unlink(fid_tmp);
		if (cap_lib_interrupted())
			c->interrupted = true;
		return 1;
	}
	char gz[1200];
	snprintf(gz, sizeof gz, "%s.blktrace.gz", hk.part);
	if (rename(gz, r->trace) || rename(fid_tmp, r->fidelity_json)) {
		br_error e;
		br_error_set(&e, BR_ESYS, errno, r->trace, -1, "cannot rename the round's files into place");
		return say(&e);
	}
	r->done = true;
	if (r->cap.lost)
		fprintf(stderr, "blkreel-replay: warning: round %u of %s: the capture lost %llu events\n", r->round,
			label, (unsigned long long)r->cap.lost);
	if (!c->o->quiet)
		fprintf(stderr, "blkreel-replay: run %zu of %zu (round %u, %s): %.2f s, %.0f IOPS, drift %.2f %%, "
				"issue error p99 %.1f us, %llu events captured\n",
			idx + 1, (size_t)c->rounds * 2, r->round, label, r->wall_s, r->fid.iops, r->fid.drift_pct,
			(double)r->fid.err_p99 / 1e3, (unsigned long long)r->cap.events);
	return 0;
}

/* The folder: created, or an empty one; never one holding another run's
 * rounds, which would mix with these. */
static int make_dir(const char *dir)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST) {
		fprintf(stderr, "blkreel-replay: --ab: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "blkreel-replay: --ab: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	if (n) {
		fprintf(stderr, "blkreel-replay: --ab: %s is not empty (give a new folder)\n", dir);
		return 1;
	}
	return 0;
}

static int run_all(ab_ctx *c)
{
	for (unsigned k = 0; k < c->rounds; k++)
		for (int j = 0; j < 2; j++) {
			/* A B, then B A: a side runs first as often as second */
			int side = k % 2 ? 1 - j : j;
			ab_run_rec *r = &c->runs[c->nruns];
			r->side = side;
			r->round = k + 1;
			size_t idx = c->nruns++;
			if (one_run(c, r, idx))
				return 1;
		}
	return 0;
}

int ab_run(const replay_opts *o)
{
	ab_ctx *c = calloc(1, sizeof *c);
	ab_run_rec *runs = calloc((size_t)o->rounds * 2, sizeof *runs);
	if (!c || !runs) {
		free(c);
		free(runs);
		fprintf(stderr, "blkreel-replay: out of memory\n");
		return 1;
	}
	c->o = o;
	c->runs = runs;
	c->rounds = o->rounds;
	c->dir = o->output;
	for (int s = 0; s < 2; s++) {
		c->dev[s] = o->ab[s];
		c->label[s] = o->labels[s];
	}
	br_error err;
	br_error_clear(&err);
	int status = 0;
	if (cap_lib_check(&err))
		status = say(&err);
	if (!status)
		status = preflight(c);
	if (!status)
		status = make_dir(c->dir);
	if (!status) {
		cap_lib_signals();
		status = run_all(c);
		if (c->interrupted)
			fprintf(stderr, "blkreel-replay: --ab: interrupted; the %zu runs finished before are in %s, no "
					"report was written\n",
				c->nruns - 1, c->dir);
	}
	if (!status) {
		if (ab_stats_load(c, &err) || ab_stats_compare(c, &err))
			status = say(&err);
		/* a stop signal while the rounds are read: no report, the rounds stay */
		else if (cap_lib_interrupted())
			status = 1;
		else {
			ab_figure(c);
			if (ab_report_write(c, &err))
				status = say(&err);
		}
	}
	if (!status && !o->quiet) {
		char path[1100];
		snprintf(path, sizeof path, "%.1000s/report.txt", c->dir);
		FILE *f = fopen(path, "r");
		char buf[4096];
		size_t n;
		while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
			fwrite(buf, 1, n, stdout);
		if (f)
			fclose(f);
	}
	for (size_t i = 0; i < c->nruns; i++)
		if (c->runs[i].done && c->runs[i].status && !status)
			status = 1; /* IOs failed in a round: said in its report */
	free(runs);
	free(c);
	return status;
}
