#include "spool/rotate.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "blkreel/units.h"
#include "spool/raw_convert.h"
#include "spool/spool.h"
#include "spool/spool_finish.h"

#define PATH_LEN 1100
/* What a spool of merged events compresses to at the default level
 * (measured: 8.3 bytes a record against 48-56 in the spool), until the
 * first file finished says what this trace does. */
#define FIRST_RATIO 0.17

typedef struct member {
	unsigned number;
	uint64_t bytes;      /* the .gz in place, or the spool while queued (and in a ring) */
	uint64_t first_time; /* trace time of its first event */
	/* an extraction (--flight) queued among the files: number 0 */
	uint64_t from, to, note_ns;
	char *out, *note;
} member;

typedef struct member_list {
	member *v;
	size_t n, cap;
} member_list;

struct cap_rotate {
	cap_rotate_opts o;
	char base[PATH_LEN];
	cap_spool *cur;
	unsigned cur_number;
	bool started;            /* the first event was seen */
	uint64_t period_start, period_end;
	uint64_t cur_first;      /* the current file's first event time */

	pthread_t thread;
	bool thread_on;
	pthread_mutex_t mu;
	pthread_cond_t cv;       /* a job queued, or stop; and a job done */
	bool stop;
	member_list queue;       /* spools closed, in order */
	member_list in_place;    /* the set's .gz files, oldest first */
	/* compressed / spool bytes of the last file finished: written by the
	 * thread, read on every event with --rotate SIZE, so atomic, no lock */
	_Atomic double ratio;
	uint64_t newest_first;   /* the newest file's first event time (the ring's clock) */
	unsigned extracts;       /* extractions queued: the ring keeps its files meanwhile */
	uint64_t hold_from;      /* and the files that may hold events from this time on */
	uint8_t *raw_header;     /* a raw ring: each file starts with it */
	size_t raw_header_len;
	int error;
	br_error err;
	cap_rotate_result res;
};

void cap_rotate_path(char *out, size_t size, const char *base, unsigned number, const char *ext)
{
	snprintf(out, size, "%.1000s.%05u.blktrace.%s", base, number, ext);
}

static int list_add(member_list *l, member m)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		member *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = m;
	return 0;
}

static int list_push(member_list *l, unsigned number, uint64_t bytes, uint64_t first_time)
{
	return list_add(l, (member){ .number = number, .bytes = bytes, .first_time = first_time });
}

static void list_drop_first(member_list *l)
{
	if (l->n) {
		memmove(l->v, l->v + 1, (l->n - 1) * sizeof *l->v);
		l->n--;
	}
}

static int cmp_member(const void *a, const void *b)
{
	const member *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

/* NAME.<digits>.blktrace.<ext> beside NAME: its number, or 0 (and *ext). */
static unsigned member_number(const char *entry, const char *stem, const char **ext)
{
	size_t sl = strlen(stem);
	if (strncmp(entry, stem, sl) != 0 || entry[sl] != '.')
		return 0;
	const char *p = entry + sl + 1, *digits = p;
	while (isdigit((unsigned char)*p))
		p++;
	if (p - digits < 5 || p - digits > 9 || strncmp(p, ".blktrace.", 10) != 0)
		return 0;
	*ext = p + 10;
	return (unsigned)strtoul(digits, NULL, 10);
}

/* The set's files an earlier capture left: whole ones count towards
 * --keep; any number in use (a spool, a .part) is not used again. */
static int scan_existing(cap_rotate *r, unsigned *highest, br_error *err)
{
	*highest = 0;
	char d1[PATH_LEN], d2[PATH_LEN];
	snprintf(d1, sizeof d1, "%s", r->base);
	snprintf(d2, sizeof d2, "%s", r->base);
	const char *dir = dirname(d1), *stem = basename(d2);
	DIR *d = opendir(dir);
	if (!d)
		return br_error_set(err, BR_ESYS, errno, dir, -1, "cannot list the output folder");
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *ext;
		unsigned n = member_number(de->d_name, stem, &ext);
		if (!n)
			continue;
		char path[PATH_LEN];
		if (r->o.ring) { /* a killed flight capture's ring: of no use now */
			cap_rotate_path(path, sizeof path, r->base, n, ext);
			unlink(path);
			continue;
		}
		if (n > *highest)
			*highest = n;
		if (strcmp(ext, "gz") != 0)
			continue;
		cap_rotate_path(path, sizeof path, r->base, n, "gz");
		struct stat st;
		if (stat(path, &st) == 0 && list_push(&r->in_place, n, (uint64_t)st.st_size, 0)) {
			closedir(d);
			return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
		}
	}
	closedir(d);
	if (r->in_place.n > 1) /* qsort wants an array, even of none */
		qsort(r->in_place.v, r->in_place.n, sizeof *r->in_place.v, cmp_member);
	return 0;
}

static uint64_t in_place_bytes(const cap_rotate *r)
{
	uint64_t t = 0;
	for (size_t i = 0; i < r->in_place.n; i++)
		t += r->in_place.v[i].bytes;
	return t;
}

/* The oldest files beyond --keep / --keep-size go (never the newest).
 * Called with mu held. */
static void enforce_ring(cap_rotate *r)
{
	/* the oldest goes once the one after it starts before the window and
	 * before any time held: everything the oldest has is older */
	while (!r->extracts && r->in_place.n >= 2 && r->in_place.v[1].first_time + r->o.keep_ns < r->newest_first &&
	       r->in_place.v[1].first_time <= r->hold_from) {
		char path[PATH_LEN];
		cap_rotate_path(path, sizeof path, r->base, r->in_place.v[0].number, "spool");
		unlink(path);
		list_drop_first(&r->in_place);
	}
}

static void enforce_keep(cap_rotate *r)
{
	if (r->o.ring) {
		enforce_ring(r);
		return;
	}
	for (;;) {
		size_t n = r->in_place.n;
		bool too_many = r->o.keep && n > r->o.keep;
		bool too_big = r->o.keep_bytes && n > 1 && in_place_bytes(r) > r->o.keep_bytes;
		if (!too_many && !too_big)
			return;
		char path[PATH_LEN];
		cap_rotate_path(path, sizeof path, r->base, r->in_place.v[0].number, "gz");
		if (unlink(path) && errno != ENOENT) {
			if (r->o.log)
				fprintf(r->o.log, "blkreel-capture: cannot remove %s (%s): --keep left it\n", path,
					strerror(errno));
		} else {
			r->res.removed++;
			if (r->o.log)
				fprintf(r->o.log, "blkreel-capture: removed %s (%s)\n", path,
					too_many ? "--keep" : "--keep-size");
		}
		list_drop_first(&r->in_place);
	}
}

/* A ring's file stays the spool it is. Called with mu held. */
static void keep_in_ring(cap_rotate *r, member job)
{
	list_push(&r->in_place, job.number, job.bytes, job.first_time);
	if (job.first_time > r->newest_first)
		r->newest_first = job.first_time;
	enforce_ring(r);
}

static void finish_one(cap_rotate *r, member job)
{
	char spool[PATH_LEN], gz[PATH_LEN];
	cap_rotate_path(spool, sizeof spool, r->base, job.number, "spool");
	cap_rotate_path(gz, sizeof gz, r->base, job.number, "gz");
	/* Punch the spool out as it is read only when the disk needs the room:
	 * a kill -9 meanwhile would lose what was punched. */
	struct statvfs vfs;
	bool punch = statvfs(spool, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < job.bytes;
	cap_finish fin = { .spool = spool, .gz = gz, .opts = &r->o.write, .punch = punch };
	cap_finish_result fr;
	br_error e;
	br_error_clear(&e);
	int rc = cap_spool_finish(&fin, &fr, &e);
	struct stat st;
	uint64_t bytes = rc == 0 && stat(gz, &st) == 0 ? (uint64_t)st.st_size : 0;
	if (rc == 0)
		unlink(spool);
	pthread_mutex_lock(&r->mu);
	if (rc) {
		r->res.failed++;
		if (!r->error) {
			r->error = rc;
			r->err = e;
		}
		if (r->o.log) {
			char msg[1200];
			fprintf(r->o.log, "blkreel-capture: cannot finish %s: %s (its spool %s stays for --cleanup)\n", gz,
				br_error_format(&e, msg, sizeof msg), spool);
		}
	} else {
		if (job.bytes)
			atomic_store(&r->ratio, (double)bytes / (double)job.bytes);
		r->res.written++;
		r->res.events += fr.events > 0 ? (uint64_t)fr.events : 0;
		r->res.bytes += bytes;
		if (!r->res.first)
			r->res.first = job.number;
		r->res.last = job.number;
		list_push(&r->in_place, job.number, bytes, job.first_time);
		if (r->o.log) {
			char b[32];
			br_format_bytes(bytes, b, sizeof b);
			fprintf(r->o.log, "blkreel-capture: wrote %s (%lld records, %s)\n", gz, (long long)fr.events, b);
		}
		enforce_keep(r);
	}
	pthread_mutex_unlock(&r->mu);
}

typedef struct extract_state {
	br_writer *w;
	const member *job;
	bool noted;
	uint64_t last_time, records;
} extract_state;

static int write_note(extract_state *x, uint64_t time, br_error *err)
{
	br_event ev = { 0 };
	ev.time = time > x->last_time ? time : x->last_time;
	ev.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE;
	ev.pdu = (const uint8_t *)x->job->note;
	ev.pdu_len = (uint16_t)strnlen(x->job->note, 1024);
	x->noted = true;
	x->records++;
	return br_writer_write(x->w, &ev, err);
}

/* Every note (process names, drops), and the IO events in the window. */
static int extract_record(void *arg, const br_event *ev, br_error *err)
{
	extract_state *x = arg;
	bool notify = br_event_is_notify(ev);
	if (!notify && (ev->time < x->job->from || ev->time > x->job->to))
		return 0;
	if (!x->noted && ev->time >= x->job->note_ns) {
		int rc = write_note(x, x->job->note_ns, err);
		if (rc)
			return rc;
	}
	br_event out = *ev;
	/* a note of the first file that came before the window (its drops
	 * note, a name) is kept at the window's start: nothing before it */
	if (out.time < x->job->from)
		out.time = x->job->from;
	if (out.time > x->last_time)
		x->last_time = out.time;
	x->records++;
	return br_writer_write(x->w, &out, err);
}

/* The ring's files that hold [from, to], in order (indices into in_place). */
static void ring_span(cap_rotate *r, const member *job, size_t *first, size_t *end)
{
	pthread_mutex_lock(&r->mu);
	size_t n = r->in_place.n, a = 0;
	while (a + 1 < n && r->in_place.v[a + 1].first_time <= job->from)
		a++;
	size_t b = a;
	while (b < n && r->in_place.v[b].first_time <= job->to)
		b++;
	pthread_mutex_unlock(&r->mu);
	*first = a;
	*end = b;
}

/* An event ring's files, each read on its own. */
static int extract_events(cap_rotate *r, size_t first, size_t end, extract_state *x, br_error *e)
{
	for (size_t i = first; i < end; i++) {
		char spool[PATH_LEN];
		pthread_mutex_lock(&r->mu);
		unsigned number = r->in_place.v[i].number; /* kept while extracts are queued */
		pthread_mutex_unlock(&r->mu);
		cap_rotate_path(spool, sizeof spool, r->base, number, "spool");
		int64_t got = cap_spool_each(spool, extract_record, x, e);
		if (got < 0)
			return (int)got;
	}
	return 0;
}

/* A raw ring's files hold frames of one stream: they are converted
 * together, from the one before the span where it is still there (a
 * record read late, a batch the decoder held, belongs to an earlier
 * time than the file's start). */
static int extract_raw(cap_rotate *r, size_t first, size_t end, extract_state *x, br_error *e)
{
	if (first > 0)
		first--;
	size_t n = end - first;
	char (*paths)[PATH_LEN] = calloc(n ? n : 1, sizeof *paths);
	const char **v = calloc(n ? n : 1, sizeof *v);
	int rc = 0;
	if (!paths || !v) {
		rc = br_error_set(e, BR_ENOMEM, 0, NULL, -1, "out of memory");
	} else {
		pthread_mutex_lock(&r->mu);
		for (size_t i = 0; i < n; i++) {
			cap_rotate_path(paths[i], PATH_LEN, r->base, r->in_place.v[first + i].number, "spool");
			v[i] = paths[i];
		}
		pthread_mutex_unlock(&r->mu);
		int64_t got = cap_raw_convert_files(v, n, extract_record, x, e);
		if (got < 0)
			rc = (int)got;
	}
	free(paths);
	free(v);
	return rc;
}

static void extract(cap_rotate *r, const member *job)
{
	char part[PATH_LEN];
	snprintf(part, sizeof part, "%.1000s.part", job->out);
	extract_state x = { .job = job };
	br_error e;
	br_error_clear(&e);
	int rc = br_writer_open(&x.w, BR_OUT_COMPRESSED, part, &r->o.write, &e);
	size_t first, end;
	ring_span(r, job, &first, &end);
	if (rc == 0)
		rc = r->raw_header ? extract_raw(r, first, end, &x, &e) : extract_events(r, first, end, &x, &e);
	if (rc == 0 && !x.noted)
		rc = write_note(&x, job->note_ns, &e);
	if (x.w) {
		if (rc)
			br_writer_abort(x.w);
		else
			rc = br_writer_close(x.w, &e);
	}
	if (rc == 0 && rename(part, job->out))
		rc = br_error_set(&e, BR_ESYS, errno, job->out, -1, "cannot rename %s into place", part);
	if (rc)
		unlink(part);
	struct stat st;
	uint64_t bytes = rc == 0 && stat(job->out, &st) == 0 ? (uint64_t)st.st_size : 0;
	pthread_mutex_lock(&r->mu);
	r->extracts--;
	if (rc) {
		if (!r->error) {
			r->error = rc;
			r->err = e;
		}
		if (r->o.log) {
			char msg[1200];
			fprintf(r->o.log, "blkreel-capture: cannot write %s: %s\n", job->out, br_error_format(&e, msg, sizeof msg));
		}
	} else {
		r->res.extracted++;
		r->res.bytes += bytes;
		if (r->o.log) {
			char b[32];
			br_format_bytes(bytes, b, sizeof b);
			fprintf(r->o.log, "blkreel-capture: wrote %s (%llu records, %s, from %zu files of the ring)\n", job->out,
				(unsigned long long)x.records, b, end - first);
		}
	}
	enforce_keep(r);
	pthread_mutex_unlock(&r->mu);
	free(job->out);
	free(job->note);
}

static void *finisher(void *arg)
{
	cap_rotate *r = arg;
	/* Compressing is the capture's own work, not the workload's: it yields. */
	setpriority(PRIO_PROCESS, (id_t)gettid(), 10);
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->queue.n && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!r->queue.n)
			break;
		member job = r->queue.v[0];
		if (job.number && r->o.ring) {
			keep_in_ring(r, job);
		} else {
			pthread_mutex_unlock(&r->mu);
			if (job.number)
				finish_one(r, job);
			else
				extract(r, &job);
			pthread_mutex_lock(&r->mu);
		}
		list_drop_first(&r->queue);
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static int open_spool(cap_rotate *r, unsigned number, br_error *err)
{
	char path[PATH_LEN];
	cap_rotate_path(path, sizeof path, r->base, number, "spool");
	if (r->o.opened)
		r->o.opened(r->o.opened_arg, path);
	int rc = cap_spool_open(&r->cur, path, false, err);
	if (rc)
		return rc;
#ifdef BLKREEL_TEST_HOOKS
	if (r->o.no_sync)
		cap_spool_no_sync(r->cur);
#endif
	r->cur_number = number;
	if (r->raw_header)
		return cap_spool_append(r->cur, r->raw_header, r->raw_header_len, NULL, 0, 0, 0, err);
	return 0;
}

int cap_rotate_set_raw_header(cap_rotate *r, const void *header, size_t len, br_error *err)
{
	if (!r->o.ring || cap_spool_bytes(r->cur) != 0)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "a raw header goes first in a flight ring's file");
	if (!(r->raw_header = malloc(len)))
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	memcpy(r->raw_header, header, len);
	r->raw_header_len = len;
	return cap_spool_append(r->cur, header, len, NULL, 0, 0, 0, err);
}

int cap_rotate_open(cap_rotate **out, const cap_rotate_opts *o, br_error *err)
{
	*out = NULL;
	cap_rotate *r = calloc(1, sizeof *r);
	if (!r)
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	r->o = *o;
	snprintf(r->base, sizeof r->base, "%s", o->base);
	r->o.base = r->base;
	atomic_init(&r->ratio, FIRST_RATIO);
	r->hold_from = UINT64_MAX;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	unsigned highest;
	int rc = scan_existing(r, &highest, err);
	if (rc == 0 && r->in_place.n && o->log)
		fprintf(o->log, "blkreel-capture: %zu files of %s.*.blktrace.gz are there already: numbering goes on from %05u\n",
			r->in_place.n, r->base, highest + 1);
	if (rc == 0)
		rc = open_spool(r, highest + 1, err);
	if (rc == 0) {
		int e = pthread_create(&r->thread, NULL, finisher, r);
		if (e)
			rc = br_error_set(err, BR_ESYS, e, NULL, -1, "cannot start the thread that compresses the files");
		r->thread_on = e == 0;
	}
	if (rc) {
		cap_rotate_abort(r);
		return rc;
	}
	*out = r;
	return 0;
}

cap_spool *cap_rotate_spool(cap_rotate *r)
{
	return r->cur;
}

bool cap_rotate_due(cap_rotate *r, uint64_t time)
{
	if (!r->started) {
		r->started = true;
		r->cur_first = time;
		r->period_start = time;
		r->period_end = r->o.period_ns ? time + r->o.period_ns : UINT64_MAX;
		return false;
	}
	if (cap_spool_records(r->cur) == 0)
		return false;
	if (time >= r->period_end)
		return true;
	if (r->o.size && (double)cap_spool_bytes(r->cur) * atomic_load(&r->ratio) >= (double)r->o.size)
		return true;
	return false;
}

int cap_rotate_next(cap_rotate *r, uint64_t time, br_error *err)
{
	if (r->o.period_ns && time >= r->period_end) {
		/* periods count from the first event; empty ones make no file */
		uint64_t k = (time - r->period_start) / r->o.period_ns;
		r->period_end = r->period_start + (k + 1) * r->o.period_ns;
	}
	uint64_t bytes = cap_spool_bytes(r->cur);
	/* A spool whose last write failed still holds whole records up to a
	 * torn tail: it is finished all the same, and the error said. */
	int rc = cap_spool_close(r->cur, err);
	r->cur = NULL;
	pthread_mutex_lock(&r->mu);
	int qrc = list_push(&r->queue, r->cur_number, bytes, r->cur_first);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	if (qrc && !rc)
		rc = br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	r->cur_first = time;
	int orc = open_spool(r, r->cur_number + 1, rc ? &(br_error){ 0 } : err);
	return rc ? rc : orc;
}

void cap_rotate_hold(cap_rotate *r, uint64_t from_ns)
{
	pthread_mutex_lock(&r->mu);
	r->hold_from = from_ns;
	pthread_mutex_unlock(&r->mu);
}

int cap_rotate_extract(cap_rotate *r, uint64_t from_ns, uint64_t to_ns, const char *out, const char *note,
		       uint64_t note_ns, br_error *err)
{
	member job = { .from = from_ns, .to = to_ns, .note_ns = note_ns, .out = strdup(out), .note = strdup(note) };
	pthread_mutex_lock(&r->mu);
	int rc = job.out && job.note ? list_add(&r->queue, job) : -1;
	if (rc == 0)
		r->extracts++;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	if (rc) {
		free(job.out);
		free(job.note);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	return 0;
}

uint64_t cap_rotate_disk_bytes(cap_rotate *r)
{
	pthread_mutex_lock(&r->mu);
	uint64_t t = in_place_bytes(r);
	for (size_t i = 0; i < r->queue.n; i++)
		t += r->queue.v[i].bytes;
	pthread_mutex_unlock(&r->mu);
	double ratio = atomic_load(&r->ratio);
	/* the spool being compressed has its .gz.part beside it */
	uint64_t cur = cap_spool_bytes(r->cur);
	return t + cur + (uint64_t)((double)cur * ratio);
}

static void stop_thread(cap_rotate *r)
{
	if (!r->thread_on)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	r->thread_on = false;
}

/* The ring is not the output: its files go at the end. */
static void remove_ring(cap_rotate *r)
{
	if (!r->o.ring)
		return;
	for (size_t i = 0; i < r->in_place.n; i++) {
		char path[PATH_LEN];
		cap_rotate_path(path, sizeof path, r->base, r->in_place.v[i].number, "spool");
		unlink(path);
	}
	r->in_place.n = 0;
}

static void free_rotate(cap_rotate *r)
{
	for (size_t i = 0; i < r->queue.n; i++) {
		free(r->queue.v[i].out);
		free(r->queue.v[i].note);
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r->queue.v);
	free(r->in_place.v);
	free(r->raw_header);
	free(r);
}

int cap_rotate_close(cap_rotate *r, cap_rotate_result *res, br_error *err)
{
	int rc = 0;
	br_error e;
	br_error_clear(&e);
	if (r->cur) {
		uint64_t bytes = cap_spool_bytes(r->cur);
		bool empty = cap_spool_records(r->cur) == 0;
		char path[PATH_LEN];
		cap_rotate_path(path, sizeof path, r->base, r->cur_number, "spool");
		rc = cap_spool_close(r->cur, &e);
		r->cur = NULL;
		if (empty && rc == 0) {
			unlink(path); /* nothing in it: no file */
		} else {
			pthread_mutex_lock(&r->mu);
			if (list_push(&r->queue, r->cur_number, bytes, r->cur_first) && !rc)
				rc = br_error_set(&e, BR_ENOMEM, 0, NULL, -1, "out of memory");
			pthread_cond_broadcast(&r->cv);
			pthread_mutex_unlock(&r->mu);
		}
	}
	stop_thread(r); /* it finishes the queue first */
	remove_ring(r);
	if (!rc && r->error) {
		rc = r->error;
		e = r->err;
	}
	*res = r->res;
	if (rc && err)
		*err = e;
	free_rotate(r);
	return rc;
}

void cap_rotate_abort(cap_rotate *r)
{
	if (!r)
		return;
	if (r->cur) {
		char path[PATH_LEN];
		cap_rotate_path(path, sizeof path, r->base, r->cur_number, "spool");
		cap_spool_close(r->cur, NULL);
		r->cur = NULL;
		unlink(path);
	}
	stop_thread(r);
	remove_ring(r);
	free_rotate(r);
}
