/* blkreel/json.h — the one JSON writer of blkreel (every tool's --json /
 * report output goes through it).
 *
 * A streaming writer onto a FILE: open containers, emit members and values,
 * close them; commas, colons, indentation and string escaping are its job,
 * never the caller's. What it writes always parses (RFC 8259):
 *   - strings are escaped fully: `"` `\` and every control character
 *     (\n \t \r \b \f, the others and DEL as \u00XX); valid UTF-8 is
 *     copied as it is, and each byte that is not part of a valid UTF-8
 *     sequence (overlong forms, surrogates and code points past U+10FFFF
 *     included; a process name is whatever bytes the kernel had) becomes
 *     U+FFFD; a NULL string is written as null;
 *   - doubles that are NaN or infinite are written as null;
 *   - misuse (a value where an object needs a key, closing the wrong kind of
 *     container, nesting deeper than BR_JSON_MAX_DEPTH, finishing with a
 *     container open) writes nothing more and makes br_json_finish fail.
 *
 * Example, to a report file:
 *
 *     br_json j;
 *     br_json_init(&j, fp, BR_JSON_PRETTY);
 *     br_json_object(&j);                        // {
 *     br_json_kstr(&j, "tool", "blkreel-report");
 *     br_json_kuint(&j, "events", n);
 *     br_json_kdouble(&j, "q2c_avg_ns", avg);    // NaN -> null
 *     br_json_key(&j, "devices");                // "devices": [
 *     br_json_array(&j);
 *     for (...) {
 *             br_json_object(&j);
 *             br_json_kstr(&j, "comm", comm);    // hostile bytes are safe
 *             br_json_end(&j);
 *     }
 *     br_json_end(&j);                           // ]
 *     br_json_end(&j);                           // }
 *     if (br_json_finish(&j, path, &err)) ...    // misuse or a write error
 *
 * Layout: BR_JSON_PRETTY puts each object member on its own line, indented
 * by two spaces a level, and keeps arrays of plain values on one line
 * ("[1, 2, 3]") while arrays of objects or arrays get a line per element;
 * 0 gives the compact form, no spaces at all. BR_JSON_LINES is the compact
 * form with each element of an array of objects or arrays on its own line
 * (not indented), and the array's closing bracket on the next: one record
 * per line in a streamed file such as Trace Event JSON. A newline ends the
 * document in all of them (br_json_finish writes it).
 *
 * Streaming: the writer keeps nothing per value; what it writes goes
 * straight to the FILE, so a document of any size takes flat memory (the
 * FILE's own buffer decides when bytes reach the file). A write error sets
 * ferror(out) when the FILE flushes and fails br_json_finish; a long
 * writer may poll ferror(out) to stop early. It writes with stdio's
 * unlocked calls: one thread writes a document, and nothing else writes
 * to its FILE meanwhile. */
#ifndef BLKREEL_JSON_H
#define BLKREEL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "blkreel/error.h"

#define BR_JSON_PRETTY 0x1u
#define BR_JSON_LINES 0x2u
#define BR_JSON_MAX_DEPTH 64

/* Caller-allocated state; its fields are the writer's. */
typedef struct br_json {
	FILE *out;
	bool pretty;
	bool lines;              /* BR_JSON_LINES */
	bool misused;
	bool have_key;           /* a key was written; its value comes next */
	bool done;               /* the top-level value is complete */
	unsigned depth;
	/* per open container: an object? has it members/elements yet? does
	 * an array hold containers (pretty layout)? */
	bool is_object[BR_JSON_MAX_DEPTH];
	bool nonempty[BR_JSON_MAX_DEPTH];
	bool multiline[BR_JSON_MAX_DEPTH];
	const char *why;         /* the first misuse */
} br_json;

/* flags: BR_JSON_PRETTY, BR_JSON_LINES or 0. */
void br_json_init(br_json *j, FILE *out, unsigned flags);

/* Open an object / an array (as a value: top level, array element, or
 * after br_json_key); br_json_end closes the innermost one. */
void br_json_object(br_json *j);
void br_json_array(br_json *j);
void br_json_end(br_json *j);

/* The key of the next object member (escaped like any string). */
void br_json_key(br_json *j, const char *key);

/* Values. */
void br_json_str(br_json *j, const char *s);             /* NULL -> null */
void br_json_strn(br_json *j, const char *s, size_t n);  /* n bytes, NULs escaped */
void br_json_uint(br_json *j, uint64_t v);
void br_json_int(br_json *j, int64_t v);
void br_json_double(br_json *j, double v);               /* %.9g; non-finite -> null */
/* v / 10^scale exactly, with scale digits after the point (scale <= 19,
 * more is misuse): br_json_decimal(j, 12345, 3) writes 12.345, ns as µs
 * without rounding. */
void br_json_decimal(br_json *j, uint64_t v, unsigned scale);
/* v rounded to `decimals` digits after the point (printf's %.*f; at most
 * 17, more is misuse); non-finite -> null, no "-0". */
void br_json_fixed(br_json *j, double v, unsigned decimals);
void br_json_bool(br_json *j, bool v);
void br_json_null(br_json *j);

/* Key and value in one call, for object members. */
void br_json_kstr(br_json *j, const char *key, const char *s);
void br_json_kuint(br_json *j, const char *key, uint64_t v);
void br_json_kint(br_json *j, const char *key, int64_t v);
void br_json_kdouble(br_json *j, const char *key, double v);
void br_json_kdecimal(br_json *j, const char *key, uint64_t v, unsigned scale);
void br_json_kfixed(br_json *j, const char *key, double v, unsigned decimals);
void br_json_kbool(br_json *j, const char *key, bool v);
void br_json_knull(br_json *j, const char *key);

/* End the document: 0, or BR_EINVAL (misuse: what and where in err) or
 * BR_ESYS (the FILE failed), naming path. Does not close the FILE. */
int br_json_finish(br_json *j, const char *path, br_error *err);

#endif
