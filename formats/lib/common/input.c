#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int br_input_open(br_input *in, const char *path, br_error *err)
{
	memset(in, 0, sizeof *in);
	in->fd = -1;
	in->size = -1;
	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
		in->owns_fd = false;
		snprintf(in->name, sizeof in->name, "<stdin>");
	} else {
		snprintf(in->name, sizeof in->name, "%s", path);
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0)
			return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open");
		in->owns_fd = true;
	}
	struct stat st;
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		in->seekable = true;
		in->size = st.st_size;
		posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	} else if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		int e = br_error_set(err, BR_EFORMAT, EISDIR, in->name, -1, "is a directory");
		br_input_close(in);
		return e;
	}
	return 0;
}

static ssize_t read_full(br_input *in, uint8_t *buf, size_t n, br_error *err)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(in->fd, buf + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return br_error_set(err, BR_ESYS, errno, in->name,
					    in->offset + (int64_t)got, "read failed");
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

ssize_t br_input_peek(br_input *in, size_t n, const uint8_t **data, br_error *err)
{
	if (n > BR_INPUT_PEEK_MAX)
		n = BR_INPUT_PEEK_MAX;
	if (in->peek_len < n) {
		ssize_t r = read_full(in, in->peek + in->peek_len, n - in->peek_len, err);
		if (r < 0)
			return r;
		in->peek_len += (size_t)r;
	}
	*data = in->peek;
	return (ssize_t)(in->peek_len < n ? in->peek_len : n);
}

ssize_t br_input_read(br_input *in, void *buf, size_t n, br_error *err)
{
	size_t got = 0;
	if (in->peek_pos < in->peek_len) {
		size_t take = in->peek_len - in->peek_pos;
		if (take > n)
			take = n;
		memcpy(buf, in->peek + in->peek_pos, take);
		in->peek_pos += take;
		got = take;
		in->offset += (int64_t)take;
	}
	if (got < n) {
		ssize_t r = read_full(in, (uint8_t *)buf + got, n - got, err);
		if (r < 0)
			return r;
		got += (size_t)r;
		in->offset += r;
	}
	return (ssize_t)got;
}

ssize_t br_input_pread(br_input *in, void *buf, size_t n, int64_t off, br_error *err)
{
	if (!in->seekable)
		return br_error_set(err, BR_EINVAL, 0, in->name, off, "input is not seekable");
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(in->fd, (uint8_t *)buf + got, n - got, off + (int64_t)got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return br_error_set(err, BR_ESYS, errno, in->name, off + (int64_t)got,
					    "read failed");
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int br_input_skip_to(br_input *in, int64_t off, br_error *err)
{
	if (off < in->offset)
		return br_error_set(err, BR_EINVAL, 0, in->name, off, "cannot skip backwards");
	/* what is still in the peek window is consumed first */
	size_t in_peek = in->peek_len - in->peek_pos;
	int64_t gap = off - in->offset;
	if ((int64_t)in_peek >= gap) {
		in->peek_pos += (size_t)gap;
		in->offset = off;
		return 0;
	}
	in->peek_pos = in->peek_len;
	in->offset += (int64_t)in_peek;
	if (in->seekable) {
		/* the fd's position is at the end of what was read so far */
		if (lseek(in->fd, off, SEEK_SET) < 0)
			return br_error_set(err, BR_ESYS, errno, in->name, off, "seek failed");
		in->offset = off;
		return 0;
	}
	uint8_t scratch[65536];
	while (in->offset < off) {
		size_t want = (size_t)(off - in->offset);
		if (want > sizeof scratch)
			want = sizeof scratch;
		ssize_t r = br_input_read(in, scratch, want, err);
		if (r < 0)
			return (int)r;
		if (r == 0)
			return br_error_set(err, BR_ETRUNC, 0, in->name, in->offset,
					    "input ends before byte %lld", (long long)off);
	}
	return 0;
}

void br_input_close(br_input *in)
{
	if (in->owns_fd && in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}
