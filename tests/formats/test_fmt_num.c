/* The number scanners behind the text readers (fmt_num.h): exact fixed
 * point, truncation of extra digits, overflow refused, cursor placement. */
#include <criterion/criterion.h>

#include "import/fmt_num.h"

Test(fmt_num, u64_and_overflow)
{
	const char *p = "18446744073709551615 x";
	uint64_t v;
	cr_assert(fmt_u64(&p, &v));
	cr_expect_eq(v, UINT64_MAX);
	cr_expect_eq(*p, ' ');
	p = "18446744073709551616";
	cr_expect(!fmt_u64(&p, &v), "2^64 overflows");
	p = "-1";
	cr_expect(!fmt_u64(&p, &v), "no sign");
	p = "";
	cr_expect(!fmt_u64(&p, &v));
	uint32_t w;
	p = "4294967296";
	cr_expect(!fmt_u32(&p, &w));
	p = "4294967295";
	cr_expect(fmt_u32(&p, &w) && w == UINT32_MAX);
}

Test(fmt_num, fixed_point)
{
	uint64_t v;
	const char *p = "3599.171823699 ;";
	cr_assert(fmt_fixed(&p, 9, &v));
	cr_expect_eq(v, 3599171823699ull);
	cr_expect_eq(*p, ' ');
	p = "1.5";
	cr_assert(fmt_fixed(&p, 9, &v));
	cr_expect_eq(v, 1500000000ull);
	p = "0.1234567891234";   /* extra digits truncated, not rounded */
	cr_assert(fmt_fixed(&p, 9, &v));
	cr_expect_eq(v, 123456789ull);
	cr_expect_eq(*p, 0);
	p = "0.125";             /* ms → ns with 6 digits */
	cr_assert(fmt_fixed(&p, 6, &v));
	cr_expect_eq(v, 125000ull);
	p = "7";
	cr_assert(fmt_fixed(&p, 0, &v));
	cr_expect_eq(v, 7);
	p = ".5";
	cr_assert(fmt_fixed(&p, 3, &v));
	cr_expect_eq(v, 500);
	p = ".";
	cr_expect(!fmt_fixed(&p, 3, &v));
	p = "18446744074.0";     /* > 2^64 ns */
	cr_expect(!fmt_fixed(&p, 9, &v));
}

Test(fmt_num, tokens)
{
	const char *p = "abc;def ghi", *t;
	size_t n;
	fmt_token(&p, ';', &t, &n);
	cr_expect_eq(n, 3);
	cr_expect(fmt_tok_is(t, n, "abc"));
	cr_expect(!fmt_tok_is(t, n, "ab"));
	cr_expect(!fmt_tok_is(t, n, "abcd"));
	cr_expect_eq(*p, ';');
	cr_expect(fmt_at_end("  \t", "  \t" + 3));
}
