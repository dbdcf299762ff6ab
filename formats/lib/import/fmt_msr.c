/* SNIA IOTTA MSR Cambridge CSV:
 * "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime".
 * Timestamp is a Windows filetime (100 ns ticks since 1601-01-01),
 * converted to ns since the Unix epoch; ResponseTime is in the same 100 ns
 * ticks. Offset and Size are bytes: offsets must be whole 512-byte sectors
 * (the conversion is exact or the line is malformed). Hosts are numbered
 * in order of first appearance from 0: host H, disk D → device H,D. One
 * event per IO: D at the timestamp, C after the response time (an empty
 * ResponseTime field means no completion). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmt_num.h"
#include "fmt_text.h"

/* 1601-01-01 to 1970-01-01 in 100 ns ticks. */
#define FILETIME_UNIX_EPOCH 116444736000000000ull
#define MAX_HOSTS 4096

typedef struct msr_state {
	char *hosts[MAX_HOSTS];
	size_t nhosts;
} msr_state;

static void free_state(void *state)
{
	msr_state *st = state;
	for (size_t i = 0; i < st->nhosts; i++)
		free(st->hosts[i]);
}

static int host_index(msr_state *st, const char *h, size_t n, uint32_t *idx)
{
	for (size_t i = 0; i < st->nhosts; i++)
		if (strncmp(st->hosts[i], h, n) == 0 && st->hosts[i][n] == 0) {
			*idx = (uint32_t)i;
			return 0;
		}
	if (st->nhosts == MAX_HOSTS)
		return FMT_BAD;
	char *copy = strndup(h, n);
	if (!copy)
		return BR_ENOMEM;
	st->hosts[st->nhosts] = copy;
	*idx = (uint32_t)st->nhosts++;
	return 0;
}

static bool comma(const char **p)
{
	if (**p != ',')
		return false;
	(*p)++;
	return true;
}

static int parse(void *state, fmt_ctx *c, char *line, size_t len)
{
	msr_state *st = state;
	const char *p = line, *end = line + len;
	if (p == end || *p == '#')
		return FMT_OK;
	if (c->lineno == 1 && strncmp(p, "Timestamp,", 10) == 0)
		return FMT_OK; /* column header */
	uint64_t ft, disk, off, size, rt = 0;
	if (!fmt_u64(&p, &ft) || !comma(&p))
		return fmt_bad(c, "bad Timestamp");
	if (ft < FILETIME_UNIX_EPOCH || ft - FILETIME_UNIX_EPOCH > UINT64_MAX / 100)
		return fmt_bad(c, "Timestamp %llu is not a filetime after 1970 (100 ns ticks since 1601)",
			       (unsigned long long)ft);
	const char *host = p;
	while (*p && *p != ',')
		p++;
	size_t hlen = (size_t)(p - host);
	if (!hlen || !comma(&p))
		return fmt_bad(c, "bad Hostname");
	if (!fmt_u64(&p, &disk) || disk >= (1u << BR_MINORBITS) || !comma(&p))
		return fmt_bad(c, "bad DiskNumber");
	const char *type = p;
	while (*p && *p != ',')
		p++;
	size_t tlen = (size_t)(p - type);
	uint32_t cat;
	if (tlen == 4 && strncasecmp(type, "Read", 4) == 0)
		cat = BLK_TC_READ;
	else if (tlen == 5 && strncasecmp(type, "Write", 5) == 0)
		cat = BLK_TC_WRITE;
	else
		return fmt_bad(c, "bad Type '%.*s' (want Read or Write)", (int)(tlen > 8 ? 8 : tlen), type);
	if (!comma(&p) || !fmt_u64(&p, &off) || !comma(&p))
		return fmt_bad(c, "bad Offset");
	if (off % 512)
		return fmt_bad(c, "Offset %llu is not a multiple of 512 bytes", (unsigned long long)off);
	if (!fmt_u64(&p, &size) || size > UINT32_MAX || !comma(&p))
		return fmt_bad(c, "bad Size");
	bool has_rt = p < end;
	if (has_rt && (!fmt_u64(&p, &rt) || rt > UINT64_MAX / 100))
		return fmt_bad(c, "bad ResponseTime");
	if (!fmt_at_end(p, end))
		return fmt_bad(c, "trailing characters after ResponseTime");
	uint64_t t = (ft - FILETIME_UNIX_EPOCH) * 100;
	if (has_rt && rt * 100 > UINT64_MAX - t)
		return fmt_bad(c, "absurd ResponseTime");
	uint32_t h;
	int rc = host_index(st, host, hlen, &h);
	if (rc == FMT_BAD)
		return fmt_bad(c, "more than %d host names", MAX_HOSTS);
	if (rc)
		return rc;
	if (h >= (1u << 12))
		return fmt_bad(c, "host number %u does not fit a major number", h);
	return fmt_emit_io(c, t, BR_MKDEV(h, disk), off >> 9, (uint32_t)size, cat, 0, has_rt,
			   rt * 100);
}

bool fmt_msr_probe(const char *line, size_t len)
{
	const char *p = line;
	(void)len;
	if (strncmp(p, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime", 60) == 0)
		return true;
	uint64_t v;
	if (!fmt_u64(&p, &v) || !comma(&p))
		return false;
	while (*p && *p != ',')
		p++;
	if (!comma(&p) || !fmt_u64(&p, &v) || !comma(&p))
		return false;
	return strncasecmp(p, "Read,", 5) == 0 || strncasecmp(p, "Write,", 6) == 0;
}

const fmt_format fmt_msr = {
	.name = "MSR Cambridge CSV",
	.note = "one event per IO: D at the timestamp (Windows filetime → ns since 1970), C "
		"after ResponseTime (100 ns ticks); hosts numbered from 0 in order of appearance: "
		"host H disk D → device H,D; byte offsets must be 512-byte aligned",
	.state_size = sizeof(msr_state),
	.parse = parse,
	.free_state = free_state,
};
