/* blkparse's default text format, one event per line.
 *
 * Every format string of blkparse's process_default() and handle_notify()
 * is reproduced by hand: numbers are converted straight into one large
 * output buffer that is written out in big chunks, because printf per field
 * is what makes blkparse slow. The per-action tails follow blkparse 1.2.0
 * as Debian ships it, checked against the binary, including what it does
 * with odd input:
 *   - a pid without a process name prints as "(null)" (glibc's rendering
 *     of the NULL blkparse passes to %s);
 *   - the action is dispatched on the low 16 bits, so an unknown code, an
 *     abort, or a code with the cgroup flag prints nothing (blkparse says
 *     "Bad fs action" on stderr) but still counts in the summary;
 *   - driver-data records print nothing and make close() add blkparse's
 *     closing "discarded traces ..." notice;
 *   - events with no category bits are neither printed nor counted as
 *     events (blkparse's act_mask test) but still count for their CPU.
 * Elapsed times (blkparse -t) are not supported: without -t blkparse never
 * prints them. */
#include "text_impl.h"
#include "common/fdout.h"

#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEXT_BUF_SIZE (1u << 20)
/* Longest line apart from the payload dumps, with a wide margin. */
#define TEXT_LINE_MAX 512

/* ---- number formatting ------------------------------------------------ */

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t pow10_tab[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
	1000000000000ull, 10000000000000ull, 100000000000000ull,
	1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull, 10000000000000000000ull,
};

static inline unsigned ndigits(uint64_t v)
{
	unsigned n = 1;
	while (n < 20 && v >= pow10_tab[n])
		n++;
	return n;
}

/* The n digits of v written at o (two at a time, from the right). */
static inline char *put_digits(char *o, uint64_t v, unsigned n)
{
	char *p = o + n;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return o + n;
}

static inline char *put_pad(char *o, unsigned n, unsigned width)
{
	while (n < width) {
		*o++ = ' ';
		n++;
	}
	return o;
}

/* %<width>llu (width 0 = plain %llu). */
static inline char *put_u(char *o, uint64_t v, unsigned width)
{
	unsigned n = ndigits(v);
	o = put_pad(o, n, width);
	return put_digits(o, v, n);
}

/* %<width>d of a 32-bit signed value. */
static inline char *put_d(char *o, int32_t v, unsigned width)
{
	if (v >= 0)
		return put_u(o, (uint64_t)v, width);
	uint64_t mag = (uint64_t)(-(int64_t)v);
	unsigned n = ndigits(mag);
	o = put_pad(o, n + 1, width);
	*o++ = '-';
	return put_digits(o, mag, n);
}

/* %-<width>d of a non-negative value (the minor number). */
static inline char *put_u_left(char *o, uint64_t v, unsigned width)
{
	unsigned n = ndigits(v);
	o = put_digits(o, v, n);
	return put_pad(o, n, width);
}

/* %09lu of nanoseconds (< 10^9). */
static inline char *put_nsec9(char *o, uint32_t v)
{
	o[8] = (char)('0' + v % 10);
	v /= 10;
	for (int i = 6; i >= 0; i -= 2) {
		memcpy(o + i, digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	return o + 9;
}

/* %<width>s of a short string (action names, RWBS). */
static inline char *put_s(char *o, const char *s, unsigned width)
{
	unsigned n = 0;
	while (s[n])
		n++;
	o = put_pad(o, n, width);
	for (unsigned i = 0; i < n; i++)
		*o++ = s[i];
	return o;
}

static inline char *put_lit(char *o, const char *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}
#define PUT_LIT(o, s) put_lit((o), (s), sizeof(s) - 1)

/* ---- buffer ----------------------------------------------------------- */

static int flush_buf(br_text *t, br_error *err)
{
	size_t len = t->len;
	t->len = 0;
	int rc = br_write_all(t->fd, t->buf, len, t->fd_name, t->written, err);
	if (rc) {
		if (!t->first_err)
			t->first_err = rc;
		return rc;
	}
	t->written += len;
	return 0;
}

int br_text_reserve(br_text *t, size_t need, br_error *err)
{
	if (t->cap - t->len >= need)
		return 0;
	int rc = flush_buf(t, err);
	if (rc)
		return rc;
	if (need > t->cap) {
		char *nb = realloc(t->buf, need);
		if (!nb)
			return br_error_set(err, BR_ENOMEM, 0, t->fd_name, -1, "out of memory");
		t->buf = nb;
		t->cap = need;
	}
	return 0;
}

/* ---- open / close ------------------------------------------------------- */

/* blkparse calls setlocale(LC_NUMERIC, "en_US") and prints its counts with
 * %'; the grouping appears only where that locale is installed. We ask the
 * same question without touching the process locale. */
static void probe_grouping(br_text *t)
{
	t->thousep[0] = 0;
	locale_t loc = newlocale(LC_NUMERIC_MASK, "en_US", (locale_t)0);
	if (loc == (locale_t)0)
		return;
	const char *sep = nl_langinfo_l(THOUSEP, loc);
	const char *grp = nl_langinfo_l(GROUPING, loc);
	if (sep && grp && grp[0] > 0 && grp[0] != CHAR_MAX)
		snprintf(t->thousep, sizeof t->thousep, "%s", sep);
	freelocale(loc);
}

int br_text_open(br_text **out, int fd, const char *fd_name, uint64_t origin_time, br_error *err)
{
	*out = NULL;
	br_text *t = calloc(1, sizeof *t);
	if (!t)
		return br_error_set(err, BR_ENOMEM, 0, fd_name, -1, "out of memory");
	t->fd = fd;
	t->fd_name = strdup(fd_name ? fd_name : "");
	t->buf = malloc(TEXT_BUF_SIZE);
	if (!t->fd_name || !t->buf) {
		free(t->fd_name);
		free(t->buf);
		free(t);
		return br_error_set(err, BR_ENOMEM, 0, fd_name, -1, "out of memory");
	}
	t->cap = TEXT_BUF_SIZE;
	t->origin = origin_time;
	probe_grouping(t);
	*out = t;
	return 0;
}

int br_text_close(br_text *t, br_error *err)
{
	if (!t)
		return 0;
	int rc = 0;
	/* blkparse prints this after everything else, with or without -q. */
	if (t->drv_data) {
		static const char note[] = "\ndiscarded traces containing low-level device "
					   "driver specific data (only available in binary output)\n";
		rc = br_text_reserve(t, sizeof note, err);
		if (!rc) {
			memcpy(t->buf + t->len, note, sizeof note - 1);
			t->len += sizeof note - 1;
		}
	}
	if (!rc)
		rc = flush_buf(t, err);
	if (!rc && t->first_err)
		rc = br_error_set(err, t->first_err, 0, t->fd_name, -1,
				  "an earlier write failed");
	br_text_stats_free(t);
	free(t->label);
	free(t->buf);
	free(t->fd_name);
	free(t);
	return rc;
}

int br_text_set_label(br_text *t, const char *label, br_error *err)
{
	char *l = label ? strdup(label) : NULL;
	if (label && !l)
		return br_error_set(err, BR_ENOMEM, 0, t->fd_name, -1, "out of memory");
	free(t->label);
	t->label = l;
	return 0;
}

/* ---- one event ---------------------------------------------------------- */

/* blkparse's get_pdu_int: the payload's first 8 bytes as a big-endian
 * 64-bit value, truncated to unsigned int. Missing bytes read as zero. */
static uint32_t pdu_int(const br_event *ev)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v = (v << 8) | (ev->pdu && i < ev->pdu_len ? ev->pdu[i] : 0);
	return (uint32_t)v;
}

/* blkparse's dump_pdu: hex bytes separated by spaces, cut at the first
 * zero byte that begins an all-zero tail (printed, then " .."). */
static char *put_pdu_hex(char *o, const uint8_t *p, unsigned n)
{
	static const char hex[] = "0123456789abcdef";
	for (unsigned i = 0; i < n; i++) {
		if (i)
			*o++ = ' ';
		*o++ = hex[p[i] >> 4];
		*o++ = hex[p[i] & 15];
		if (!p[i]) {
			unsigned k = i;
			while (k < n && !p[k])
				k++;
			if (k == n) {
				o = PUT_LIT(o, " ..");
				break;
			}
		}
	}
	return o;
}

static char *put_header(char *o, uint32_t dev, uint32_t cpu, int32_t seq, uint64_t rel,
			uint32_t pid, const char *act, const char *rwbs)
{
	o = put_u(o, BR_DEV_MAJOR(dev), 3);
	*o++ = ',';
	o = put_u_left(o, BR_DEV_MINOR(dev), 3);
	*o++ = ' ';
	o = put_d(o, (int32_t)cpu, 2);
	*o++ = ' ';
	o = put_d(o, seq, 8);
	*o++ = ' ';
	o = put_d(o, (int32_t)(uint32_t)(rel / 1000000000u), 5);
	*o++ = '.';
	o = put_nsec9(o, (uint32_t)(rel % 1000000000u));
	*o++ = ' ';
	o = put_u(o, pid, 5);
	*o++ = ' ';
	o = put_s(o, act, 2);
	*o++ = ' ';
	o = put_s(o, rwbs, 3);
	*o++ = ' ';
	return o;
}

static inline char *put_name(char *o, const br_event *ev)
{
	*o++ = '[';
	if (ev->comm) {
		/* blkparse keeps names in char[16] */
		size_t n = strnlen(ev->comm, 15);
		memcpy(o, ev->comm, n);
		o += n;
	} else {
		o = PUT_LIT(o, "(null)");
	}
	*o++ = ']';
	return o;
}

/* "SECTOR + N " when the event has sectors. */
static inline char *put_sector_len(char *o, const br_event *ev)
{
	o = put_u(o, ev->sector, 0);
	o = PUT_LIT(o, " + ");
	o = put_u(o, ev->bytes >> 9, 0);
	*o++ = ' ';
	return o;
}

static inline char *put_error(char *o, const br_event *ev)
{
	*o++ = '[';
	o = put_u(o, ev->error, 0);
	*o++ = ']';
	return o;
}

/* blkparse's handle_notify() for a message: fixed header, the text up to
 * its first NUL. */
static char *put_message(char *o, const br_event *ev, uint64_t rel)
{
	o = put_header(o, ev->device, ev->cpu, 0, rel, 0, "m", "N");
	size_t n = ev->pdu ? strnlen((const char *)ev->pdu, ev->pdu_len) : 0;
	memcpy(o, ev->pdu, n);
	o += n;
	*o++ = '\n';
	return o;
}

/* Account the event the way blkparse's dump_trace_pc/dump_trace_fs do,
 * and say which tail to print (0 = none). */
static void account(br_dev_stats *d, br_cpu_stats *c, const br_event *ev, unsigned code, bool pc)
{
	int w = (ev->action & BLK_TC_ACT(BLK_TC_WRITE)) != 0;
	br_io_stats *s = &c->io;
	uint64_t kb = ev->bytes >> 10, b = ev->bytes & 1023;

	switch (code) {
	case __BLK_TA_QUEUE:
		if (pc) {
			s->q_pc[w]++;
			/* blkparse's own slip: PC reads add to the fs KiB */
			if (w)
				s->q_kb_pc[1] += kb;
			else
				s->q_kb[0] += kb;
			s->q_b_pc[w] += b;
		} else {
			s->q[w]++;
			s->q_kb[w] += kb;
			s->q_b[w] += b;
		}
		break;
	case __BLK_TA_BACKMERGE:
	case __BLK_TA_FRONTMERGE:
		if (!pc) {
			s->m[w]++;
			s->m_kb[w] += kb;
			s->m_b[w] += b;
		}
		break;
	case __BLK_TA_REQUEUE:
		if (d->cur_depth[w])
			d->cur_depth[w]--;
		if (pc) {
			s->rq_pc[w]++;
			s->i_kb_pc[w] -= kb;
			s->i_b_pc[w] -= b;
		} else {
			s->rq[w]++;
			s->i_kb[w] -= kb;
			s->i_b[w] -= b;
		}
		break;
	case __BLK_TA_ISSUE:
		if (pc) {
			s->i_pc[w]++;
			s->i_kb_pc[w] += kb;
			s->i_b_pc[w] += b;
		} else {
			s->i[w]++;
			s->i_kb[w] += kb;
			s->i_b[w] += b;
		}
		d->cur_depth[w]++;
		if (d->cur_depth[w] > d->max_depth[w])
			d->max_depth[w] = d->cur_depth[w];
		break;
	case __BLK_TA_COMPLETE:
		if (d->cur_depth[w])
			d->cur_depth[w]--;
		if (pc) {
			s->c_pc[w]++;
		} else {
			s->c[w]++;
			s->c_kb[w] += kb;
			s->c_b[w] += b;
		}
		break;
	case __BLK_TA_UNPLUG_IO:
		if (!pc)
			s->io_unplugs++;
		break;
	case __BLK_TA_UNPLUG_TIMER:
		if (!pc)
			s->timer_unplugs++;
		break;
	default:
		break;
	}
}

/* The line for a PC (SCSI passthrough) event; o unchanged = no line. */
static char *put_pc(char *o, const br_event *ev, unsigned code, uint64_t rel)
{
	const char *act;
	switch (code) {
	case __BLK_TA_QUEUE: act = "Q"; break;
	case __BLK_TA_GETRQ: act = "G"; break;
	case __BLK_TA_SLEEPRQ: act = "S"; break;
	case __BLK_TA_REQUEUE: act = "R"; break;
	case __BLK_TA_ISSUE: act = "D"; break;
	case __BLK_TA_COMPLETE: act = "C"; break;
	case __BLK_TA_INSERT: act = "I"; break;
	default: return o; /* blkparse: "Bad pc action" on stderr */
	}
	/* Only D, I and C hand blkparse's formatter the payload. */
	bool with_pdu = (code == __BLK_TA_ISSUE || code == __BLK_TA_COMPLETE ||
			 code == __BLK_TA_INSERT) && ev->pdu && ev->pdu_len;
	char rwbs[BR_RWBS_MAX];
	o = put_header(o, ev->device, ev->cpu, (int32_t)ev->sequence, rel, ev->pid, act,
		       br_event_rwbs(ev, rwbs));
	switch (code) {
	case __BLK_TA_GETRQ:
	case __BLK_TA_SLEEPRQ:
		if (ev->bytes >> 9)
			o = put_sector_len(o, ev);
		o = put_name(o, ev);
		break;
	case __BLK_TA_REQUEUE:
	case __BLK_TA_COMPLETE:
		if (with_pdu) {
			*o++ = '(';
			o = put_pdu_hex(o, ev->pdu, ev->pdu_len);
			o = PUT_LIT(o, ") ");
		}
		o = put_error(o, ev);
		break;
	default: /* Q, D, I */
		o = put_u(o, ev->bytes, 0);
		*o++ = ' ';
		if (with_pdu) {
			*o++ = '(';
			o = put_pdu_hex(o, ev->pdu, ev->pdu_len);
			o = PUT_LIT(o, ") ");
		}
		o = put_name(o, ev);
		break;
	}
	*o++ = '\n';
	return o;
}

/* The line for a file-system event; o unchanged = no line. */
static char *put_fs(br_text *t, char *o, const br_event *ev, unsigned code, uint64_t rel)
{
	if (code == __BLK_TA_DRV_DATA) {
		t->drv_data = true;
		return o;
	}
	/* blkparse prints no line ("Bad fs action" on stderr) for abort,
	 * cgroup-flagged or unknown codes; code is the low 16 bits, so a
	 * cgroup flag makes it differ from br_event_code(). */
	const char *name = br_event_action_name(ev);
	if (code != br_event_code(ev) || code == __BLK_TA_ABORT || name[0] == '?')
		return o;

	char rwbs[BR_RWBS_MAX];
	br_event_rwbs(ev, rwbs);
	uint32_t dev = ev->device;
	uint32_t from_dev = 0;
	uint64_t from_sector = 0;
	if (code == __BLK_TA_REMAP) {
		dev = br_event_display_device(ev);
		br_event_remap(ev, &from_dev, &from_sector);
	}
	o = put_header(o, dev, ev->cpu, (int32_t)ev->sequence, rel, ev->pid, name, rwbs);
	unsigned secs = ev->bytes >> 9;

	switch (code) {
	case __BLK_TA_REQUEUE:
	case __BLK_TA_COMPLETE:
		if (secs) {
			o = put_sector_len(o, ev);
		} else {
			o = put_u(o, ev->sector, 0);
			*o++ = ' ';
		}
		o = put_error(o, ev);
		break;
	case __BLK_TA_ISSUE:
	case __BLK_TA_INSERT:
	case __BLK_TA_QUEUE:
	case __BLK_TA_BOUNCE:
	case __BLK_TA_BACKMERGE:
	case __BLK_TA_FRONTMERGE:
	case __BLK_TA_GETRQ:
	case __BLK_TA_SLEEPRQ:
		if (secs)
			o = put_sector_len(o, ev);
		o = put_name(o, ev);
		break;
	case __BLK_TA_PLUG:
		o = put_name(o, ev);
		break;
	case __BLK_TA_UNPLUG_IO:
	case __BLK_TA_UNPLUG_TIMER:
		o = put_name(o, ev);
		*o++ = ' ';
		o = put_u(o, pdu_int(ev), 0);
		break;
	case __BLK_TA_REMAP:
		o = put_sector_len(o, ev);
		o = PUT_LIT(o, "<- (");
		o = put_u(o, BR_DEV_MAJOR(from_dev), 0);
		*o++ = ',';
		o = put_u(o, BR_DEV_MINOR(from_dev), 0);
		o = PUT_LIT(o, ") ");
		o = put_u(o, from_sector, 0);
		break;
	case __BLK_TA_SPLIT:
		o = put_u(o, ev->sector, 0);
		o = PUT_LIT(o, " / ");
		o = put_u(o, pdu_int(ev), 0);
		*o++ = ' ';
		o = put_name(o, ev);
		break;
	}
	*o++ = '\n';
	return o;
}

int br_text_event(br_text *t, const br_event *ev, br_error *err)
{
	bool message = ev->action == BLK_TN_MESSAGE;
	/* Other notify records (names, timestamps) are consumed by blkparse
	 * while reading: no line, no count. */
	if (br_event_is_notify(ev) && !message)
		return 0;

	/* a message older than the trace's start (its first real event: the
	 * reader hands such notes out first) shows at 0, as blkparse's does */
	uint64_t rel = ev->time > t->origin ? ev->time - t->origin : 0;
	/* file mode keeps one set of counters for everything */
	br_dev_stats *d = br_text_stats_device(t, t->label ? 0 : ev->device, err);
	if (!d)
		return err ? err->code : BR_ENOMEM;
	br_cpu_stats *c = br_text_stats_cpu(d, ev->cpu, err);
	if (!c)
		return err ? err->code : BR_ENOMEM;
	if (!message && !t->label) {
		int rc = br_text_stats_sequence(c, ev->sequence, err);
		if (rc)
			return rc;
		c->last_seq = ev->sequence;
	}
	d->last_time = rel;
	c->nelems++;
	/* blkparse's act_mask test: no category bit, no line and no count. */
	if (!(ev->action & 0xffff0000u))
		return 0;
	if (!d->events)
		d->first_time = rel;
	d->events++;

	size_t need = TEXT_LINE_MAX + (size_t)ev->pdu_len * 3 + 0;
	if (t->cap - t->len < need) {
		int rc = br_text_reserve(t, need, err);
		if (rc)
			return rc;
	}
	char *o = t->buf + t->len;
	if (message) {
		if (ev->pdu_len)
			o = put_message(o, ev, rel);
	} else {
		unsigned code = ev->action & 0xffff;
		bool pc = (ev->action & BLK_TC_ACT(BLK_TC_PC)) != 0;
		account(d, c, ev, code, pc);
		o = pc ? put_pc(o, ev, code, rel) : put_fs(t, o, ev, code, rel);
	}
	t->len = (size_t)(o - t->buf);
	return 0;
}
