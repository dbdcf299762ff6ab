/* fmt_num.h (internal) — number and token scanning for the text readers.
 *
 * Hand-written instead of scanf/strtoull: the readers must parse millions
 * of lines a second, and these never look at the locale, never skip more
 * than they are asked to, and report overflow instead of saturating. All
 * take a cursor (*p) and advance it past what they consumed; on failure the
 * cursor is left where the problem is. */
#ifndef BLKREEL_FMT_NUM_H
#define BLKREEL_FMT_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool fmt_is_space(char c)
{
	return c == ' ' || c == '\t';
}

static inline void fmt_skip_ws(const char **p)
{
	while (fmt_is_space(**p))
		(*p)++;
}

/* Decimal digits into *v (at least one digit, no sign); false on none or
 * on overflow of 64 bits. */
bool fmt_u64(const char **p, uint64_t *v);

/* Same, limited to 32 bits. */
bool fmt_u32(const char **p, uint32_t *v);

/* "INT[.FRAC]" scaled by 10^frac_digits, extra fraction digits dropped
 * (truncated): fmt_fixed("1.5", 9) = 1500000000 (seconds → ns). */
bool fmt_fixed(const char **p, unsigned frac_digits, uint64_t *v);

/* A run of non-blank characters (stops at space, tab, NUL or stop). */
void fmt_token(const char **p, char stop, const char **tok, size_t *len);

/* True when only blanks remain before end. */
static inline bool fmt_at_end(const char *p, const char *end)
{
	while (p < end && fmt_is_space(*p))
		p++;
	return p == end;
}

static inline bool fmt_tok_is(const char *tok, size_t len, const char *word)
{
	size_t i = 0;
	for (; i < len; i++)
		if (word[i] != tok[i] || !word[i])
			return false;
	return word[i] == 0;
}

#endif
