/* test_json.c — the JSON writer (blkreel/json.h): every document it writes
 * parses with `python3 -m json.tool`, in both layouts, and decodes back to
 * what was meant — hostile strings (quotes, backslashes, every control
 * character, invalid UTF-8 as a process name may hold), numbers at their
 * limits, non-finite doubles as null; misuse is refused; and the replay
 * report (replay/report_json.c, compiled in) parses with hostile target
 * paths and NaN fidelity figures. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "blkreel/json.h"

#include "../../replay/report.h"

TestSuite(json, .init = tu_dir_setup, .fini = tu_dir_teardown);

/* python3 -m json.tool accepts the file (exit 0). */
static void expect_parses(const char *path)
{
	char *err = NULL;
	int rc = tu_runf(NULL, NULL, &err, "python3 -m json.tool '%s' > /dev/null", path);
	cr_expect_eq(rc, 0, "%s does not parse: %s", path, err ? err : "");
	free(err);
}

/* The document decoded by Python and written again compact and ASCII-only,
 * so the comparison sees code points, not bytes. */
static char *python_canonical(const char *path)
{
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL,
			 "python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1], "
			 "encoding=\"utf-8\")), separators=(\",\", \":\"), ensure_ascii=True))' '%s'",
			 path);
	cr_assert_eq(rc, 0, "python could not load %s", path);
	size_t n = strlen(out);
	if (n && out[n - 1] == '\n')
		out[n - 1] = 0;
	return out;
}

static FILE *open_doc(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s", tu_path(name));
	FILE *fp = fopen(path, "w");
	cr_assert(fp, "cannot create %s", path);
	return fp;
}

/* Every byte 0x00..0x1f and DEL, quotes and backslashes, valid multi-byte
 * UTF-8, and the invalid kinds: a stray continuation byte, a lead byte
 * without its continuation, an overlong form, a surrogate, a code point
 * past U+10FFFF, bytes that are never UTF-8, a sequence cut by the end. */
static const char hostile[] = "q\"b\\s/\x01\x02\x1f\x7f\n\r\t\b\f"
			      "|\x80|\xc3(|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xfe\xff|"
			      "\xc2\xb5\xe2\x82\xac\xf0\x9f\x98\x80|\xe2\x82";
static const char hostile_decoded[] =
	"\"q\\\"b\\\\s/\\u0001\\u0002\\u001f\\u007f\\n\\r\\t\\b\\f"
	"|\\ufffd|\\ufffd(|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd|"
	"\\ufffd\\ufffd|\\u00b5\\u20ac\\ud83d\\ude00|\\ufffd\\ufffd\"";

static void write_doc(FILE *fp, unsigned flags)
{
	br_json j;
	br_json_init(&j, fp, flags);
	br_json_object(&j);
	br_json_kstr(&j, "comm", hostile);
	br_json_key(&j, hostile); /* keys are escaped too */
	br_json_strn(&j, "nul\0inside", 10);
	br_json_kstr(&j, "none", NULL);
	br_json_kuint(&j, "u64_max", UINT64_MAX);
	br_json_kint(&j, "i64_min", INT64_MIN);
	br_json_kdouble(&j, "nan", NAN);
	br_json_kdouble(&j, "inf", INFINITY);
	br_json_kdouble(&j, "minus_inf", -INFINITY);
	br_json_kdouble(&j, "minus_zero", -0.0);
	br_json_kdouble(&j, "tiny", 1e-300);
	br_json_kdouble(&j, "big", 1.5e300);
	br_json_kdouble(&j, "third", 1.0 / 3);
	br_json_kbool(&j, "yes", true);
	br_json_knull(&j, "nothing");
	br_json_key(&j, "empty_object");
	br_json_object(&j);
	br_json_end(&j);
	br_json_key(&j, "empty_array");
	br_json_array(&j);
	br_json_end(&j);
	br_json_key(&j, "numbers");
	br_json_array(&j);
	for (int i = 0; i < 5; i++)
		br_json_int(&j, i - 2);
	br_json_end(&j);
	br_json_key(&j, "nested");
	br_json_array(&j);
	br_json_uint(&j, 1);
	br_json_array(&j);
	br_json_array(&j);
	br_json_end(&j);
	br_json_end(&j);
	br_json_object(&j);
	br_json_kstr(&j, "k", "v");
	br_json_end(&j);
	br_json_end(&j);
	br_json_end(&j);
	br_error err = { 0 };
	cr_assert_eq(br_json_finish(&j, "doc.json", &err), 0, "%s", err.msg);
}

static const char doc_decoded[] =
	"{\"comm\":%s,%s:\"nul\\u0000inside\",\"none\":null,"
	"\"u64_max\":18446744073709551615,\"i64_min\":-9223372036854775808,"
	"\"nan\":null,\"inf\":null,\"minus_inf\":null,\"minus_zero\":0,\"tiny\":1e-300,"
	"\"big\":1.5e+300,\"third\":0.333333333,\"yes\":true,\"nothing\":null,"
	"\"empty_object\":{},\"empty_array\":[],\"numbers\":[-2,-1,0,1,2],"
	"\"nested\":[1,[[]],{\"k\":\"v\"}]}";

static void check_layout(unsigned flags, const char *name)
{
	char path[1200];
	FILE *fp = open_doc(name, path, sizeof path);
	write_doc(fp, flags);
	cr_assert_eq(fclose(fp), 0);
	expect_parses(path);
	char *got = python_canonical(path);
	char want[4096];
	snprintf(want, sizeof want, doc_decoded, hostile_decoded, hostile_decoded);
	cr_expect_str_eq(got, want);
	free(got);
}

Test(json, pretty_document_parses_and_decodes_exactly)
{
	check_layout(BR_JSON_PRETTY, "pretty.json");
	/* the layout: a member per line, arrays of plain values on one */
	size_t n;
	char *text = (char *)tu_read_file(tu_path("pretty.json"), &n);
	cr_assert(text);
	cr_expect(strstr(text, "{\n  \"comm\": \"q"), "%s", text);
	cr_expect(strstr(text, "\"numbers\": [-2, -1, 0, 1, 2],\n"), "%s", text);
	cr_expect(strstr(text, "\"empty_object\": {},\n"), "%s", text);
	cr_expect(strstr(text, "\"nested\": [1,\n    [\n      []\n    ],\n    {\n      \"k\": \"v\"\n    }\n  ]\n}\n"),
		  "%s", text);
	free(text);
}

Test(json, compact_document_parses_and_decodes_exactly)
{
	check_layout(0, "compact.json");
	size_t n;
	char *text = (char *)tu_read_file(tu_path("compact.json"), &n);
	cr_assert(text);
	cr_expect(!strchr(text, ' '), "compact output has spaces: %s", text);
	cr_expect(strstr(text, "\"numbers\":[-2,-1,0,1,2],"), "%s", text);
	cr_expect_eq(text[n - 1], '\n');
	cr_expect_eq(strchr(text, '\n'), text + n - 1, "one line: %s", text);
	free(text);
}

/* One record per line, as a streamed Trace Event file is written: the
 * elements of arrays of containers on their own lines, the rest compact. */
Test(json, lines_document_parses_and_puts_records_on_lines)
{
	check_layout(BR_JSON_LINES, "lines.json");
	char path[1200];
	FILE *fp = open_doc("records.json", path, sizeof path);
	br_json j;
	br_json_init(&j, fp, BR_JSON_LINES);
	br_json_object(&j);
	br_json_kstr(&j, "unit", "ns");
	br_json_key(&j, "traceEvents");
	br_json_array(&j);
	for (int i = 0; i < 3; i++) {
		br_json_object(&j);
		br_json_kint(&j, "pid", i);
		br_json_key(&j, "args");
		br_json_object(&j);
		br_json_key(&j, "v");
		br_json_array(&j);
		br_json_uint(&j, 1);
		br_json_uint(&j, 2);
		br_json_end(&j);
		br_json_end(&j);
		br_json_end(&j);
	}
	br_json_end(&j);
	br_json_key(&j, "none");
	br_json_array(&j);
	br_json_end(&j);
	br_json_end(&j);
	br_error err = { 0 };
	cr_assert_eq(br_json_finish(&j, path, &err), 0, "%s", err.msg);
	cr_assert_eq(fclose(fp), 0);
	expect_parses(path);
	size_t n;
	char *text = (char *)tu_read_file(path, &n);
	cr_assert(text);
	cr_expect_str_eq(text, "{\"unit\":\"ns\",\"traceEvents\":[\n"
			       "{\"pid\":0,\"args\":{\"v\":[1,2]}},\n"
			       "{\"pid\":1,\"args\":{\"v\":[1,2]}},\n"
			       "{\"pid\":2,\"args\":{\"v\":[1,2]}}\n"
			       "],\"none\":[]}\n");
	free(text);
}

/* Numbers a caller wants in a given form: ns as µs exactly (decimal) and
 * rounded figures (fixed); each is the text JSON would have for it. */
Test(json, decimal_and_fixed_numbers_are_exact_text)
{
	char path[1200];
	FILE *fp = open_doc("numbers.json", path, sizeof path);
	br_json j;
	br_json_init(&j, fp, 0);
	br_json_array(&j);
	br_json_decimal(&j, 0, 3);
	br_json_decimal(&j, 12345, 3);
	br_json_decimal(&j, 1000, 3);
	br_json_decimal(&j, 7, 0);
	br_json_decimal(&j, 5, 19);
	br_json_decimal(&j, UINT64_MAX, 19);
	br_json_decimal(&j, UINT64_MAX, 0);
	br_json_fixed(&j, 1.23456, 3);
	br_json_fixed(&j, 1.5, 3);
	br_json_fixed(&j, -0.0001, 3);
	br_json_fixed(&j, -2.25, 1);
	br_json_fixed(&j, 99.96, 1);
	br_json_fixed(&j, 1e20, 0);
	br_json_fixed(&j, -DBL_MAX, 17);
	br_json_fixed(&j, NAN, 3);
	br_json_fixed(&j, -INFINITY, 3);
	br_json_kdecimal(&j, "no key in an array", 1, 1); /* misuse: refused below */
	br_json_end(&j);
	br_error err = { 0 };
	cr_expect_eq(br_json_finish(&j, path, &err), BR_EINVAL, "a key inside an array is misuse");
	cr_assert_eq(fclose(fp), 0);
	size_t n;
	char *text = (char *)tu_read_file(path, &n);
	cr_assert(text);
	char want[1024];
	snprintf(want, sizeof want,
		 "[0.000,12.345,1.000,7,0.0000000000000000005,1.8446744073709551615,18446744073709551615,"
		 "1.235,1.500,0.000,-2.2,100.0,100000000000000000000,%.17f,null,null",
		 -DBL_MAX);
	cr_expect_str_eq(text, want);
	free(text);

	/* the same values in a finished document parse */
	fp = open_doc("numbers2.json", path, sizeof path);
	br_json_init(&j, fp, BR_JSON_PRETTY);
	br_json_object(&j);
	br_json_kdecimal(&j, "ts", 123456789, 3);
	br_json_kfixed(&j, "avg", 2.0 / 3, 3);
	br_json_kfixed(&j, "nan", NAN, 3);
	br_json_end(&j);
	cr_assert_eq(br_json_finish(&j, path, &err), 0, "%s", err.msg);
	cr_assert_eq(fclose(fp), 0);
	expect_parses(path);
	char *got = python_canonical(path);
	cr_expect_str_eq(got, "{\"ts\":123456.789,\"avg\":0.667,\"nan\":null}");
	free(got);
}

/* Every single byte value as a string of its own, and every pair of a lead
 * byte with a second byte: whatever the bytes, the output parses. */
Test(json, every_byte_and_byte_pair_parses)
{
	char path[1200];
	FILE *fp = open_doc("bytes.json", path, sizeof path);
	br_json j;
	br_json_init(&j, fp, 0);
	br_json_array(&j);
	for (unsigned a = 0; a < 256; a++) {
		char one = (char)a;
		br_json_strn(&j, &one, 1);
		for (unsigned b = 0; b < 256; b += 3) {
			char two[3] = { (char)a, (char)b, (char)0x80 };
			br_json_strn(&j, two, 3);
		}
	}
	br_json_end(&j);
	br_error err = { 0 };
	cr_assert_eq(br_json_finish(&j, path, &err), 0, "%s", err.msg);
	cr_assert_eq(fclose(fp), 0);
	expect_parses(path);
}

static void expect_misuse(void (*misuse_fn)(br_json *), const char *needle)
{
	char path[1200];
	FILE *fp = open_doc("misuse.json", path, sizeof path);
	br_json j;
	br_json_init(&j, fp, BR_JSON_PRETTY);
	misuse_fn(&j);
	br_error err = { 0 };
	cr_expect_eq(br_json_finish(&j, path, &err), BR_EINVAL, "%s: accepted", needle);
	cr_expect(strstr(err.msg, needle), "'%s' not in: %s", needle, err.msg);
	cr_expect(strstr(err.file, "misuse.json"), "%s", err.file);
	fclose(fp);
}

static void value_without_key(br_json *j)
{
	br_json_object(j);
	br_json_uint(j, 1);
	br_json_end(j);
}
static void left_open(br_json *j)
{
	br_json_array(j);
	br_json_uint(j, 1);
}
static void end_too_often(br_json *j)
{
	br_json_array(j);
	br_json_end(j);
	br_json_end(j);
}
static void key_in_array(br_json *j)
{
	br_json_array(j);
	br_json_key(j, "k");
	br_json_end(j);
}
static void two_top_values(br_json *j)
{
	br_json_uint(j, 1);
	br_json_uint(j, 2);
}
static void key_without_value(br_json *j)
{
	br_json_object(j);
	br_json_key(j, "k");
	br_json_end(j);
}
static void too_deep(br_json *j)
{
	for (int i = 0; i <= BR_JSON_MAX_DEPTH; i++)
		br_json_array(j);
	for (int i = 0; i <= BR_JSON_MAX_DEPTH; i++)
		br_json_end(j);
}
static void nothing(br_json *j)
{
	(void)j;
}
static void decimal_scale_too_big(br_json *j)
{
	br_json_array(j);
	br_json_decimal(j, 1, 20);
	br_json_end(j);
}
static void fixed_too_many_decimals(br_json *j)
{
	br_json_array(j);
	br_json_fixed(j, 1.0, 18);
	br_json_end(j);
}

Test(json, misuse_is_refused)
{
	expect_misuse(value_without_key, "without a key");
	expect_misuse(left_open, "left open");
	expect_misuse(end_too_often, "no container open");
	expect_misuse(key_in_array, "outside an object");
	expect_misuse(two_top_values, "second value");
	expect_misuse(key_without_value, "without its value");
	expect_misuse(too_deep, "deeper");
	expect_misuse(nothing, "no value");
	expect_misuse(decimal_scale_too_big, "scale past 19");
	expect_misuse(fixed_too_many_decimals, "more than 17 decimals");
}

Test(json, write_failure_is_reported)
{
	FILE *fp = fopen("/dev/full", "w");
	if (!fp)
		cr_skip_test("no /dev/full");
	br_json j;
	br_json_init(&j, fp, 0);
	br_json_array(&j);
	for (int i = 0; i < 10000; i++)
		br_json_str(&j, "filling the buffer past what stdio holds");
	br_json_end(&j);
	br_error err = { 0 };
	cr_expect_eq(br_json_finish(&j, "/dev/full", &err), BR_ESYS);
	fclose(fp);
}

/* The replay report through the writer: hostile target paths, NaN and
 * infinite figures, a trace without completions (null depth). */
Test(json, replay_report_parses_with_hostile_paths)
{
	replay_opts o = { .speed = 1.0, .write = true };
	plan_totals p = { .planned = { 3, 2, 1, 0 }, .fua = 1 };
	uint32_t wt[4] = { 1, 2, 0, 0 }, wa[4] = { 1, 1, 0, 0 };
	replay_stats st = { .issued = { 3, 2, 1, 0 }, .win_target = wt, .win_actual = wa, .nwin = 4 };
	target t[2] = { { .path = hostile, .size = 1 << 20, .align = 512, .direct = true },
			{ .path = "/dev/loop\"7\\\n", .size = 4096 } };
	replay_result r = { .o = &o, .engine = "uring\x01\xff", .plan = &p, .st = &st, .targets = t,
			    .ntargets = 2, .depth = 8, .wall_ns = 1500000000 };
	fidelity f = { .span_s = 1.0, .duration_s = NAN, .drift_pct = INFINITY, .iops = -INFINITY,
		       .pct_early = 12.5, .inflight_avg = NAN };
	br_error err = { 0 };
	const char *path = tu_path("replay.json");
	cr_assert_eq(report_json(path, &r, &f, &err), 0, "%s", err.msg);
	expect_parses(path);
	char *got = python_canonical(path);
	char want[2048];
	snprintf(want, sizeof want, "\"targets\":[{\"path\":%s,", hostile_decoded);
	cr_expect(strstr(got, want), "%s", got);
	cr_expect(strstr(got, "\"engine\":\"uring\\u0001\\ufffd\""), "%s", got);
	cr_expect(strstr(got, "\"duration_s\":null,\"drift_pct\":null"), "%s", got);
	cr_expect(strstr(got, "\"iops\":null"), "%s", got);
	cr_expect(strstr(got, "\"target\":[10,20],\"achieved\":[10,10]"), "%s", got);
	cr_expect(strstr(got, "\"trace_avg\":null,\"trace_max\":null"), "%s", got);
	cr_expect(strstr(got, "\"planned\":{\"read\":3,\"write\":2,\"flush\":1,\"discard\":0}"), "%s", got);
	free(got);
}
