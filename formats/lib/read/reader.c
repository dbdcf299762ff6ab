/* The reader: merges every source of every input by time.
 *
 * The merge keeps blkparse's file-mode order (its "ms" stream list): the
 * stream at the head keeps emitting while its next event is not later than
 * the following stream's, and a stream that falls behind is re-inserted
 * after the head if it ties with it, otherwise before any stream it ties
 * with. With that, equal timestamps on different CPUs come out in the order
 * blkparse prints them.
 *
 * Process names follow blkparse too: it reads each CPU file a batch at a
 * time (512 records, not counting notify records), all files' first
 * batches before printing anything and a file's next batch once its last
 * one is printed, and keeps the first name it reads for a pid. Each stream
 * reads ahead in the same batches, and a pid's name is the first one any
 * batch brought, so lines get the name blkparse gives them. */
#include "blkreel/reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/comm_table.h"
#include "input_detect.h"
#include "reader_take.h"

enum { BATCH_RECORDS = 512 }; /* blkparse's rb_batch default */

typedef struct stream {
	br_source *src;
	size_t input;        /* index into inputs */
	br_event head;       /* valid when has_head */
	bool has_head;
	struct stream *next; /* merge order */
	/* the batch read ahead: events [0, nbatch) copied here, their pdus in
	 * one arena; then [nbatch, nbatch + nview) in place in the source's
	 * last run (next_batch: valid until the source's next call, which
	 * only the next batch_fill makes), so most events are never copied */
	br_event *batch;
	size_t *pdu_at;
	size_t nbatch, pos, cap;
	uint8_t *pdus;
	size_t pdus_len, pdus_cap;
	const br_event *view;
	size_t nview;
	int pending_rc;      /* the source failed after the batch: say so once it is used up */
	br_error pending_err;
	bool src_end;
} stream;

typedef struct held_event { /* notify records met while finding the start */
	br_event ev;
	uint8_t *pdu;
} held_event;

typedef struct reader_window { /* opts.from_ns/to_ns as absolute times */
	uint64_t from, to;
} reader_window;

typedef struct input_slot {
	br_input_info info;
	br_opened_input opened;
	br_damage *damage;    /* info.damage of an input of several sources */
	size_t damage_cap;
} input_slot;

struct br_reader {
	br_reader_opts opts;
	input_slot *inputs;
	size_t ninputs;
	stream *streams;
	size_t nstreams;
	stream *order;        /* merge list head */
	stream *emitted;      /* stream whose head was handed out last */
	held_event *held;
	size_t nheld, held_pos;
	br_comm_table *comms;
	bool any_comm;        /* a name was learned: until then every comm is NULL */
	/* the name looked up last: consecutive events are mostly one pid's */
	uint32_t cached_pid;
	const char *cached_comm;
	bool cache_valid;
	uint64_t start_time;
	reader_window window;
	uint64_t device_events[BR_READER_MAX_DEVICES]; /* handed out, per opts.devices */
	int sticky;           /* first error, returned again */
	br_error sticky_err;
	bool finished;
};

static void learn_comm(br_comm_table *comms, const br_event *ev, bool *changed);

/* opts.devices: whether ev belongs to one of them. */
static bool on_devices(const br_reader *r, const br_event *ev)
{
	for (unsigned i = 0; i < r->opts.ndevices; i++)
		if (br_event_on_device(ev, r->opts.devices[i]))
			return true;
	return false;
}

/* An IO event of opts.devices handed out: count it for each it belongs to. */
static void count_on_devices(br_reader *r, const br_event *ev)
{
	for (unsigned i = 0; i < r->opts.ndevices; i++)
		if (br_event_on_device(ev, r->opts.devices[i]))
			r->device_events[i]++;
}

/* A notify record read ahead into a batch: learn its name (blkparse's
 * order, see the top of this file). */
static void learn_from(br_reader *r, const br_event *ev)
{
	bool changed = false;
	learn_comm(r->comms, ev, &changed);
	if (changed) {
		r->cache_valid = false;
		r->any_comm = true;
	}
}

/* Keep one record of the batch (its pdu copied). */
static int batch_push(stream *s, const br_event *ev)
{
	if (s->nbatch == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : BATCH_RECORDS + 16;
		br_event *b = realloc(s->batch, cap * sizeof *b);
		if (!b)
			return BR_ENOMEM;
		s->batch = b;
		size_t *at = realloc(s->pdu_at, cap * sizeof *at);
		if (!at)
			return BR_ENOMEM;
		s->pdu_at = at;
		s->cap = cap;
	}
	if (s->pdus_len + ev->pdu_len > s->pdus_cap) {
		uint8_t *p = br_grow(s->pdus, &s->pdus_cap, s->pdus_len + ev->pdu_len, 1, 4096);
		if (!p)
			return BR_ENOMEM;
		s->pdus = p;
	}
	if (ev->pdu_len)
		memcpy(s->pdus + s->pdus_len, ev->pdu, ev->pdu_len);
	s->pdu_at[s->nbatch] = s->pdus_len;
	s->pdus_len += ev->pdu_len;
	s->batch[s->nbatch++] = *ev;
	return 0;
}

/* Event pos of the batch read ahead, and its pdu. */
static inline const br_event *batch_event(const stream *s, size_t pos, const uint8_t **pdu)
{
	if (pos < s->nbatch) {
		const br_event *e = &s->batch[pos];
		*pdu = e->pdu_len ? s->pdus + s->pdu_at[pos] : NULL;
		return e;
	}
	const br_event *e = &s->view[pos - s->nbatch];
	*pdu = e->pdu_len ? e->pdu : NULL;
	return e;
}

/* The run kept in place is about to go stale (the source is read again):
 * copy it behind the others. */
static int materialize(stream *s)
{
	for (size_t i = 0; i < s->nview; i++)
		if (batch_push(s, &s->view[i]))
			return BR_ENOMEM;
	s->nview = 0;
	return 0;
}

/* Read the stream's next batch, learning the names in it. A read error
 * after some records is kept until they are used up. */
static int batch_fill(br_reader *r, stream *s, br_error *err)
{
	s->nbatch = s->pos = s->pdus_len = 0;
	s->nview = 0;
	unsigned records = 0;
	while (s->src->ops->next_batch && !s->src_end && !s->pending_rc && records < BATCH_RECORDS) {
		const br_event *evs;
		/* a batch spanning runs (members) copies all but its last */
		if (materialize(s))
			return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
		int n = s->src->ops->next_batch(s->src, &evs, BATCH_RECORDS - records, &s->pending_err);
		if (n < 0) {
			s->pending_rc = n;
			break;
		}
		if (n == 0) {
			s->src_end = true;
			break;
		}
		for (int i = 0; i < n; i++) {
			const br_event *ev = &evs[i];
			if (br_event_is_notify(ev))
				learn_from(r, ev);
			else
				records++;
		}
		s->view = evs;
		s->nview = (size_t)n;
	}
	if (!s->src_end && !s->pending_rc && records < BATCH_RECORDS && materialize(s))
		return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
	while (!s->src_end && !s->pending_rc && records < BATCH_RECORDS) {
		br_event ev;
		int rc = s->src->ops->next(s->src, &ev, &s->pending_err);
		if (rc < 0) {
			s->pending_rc = rc;
			break;
		}
		if (rc == 0) {
			s->src_end = true;
			break;
		}
		if (batch_push(s, &ev))
			return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
		if (br_event_is_notify(&ev))
			learn_from(r, &ev);
		else
			records++;
	}
	return 0;
}

static int stream_advance(br_reader *r, stream *s, br_error *err)
{
	if (s->pos == s->nbatch + s->nview) {
		int rc = batch_fill(r, s, err);
		if (rc)
			return rc;
	}
	if (s->pos == s->nbatch + s->nview) {
		s->has_head = false;
		if (s->pending_rc) {
			int rc = s->pending_rc;
			s->pending_rc = 0;
			s->src_end = true;
			if (err)
				*err = s->pending_err;
			return rc;
		}
		return 0;
	}
	const uint8_t *pdu;
	s->head = *batch_event(s, s->pos, &pdu);
	s->head.pdu = pdu;
	s->pos++;
	s->has_head = true;
	return 0;
}

/* A seek makes what was read ahead stale. */
static void stream_drop_batch(stream *s)
{
	s->nbatch = s->pos = s->pdus_len = 0;
	s->nview = 0;
	s->src_end = false;
	s->pending_rc = 0;
}

/* blkparse's ms_sort: see the comment at the top of this file. */
static void order_insert(br_reader *r, stream *s)
{
	s->next = NULL;
	stream *h = r->order;
	if (!h) {
		r->order = s;
	} else if (s->head.time < h->head.time) {
		s->next = h;
		r->order = s;
	} else {
		while (h->next && h->next->head.time < s->head.time)
			h = h->next;
		s->next = h->next;
		h->next = s;
	}
}

static int hold_notify(br_reader *r, const br_event *ev)
{
	held_event *h = realloc(r->held, (r->nheld + 1) * sizeof *h);
	if (!h)
		return BR_ENOMEM;
	r->held = h;
	h = &r->held[r->nheld];
	h->ev = *ev;
	h->pdu = NULL;
	if (ev->pdu_len) {
		h->pdu = malloc(ev->pdu_len);
		if (!h->pdu)
			return BR_ENOMEM;
		memcpy(h->pdu, ev->pdu, ev->pdu_len);
	}
	h->ev.pdu = h->pdu;
	r->nheld++;
	return 0;
}

/* The first name read for a pid stays (blkparse's add_ppm_hash). */
static void learn_comm(br_comm_table *comms, const br_event *ev, bool *changed)
{
	if (!br_event_is_notify(ev) || br_event_code(ev) != __BLK_TN_PROCESS || !ev->pdu_len ||
	    br_comm_table_get(comms, ev->pid))
		return;
	br_comm_table_set(comms, ev->pid, (const char *)ev->pdu, ev->pdu_len);
	*changed = true;
}

static const char *comm_of(br_reader *r, uint32_t pid)
{
	if (!r->any_comm)
		return NULL;
	if (!r->cache_valid || r->cached_pid != pid) {
		r->cached_pid = pid;
		r->cached_comm = br_comm_table_get(r->comms, pid);
		r->cache_valid = true;
	}
	return r->cached_comm;
}

/* ---- the rules of what is handed out, one place for br_reader_next and
 * reader_take ---- */
typedef enum head_verdict {
	HEAD_KEEP,      /* hand it out (hand_out) */
	HEAD_OTHER_DEV, /* not on opts.devices: pass over it */
	HEAD_EARLY,     /* before the window: pass over it */
	HEAD_PAST,      /* after the window: the reading ends */
} head_verdict;

/* Notify records carry no time of their own to judge: only the devices
 * apply to them. w: the reader's window (a copy, for a caller's loop). */
static inline head_verdict judge(const br_reader *r, const reader_window *w, const br_event *e,
				 bool notify)
{
	if (!notify) {
		if (e->time > w->to)
			return HEAD_PAST;
		if (e->time < w->from)
			return HEAD_EARLY;
	}
	if (r->opts.ndevices && !on_devices(r, e))
		return HEAD_OTHER_DEV;
	return HEAD_KEEP;
}

/* An event handed out (a copy the caller owns): its process name, and
 * counted for opts.devices. */
static inline void hand_out(br_reader *r, br_event *ev, bool notify)
{
	if (notify)
		return;
	if (r->opts.ndevices)
		count_on_devices(r, ev);
	ev->comm = comm_of(r, ev->pid);
}

/* Read each stream up to its first real event; notify records before it
 * are held and handed out first, so the trace start is a real event's
 * time, as blkparse's "genesis". With opts.devices, records of other
 * devices are passed over: the start is the first event of those kept. */
static int prime(br_reader *r, br_error *err)
{
	bool any = false;
	for (size_t i = 0; i < r->nstreams; i++) {
		stream *s = &r->streams[i];
		for (;;) {
			int rc = stream_advance(r, s, err);
			if (rc)
				return rc;
			if (!s->has_head)
				break;
			bool kept = !r->opts.ndevices || on_devices(r, &s->head);
			if (!br_event_is_notify(&s->head)) {
				if (kept)
					break;
				continue;
			}
			if (kept && hold_notify(r, &s->head))
				return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
		}
		if (s->has_head && (!any || s->head.time < r->start_time)) {
			r->start_time = s->head.time;
			any = true;
		}
	}
	return 0;
}

static int apply_window_start(br_reader *r, br_error *err)
{
	for (size_t i = 0; i < r->nstreams; i++) {
		stream *s = &r->streams[i];
		if (!s->has_head || s->head.time >= r->window.from || !s->src->ops->seek_time)
			continue;
		stream_drop_batch(s);
		int rc = s->src->ops->seek_time(s->src, r->window.from, err);
		if (rc < 0)
			return rc;
		rc = stream_advance(r, s, err);
		if (rc)
			return rc;
	}
	return 0;
}

static void free_inputs(br_reader *r)
{
	for (size_t i = 0; i < r->ninputs; i++) {
		br_opened_input *o = &r->inputs[i].opened;
		for (size_t j = 0; j < o->nsources; j++)
			o->sources[j]->ops->close(o->sources[j]);
		free(o->sources);
		free(r->inputs[i].damage);
	}
	free(r->inputs);
}

void br_reader_close(br_reader *r)
{
	if (!r)
		return;
	free_inputs(r);
	for (size_t i = 0; r->streams && i < r->nstreams; i++) {
		free(r->streams[i].batch);
		free(r->streams[i].pdu_at);
		free(r->streams[i].pdus);
	}
	free(r->streams);
	for (size_t i = 0; i < r->nheld; i++)
		free(r->held[i].pdu);
	free(r->held);
	br_comm_table_free(r->comms);
	free(r);
}

int br_reader_open(br_reader **out, const char *const *paths, size_t npaths,
		   const br_reader_opts *opts, br_error *err)
{
	*out = NULL;
	if (npaths == 0)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "no input given");
	size_t nstdin = 0;
	for (size_t i = 0; i < npaths; i++)
		nstdin += strcmp(paths[i], "-") == 0;
	if (nstdin > 1)
		return br_error_set(err, BR_EINVAL, 0, "-", -1, "standard input given twice");
	br_reader *r = calloc(1, sizeof *r);
	if (!r)
		return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
	if (opts)
		r->opts = *opts;
	if (r->opts.ndevices > BR_READER_MAX_DEVICES) {
		unsigned n = r->opts.ndevices;
		free(r);
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "%u devices asked for, at most %d",
				    n, BR_READER_MAX_DEVICES);
	}
	r->comms = br_comm_table_new();
	r->inputs = calloc(npaths, sizeof *r->inputs);
	if (!r->comms || !r->inputs) {
		br_reader_close(r);
		return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
	}
	size_t total = 0;
	for (size_t i = 0; i < npaths; i++) {
		int rc = br_open_input_path(paths[i], &r->opts, &r->inputs[i].opened, err);
		if (rc) {
			br_reader_close(r);
			return rc;
		}
		r->ninputs++;
		r->inputs[i].info.path = paths[i];
		total += r->inputs[i].opened.nsources;
	}
	r->streams = calloc(total ? total : 1, sizeof *r->streams);
	if (!r->streams) {
		br_reader_close(r);
		return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
	}
	for (size_t i = 0; i < r->ninputs; i++)
		for (size_t j = 0; j < r->inputs[i].opened.nsources; j++) {
			r->streams[r->nstreams].src = r->inputs[i].opened.sources[j];
			r->streams[r->nstreams++].input = i;
		}
	int rc = prime(r, err);
	if (!rc) {
		r->window.from = r->opts.has_from ? r->start_time + r->opts.from_ns : 0;
		r->window.to = r->opts.has_to ? r->start_time + r->opts.to_ns : UINT64_MAX;
		if (r->opts.has_to && r->window.to < r->start_time)
			r->window.to = UINT64_MAX; /* overflow */
		if (r->opts.has_from)
			rc = apply_window_start(r, err);
	}
	if (rc) {
		br_reader_close(r);
		return rc;
	}
	for (size_t i = 0; i < r->nstreams; i++)
		if (r->streams[i].has_head)
			order_insert(r, &r->streams[i]);
	*out = r;
	return 0;
}

static int fail(br_reader *r, int rc, br_error *err)
{
	r->sticky = rc;
	if (err)
		r->sticky_err = *err;
	return rc;
}

int br_reader_next(br_reader *r, br_event *ev, br_error *err)
{
	if (r->sticky) {
		if (err)
			*err = r->sticky_err;
		return r->sticky;
	}
	if (r->held_pos < r->nheld) {
		*ev = r->held[r->held_pos++].ev;
		return 1;
	}
	if (r->finished)
		return 0;
	for (;;) {
		if (r->emitted) {
			/* the event handed out last is no longer needed */
			stream *s = r->emitted;
			r->emitted = NULL;
			int rc = stream_advance(r, s, err);
			if (rc)
				return fail(r, rc, err);
			r->order = s->next;
			if (s->has_head) {
				if (r->order && s->head.time > r->order->head.time) {
					order_insert(r, s);
				} else {
					s->next = r->order;
					r->order = s;
				}
			}
		}
		stream *h = r->order;
		if (!h) {
			r->finished = true;
			return 0;
		}
		const br_event *head = &h->head;
		bool notify = br_event_is_notify(head);
		head_verdict v = judge(r, &r->window, head, notify);
		if (v == HEAD_PAST) {
			r->finished = true;
			return 0;
		}
		r->emitted = h;
		if (v != HEAD_KEEP)
			continue;
		*ev = *head;
		hand_out(r, ev, notify);
		return 1;
	}
}

uint64_t br_reader_start_time(const br_reader *r)
{
	return r->start_time;
}

size_t br_reader_ninputs(const br_reader *r)
{
	return r->ninputs;
}

/* One more source's info into an input's: the counts add up, the damage
 * lists are joined (each entry names its file). */
static void info_add(input_slot *slot, const br_input_info *one, bool first)
{
	br_input_info *in = &slot->info;
	in->byteswapped |= one->byteswapped;
	in->indexed = first ? one->indexed : in->indexed && one->indexed;
	in->members += one->members;
	in->members_skipped += one->members_skipped;
	in->compressed_bytes += one->compressed_bytes;
	in->raw_bytes += one->raw_bytes;
	in->bad_records_skipped += one->bad_records_skipped;
	if (!in->format_name)
		in->format_name = one->format_name;
	if (!in->note)
		in->note = one->note;
	if (!one->ndamage)
		return;
	br_damage *d = br_grow(slot->damage, &slot->damage_cap, in->ndamage + one->ndamage,
			       sizeof *d, 8);
	if (!d)
		return; /* out of memory: the list stops short, the counts above stand */
	slot->damage = d;
	memcpy(d + in->ndamage, one->damage, one->ndamage * sizeof *d);
	in->ndamage += one->ndamage;
	in->damage = d;
}

const br_input_info *br_reader_input(const br_reader *r, size_t i)
{
	if (i >= r->ninputs)
		return NULL;
	input_slot *slot = &r->inputs[i];
	const char *path = slot->info.path;
	memset(&slot->info, 0, sizeof slot->info);
	slot->info.path = path;
	size_t n = slot->opened.nsources;
	for (size_t j = 0; j < n; j++) {
		br_source *src = slot->opened.sources[j];
		if (!src->ops->info)
			continue;
		if (n == 1) {
			src->ops->info(src, &slot->info);
			continue;
		}
		br_input_info one;
		memset(&one, 0, sizeof one);
		src->ops->info(src, &one);
		info_add(slot, &one, j == 0);
	}
	slot->info.kind = slot->opened.kind;
	if (!slot->info.format_name)
		slot->info.format_name = slot->opened.format_name;
	/* a rotated set is one source that reads many files, and says how many */
	if (!slot->info.files)
		slot->info.files = (unsigned)n;
	return &slot->info;
}

uint64_t br_reader_device_events(const br_reader *r, size_t i)
{
	return i < r->opts.ndevices ? r->device_events[i] : 0;
}

const char *br_reader_comm(const br_reader *r, uint32_t pid)
{
	return br_comm_table_get(r->comms, pid);
}

int reader_take(br_reader *r, br_event *out, int max, uint8_t *arena, size_t room,
		size_t *used)
{
	*used = 0;
	if (r->nstreams != 1 || r->sticky || r->held_pos < r->nheld || r->finished)
		return 0;
	stream *s = &r->streams[0];
	/* the head was handed out and nothing else is in the merge: the next
	 * events are the rest of the batch, in order */
	if (r->emitted != s || r->order != s || !s->has_head)
		return 0;
	int k = 0;
	size_t at = 0;
	/* the copied part of the batch, then the part in place: the same loop
	 * over each, on locals (the stores into out would otherwise make the
	 * compiler reload the stream's fields for every event) */
	const reader_window w = r->window;
	size_t pos = s->pos, first = s->pos;
	for (int part = 0; part < 2; part++) {
		size_t base = part ? s->nbatch : 0;
		size_t end = part ? s->nbatch + s->nview : s->nbatch;
		const br_event *in = part ? s->view : s->batch;
		const size_t *pdu_at = s->pdu_at;
		const uint8_t *pdus = s->pdus;
		bool stop = false;
		while (k < max && pos < end) {
			const br_event *e = &in[pos - base];
			bool notify = br_event_is_notify(e);
			head_verdict v = judge(r, &w, e, notify);
			if (v == HEAD_PAST || v == HEAD_EARLY) {
				stop = true; /* br_reader_next ends or skips there */
				break;
			}
			if (v == HEAD_OTHER_DEV) {
				pos++; /* as br_reader_next passes over it */
				continue;
			}
			br_event *o = &out[k];
			*o = *e;
			o->pdu = NULL;
			if (e->pdu_len) {
				size_t need = (e->pdu_len + 7u) & ~(size_t)7;
				if (at + need > room) {
					stop = true;
					break;
				}
				memcpy(arena + at, part ? e->pdu : pdus + pdu_at[pos], e->pdu_len);
				o->pdu = arena + at;
				at += need;
			}
			hand_out(r, o, notify);
			k++;
			pos++;
		}
		if (stop || k == max)
			break;
	}
	s->pos = pos;
	if (pos != first) {
		/* as if br_reader_next had handed out the last one */
		const uint8_t *pdu;
		s->head = *batch_event(s, s->pos - 1, &pdu);
		s->head.pdu = pdu;
	}
	*used = at;
	return k;
}
