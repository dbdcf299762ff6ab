/* json_writer.c — the streaming JSON writer of blkreel/json.h.
 *
 * Separators are decided when the next value arrives, from the state of
 * the innermost container, so callers never track "first element". Strings
 * are copied in runs of bytes that need no escaping; only the bytes that do
 * are looked at one by one. */
#include "blkreel/json.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* stdio without its lock: a document is written by one thread (json.h),
 * and a locked call per byte or token was most of the cost of a streamed
 * Trace Event file. Most tokens are a few bytes (keys, numbers): those go
 * byte by byte into the FILE's buffer (putc_unlocked is a macro), which is
 * cheaper than a call to fwrite for each. */
static inline void put_c(char c, FILE *o)
{
	putc_unlocked(c, o);
}

static inline void put_n(const void *p, size_t n, FILE *o)
{
	if (n > 16) {
		fwrite_unlocked(p, 1, n, o);
		return;
	}
	for (const char *c = p, *end = c + n; c < end; c++)
		putc_unlocked(*c, o);
}

static inline void put_s(const char *s, FILE *o)
{
	put_n(s, strlen(s), o);
}

void br_json_init(br_json *j, FILE *out, unsigned flags)
{
	memset(j, 0, sizeof *j);
	j->out = out;
	j->pretty = flags & BR_JSON_PRETTY;
	j->lines = !j->pretty && (flags & BR_JSON_LINES);
}

static void misuse(br_json *j, const char *why)
{
	if (!j->misused) {
		j->misused = true;
		j->why = why;
	}
}

static void newline(br_json *j, unsigned depth)
{
	put_c('\n', j->out);
	for (unsigned i = 0; i < depth; i++)
		put_s("  ", j->out);
}

/* Before a value: check it may come here and write what separates it from
 * the one before. container: the value opens an object or array. Returns
 * false (and writes nothing) on misuse. */
static bool before_value(br_json *j, bool container)
{
	if (j->misused)
		return false;
	if (j->done) {
		misuse(j, "a second value after the document's top-level value");
		return false;
	}
	if (!j->depth)
		return true;
	unsigned d = j->depth - 1;
	if (j->is_object[d]) {
		if (!j->have_key) {
			misuse(j, "an object member without a key");
			return false;
		}
		j->have_key = false;
		return true; /* the key wrote the separator */
	}
	if (j->nonempty[d])
		put_c(',', j->out);
	if (j->pretty) {
		if (container) {
			j->multiline[d] = true;
			newline(j, j->depth);
		} else if (j->nonempty[d]) {
			put_c(' ', j->out);
		}
	} else if (j->lines && container) {
		j->multiline[d] = true;
		put_c('\n', j->out);
	}
	j->nonempty[d] = true;
	return true;
}

static void after_value(br_json *j)
{
	if (!j->depth)
		j->done = true;
}

/* Bytes of the UTF-8 sequence starting at s (n bytes left), or 0 when it
 * is not valid: overlong forms, surrogates and code points past U+10FFFF
 * are invalid too (RFC 3629). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* no overlongs */
		else if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f; /* nothing past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

static void put_string(br_json *j, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	FILE *o = j->out;
	put_c('"', o);
	size_t run = 0; /* s[0..run) need no escaping and are not written yet */
	while (run < n) {
		unsigned char c = s[run];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			run++;
			continue;
		}
		size_t ulen = c >= 0x80 ? utf8_len(s + run, n - run) : 0;
		if (ulen) {
			run += ulen;
			continue;
		}
		put_n(s, run, o);
		s += run;
		n -= run;
		run = 0;
		switch (c) {
		case '"': put_s("\\\"", o); break;
		case '\\': put_s("\\\\", o); break;
		case '\n': put_s("\\n", o); break;
		case '\r': put_s("\\r", o); break;
		case '\t': put_s("\\t", o); break;
		case '\b': put_s("\\b", o); break;
		case '\f': put_s("\\f", o); break;
		default:
			if (c < 0x80) { /* other controls and DEL */
				char u[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
				put_s(u, o);
			} else {
				put_s("\xef\xbf\xbd", o); /* U+FFFD for one invalid byte */
			}
		}
		s++;
		n--;
	}
	put_n(s, run, o);
	put_c('"', o);
}

static void open_container(br_json *j, bool object)
{
	if (!before_value(j, true))
		return;
	if (j->depth == BR_JSON_MAX_DEPTH) {
		misuse(j, "containers nested deeper than BR_JSON_MAX_DEPTH");
		return;
	}
	put_c(object ? '{' : '[', j->out);
	unsigned d = j->depth++;
	j->is_object[d] = object;
	j->nonempty[d] = false;
	j->multiline[d] = object && j->pretty;
}

void br_json_object(br_json *j)
{
	open_container(j, true);
}

void br_json_array(br_json *j)
{
	open_container(j, false);
}

void br_json_end(br_json *j)
{
	if (j->misused)
		return;
	if (!j->depth) {
		misuse(j, "br_json_end with no container open");
		return;
	}
	unsigned d = j->depth - 1;
	if (j->have_key) {
		misuse(j, "an object closed after a key without its value");
		return;
	}
	j->depth--;
	if (j->nonempty[d] && j->multiline[d])
		newline(j, j->pretty ? j->depth : 0);
	put_c(j->is_object[d] ? '}' : ']', j->out);
	after_value(j);
}

void br_json_key(br_json *j, const char *key)
{
	if (j->misused)
		return;
	if (!j->depth || !j->is_object[j->depth - 1]) {
		misuse(j, "a key outside an object");
		return;
	}
	if (j->have_key) {
		misuse(j, "two keys in a row");
		return;
	}
	unsigned d = j->depth - 1;
	if (j->nonempty[d])
		put_c(',', j->out);
	if (j->pretty)
		newline(j, j->depth);
	j->nonempty[d] = true;
	put_string(j, key ? key : "", key ? strlen(key) : 0);
	put_s(j->pretty ? ": " : ":", j->out);
	j->have_key = true;
}

void br_json_strn(br_json *j, const char *s, size_t n)
{
	if (!before_value(j, false))
		return;
	put_string(j, s, n);
	after_value(j);
}

void br_json_str(br_json *j, const char *s)
{
	if (!s) {
		br_json_null(j);
		return;
	}
	br_json_strn(j, s, strlen(s));
}

/* The decimal digits of v, at least min_digits of them (zeros in front),
 * ending at end; returns where they start. Numbers are most of a streamed
 * file such as Trace Event JSON, and this is several times cheaper than
 * fprintf. */
static char *digits(char *end, uint64_t v, unsigned min_digits)
{
	char *p = end;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((unsigned)(end - p) < min_digits)
		*--p = '0';
	return p;
}

void br_json_uint(br_json *j, uint64_t v)
{
	if (!before_value(j, false))
		return;
	char buf[24], *end = buf + sizeof buf;
	char *p = digits(end, v, 1);
	put_n(p, (size_t)(end - p), j->out);
	after_value(j);
}

void br_json_int(br_json *j, int64_t v)
{
	if (!before_value(j, false))
		return;
	char buf[24], *end = buf + sizeof buf;
	/* the magnitude as unsigned: INT64_MIN has no positive int64_t */
	char *p = digits(end, v < 0 ? -(uint64_t)v : (uint64_t)v, 1);
	if (v < 0)
		*--p = '-';
	put_n(p, (size_t)(end - p), j->out);
	after_value(j);
}

void br_json_decimal(br_json *j, uint64_t v, unsigned scale)
{
	if (scale > 19) {
		misuse(j, "br_json_decimal with a scale past 19");
		return;
	}
	if (!before_value(j, false))
		return;
	static const uint64_t pow10[20] = { 1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
					    10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
					    100000000000ull, 1000000000000ull, 10000000000000ull,
					    100000000000000ull, 1000000000000000ull, 10000000000000000ull,
					    100000000000000000ull, 1000000000000000000ull,
					    10000000000000000000ull };
	char buf[48], *end = buf + sizeof buf;
	char *p = end;
	if (scale) {
		p = digits(end, v % pow10[scale], scale);
		*--p = '.';
	}
	p = digits(p, v / pow10[scale], 1);
	put_n(p, (size_t)(end - p), j->out);
	after_value(j);
}

void br_json_double(br_json *j, double v)
{
	if (!before_value(j, false))
		return;
	if (isfinite(v)) {
		/* %g never gives JSON's forbidden forms ("inf", a leading '+',
		 * a bare '.'); integral values print without a point, which is
		 * valid JSON */
		fprintf(j->out, "%.9g", v == 0 ? 0.0 : v); /* no "-0" */
	} else {
		put_s("null", j->out);
	}
	after_value(j);
}

void br_json_fixed(br_json *j, double v, unsigned decimals)
{
	if (decimals > 17) {
		misuse(j, "br_json_fixed with more than 17 decimals");
		return;
	}
	if (!before_value(j, false))
		return;
	if (isfinite(v)) {
		/* %f never gives an exponent; with 17 decimals and 309 integer
		 * digits at most it fits */
		char buf[340];
		int n = snprintf(buf, sizeof buf, "%.*f", (int)decimals, v);
		const char *p = buf;
		if (buf[0] == '-' && strspn(buf + 1, "0.") == (size_t)n - 1)
			p++, n--; /* rounded to zero: no "-0.000" */
		put_n(p, (size_t)n, j->out);
	} else {
		put_s("null", j->out);
	}
	after_value(j);
}

void br_json_bool(br_json *j, bool v)
{
	if (!before_value(j, false))
		return;
	put_s(v ? "true" : "false", j->out);
	after_value(j);
}

void br_json_null(br_json *j)
{
	if (!before_value(j, false))
		return;
	put_s("null", j->out);
	after_value(j);
}

void br_json_kstr(br_json *j, const char *key, const char *s)
{
	br_json_key(j, key);
	br_json_str(j, s);
}

void br_json_kuint(br_json *j, const char *key, uint64_t v)
{
	br_json_key(j, key);
	br_json_uint(j, v);
}

void br_json_kint(br_json *j, const char *key, int64_t v)
{
	br_json_key(j, key);
	br_json_int(j, v);
}

void br_json_kdouble(br_json *j, const char *key, double v)
{
	br_json_key(j, key);
	br_json_double(j, v);
}

void br_json_kdecimal(br_json *j, const char *key, uint64_t v, unsigned scale)
{
	br_json_key(j, key);
	br_json_decimal(j, v, scale);
}

void br_json_kfixed(br_json *j, const char *key, double v, unsigned decimals)
{
	br_json_key(j, key);
	br_json_fixed(j, v, decimals);
}

void br_json_kbool(br_json *j, const char *key, bool v)
{
	br_json_key(j, key);
	br_json_bool(j, v);
}

void br_json_knull(br_json *j, const char *key)
{
	br_json_key(j, key);
	br_json_null(j);
}

int br_json_finish(br_json *j, const char *path, br_error *err)
{
	if (!j->misused && (j->depth || !j->done))
		misuse(j, j->depth ? "a container left open" : "no value written");
	if (j->misused)
		return br_error_set(err, BR_EINVAL, 0, path, -1, "JSON writer misuse: %s", j->why);
	put_c('\n', j->out);
	if (fflush(j->out) || ferror(j->out))
		return br_error_set(err, BR_ESYS, errno, path, -1, "writing JSON failed");
	return 0;
}
