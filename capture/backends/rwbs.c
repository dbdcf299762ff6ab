#include "backends/rwbs.h"

#include <linux/blktrace_api.h>
#include <string.h>

static int is_op(char c)
{
	return c && strchr("WDFRN", c) != NULL;
}

uint32_t cap_rwbs_categories(const char *rwbs)
{
	uint32_t tc = 0;
	const char *p = rwbs;
	/* blk_fill_rwbs: an optional 'F' for a preflush, then the op letter
	 * (W, D[E], F for a flush op, R, N), then F(ua) A(head) S(ync) M(eta). */
	if (p[0] == 'F' && is_op(p[1])) {
		tc |= BLK_TC_FLUSH;
		p++;
	}
	switch (*p) {
	case 'W': tc |= BLK_TC_WRITE; p++; break;
	case 'D':
		tc |= BLK_TC_WRITE | BLK_TC_DISCARD;
		p++;
		if (*p == 'E')
			p++;
		break;
	case 'F': tc |= BLK_TC_FLUSH | BLK_TC_READ; p++; break;
	case 'R': tc |= BLK_TC_READ; p++; break;
	case 'N': tc |= BLK_TC_READ; p++; break;
	default: break;
	}
	for (; *p; p++) {
		switch (*p) {
		case 'F': tc |= BLK_TC_FUA; break;
		case 'A': tc |= BLK_TC_AHEAD; break;
		case 'S': tc |= BLK_TC_SYNC; break;
		case 'M': tc |= BLK_TC_META; break;
		default: break;
		}
	}
	return tc;
}
