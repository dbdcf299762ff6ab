#include "diagnosis_pairs.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* The JSON goes through python3's json module and comes back as tab-separated
 * lines: a malformed report or a non-numeric share makes python exit 1. */
static const char dp_flatten_py[] =
	"import json, sys\n"
	"d = json.load(open(sys.argv[1]))\n"
	"def clean(v):\n"
	"    if not isinstance(v, str):\n"
	"        raise SystemExit('not a string: %r' % (v,))\n"
	"    return v.replace('\\t', ' ').replace('\\n', ' ')\n"
	"for t in d['traces']:\n"
	"    ios = float(sum(t['ios'].values()))\n"
	"    d2c = t['latency_per_request']['d2c']\n"
	"    print('trace\\t%r\\t%r\\t%r\\t%r\\t%r\\t%r\\t%r\\t%r' % (float(t['mbps']), float(sum(t['bytes'].values())),\n"
	"          float(t['run_s']), float(d2c['p50_ns']), float(d2c['avg_ns']), float(t['queue_depth']['avg']),\n"
	"          float(t['pairing']['issued']) - ios, ios))\n"
	"g = d.get('diagnosis')\n"
	"print('diagnosis\\t%d' % isinstance(g, list))\n"
	"for x in g if isinstance(g, list) else []:\n"
	"    if isinstance(x['share'], bool):\n"
	"        raise SystemExit('share is a boolean')\n"
	"    if x.get('confirmed') is not True:\n"
	"        raise SystemExit('a ranked cause is not confirmed: %r' % (x,))\n"
	"    print('cause\\t%s\\t%r\\t%s\\t%s\\t%s' % (clean(x['cause']), float(x['share']), clean(x['worse']),\n"
	"          clean(x['factor']), clean(x['evidence'])))\n"
	"for x in d.get('diagnosis_detail', {}).get('unconfirmed', []):\n"
	"    if x.get('confirmed') is not False:\n"
	"        raise SystemExit('an unconfirmed cause says confirmed: %r' % (x,))\n"
	"    print('unconfirmed\\t%s\\t%r\\t%s\\t%s\\t%s\\t%r' % (clean(x['cause']), float(x['share']), clean(x['worse']),\n"
	"          clean(x['factor']), clean(x['evidence']), float(x['shift'])))\n";

/* Next tab-separated field of *line into dst (truncated to size). */
static void next_field(char **line, char *dst, size_t size)
{
	char *p = *line, *tab = p ? strchr(p, '\t') : NULL;
	size_t len = p ? (tab ? (size_t)(tab - p) : strlen(p)) : 0;
	snprintf(dst, size, "%.*s", (int)len, p ? p : "");
	*line = tab ? tab + 1 : NULL;
}

bool dp_read_report(const char *json_path, dp_report *r, char *why, size_t size)
{
	const char *py = tu_path("flatten.py");
	if (tu_write_file(py, dp_flatten_py, sizeof dp_flatten_py - 1)) {
		snprintf(why, size, "cannot write %s", py);
		return false;
	}
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err, "python3 '%s' '%s'", py, json_path);
	bool ok = rc == 0;
	if (!ok)
		snprintf(why, size, "%s is not the JSON expected (python3 exit %d): %.400s", json_path, rc, err);
	int traces = 0;
	r->has_diagnosis = false;
	r->n = r->nu = 0;
	for (char *line = ok ? strtok(out, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		char kind[16], field[64];
		char *p = line;
		next_field(&p, kind, sizeof kind);
		if (strcmp(kind, "trace") == 0 && traces < 2) {
			next_field(&p, field, sizeof field);
			r->mbps[traces] = strtod(field, NULL);
			next_field(&p, field, sizeof field);
			r->bytes[traces] = strtod(field, NULL);
			next_field(&p, field, sizeof field);
			r->run_s[traces] = strtod(field, NULL);
			next_field(&p, field, sizeof field);
			r->d2c_p50_ns[traces] = strtod(field, NULL);
			next_field(&p, field, sizeof field);
			r->d2c_mean_ns[traces] = strtod(field, NULL);
			next_field(&p, field, sizeof field);
			r->depth[traces] = strtod(field, NULL);
			next_field(&p, field, sizeof field);
			r->flushes[traces] = strtod(field, NULL);
			next_field(&p, field, sizeof field);
			r->ios[traces] = strtod(field, NULL);
			traces++;
		} else if (strcmp(kind, "diagnosis") == 0) {
			r->has_diagnosis = strcmp(p ? p : "", "1") == 0;
		} else if ((strcmp(kind, "cause") == 0 && r->n < DP_MAX_CAUSES) ||
			   (strcmp(kind, "unconfirmed") == 0 && r->nu < DP_MAX_CAUSES)) {
			dp_cause *c = kind[0] == 'c' ? &r->c[r->n++] : &r->u[r->nu++];
			next_field(&p, c->cause, sizeof c->cause);
			next_field(&p, field, sizeof field);
			c->share = strtod(field, NULL);
			next_field(&p, c->worse, sizeof c->worse);
			next_field(&p, c->factor, sizeof c->factor);
			next_field(&p, c->evidence, sizeof c->evidence);
			next_field(&p, field, sizeof field);
			c->shift = strtod(field, NULL);
		}
	}
	if (ok && traces != 2) {
		snprintf(why, size, "%s: %d traces in the report, expected 2", json_path, traces);
		ok = false;
	}
	free(out);
	free(err);
	return ok;
}

void dp_describe(const dp_report *r, char *buf, size_t size)
{
	size_t used = (size_t)snprintf(buf, size, "  a %.1f MB/s, b %.1f MB/s (A/B %.2f); %d cause(s)%s\n", r->mbps[0],
				       r->mbps[1], r->mbps[1] > 0 ? r->mbps[0] / r->mbps[1] : 0.0, r->n,
				       r->attempts > 1 ? " (not the first capture)" : "");
	for (int i = 0; i < r->n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "  %d. %s %.3f worse=%s factor=%s: %s\n", i + 1,
					 r->c[i].cause, r->c[i].share, r->c[i].worse, r->c[i].factor, r->c[i].evidence);
	for (int i = 0; i < r->nu && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "  unconfirmed: %s %.3f worse=%s factor=%s %.2fx: %s\n",
					 r->u[i].cause, r->u[i].share, r->u[i].worse, r->u[i].factor, r->u[i].shift,
					 r->u[i].evidence);
}

void dp_assert_well_formed(const char *pair, const dp_report *r, double min_share)
{
	char listing[4096];
	dp_describe(r, listing, sizeof listing);
	double sum = 0;
	for (int i = 0; i < r->n; i++) {
		const dp_cause *c = &r->c[i];
		bool id_ok = c->cause[0] != 0;
		for (const char *p = c->cause; *p; p++)
			id_ok &= islower((unsigned char)*p) || *p == '_';
		cr_assert(id_ok, "%s: cause %d has id \"%s\", not a lower-case id\n%s", pair, i + 1, c->cause, listing);
		cr_assert(c->share >= min_share && c->share <= 1.0 + 1e-9,
			  "%s: \"%s\" has share %.3f, outside [%.2f, 1] (causes under 5 %% are not causes)\n%s", pair,
			  c->cause, c->share, min_share, listing);
		if (i > 0)
			cr_assert_leq(c->share, r->c[i - 1].share + 1e-9, "%s: not ordered by share\n%s", pair, listing);
		cr_assert(strcmp(c->worse, "a") == 0 || strcmp(c->worse, "b") == 0,
			  "%s: \"%s\" says worse=\"%s\", not a trace's label\n%s", pair, c->cause, c->worse, listing);
		cr_assert(c->factor[0], "%s: \"%s\" names no factor\n%s", pair, c->cause, listing);
		cr_assert(strpbrk(c->evidence, "0123456789"), "%s: \"%s\" has evidence without numbers\n%s", pair,
			  c->cause, listing);
		sum += c->share;
	}
	cr_assert_leq(sum, 1.0 + 1e-6, "%s: shares sum to %.3f\n%s", pair, sum, listing);
}

/* Did the capture come out as the recipe means it to? Beside the outcome
 * (B slower; A/A alike), what the recipe holds fixed must have stayed
 * fixed: on a busy machine a side's job can change character (a starved
 * loop worker turns a RAM device's 5 us reads into 100 us ones), and a
 * diagnosis of that pair would be judged against the wrong answer. */
static bool within(double a, double b, double factor)
{
	return a > 0 && b > 0 && a <= b * factor && b <= a * factor;
}

static bool as_built(const char *pair, enum dp_kind kind, const dp_report *r, char *why, size_t size)
{
	double ratio = r->mbps[1] > 0 ? r->mbps[0] / r->mbps[1] : INFINITY;
	const double *d2c = r->d2c_p50_ns;
	if (kind == DP_RERUN) /* whatever the host's drift between the runs made of it */
		return true;
	if (kind == DP_SAME) {
		snprintf(why, size, "A/B %.2f in MB/s, wanted within %.2fx; D2C p50 %.1f vs %.1f us, wanted within %.2fx",
			 ratio, DP_SAME_RATIO, d2c[0] / 1e3, d2c[1] / 1e3, DP_SAME_D2C);
		return ratio <= DP_SAME_RATIO && ratio >= 1.0 / DP_SAME_RATIO && within(d2c[0], d2c[1], DP_SAME_D2C);
	}
	if (strcmp(pair, "amplification") == 0) { /* the same work: more device bytes, more time */
		double more = r->bytes[0] > 0 ? r->bytes[1] / r->bytes[0] : 0;
		double longer = r->run_s[0] > 0 ? r->run_s[1] / r->run_s[0] : 0;
		snprintf(why, size, "B/A %.2f in device bytes and %.2f in run time, wanted at least 1.5 and %.2f", more,
			 longer, DP_MIN_RATIO);
		return more >= 1.5 && longer >= DP_MIN_RATIO;
	}
	if (ratio < DP_MIN_RATIO) {
		snprintf(why, size, "A/B %.2f in MB/s, wanted at least %.2f", ratio, DP_MIN_RATIO);
		return false;
	}
	if (strcmp(pair, "idle") == 0) { /* B only thinks more: its IOs' service is not what differs */
		double extra_us = (d2c[1] - d2c[0]) / 1e3;
		snprintf(why, size, "data D2C p50 A %.1f us, B %.1f us: B's %.1f us more, wanted under %.0f us",
			 d2c[0] / 1e3, d2c[1] / 1e3, extra_us, DP_IDLE_THINK_US / 8.0);
		return d2c[0] > 0 && d2c[1] > 0 && extra_us < DP_IDLE_THINK_US / 8.0;
	}
	if (strcmp(pair, "flush") == 0) {
		/* B only flushes more. A write after a flush finds the RAM loop's
		 * worker asleep (9.5 us in A, 15-25 us in B under CI), so the data
		 * IOs' service may grow, but the flushes must carry most of what
		 * each write costs B more: a data D2C grown by half of that would
		 * be another cause (a starved worker, a changed device). */
		double per_write_us[2];
		for (int i = 0; i < 2; i++)
			per_write_us[i] = r->ios[i] > 0 ? r->run_s[i] / r->ios[i] * 1e6 : 0;
		double extra_write_us = per_write_us[1] - per_write_us[0];
		double extra_d2c_us = (d2c[1] - d2c[0]) / 1e3;
		snprintf(why, size,
			 "data D2C p50 A %.1f us, B %.1f us: B's %.1f us more, wanted under half of the %.1f us more each "
			 "write took B",
			 d2c[0] / 1e3, d2c[1] / 1e3, extra_d2c_us, extra_write_us);
		if (!(d2c[0] > 0 && d2c[1] > 0 && extra_d2c_us < extra_write_us / 2))
			return false;
	}
	if (strcmp(pair, "flush") == 0) {
		snprintf(why, size, "flushes per write A %.2f, B %.2f, wanted 0 and at least 0.9",
			 r->ios[0] > 0 ? r->flushes[0] / r->ios[0] : 0, r->ios[1] > 0 ? r->flushes[1] / r->ios[1] : 0);
		return r->flushes[0] == 0 && r->flushes[1] >= 0.9 * r->ios[1];
	}
	if (strcmp(pair, "concurrency") == 0) {
		/* fio asks for 16 in flight on A, but the disk-backed loop serves a
		 * 4 KiB read in ~100 us of a 2-CPU host's time, so A holds only
		 * ~3 (3.1-3.2 in every capture under CI): what is built is several
		 * in flight against one. */
		snprintf(why, size, "mean depth A %.2f, B %.2f, wanted A at least %.1f and 2.5x B, B at most 1.05",
			 r->depth[0], r->depth[1], DP_MIN_DEPTH_A);
		return r->depth[0] >= DP_MIN_DEPTH_A && r->depth[0] >= 2.5 * r->depth[1] && r->depth[1] <= 1.05;
	}
	if (strcmp(pair, "service_time") == 0) {
		/* the mean: B's throttle is a rate, which beside CPU hogs it keeps
		 * in bursts (its dispatching worker waits for a CPU, then sends
		 * what is due at once): D2C p50 30 us and mean 485 us, A's 24 and 48 */
		const double *mean = r->d2c_mean_ns;
		snprintf(why, size, "mean D2C A %.1f us, B %.1f us, wanted B at least 2x A", mean[0] / 1e3, mean[1] / 1e3);
		return mean[1] >= 2 * mean[0];
	}
	return true;
}

/* BLKREEL_DIAG_KEEP=DIR keeps every captured pair (traces, README.txt and
 * the report's JSON) as DIR/PAIR-<time>-<attempt>, to judge a failure from
 * the traces rather than from the listing alone. */
static void keep_pair(const char *pair, int attempt)
{
	const char *keep = getenv("BLKREEL_DIAG_KEEP");
	if (!keep || !*keep)
		return;
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "mkdir -p '%s' && cp -r '%s/%s' \"%s/%s-$(date -u +%%H%%M%%S)-%d\"", keep,
			 tu_dir, pair, keep, pair, attempt);
	if (rc)
		fprintf(stderr, "[INFO] %s: could not keep the pair in %s: %s\n", pair, keep, err ? err : "");
	free(err);
}

void dp_make(const char *recipe, const char *dir)
{
	char *err = NULL;
	/* the script takes the machine-wide tracer lock itself: we must not hold it */
	int rc = tu_runf(NULL, NULL, &err, "BLKREEL_BIN='%s' '%s/tests/report/pairs/make_pairs.sh' --quick -o '%s' %s",
			 tu_bin(""), tu_root(), dir, recipe);
	if (rc == 3) {
		char reason[512];
		const char *m = strstr(err, "missing: ");
		snprintf(reason, sizeof reason, "%s: %.*s", recipe, m ? (int)strcspn(m, "\n") : 0, m ? m : "");
		free(err);
		/* Criterion runs no .fini for a skipped test: the fixture's directory goes now */
		tu_dir_teardown();
		cr_skip_test("%s", reason);
	}
	cr_assert_eq(rc, 0, "make_pairs.sh --quick %s: exit %d\n%s", recipe, rc, err);
	free(err);
}

void dp_capture_pair(const char *pair, enum dp_kind kind, dp_report *r)
{
	if (geteuid() != 0) {
		tu_dir_teardown(); /* as in dp_make */
		cr_skip_test("needs root (loop devices, block tracing)");
	}
	memset(r, 0, sizeof *r);
	char history[2048] = "";
	for (r->attempts = 1; r->attempts <= DP_CAPTURES; r->attempts++) {
		dp_make(pair, tu_dir);
		char a[4096], b[4096], json[4096];
		snprintf(a, sizeof a, "%s/%s/a.blktrace.gz", tu_dir, pair);
		snprintf(b, sizeof b, "%s/%s/b.blktrace.gz", tu_dir, pair);
		snprintf(json, sizeof json, "%s/%s/report.json", tu_dir, pair);
		char *out = NULL, *err = NULL;
		int rc = tu_run_tool(&out, &err, "blkreel-report", "-l a '%s' -l b '%s' --json '%s'", a, b, json);
		cr_assert_eq(rc, 0, "blkreel-report on the %s pair: exit %d\n%.2000s", pair, rc, err);
		free(out);
		free(err);
		keep_pair(pair, r->attempts);
		char why[512];
		cr_assert(dp_read_report(json, r, why, sizeof why), "%s: %s", pair, why);
		if (as_built(pair, kind, r, why, sizeof why))
			return;
		size_t used = strlen(history);
		snprintf(history + used, sizeof history - used, " [capture %d: %s]", r->attempts, why);
		/* said on stderr, not by cr_log_warn: Criterion exits 1 after any
		 * warning, and tests/run-suites.sh counts that as a crash */
		fprintf(stderr, "[INFO] %s: capture %d did not come out as built (%s); capturing again\n", pair,
			r->attempts, why);
	}
	cr_assert_fail("%s: the pair did not come out as built in %d captures:%s", pair, DP_CAPTURES, history);
}
