/* blkreplay .load files: "start ; sector ; length ; op ; replay_delay ;
 * replay_duration", start in seconds, sector and length in 512-byte
 * sectors, op R/W (with blkparse flag letters, e.g. RA). One event per IO:
 * D at start; when replay_duration (the response time a replay measured)
 * is non-zero, a C at start + duration. The licence text and column header
 * before the first record are skipped. */
#include "fmt_num.h"
#include "fmt_text.h"

typedef struct blkreplay_state {
	bool seen_data;
} blkreplay_state;

/* Field separator: blanks, ';', blanks. */
static bool semi(const char **p)
{
	fmt_skip_ws(p);
	if (**p != ';')
		return false;
	(*p)++;
	fmt_skip_ws(p);
	return true;
}

static int parse(void *state, fmt_ctx *c, char *line, size_t len)
{
	blkreplay_state *st = state;
	const char *p = line, *end = line + len;
	fmt_skip_ws(&p);
	if (p == end || *p == '#')
		return FMT_OK;
	if ((*p < '0' || *p > '9') && *p != '.') {
		/* free text before the records (licence, column names) */
		if (!st->seen_data || (end - p >= 5 && p[0] == 's' && p[1] == 't' && p[2] == 'a'))
			return FMT_OK;
		return fmt_bad(c, "not a blkreplay record (want start ; sector ; length ; op ; delay ; duration)");
	}
	uint64_t t, sector, length, delay, duration;
	if (!fmt_fixed(&p, 9, &t))
		return fmt_bad(c, "bad start time");
	if (!semi(&p) || !fmt_u64(&p, &sector) || sector > (UINT64_MAX >> 9))
		return fmt_bad(c, "bad sector");
	if (!semi(&p) || !fmt_u64(&p, &length) || length > UINT32_MAX / 512)
		return fmt_bad(c, "bad length (sectors)");
	if (!semi(&p))
		return fmt_bad(c, "missing op");
	const char *tok;
	size_t tlen;
	fmt_token(&p, ';', &tok, &tlen);
	uint32_t cat;
	if (!fmt_rwbs_category(tok, tlen, &cat, NULL))
		return fmt_bad(c, "bad op '%.*s' (want R or W)", (int)(tlen > 8 ? 8 : tlen), tok);
	if (!semi(&p) || !fmt_fixed(&p, 9, &delay))
		return fmt_bad(c, "bad replay_delay");
	if (!semi(&p) || !fmt_fixed(&p, 9, &duration) || !fmt_at_end(p, end))
		return fmt_bad(c, "bad replay_duration");
	if (duration > UINT64_MAX - t)
		return fmt_bad(c, "absurd replay_duration");
	st->seen_data = true;
	return fmt_emit_io(c, t, BR_MKDEV(0, 0), sector, (uint32_t)(length * 512), cat, 0,
			   duration != 0, duration);
}

bool fmt_blkreplay_probe(const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	uint64_t v;
	fmt_skip_ws(&p);
	if (end - p >= 14 && p[0] == 's' && p[1] == 't' && p[2] == 'a' && p[3] == 'r' &&
	    p[4] == 't' && fmt_is_space(p[5]))
		return true; /* the column header blkreplay writes */
	if (!fmt_fixed(&p, 9, &v) || !semi(&p) || !fmt_u64(&p, &v) || !semi(&p) ||
	    !fmt_u64(&p, &v) || !semi(&p))
		return false;
	return *p == 'R' || *p == 'W';
}

const fmt_format fmt_blkreplay = {
	.name = "blkreplay load",
	.note = "one event per IO: D at the start time, C after replay_duration where it is "
		"non-zero; no device in the format: device 0,0; sectors of 512 bytes",
	.state_size = sizeof(blkreplay_state),
	.parse = parse,
};
