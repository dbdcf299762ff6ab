#include "spool/spool_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool/clock.h"
#include "tool/io.h"

struct cap_spool {
	int fd;
	char path[1040];
	uint8_t *buf;
	size_t len;
	uint64_t batch_since; /* monotonic time of the batch's first record, 0 = empty */
	uint64_t offset;      /* bytes in the file (write(2) done) */
	uint64_t records;
	int write_errno;      /* a failed write: the spool stops taking records */
	bool no_sync;

	/* shared with the sync thread, under mu */
	pthread_t thread;
	bool thread_on;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	uint64_t to_sync;     /* offset written that the thread has not synced */
	uint64_t synced;
	int sync_errno;       /* first failed fdatasync */
	bool sync_reported;
};

/* At most one fdatasync per CAP_SPOOL_SYNC_NS, and only when there is
 * something new: on a busy capture the disk is not made to flush all the
 * time, on a quiet one a second of data is at stake at most. */
static void *sync_thread(void *arg)
{
	cap_spool *s = arg;
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		if (s->to_sync > s->synced && !s->no_sync) {
			uint64_t target = s->to_sync;
			pthread_mutex_unlock(&s->mu);
			int rc = fdatasync(s->fd);
			int e = errno;
			pthread_mutex_lock(&s->mu);
			if (rc == 0)
				s->synced = target;
			else if (!s->sync_errno)
				s->sync_errno = e;
		}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)(CAP_SPOOL_SYNC_NS / 1000000000ull);
		while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int cap_spool_open(cap_spool **out, const char *path, bool append, br_error *err)
{
	*out = NULL;
	cap_spool *s = calloc(1, sizeof *s);
	if (!s || !(s->buf = malloc(CAP_SPOOL_BATCH))) {
		free(s);
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	}
	snprintf(s->path, sizeof s->path, "%s", path);
	s->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
	if (s->fd < 0) {
		int e = errno;
		free(s->buf);
		free(s);
		return br_error_set(err, BR_ESYS, e, path, -1, "cannot create the spool");
	}
	if (append) {
		off_t end = lseek(s->fd, 0, SEEK_END);
		s->offset = end > 0 ? (uint64_t)end : 0;
	}
	s->synced = s->to_sync = s->offset;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->mu, NULL);
	int rc = pthread_create(&s->thread, NULL, sync_thread, s);
	if (rc) {
		cap_spool_close(s, NULL);
		return br_error_set(err, BR_ESYS, rc, path, -1, "cannot start the spool's sync thread");
	}
	s->thread_on = true;
	*out = s;
	return 0;
}

static int write_batch(cap_spool *s, br_error *err)
{
	if (s->write_errno)
		return br_error_set(err, BR_ESYS, s->write_errno, s->path, (int64_t)s->offset, "write failed");
	br_error e;
	if (tool_write_all(s->fd, s->buf, s->len, s->path, s->offset, &e)) {
		s->write_errno = e.sys_errno;
		/* what reached the file is whole records up to a torn tail (the
		 * replay stops there); the error says where the write failed */
		s->offset = (uint64_t)e.offset;
		if (err)
			*err = e;
		return e.code;
	}
	s->offset += s->len;
	s->len = 0;
	s->batch_since = 0;
	pthread_mutex_lock(&s->mu);
	s->to_sync = s->offset;
	pthread_mutex_unlock(&s->mu);
	return 0;
}

/* Write the batch out first if need bytes would not fit; a batch's age counts from its first byte. */
static int batch_make_room(cap_spool *s, size_t need, br_error *err)
{
	if (s->len + need > CAP_SPOOL_BATCH) {
		int rc = write_batch(s, err);
		if (rc)
			return rc;
	}
	if (s->len == 0)
		s->batch_since = tool_now_ns();
	return 0;
}

int cap_spool_write(cap_spool *s, const br_event *ev, br_error *err)
{
	if (ev->pdu_len > BR_PDU_MAX || (ev->pdu_len && !ev->pdu))
		return br_error_set(err, BR_EINVAL, 0, s->path, -1, "bad pdu (length %u)", ev->pdu_len);
	size_t need = BR_RECORD_SIZE + ev->pdu_len;
	int rc = batch_make_room(s, need, err);
	if (rc)
		return rc;
	br_record_encode(ev, s->buf + s->len);
	if (ev->pdu_len)
		memcpy(s->buf + s->len + BR_RECORD_SIZE, ev->pdu, ev->pdu_len);
	s->len += need;
	s->records++;
	return 0;
}

int cap_spool_append(cap_spool *s, const void *head, size_t hlen, const void *body, size_t blen, size_t pad,
		     uint64_t events, br_error *err)
{
	size_t need = hlen + blen + pad;
	if (need > CAP_SPOOL_BATCH)
		return br_error_set(err, BR_EINVAL, 0, s->path, -1, "spool frame of %zu bytes", need);
	int rc = batch_make_room(s, need, err);
	if (rc)
		return rc;
	if (hlen)
		memcpy(s->buf + s->len, head, hlen);
	if (blen)
		memcpy(s->buf + s->len + hlen, body, blen);
	if (pad)
		memset(s->buf + s->len + hlen + blen, 0, pad);
	s->len += need;
	s->records += events;
	return 0;
}

void cap_spool_no_sync(cap_spool *s)
{
	pthread_mutex_lock(&s->mu);
	s->no_sync = true;
	pthread_mutex_unlock(&s->mu);
}

int cap_spool_tick(cap_spool *s, uint64_t now_ns, br_error *err)
{
	pthread_mutex_lock(&s->mu);
	int se = s->sync_reported ? 0 : s->sync_errno;
	if (se)
		s->sync_reported = true;
	pthread_mutex_unlock(&s->mu);
	if (se)
		return br_error_set(err, BR_ESYS, se, s->path, -1, "cannot sync the spool to disk");
	if (s->len && now_ns - s->batch_since >= CAP_SPOOL_FLUSH_NS)
		return write_batch(s, err);
	return 0;
}

int cap_spool_close(cap_spool *s, br_error *err)
{
	if (!s)
		return 0;
	br_error e;
	int rc = s->len ? write_batch(s, &e) : 0;
	if (s->thread_on) {
		pthread_mutex_lock(&s->mu);
		s->stop = true;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
	}
	/* The spool is read back at once and removed: no final sync needed. */
	if (s->fd >= 0 && close(s->fd) && !rc)
		rc = br_error_set(&e, BR_ESYS, errno, s->path, (int64_t)s->offset, "close failed");
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->buf);
	free(s);
	if (rc && err)
		*err = e;
	return rc;
}

bool cap_spool_failed(const cap_spool *s)
{
	return s && s->write_errno != 0;
}

uint64_t cap_spool_bytes(const cap_spool *s)
{
	return s ? s->offset + s->len : 0;
}

uint64_t cap_spool_records(const cap_spool *s)
{
	return s ? s->records : 0;
}
