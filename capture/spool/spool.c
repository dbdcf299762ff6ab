#include "spool/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPOOL_CHUNK (1u << 20)

typedef struct replay_arg {
	br_writer *const *out;
	unsigned n;
} replay_arg;

static int write_each(void *varg, const br_event *ev, br_error *err)
{
	const replay_arg *a = varg;
	for (unsigned i = 0; i < a->n; i++) {
		int rc = br_writer_write(a->out[i], ev, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* punch: give each part read back to the disk at once */
static int64_t read_records(const char *path, bool punch, cap_spool_record_fn fn, void *arg, br_error *err);

int64_t cap_spool_replay(const char *path, bool punch, br_writer *const *out, unsigned n, br_error *err)
{
	replay_arg a = { out, n };
	return read_records(path, punch, write_each, &a, err);
}

int64_t cap_spool_each(const char *path, cap_spool_record_fn fn, void *arg, br_error *err)
{
	return read_records(path, false, fn, arg, err);
}

static int64_t read_records(const char *path, bool punch, cap_spool_record_fn fn, void *arg, br_error *err)
{
	int fd = open(path, (punch ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open the spool");
	uint8_t *buf = malloc(SPOOL_CHUNK + BR_RECORD_SIZE + BR_PDU_MAX);
	if (!buf) {
		close(fd);
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	}
	size_t have = 0;
	int64_t records = 0, rc = 0;
	off_t pos = 0, punched = 0;
	for (;;) {
		ssize_t r = read(fd, buf + have, SPOOL_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = br_error_set(err, BR_ESYS, errno, path, pos, "cannot read the spool");
			break;
		}
		if (r == 0)
			break;
		have += (size_t)r;
		/* What is in memory is given back to the disk at once (ignored where
		 * unsupported): on a full disk the compressed file needs the room. */
		off_t end = pos + (off_t)have;
		if (punch && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, punched, end - punched) == 0)
			punched = end;
		size_t off = 0;
		while (have - off >= BR_RECORD_SIZE) {
			br_event ev;
			br_record_decode(buf + off, false, &ev);
			if (ev.pdu_len > BR_PDU_MAX) {
				rc = br_error_set(err, BR_EFORMAT, 0, path, pos + (off_t)off, "damaged spool record");
				break;
			}
			if (have - off < BR_RECORD_SIZE + (size_t)ev.pdu_len)
				break;
			ev.pdu = ev.pdu_len ? buf + off + BR_RECORD_SIZE : NULL;
			rc = fn(arg, &ev, err);
			if (rc)
				break;
			records++;
			off += BR_RECORD_SIZE + ev.pdu_len;
		}
		if (rc)
			break;
		memmove(buf, buf + off, have - off);
		have -= off;
		pos += (off_t)off;
	}
	free(buf);
	close(fd);
	return rc ? rc : records;
}
