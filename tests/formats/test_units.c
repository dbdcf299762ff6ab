/* Parsing what users type: durations, sizes, whole numbers; the shared
 * usage-error shape; input format names. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/reader.h"
#include "blkreel/units.h"

Test(units, whole_numbers)
{
	static const struct {
		const char *text;
		uint64_t lo, hi;
		int rc;
		uint64_t want;
	} cases[] = {
		{ "1", 1, 9, 0, 1 },           { "9", 1, 9, 0, 9 },
		{ "10", 1, 9, BR_EINVAL, 0 },  { "0", 1, 9, BR_EINVAL, 0 },
		{ "0x10", 0, 100, 0, 16 },     { "0x", 0, 100, BR_EINVAL, 0 },
		{ "010", 0, 100, 0, 10 },      /* decimal, not octal */
		{ "-1", 0, UINT64_MAX, BR_EINVAL, 0 }, { "+1", 0, 9, BR_EINVAL, 0 },
		{ " 1", 0, 9, BR_EINVAL, 0 },  { "1x", 0, 9, BR_EINVAL, 0 },
		{ "", 0, 9, BR_EINVAL, 0 },    { "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
		{ "18446744073709551616", 0, UINT64_MAX, BR_EINVAL, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 12345;
		int rc = br_parse_uint(cases[i].text, cases[i].lo, cases[i].hi, &v);
		cr_expect_eq(rc, cases[i].rc, "'%s'", cases[i].text);
		if (!rc)
			cr_expect_eq(v, cases[i].want, "'%s'", cases[i].text);
	}
}

Test(units, durations_and_sizes)
{
	uint64_t v;
	cr_expect_eq(br_parse_duration_ns("1.5", &v), 0);
	cr_expect_eq(v, 1500000000ull);
	cr_expect_eq(br_parse_duration_ns("250ms", &v), 0);
	cr_expect_eq(v, 250000000ull);
	cr_expect_eq(br_parse_duration_ns("150us", &v), 0);
	cr_expect_eq(v, 150000ull);
	cr_expect_eq(br_parse_duration_ns("2m", &v), 0);
	cr_expect_eq(v, 120000000000ull);
	cr_expect_eq(br_parse_duration_ns("soon", &v), BR_EINVAL);
	cr_expect_eq(br_parse_duration_ns("-1s", &v), BR_EINVAL);
	cr_expect_eq(br_parse_size("64KiB", &v), 0);
	cr_expect_eq(v, 65536);
	cr_expect_eq(br_parse_size("1M", &v), 0);
	cr_expect_eq(v, 1048576);
	cr_expect_eq(br_parse_size("3 parsecs", &v), BR_EINVAL);
	char buf[32];
	cr_expect_str_eq(br_format_bytes(512, buf, sizeof buf), "512 B");
	cr_expect_str_eq(br_format_bytes(1536, buf, sizeof buf), "1.5 KiB");
	cr_expect_str_eq(br_format_duration(1500000, buf, sizeof buf), "1.500 ms");
}

Test(cli, every_listed_input_format_is_known)
{
	size_t n = 0;
	for (; br_input_format_names[n]; n++)
		cr_expect(br_input_format_known(br_input_format_names[n]), "%s",
			  br_input_format_names[n]);
	cr_expect_gt(n, 2);
	cr_expect_not(br_input_format_known("nope"));
}
