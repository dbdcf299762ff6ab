/* Number and token scanning for the text readers (see fmt_num.h). */
#include "fmt_num.h"

bool fmt_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10) {
			*p = s;
			return false;
		}
		x = x * 10 + d;
		s++;
	}
	*v = x;
	*p = s;
	return true;
}

bool fmt_u32(const char **p, uint32_t *v)
{
	const char *start = *p;
	uint64_t x;
	if (!fmt_u64(p, &x))
		return false;
	if (x > UINT32_MAX) {
		*p = start;
		return false;
	}
	*v = (uint32_t)x;
	return true;
}

static const uint64_t pow10_tab[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

bool fmt_fixed(const char **p, unsigned frac_digits, uint64_t *v)
{
	const char *s = *p;
	uint64_t ip = 0, fp = 0;
	bool any = false;
	if (*s >= '0' && *s <= '9') {
		if (!fmt_u64(&s, &ip)) {
			*p = s;
			return false;
		}
		any = true;
	}
	unsigned n = 0;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			if (n < frac_digits) {
				fp = fp * 10 + (uint64_t)(*s - '0');
				n++;
			}
			any = true;
			s++;
		}
	}
	if (!any || frac_digits > 19) {
		*p = s;
		return false;
	}
	fp *= pow10_tab[frac_digits - n];
	uint64_t scale = pow10_tab[frac_digits];
	if (ip > (UINT64_MAX - fp) / scale) {
		*p = s;
		return false;
	}
	*v = ip * scale + fp;
	*p = s;
	return true;
}

void fmt_token(const char **p, char stop, const char **tok, size_t *len)
{
	const char *s = *p;
	*tok = s;
	while (*s && !fmt_is_space(*s) && *s != stop)
		s++;
	*len = (size_t)(s - *tok);
	*p = s;
}
