/* The report analysis on real captures, against answers computed here in
 * the plainest way: the time-weighted number of requests in flight
 * (plain_flight.h: +1 on every D, -1 on every C that carries sectors or ends
 * a flush request, D's that never complete left out) must equal the
 * analysis' queue depth average and maximum, and every bio the
 * analysis hands out must be a Q of the trace. */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blkreel/analysis.h"
#include "blkreel/reader.h"
#include "plain_flight.h"
#include "testutil.h"

static int count_bio(void *arg, const br_analysis_bio *b)
{
	uint64_t *n = arg;
	(*n)++;
	return b->q_ns && b->c_ns >= b->q_ns ? 0 : BR_EINVAL;
}

Test(analysis_real, queue_depth_matches_a_plain_count)
{
	char pattern[1024];
	snprintf(pattern, sizeof pattern, "%s", tu_sample("*.blktrace.gz"));
	glob_t g;
	if (glob(pattern, 0, NULL, &g) || g.gl_pathc == 0)
		cr_skip_test("no samples/*.blktrace.gz yet");
	for (size_t k = 0; k < g.gl_pathc; k++) {
		const char *path = g.gl_pathv[k];
		br_reader *r;
		br_error err;
		cr_assert_eq(br_reader_open(&r, &path, 1, NULL, &err), 0, "%s: %s", path, err.msg);
		uint64_t bios = 0, queued = 0;
		br_analysis_opts o = { .on_bio = count_bio, .on_bio_arg = &bios };
		br_analysis *a;
		cr_assert_eq(br_analysis_new(&a, &o, &err), 0);
		plain_flight p = { 0 };
		br_event ev;
		int rc;
		while ((rc = br_reader_next(r, &ev, &err)) == 1) {
			if (br_event_is_notify(&ev))
				continue;
			pf_add(&p, &ev);
			queued += br_event_code(&ev) == __BLK_TA_QUEUE;
			cr_assert_eq(br_analysis_add(a, &ev, &err), 0, "%s: %s", path, err.msg);
		}
		cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
		cr_assert_eq(br_analysis_finish(a, &err), 0);
		const br_analysis_result *res = br_analysis_get(a);
		pf_finish(&p);
		double avg = p.avg;
		cr_expect(fabs(res->qd_avg - avg) <= 1e-9 * (avg + 1), "%s: depth avg %.6f, plain %.6f", path,
			  res->qd_avg, avg);
		cr_expect_eq(res->qd_max, p.max, "%s: depth max %u, plain %u", path, res->qd_max, p.max);
		cr_expect_eq(res->totals->lost_ios, p.lost, "%s: %llu lost, plain %llu", path,
			     (unsigned long long)res->totals->lost_ios, (unsigned long long)p.lost);
		/* every bio handed out was queued; the rest are still open */
		cr_expect(bios <= queued, "%s: %llu bios of %llu Q", path, (unsigned long long)bios,
			  (unsigned long long)queued);
		cr_expect_eq(res->phase[BR_PHASE_Q2C].count, bios);
		br_analysis_free(a);
		br_reader_close(r);
	}
	globfree(&g);
}
