/* blkreel/units.h — parsing and printing the quantities users type and read:
 * durations ("1.5", "250ms", "2s", "3m", "1h"; a bare number is seconds),
 * byte sizes ("4k", "64KiB", "1M", "2G"; powers of 1024), and human
 * formatting of both. */
#ifndef BLKREEL_UNITS_H
#define BLKREEL_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* 0 on success, BR_EINVAL if text is not a duration. */
int br_parse_duration_ns(const char *text, uint64_t *ns);
/* 0 on success, BR_EINVAL if text is not a size. */
int br_parse_size(const char *text, uint64_t *bytes);
/* A whole number in [lo, hi]: decimal, or hexadecimal after "0x"; no sign,
 * nothing after it. 0 on success, BR_EINVAL otherwise. */
int br_parse_uint(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);

/* "12.3 KiB", "4.0 MiB", "512 B" into buf; returns buf. */
char *br_format_bytes(uint64_t bytes, char *buf, size_t size);
/* "1.234567 s", "15.2 ms", "830 us" into buf; returns buf. */
char *br_format_duration(uint64_t ns, char *buf, size_t size);

#endif
