/* The CSV's latency column is the shared pairing's D2C (br_stats'
 * on_request hook), request by request: on real traces with merges,
 * partial completions and a flush per write, the rows with a latency are
 * exactly the requests br_stats completed and the column sums to its D2C. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/reader.h"
#include "blkreel/stats.h"
#include "blkreel/writer.h"
#include "testutil.h"

TestSuite(csv_pairing, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 120);

typedef struct hook_sum {
	uint64_t n;
	double d2c;
} hook_sum;

static void on_request(void *arg, const br_stats_request *req)
{
	hook_sum *h = arg;
	if (req->has_d) {
		h->n++;
		h->d2c += (double)(req->c_ns - req->d_ns);
	}
}

static void check(const char *rel)
{
	const char *trace = tu_sample(rel), *csv = tu_path("x.csv");
	br_error err;
	br_reader *r;
	cr_assert_eq(br_reader_open(&r, &trace, 1, NULL, &err), 0);
	hook_sum h = { 0 };
	br_stats_opts so = { .on_request = on_request, .on_request_arg = &h };
	br_stats *st;
	br_writer *w;
	cr_assert_eq(br_stats_new(&st, &so, &err), 0);
	cr_assert_eq(br_writer_open(&w, br_output_kind_for_path(csv), csv, NULL, &err), 0);
	br_event ev;
	int rc;
	uint64_t issues = 0;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		cr_assert_eq(br_stats_add(st, &ev, &err), 0);
		cr_assert_eq(br_writer_write(w, &ev, &err), 0);
		issues += !br_event_is_notify(&ev) && br_event_code(&ev) == __BLK_TA_ISSUE;
	}
	cr_assert_eq(rc, 0);
	cr_assert_eq(br_writer_close(w, &err), 0);
	cr_assert_eq(br_stats_finish(st, &err), 0);
	const br_stats_totals *t = br_stats_get_totals(st);
	cr_expect_eq(h.n, t->d2c.count, "%s: the hook sees every request br_stats completes", rel);
	cr_expect(h.d2c == t->d2c.sum, "%s: hook D2C %.0f, stats %.0f", rel, h.d2c, t->d2c.sum);

	size_t len;
	char *text = (char *)tu_read_file(csv, &len);
	cr_assert(text);
	uint64_t rows = 0, with_latency = 0;
	double sum = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "time_ns,", 8) == 0)
			continue;
		rows++;
		const char *last = strrchr(line, ',') + 1;
		if (*last) {
			with_latency++;
			sum += strtod(last, NULL);
		}
	}
	free(text);
	cr_expect_eq(rows, issues, "%s: a row per D", rel);
	cr_expect_eq(with_latency, t->d2c.count, "%s: %llu rows with a latency, %llu requests completed", rel,
		     (unsigned long long)with_latency, (unsigned long long)t->d2c.count);
	cr_expect(sum == t->d2c.sum, "%s: latency column sums to %.0f, D2C to %.0f", rel, sum, t->d2c.sum);
	br_stats_free(st);
	br_reader_close(r);
}

Test(csv_pairing, flush_per_write_dbench)
{
	check("xfs-dbench-1c.blktrace.gz"); /* the old sector-hash pairing matched 1000 of 1868 */
}

Test(csv_pairing, merges_and_discards)
{
	check("ext4-loop");
}

Test(csv_pairing, btrfs_eight_clients)
{
	check("btrfs-dbench-8c.blktrace.gz");
}
