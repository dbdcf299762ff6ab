/* The br_source every text format shares: lines in, parse hook, a time
 * heap out (see fmt_text.h for the ordering rule). */
#include "fmt_text.h"
#include "common/grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_lines.h"

typedef struct pending {
	br_event ev;
	uint64_t arrival;     /* tie-break: emission order within equal times */
	bool primary;
	uint8_t pdu[FMT_PDU_MAX];
} pending;

typedef struct comm_entry { /* last name given per pid, to emit notify on change */
	uint32_t pid;
	bool used;
	char name[FMT_COMM_MAX];
} comm_entry;

struct fmt_source {
	br_source base;
	br_input in;
	fmt_lines lines;
	const fmt_format *fmt;
	void *state;
	fmt_ctx ctx;
	bool skip_bad;
	uint64_t bad;
	pending *heap;
	size_t nheap, cap, nprimary;
	uint64_t arrivals;
	uint64_t last_out_time;
	bool any_out;
	uint32_t sequence;
	pending out;          /* the event handed out last (its pdu lives here) */
	bool input_done;
	bool order_broken;    /* this line produced an event earlier than one handed out */
	uint64_t broken_time;
	char note[256];
	char name[64];
	comm_entry *comms;    /* open addressing, power-of-two size */
	size_t ncomm_slots, ncomms;
};

/* ---- heap on (time, arrival) ---------------------------------------------- */

static bool before(const pending *a, const pending *b)
{
	if (a->ev.time != b->ev.time)
		return a->ev.time < b->ev.time;
	return a->arrival < b->arrival;
}

static int heap_push(fmt_source *s, const pending *p)
{
	if (s->nheap == s->cap) {
		pending *h = br_grow(s->heap, &s->cap, s->nheap + 1, sizeof *h, 1024);
		if (!h)
			return BR_ENOMEM;
		s->heap = h;
	}
	size_t i = s->nheap++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!before(p, &s->heap[up]))
			break;
		s->heap[i] = s->heap[up];
		i = up;
	}
	s->heap[i] = *p;
	return 0;
}

static void heap_pop(fmt_source *s, pending *out)
{
	*out = s->heap[0];
	pending last = s->heap[--s->nheap];
	size_t i = 0, n = s->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (n)
		s->heap[i] = last;
}

/* ---- what parse hooks call ------------------------------------------------ */

int fmt_emit(fmt_ctx *c, const br_event *ev, bool primary)
{
	fmt_source *s = c->src;
	if (s->any_out && ev->time < s->last_out_time) {
		/* refused; the line is reported as bad once its hook returns */
		s->order_broken = true;
		s->broken_time = ev->time;
		return 0;
	}
	pending p;
	p.ev = *ev;
	p.primary = primary;
	p.arrival = s->arrivals++;
	size_t n = ev->pdu_len < FMT_PDU_MAX ? ev->pdu_len : FMT_PDU_MAX;
	if (n && ev->pdu)
		memcpy(p.pdu, ev->pdu, n);
	p.ev.pdu_len = (uint16_t)n;
	p.ev.pdu = NULL;
	p.ev.comm = NULL;
	if (heap_push(s, &p))
		return BR_ENOMEM;
	s->nprimary += primary;
	return 0;
}

static uint32_t hash_pid(uint32_t pid)
{
	return pid * 2654435761u;
}

static comm_entry *comm_slot(fmt_source *s, uint32_t pid)
{
	size_t mask = s->ncomm_slots - 1;
	for (size_t i = hash_pid(pid) & mask;; i = (i + 1) & mask)
		if (!s->comms[i].used || s->comms[i].pid == pid)
			return &s->comms[i];
}

static int comm_grow(fmt_source *s)
{
	size_t n = s->ncomm_slots ? s->ncomm_slots * 2 : 256;
	comm_entry *old = s->comms;
	size_t nold = s->ncomm_slots;
	s->comms = calloc(n, sizeof *s->comms);
	if (!s->comms) {
		s->comms = old;
		return BR_ENOMEM;
	}
	s->ncomm_slots = n;
	for (size_t i = 0; i < nold; i++)
		if (old[i].used)
			*comm_slot(s, old[i].pid) = old[i];
	free(old);
	return 0;
}

int fmt_emit_comm(fmt_ctx *c, uint64_t time, uint32_t pid, uint32_t device, const char *name,
		  size_t len)
{
	fmt_source *s = c->src;
	if (len > FMT_COMM_MAX - 1)
		len = FMT_COMM_MAX - 1; /* the kernel keeps 15 characters */
	if ((s->ncomms + 1) * 2 > s->ncomm_slots && comm_grow(s))
		return BR_ENOMEM;
	comm_entry *e = comm_slot(s, pid);
	if (e->used && strncmp(e->name, name, len) == 0 && e->name[len] == 0)
		return 0;
	if (!e->used)
		s->ncomms++;
	e->used = true;
	e->pid = pid;
	memset(e->name, 0, sizeof e->name);
	memcpy(e->name, name, len);
	br_event ev = { 0 };
	ev.time = time;
	ev.pid = pid;
	ev.device = device;
	ev.action = BLK_TN_PROCESS;
	ev.pdu = (const uint8_t *)e->name;
	ev.pdu_len = FMT_COMM_MAX;
	return fmt_emit(c, &ev, false);
}

int fmt_emit_io(fmt_ctx *c, uint64_t time, uint32_t device, uint64_t sector, uint32_t bytes,
		uint32_t category, uint32_t pid, bool has_response, uint64_t response_ns)
{
	br_event ev = { 0 };
	ev.time = time;
	ev.device = device;
	ev.sector = sector;
	ev.bytes = bytes;
	ev.pid = pid;
	ev.action = BLK_TA_ISSUE | BLK_TC_ACT(category);
	int rc = fmt_emit(c, &ev, true);
	if (rc || !has_response)
		return rc;
	ev.time = time + response_ns;
	ev.pid = 0; /* completions run in interrupt context */
	ev.action = BLK_TA_COMPLETE | BLK_TC_ACT(category);
	return fmt_emit(c, &ev, false);
}

int fmt_bad(fmt_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	va_end(ap);
	return FMT_BAD;
}

/* ---- the source ---------------------------------------------------------- */

/* Parse lines until the heap may hand something out (or the input ends). */
static int pump(fmt_source *s, br_error *err)
{
	while (!s->input_done && s->nprimary <= FMT_WINDOW) {
		char *line;
		size_t len;
		int64_t off;
		bool too_long;
		int rc = fmt_lines_next(&s->lines, &line, &len, &off, &too_long, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			s->input_done = true;
			break;
		}
		s->ctx.lineno = s->lines.lineno;
		if (too_long)
			rc = fmt_bad(&s->ctx, "line longer than %d bytes", FMT_LINE_MAX);
		else
			rc = s->fmt->parse(s->state, &s->ctx, line, len);
		if (rc == FMT_OK && s->order_broken) {
			rc = fmt_bad(&s->ctx,
				     "not in time order: time %llu ns is before %llu ns, already passed "
				     "on (more than %d lines out of order; sort the input first)",
				     (unsigned long long)s->broken_time,
				     (unsigned long long)s->last_out_time, FMT_WINDOW);
		}
		s->order_broken = false;
		if (rc < 0) /* hooks fail hard only for memory */
			return br_error_set(err, rc, rc == BR_ENOMEM ? ENOMEM : 0, s->in.name, off,
					    "%s: line %llu: %s", s->fmt->name,
					    (unsigned long long)s->ctx.lineno, br_strerror(rc));
		if (rc == FMT_END) {
			s->input_done = true;
			break;
		}
		if (rc == FMT_BAD) {
			if (s->skip_bad) {
				s->bad++;
				continue;
			}
			bool gz = s->lines.gz;
			return br_error_set(err, BR_EFORMAT, 0, s->in.name, off, "%s: line %llu%s: %s",
					    s->fmt->name, (unsigned long long)s->ctx.lineno,
					    gz ? " (offset in the uncompressed text)" : "", s->ctx.msg);
		}
	}
	return 0;
}

static int fmt_next(br_source *src, br_event *ev, br_error *err)
{
	fmt_source *s = (fmt_source *)src;
	int rc = pump(s, err);
	if (rc)
		return rc;
	if (s->nheap == 0)
		return 0;
	heap_pop(s, &s->out);
	s->nprimary -= s->out.primary;
	*ev = s->out.ev;
	ev->pdu = ev->pdu_len ? s->out.pdu : NULL;
	if (!s->fmt->keeps_sequence && !br_event_is_notify(ev))
		ev->sequence = ++s->sequence;
	s->last_out_time = ev->time;
	s->any_out = true;
	return 1;
}

static void fmt_info(br_source *src, br_input_info *info)
{
	fmt_source *s = (fmt_source *)src;
	info->kind = BR_INPUT_FOREIGN;
	info->format_name = s->name;
	info->note = s->ctx.note[0] ? s->ctx.note : s->fmt->note;
	info->bad_records_skipped += s->bad;
	info->raw_bytes += (uint64_t)fmt_lines_text_bytes(&s->lines);
	if (s->lines.gz)
		info->compressed_bytes += (uint64_t)s->in.offset;
}

static void fmt_close(br_source *src)
{
	fmt_source *s = (fmt_source *)src;
	if (!s)
		return;
	if (s->state && s->fmt->free_state)
		s->fmt->free_state(s->state);
	free(s->state);
	free(s->heap);
	free(s->comms);
	fmt_lines_close(&s->lines);
	br_input_close(&s->in);
	free(s);
}

static const br_source_ops fmt_ops = {
	.name = "foreign text",
	.next = fmt_next,
	.info = fmt_info,
	.close = fmt_close,
};

int fmt_source_open(br_source **out, br_input *in, const fmt_format *f,
		    const br_reader_opts *opts, br_error *err)
{
	fmt_source *s = calloc(1, sizeof *s);
	void *state = f->state_size ? calloc(1, f->state_size) : NULL;
	if (!s || (f->state_size && !state)) {
		free(s);
		free(state);
		return br_error_set(err, BR_ENOMEM, ENOMEM, in->name, -1, "out of memory");
	}
	s->base.ops = &fmt_ops;
	s->in = *in;
	s->fmt = f;
	s->state = state;
	s->ctx.src = s;
	s->skip_bad = opts && opts->skip_bad;
	int rc = fmt_lines_open(&s->lines, &s->in, err);
	if (rc) {
		free(state);
		free(s);
		return rc;
	}
	snprintf(s->name, sizeof s->name, "%s%s", f->name, s->lines.gz ? " (gzip)" : "");
	*out = &s->base;
	return 0;
}

/* ---- probes ------------------------------------------------------------- */

size_t fmt_probe_lines(const uint8_t *data, size_t len, const char **starts, size_t *lens,
		       size_t max)
{
	size_t n = 0, pos = 0;
	while (n < max && pos < len) {
		const uint8_t *nl = memchr(data + pos, '\n', len - pos);
		if (!nl) {
			if (n == 0) { /* the whole window is one (maybe partial) line */
				starts[n] = (const char *)data;
				lens[n++] = len;
			}
			break;
		}
		size_t l = (size_t)(nl - (data + pos));
		if (l && data[pos + l - 1] == '\r')
			l--;
		starts[n] = (const char *)data + pos;
		lens[n++] = l;
		pos = (size_t)(nl - data) + 1;
	}
	return n;
}

bool fmt_looks_text(const uint8_t *data, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = data[i];
		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
			return false;
		if (c == 0x7f)
			return false;
	}
	return true;
}
