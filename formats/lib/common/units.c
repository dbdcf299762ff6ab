#include "blkreel/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blkreel/error.h"

int br_parse_duration_ns(const char *text, uint64_t *ns)
{
	char *end;
	if (!text || !*text)
		return BR_EINVAL;
	double v = strtod(text, &end);
	if (end == text || !(v >= 0) || isinf(v))
		return BR_EINVAL;
	double scale;
	if (!*end || strcmp(end, "s") == 0)
		scale = 1e9;
	else if (strcmp(end, "ms") == 0)
		scale = 1e6;
	else if (strcmp(end, "us") == 0)
		scale = 1e3;
	else if (strcmp(end, "ns") == 0)
		scale = 1;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		scale = 60e9;
	else if (strcmp(end, "h") == 0)
		scale = 3600e9;
	else
		return BR_EINVAL;
	double r = v * scale;
	if (r > 1.8e19)
		return BR_EINVAL;
	*ns = (uint64_t)llround(r);
	return 0;
}

int br_parse_size(const char *text, uint64_t *bytes)
{
	char *end;
	if (!text || !*text)
		return BR_EINVAL;
	double v = strtod(text, &end);
	if (end == text || !(v >= 0) || isinf(v))
		return BR_EINVAL;
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{ "", 1 },         { "b", 1 },
		{ "k", 1024.0 },   { "kb", 1024.0 },   { "kib", 1024.0 },
		{ "m", 1048576.0 }, { "mb", 1048576.0 }, { "mib", 1048576.0 },
		{ "g", 1073741824.0 }, { "gb", 1073741824.0 }, { "gib", 1073741824.0 },
		{ "t", 1099511627776.0 }, { "tb", 1099511627776.0 }, { "tib", 1099511627776.0 },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcasecmp(end, units[i].suffix) == 0) {
			double r = v * units[i].scale;
			if (r > 1.8e19)
				return BR_EINVAL;
			*bytes = (uint64_t)llround(r);
			return 0;
		}
	return BR_EINVAL;
}

int br_parse_uint(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!text || !*text || *text == '-' || *text == '+' || isspace((unsigned char)*text))
		return BR_EINVAL;
	int base = 10;
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		text += 2;
		if (!*text)
			return BR_EINVAL;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, base);
	if (*end || errno == ERANGE || v < lo || v > hi)
		return BR_EINVAL;
	*out = v;
	return 0;
}

char *br_format_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof names / sizeof names[0]) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, size, "%.1f %s", v, names[u]);
	return buf;
}

char *br_format_duration(uint64_t ns, char *buf, size_t size)
{
	if (ns >= 1000000000ull)
		snprintf(buf, size, "%.6f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000ull)
		snprintf(buf, size, "%.3f us", (double)ns / 1e3);
	else
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	return buf;
}
