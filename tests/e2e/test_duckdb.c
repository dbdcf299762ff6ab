/* A real engine reads our CSV: DuckDB (the @duckdb/node-api package from
 * npm, a test-only dependency installed into build/npm on first use) loads
 * blkreel-parse -o X.csv, and its totals (IOs, bytes, completed, mean D2C)
 * equal what blkreel-parse --info prints for the same trace. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define DUCKDB_PKG "@duckdb/node-api@1.5.6-r.1"

TestSuite(duckdb, .init = tu_dir_setup, .fini = tu_dir_teardown, .timeout = 600);

/* build/npm/node_modules with DuckDB in it, installing it once (under a
 * lock: the tests of this suite run in parallel). Skips the test only when
 * the npm registry cannot be reached. */
static const char *duckdb_modules(void)
{
	static char modules[4096];
	snprintf(modules, sizeof modules, "%s/build/npm/node_modules", tu_root());
	cr_assert(tu_have("node") && tu_have("npm"), "node and npm are test dependencies (make deps-test)");
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err,
			 "mkdir -p '%s/build/npm' && cd '%s/build/npm' && flock .lock sh -c '"
			 "[ -f node_modules/@duckdb/node-api/package.json ] || "
			 "npm install --no-audit --no-fund --no-save --prefix . " DUCKDB_PKG "'",
			 tu_root(), tu_root());
	if (rc) {
		if (tu_runf(NULL, NULL, NULL, "timeout 60 npm ping >/dev/null 2>&1") != 0)
			cr_skip_test("the npm registry is unreachable, so DuckDB cannot be installed: %.200s", err);
		cr_assert_fail("npm install " DUCKDB_PKG " failed (%d):\n%s\n%s", rc, out, err);
	}
	free(out);
	free(err);
	return modules;
}

static bool value(const char *text, const char *key, char *buf, size_t size)
{
	size_t l = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, key, l) == 0 && p[l] == ' ') {
			size_t n = strcspn(p + l + 1, "\n");
			snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), p + l + 1);
			return true;
		}
	return false;
}

static void totals_match(const char *rel)
{
	const char *modules = duckdb_modules();
	const char *trace = tu_sample(rel), *csv = tu_path("x.csv");
	cr_assert_eq(tu_run_tool(NULL, NULL, "blkreel-parse", "'%s' -o '%s'", trace, csv), 0);
	char *db = NULL, *err = NULL, *info = NULL;
	int rc = tu_runf(&db, NULL, &err, "node '%s/tests/e2e/tools/duckdb_totals.mjs' '%s' '%s'", tu_root(),
			 modules, csv);
	cr_assert_eq(rc, 0, "%s: DuckDB failed: %s", rel, err);
	cr_assert_eq(tu_run_tool(&info, NULL, "blkreel-parse", "--info '%s'", trace), 0);

	unsigned long long ios, bytes, done, never;
	const char *req = strstr(info, "\nrequests: ");
	cr_assert(req, "--info has no requests line:\n%s", info);
	cr_assert_eq(sscanf(req, "\nrequests: %llu issued (D), %llu bytes; %llu completed, %llu never", &ios,
			    &bytes, &done, &never), 4, "%s", req);
	char v[64], want[64];
	cr_assert(value(db, "ios", v, sizeof v), "%s", db);
	cr_expect_eq(strtoull(v, NULL, 10), ios, "%s: DuckDB %s IOs, --info %llu", rel, v, ios);
	value(db, "bytes", v, sizeof v);
	cr_expect_eq(strtoull(v, NULL, 10), bytes, "%s: DuckDB %s bytes, --info %llu", rel, v, bytes);
	value(db, "completed", v, sizeof v);
	cr_expect_eq(strtoull(v, NULL, 10), done, "%s: DuckDB %s completed, --info %llu", rel, v, done);
	/* mean D2C: --info prints us with three decimals (ns) */
	const char *d2c = strstr(info, "D2C: mean ");
	cr_assert(d2c, "%s", info);
	double info_us = strtod(d2c + 10, NULL);
	cr_assert(value(db, "mean_d2c_ns", v, sizeof v) && strcmp(v, "null"), "%s", db);
	snprintf(want, sizeof want, "%.3f", strtod(v, NULL) / 1e3);
	char got[64];
	snprintf(got, sizeof got, "%.3f", info_us);
	cr_expect_str_eq(want, got, "%s: mean D2C DuckDB %s us, --info %s us", rel, want, got);
	free(db);
	free(err);
	free(info);
}

Test(duckdb, per_cpu_set_with_merges_discards_and_flushes)
{
	totals_match("ext4-loop");
}

Test(duckdb, dbench_with_a_flush_per_write)
{
	totals_match("xfs-dbench-1c.blktrace.gz");
}

Test(duckdb, random_reads_four_threads)
{
	totals_match("ext4-fio-rand-4t.blktrace.gz");
}

Test(duckdb, btrfs_eight_clients)
{
	totals_match("btrfs-dbench-8c.blktrace.gz");
}
