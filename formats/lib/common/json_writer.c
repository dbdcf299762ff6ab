/* json_writer.c — the streaming JSON writer of blkreel/json.h.
 *
 * Separators are decided when the next value arrives, from the state of
 * the innermost container, so callers never track "first element". Strings
 * are copied in runs of bytes that need no escaping; only the bytes that do
 * are looked at one by one. */
#include "blkreel/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

void br_json_init(br_json *j, FILE *out, unsigned flags)
{
	memset(j, 0, sizeof *j);
	j->out = out;
	j->pretty = flags & BR_JSON_PRETTY;
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
	fputc('\n', j->out);
	for (unsigned i = 0; i < depth; i++)
		fputs("  ", j->out);
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
		fputc(',', j->out);
	if (j->pretty) {
		if (container) {
			j->multiline[d] = true;
			newline(j, j->depth);
		} else if (j->nonempty[d]) {
			fputc(' ', j->out);
		}
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
	fputc('"', o);
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
		fwrite(s, 1, run, o);
		s += run;
		n -= run;
		run = 0;
		switch (c) {
		case '"': fputs("\\\"", o); break;
		case '\\': fputs("\\\\", o); break;
		case '\n': fputs("\\n", o); break;
		case '\r': fputs("\\r", o); break;
		case '\t': fputs("\\t", o); break;
		case '\b': fputs("\\b", o); break;
		case '\f': fputs("\\f", o); break;
		default:
			if (c < 0x80) { /* other controls and DEL */
				char u[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
				fputs(u, o);
			} else {
				fputs("\xef\xbf\xbd", o); /* U+FFFD for one invalid byte */
			}
		}
		s++;
		n--;
	}
	fwrite(s, 1, run, o);
	fputc('"', o);
}

static void open_container(br_json *j, bool object)
{
	if (!before_value(j, true))
		return;
	if (j->depth == BR_JSON_MAX_DEPTH) {
		misuse(j, "containers nested deeper than BR_JSON_MAX_DEPTH");
		return;
	}
	fputc(object ? '{' : '[', j->out);
	unsigned d = j->depth++;
	j->is_object[d] = object;
	j->nonempty[d] = false;
	j->multiline[d] = object;
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
	if (j->pretty && j->nonempty[d] && j->multiline[d])
		newline(j, j->depth);
	fputc(j->is_object[d] ? '}' : ']', j->out);
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
		fputc(',', j->out);
	if (j->pretty)
		newline(j, j->depth);
	j->nonempty[d] = true;
	put_string(j, key ? key : "", key ? strlen(key) : 0);
	fputs(j->pretty ? ": " : ":", j->out);
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

void br_json_uint(br_json *j, uint64_t v)
{
	if (!before_value(j, false))
		return;
	fprintf(j->out, "%" PRIu64, v);
	after_value(j);
}

void br_json_int(br_json *j, int64_t v)
{
	if (!before_value(j, false))
		return;
	fprintf(j->out, "%" PRId64, v);
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
		fputs("null", j->out);
	}
	after_value(j);
}

void br_json_bool(br_json *j, bool v)
{
	if (!before_value(j, false))
		return;
	fputs(v ? "true" : "false", j->out);
	after_value(j);
}

void br_json_null(br_json *j)
{
	if (!before_value(j, false))
		return;
	fputs("null", j->out);
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
	fputc('\n', j->out);
	if (fflush(j->out) || ferror(j->out))
		return br_error_set(err, BR_ESYS, errno, path, -1, "writing JSON failed");
	return 0;
}
