/* blkparse's default text output back into events.
 *
 * Each line "MAJ,MIN CPU SEQ SECS.NSECS PID ACT RWBS DETAILS" becomes the
 * record blkparse printed it from: device, cpu, sequence, time (relative
 * seconds → ns), pid, action, category bits from RWBS, sector and size
 * ("S + N" in 512-byte sectors), the process name in brackets as a notify
 * record for the pid, "<- (MAJ,MIN) SECTOR" as the remap payload, "[ERR]"
 * after a completion as the error, the unplug count and the split sector
 * as their payloads. '#' header lines are skipped and the end-of-run
 * summary ("CPUn (dev):", "Total (dev):") ends the input. */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "fmt_num.h"
#include "fmt_text.h"

bool fmt_rwbs_category(const char *t, size_t len, uint32_t *category, unsigned *legacy)
{
	uint32_t c = 0;
	unsigned old = 0;
	size_t i = 0;
	if (len >= 2 && t[0] == 'F' && strchr("DWRN", t[1])) {
		c |= BLK_TC_FLUSH;
		i = 1;
	}
	if (i >= len)
		return false;
	switch (t[i++]) {
	case 'D': c |= BLK_TC_DISCARD | BLK_TC_WRITE; break;
	case 'W': c |= BLK_TC_WRITE; break;
	case 'R': c |= BLK_TC_READ; break;
	case 'N': c |= BLK_TC_READ; break;
	default: return false;
	}
	for (; i < len; i++) {
		switch (t[i]) {
		case 'F': c |= BLK_TC_FUA; break;
		case 'A': c |= BLK_TC_AHEAD; break;
		case 'S': c |= BLK_TC_SYNC; break;
		case 'M': c |= BLK_TC_META; break;
		case 'B': c |= BLK_TC_FLUSH; old |= FMT_RWBS_BARRIER; break;
		case 'E':
			if (!(c & BLK_TC_DISCARD))
				return false; /* the kernel prints it only after D */
			old |= FMT_RWBS_SECURE_ERASE;
			break;
		default: return false;
		}
	}
	*category = c;
	if (legacy)
		*legacy = old;
	return true;
}

typedef struct action_name {
	const char *name;
	uint32_t action; /* code | its own category bits */
} action_name;

static const action_name actions[] = {
	{ "Q", BLK_TA_QUEUE }, { "M", BLK_TA_BACKMERGE }, { "F", BLK_TA_FRONTMERGE },
	{ "G", BLK_TA_GETRQ }, { "S", BLK_TA_SLEEPRQ }, { "R", BLK_TA_REQUEUE },
	{ "D", BLK_TA_ISSUE }, { "C", BLK_TA_COMPLETE }, { "P", BLK_TA_PLUG },
	{ "U", BLK_TA_UNPLUG_IO }, { "UT", BLK_TA_UNPLUG_TIMER }, { "I", BLK_TA_INSERT },
	{ "X", BLK_TA_SPLIT }, { "B", BLK_TA_BOUNCE }, { "A", BLK_TA_REMAP },
	{ "m", BLK_TN_MESSAGE },
};

/* "MAJ,MIN" */
static bool parse_dev(const char **p, uint32_t *dev)
{
	uint32_t ma, mi;
	if (!fmt_u32(p, &ma) || **p != ',')
		return false;
	(*p)++;
	if (!fmt_u32(p, &mi) || ma >= (1u << 12) || mi >= (1u << BR_MINORBITS))
		return false;
	*dev = BR_MKDEV(ma, mi);
	return true;
}

static void put_be64(uint8_t *o, uint64_t v)
{
	v = htobe64(v);
	memcpy(o, &v, 8);
}

static void put_be32(uint8_t *o, uint32_t v)
{
	v = htobe32(v);
	memcpy(o, &v, 4);
}

/* "[text]" at the end of the line (names may hold spaces, ']' is last). */
static bool bracketed(const char *p, const char *end, const char **s, size_t *n)
{
	while (p < end && fmt_is_space(*p))
		p++;
	if (p >= end || *p != '[')
		return false;
	const char *close = end;
	while (close > p && close[-1] != ']')
		close--;
	if (close <= p + 1)
		return false;
	*s = p + 1;
	*n = (size_t)(close - 1 - (p + 1));
	return fmt_at_end(close, end);
}

/* Optional "SECTOR + N" (N in sectors); sets *has. */
static bool sector_len(const char **p, br_event *ev, bool *has)
{
	*has = false;
	fmt_skip_ws(p);
	if (**p < '0' || **p > '9')
		return true;
	uint64_t n;
	if (!fmt_u64(p, &ev->sector))
		return false;
	fmt_skip_ws(p);
	if (**p != '+') {
		*has = true;
		ev->bytes = 0;
		return true; /* "SECTOR" alone (zero-length completion) */
	}
	(*p)++;
	fmt_skip_ws(p);
	if (!fmt_u64(p, &n) || n > UINT32_MAX / 512)
		return false;
	ev->bytes = (uint32_t)(n * 512);
	*has = true;
	return true;
}

/* Lines whose RWBS had letters of older versions, for the note. */
typedef struct blkparse_state {
	uint64_t barrier, secure_erase;
} blkparse_state;

static void note_legacy(blkparse_state *st, fmt_ctx *c, unsigned legacy)
{
	st->barrier += (legacy & FMT_RWBS_BARRIER) != 0;
	st->secure_erase += (legacy & FMT_RWBS_SECURE_ERASE) != 0;
	int n = snprintf(c->note, sizeof c->note, "blkparse's text output; RWBS letters of older "
			 "kernels mapped to the nearest categories:");
	if (st->barrier && n > 0 && (size_t)n < sizeof c->note)
		n += snprintf(c->note + n, sizeof c->note - (size_t)n,
			      " B (barrier) -> F (flush) on %llu lines;", (unsigned long long)st->barrier);
	if (st->secure_erase && n > 0 && (size_t)n < sizeof c->note)
		snprintf(c->note + n, sizeof c->note - (size_t)n,
			 " E (secure erase) -> D (discard) on %llu lines;",
			 (unsigned long long)st->secure_erase);
	size_t l = strlen(c->note);
	if (l && c->note[l - 1] == ';')
		c->note[l - 1] = 0;
}

static int parse(void *state, fmt_ctx *c, char *line, size_t len)
{
	const char *p = line, *end = line + len;
	fmt_skip_ws(&p);
	if (p == end || *p == '#')
		return FMT_OK;
	if (*p < '0' || *p > '9') {
		/* blkparse's closing summary: "CPU0 (sda):", "Total (sda):" ... */
		if (strncmp(p, "CPU", 3) == 0 || strncmp(p, "Total (", 7) == 0)
			return FMT_END;
		return fmt_bad(c, "not a blkparse event line");
	}
	br_event ev = { 0 };
	uint8_t pdu[FMT_PDU_MAX];
	if (!parse_dev(&p, &ev.device))
		return fmt_bad(c, "bad device (want MAJ,MIN)");
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &ev.cpu))
		return fmt_bad(c, "bad cpu");
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &ev.sequence))
		return fmt_bad(c, "bad sequence number");
	fmt_skip_ws(&p);
	if (!fmt_fixed(&p, 9, &ev.time) || !fmt_is_space(*p))
		return fmt_bad(c, "bad time (want SECONDS.NANOSECONDS)");
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &ev.pid))
		return fmt_bad(c, "bad pid");
	fmt_skip_ws(&p);
	const char *tok;
	size_t tlen;
	fmt_token(&p, 0, &tok, &tlen);
	const action_name *a = NULL;
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
		if (fmt_tok_is(tok, tlen, actions[i].name))
			a = &actions[i];
	if (!a)
		return fmt_bad(c, "unknown action '%.*s'", (int)(tlen > 8 ? 8 : tlen), tok);
	fmt_skip_ws(&p);
	fmt_token(&p, 0, &tok, &tlen);
	uint32_t cat = 0;
	if (a->action == BLK_TN_MESSAGE) {
		/* "m N text": a message notify record */
		fmt_skip_ws(&p);
		size_t n = (size_t)(end - p);
		if (n > FMT_PDU_MAX)
			n = FMT_PDU_MAX;
		ev.action = BLK_TN_MESSAGE;
		ev.pdu = (const uint8_t *)p;
		ev.pdu_len = (uint16_t)n;
		return fmt_emit(c, &ev, true);
	}
	unsigned legacy = 0;
	if (!fmt_rwbs_category(tok, tlen, &cat, &legacy))
		return fmt_bad(c, "bad RWBS '%.*s'", (int)(tlen > 8 ? 8 : tlen), tok);
	if (legacy)
		note_legacy(state, c, legacy);
	ev.action = a->action | BLK_TC_ACT(cat);
	unsigned code = a->action & 0xff;
	bool has;
	const char *name = NULL;
	size_t nlen = 0;
	switch (code) {
	case __BLK_TA_COMPLETE:
	case __BLK_TA_REQUEUE: {
		if (!sector_len(&p, &ev, &has) || !has)
			return fmt_bad(c, "bad sector/size");
		const char *e;
		size_t elen;
		const char *q;
		uint64_t errv;
		if (!bracketed(p, end, &e, &elen))
			return fmt_bad(c, "missing [error]");
		q = e;
		if (!fmt_u64(&q, &errv) || q != e + elen || errv > UINT16_MAX)
			return fmt_bad(c, "bad error value");
		ev.error = (uint16_t)errv;
		break;
	}
	case __BLK_TA_REMAP: {
		uint32_t from_dev;
		uint64_t from_sec;
		if (!sector_len(&p, &ev, &has) || !has)
			return fmt_bad(c, "bad sector/size");
		fmt_skip_ws(&p);
		if (p[0] != '<' || p[1] != '-')
			return fmt_bad(c, "remap without '<- (MAJ,MIN) SECTOR'");
		p += 2;
		fmt_skip_ws(&p);
		if (*p++ != '(' || !parse_dev(&p, &from_dev) || *p++ != ')')
			return fmt_bad(c, "bad remap source device");
		fmt_skip_ws(&p);
		if (!fmt_u64(&p, &from_sec) || !fmt_at_end(p, end))
			return fmt_bad(c, "bad remap source sector");
		put_be32(pdu, from_dev);
		put_be32(pdu + 4, ev.device);
		put_be64(pdu + 8, from_sec);
		ev.pdu = pdu;
		ev.pdu_len = 16;
		break;
	}
	case __BLK_TA_UNPLUG_IO:
	case __BLK_TA_UNPLUG_TIMER: {
		/* "[name] COUNT" */
		const char *q = end;
		while (q > p && q[-1] >= '0' && q[-1] <= '9')
			q--;
		uint64_t count;
		const char *d = q;
		if (q == end || !fmt_u64(&d, &count) || !bracketed(p, q - 1 > p ? q - 1 : q, &name, &nlen))
			return fmt_bad(c, "bad unplug line (want [name] COUNT)");
		put_be64(pdu, count);
		ev.pdu = pdu;
		ev.pdu_len = 8;
		break;
	}
	case __BLK_TA_SPLIT: {
		uint64_t newsec;
		fmt_skip_ws(&p);
		if (!fmt_u64(&p, &ev.sector))
			return fmt_bad(c, "bad split sector");
		fmt_skip_ws(&p);
		if (*p++ != '/')
			return fmt_bad(c, "bad split (want SECTOR / SECTOR [name])");
		fmt_skip_ws(&p);
		if (!fmt_u64(&p, &newsec) || !bracketed(p, end, &name, &nlen))
			return fmt_bad(c, "bad split (want SECTOR / SECTOR [name])");
		put_be64(pdu, newsec);
		ev.pdu = pdu;
		ev.pdu_len = 8;
		break;
	}
	default: /* Q M F G S I D B P: [SECTOR + N] [name] */
		if (!sector_len(&p, &ev, &has))
			return fmt_bad(c, "bad sector/size");
		if (!bracketed(p, end, &name, &nlen))
			return fmt_bad(c, "missing [process name]");
		break;
	}
	if (name && !(nlen == 6 && memcmp(name, "(null)", 6) == 0)) {
		int rc = fmt_emit_comm(c, ev.time, ev.pid, ev.device, name, nlen);
		if (rc)
			return rc;
	}
	return fmt_emit(c, &ev, true);
}

bool fmt_blkparse_probe(const char *line, size_t len)
{
	(void)len;
	const char *p = line;
	uint32_t dev, v;
	uint64_t t;
	fmt_skip_ws(&p);
	if (!parse_dev(&p, &dev) || !fmt_is_space(*p))
		return false;
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &v))
		return false;
	fmt_skip_ws(&p);
	if (!fmt_u32(&p, &v))
		return false;
	fmt_skip_ws(&p);
	const char *t0 = p;
	if (!fmt_fixed(&p, 9, &t) || p - t0 < 11 || p[-10] != '.')
		return false;
	fmt_skip_ws(&p);
	return fmt_u32(&p, &v) && fmt_is_space(*p);
}

const fmt_format fmt_blkparse = {
	.name = "blkparse text",
	.note = "blkparse's text output: every printed field restored (time is relative to "
		"the trace start; names from [brackets] become process records; message text "
		"is cut to 32 bytes)",
	.keeps_sequence = true,
	.state_size = sizeof(blkparse_state),
	.parse = parse,
};
