/* Completions a capture counted but was not handed (its drops record says
 * unrecorded=N): up to N IOs issued without a C are completed at an unknown
 * time, not "never completed". On synthetic traces: the shared statistics,
 * the analysis and diagnosis, and what blkreel-parse --info, blkreel-report
 * and blkreel-plot say. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/analysis.h"
#include "blkreel/diagnosis.h"
#include "blkreel/stats.h"
#include "testutil.h"
#include "tracegen.h"

TestSuite(untimed, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

#define DEV BR_MKDEV(7, 0)
#define US 1000ull
#define T0 (3ull * 1000000000ull)
#define NIO 40
#define OPEN 3 /* the last IOs issued, with no C */

static br_event message(uint64_t time, const char *text)
{
	br_event ev = { .time = time, .device = DEV, .action = BLK_TC_ACT(BLK_TC_NOTIFY) | __BLK_TN_MESSAGE };
	ev.pdu = (const uint8_t *)text;
	ev.pdu_len = (uint16_t)strlen(text);
	return ev;
}

/* NIO writes of 4 KiB, one at a time, 100 us each, 50 us apart; the last
 * OPEN of them issued without a completion; then the capture's drops record
 * (note NULL: none). Returns the number of events in ev. */
static size_t build(br_event *ev, const char *note)
{
	size_t n = 0;
	uint64_t t = T0;
	for (int i = 0; i < NIO; i++) {
		ev[n++] = tg_io(t, DEV, 0, TG_Q_W, 8ull * i, 4096, 100);
		ev[n++] = tg_io(t + 5 * US, DEV, 0, TG_D_W, 8ull * i, 4096, 100);
		if (i < NIO - OPEN)
			ev[n++] = tg_io(t + 105 * US, DEV, 0, TG_C_W, 8ull * i, 4096, 100);
		t += 150 * US;
	}
	if (note)
		ev[n++] = message(t + 10 * US, note);
	return n;
}

static const char *const NOTE2 = "blkreel: drops cpu0=0 cpu1=0 (backend bpf) unrecorded=2";

static br_stats_totals totals_of(const char *note)
{
	br_event ev[3 * NIO + 1];
	size_t n = build(ev, note);
	br_stats *s;
	br_error err;
	cr_assert_eq(br_stats_new(&s, NULL, &err), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(br_stats_add(s, &ev[i], &err), 0);
	cr_assert_eq(br_stats_finish(s, &err), 0);
	br_stats_totals t = *br_stats_get_totals(s);
	br_stats_free(s);
	return t;
}

Test(untimed, stats_take_up_to_n_open_ios_as_completed_untimed)
{
	br_stats_totals t = totals_of(NULL);
	cr_expect_eq(t.never_completed, OPEN);
	cr_expect_eq(t.completed_untimed, 0);
	cr_expect_eq(t.lost_ios, OPEN);

	t = totals_of(NOTE2);
	cr_expect_eq(t.unrecorded, 2);
	cr_expect_eq(t.completed_untimed, 2);
	cr_expect_eq(t.never_completed, OPEN - 2, "never completed: %llu", (unsigned long long)t.never_completed);
	cr_expect_eq(t.lost_ios, OPEN - 2);
	cr_expect_eq(t.d2c.count, NIO - OPEN, "only IOs with a C have a latency");
	cr_expect_eq(t.inflight_max, 1, "untimed IOs are not in flight");

	/* more unrecorded than IOs open: only those open */
	t = totals_of("blkreel: drops cpu0=0 cpu1=0 (backend perf) missed=1 unrecorded=9");
	cr_expect_eq(t.unrecorded, 9);
	cr_expect_eq(t.completed_untimed, OPEN);
	cr_expect_eq(t.never_completed, 0);
	cr_expect_eq(t.lost_ios, 0);

	/* another message that happens to say unrecorded= is not the capture's */
	t = totals_of("some tool: unrecorded=2");
	cr_expect_eq(t.unrecorded, 0);
	cr_expect_eq(t.never_completed, OPEN);
}

Test(untimed, analysis_and_diagnosis_say_it)
{
	br_event ev[3 * NIO + 1];
	size_t n = build(ev, NOTE2);
	br_analysis *a;
	br_error err;
	cr_assert_eq(br_analysis_new(&a, NULL, &err), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(br_analysis_add(a, &ev[i], &err), 0);
	cr_assert_eq(br_analysis_finish(a, &err), 0);
	const br_analysis_result *r = br_analysis_get(a);
	cr_expect_eq(r->totals->completed_untimed, 2);
	cr_expect_eq(r->totals->never_completed, 1);
	cr_expect_eq(r->open_issued, 1, "open at the end: only the one not taken as completed");
	cr_expect_eq(r->profile->completed_untimed, 2);
	cr_expect_eq(r->profile->lost_ios, 1);
	cr_expect_eq(r->qd_max, 1);
	br_diagnosis d;
	cr_assert_eq(br_diagnose(r->profile, r->profile, "A", "B", &d, &err), 0);
	bool said = false;
	for (size_t k = 0; k < d.nnotes; k++)
		said |= strstr(d.notes[k], "2 IOs completed at an unknown time") != NULL;
	cr_expect(said, "the diagnosis does not say the untimed IOs");
	br_analysis_free(a);
}

static const char *write_trace(const char *name, const char *note)
{
	br_event ev[3 * NIO + 1];
	size_t n = build(ev, note);
	tg_buf b = { 0 };
	tg_append_sorted(&b, ev, n);
	const char *path = tu_path(name);
	cr_assert_eq(tg_write(&b, path), 0);
	tg_free(&b);
	return path;
}

Test(untimed, parse_report_and_plot_say_it)
{
	const char *tr = write_trace("u.blktrace", NOTE2);
	char *out = NULL, *err = NULL;
	cr_assert_eq(tu_run_tool(&out, &err, "blkreel-parse", "--info '%s'", tr), 0, "%s", err);
	cr_expect(strstr(out, "1 never completed"), "parse --info: %s", out);
	cr_expect(strstr(out, "2 completed at an unknown time"), "parse --info: %s", out);
	free(out);
	free(err);

	out = err = NULL;
	cr_assert_eq(tu_run_tool(&out, &err, "blkreel-report", "'%s'", tr), 0, "%s", err);
	cr_expect(strstr(out, "2 IOs completed at an unknown time"), "report: %s", out);
	cr_expect(strstr(out, "1 never completed"), "report: %s", out);
	free(out);
	free(err);

	const char *json = tu_path("r.json");
	err = NULL;
	cr_assert_eq(tu_run_tool(NULL, &err, "blkreel-report", "-q --json '%s' '%s'", json, tr), 0, "%s", err);
	free(err);
	char *j = tu_read_text(json);
	const char *key = j ? strstr(j, "\"completed_untimed\"") : NULL;
	const char *colon = key ? strchr(key, ':') : NULL;
	cr_expect(colon && strtoull(colon + 1, NULL, 10) == 2, "report --json: %.400s", key ? key : "no key");
	free(j);

	/* the figure: its per-trace summary (a PNG text chunk) and the depth
	 * panel's note */
	const char *png = tu_path("u.png");
	err = NULL;
	cr_assert_eq(tu_run_tool(NULL, &err, "blkreel-plot", "-t '%s' -o '%s'", tr, png), 0, "%s", err);
	free(err);
	size_t len;
	uint8_t *p = tu_read_file(png, &len);
	cr_assert(p);
	cr_expect(memmem(p, len, "never completed 1 (1 left out of in flight)", 43), "the figure's summary");
	cr_expect(memmem(p, len, "completed untimed 2", 19), "the figure's summary does not say the untimed IOs");
	free(p);
}
