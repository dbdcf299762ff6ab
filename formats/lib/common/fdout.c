#include "fdout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int br_write_all(int fd, const void *data, size_t len, const char *name, uint64_t offset,
		 br_error *err)
{
	const uint8_t *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return br_error_set(err, BR_ESYS, errno, name, (int64_t)offset, "write failed");
		}
		p += w;
		len -= (size_t)w;
		offset += (uint64_t)w;
	}
	return 0;
}

int br_fdout_open(br_fdout *o, const char *path, size_t bufsize, br_error *err)
{
	memset(o, 0, sizeof *o);
	if (strcmp(path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		snprintf(o->name, sizeof o->name, "<stdout>");
	} else {
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (o->fd < 0)
			return br_error_set(err, BR_ESYS, errno, path, -1, "cannot create");
		o->owns_fd = 1;
		snprintf(o->name, sizeof o->name, "%s", path);
	}
	o->cap = bufsize;
	o->buf = malloc(bufsize);
	if (!o->buf) {
		if (o->owns_fd)
			close(o->fd);
		return br_error_set(err, BR_ENOMEM, ENOMEM, path, -1, "out of memory");
	}
	return 0;
}

int br_fdout_flush(br_fdout *o, br_error *err)
{
	if (!o->len)
		return 0;
	int rc = br_write_all(o->fd, o->buf, o->len, o->name, o->written, err);
	if (rc)
		return rc;
	o->written += o->len;
	o->len = 0;
	return 0;
}

int br_fdout_write(br_fdout *o, const void *data, size_t len, br_error *err)
{
	if (o->len + len > o->cap) {
		int rc = br_fdout_flush(o, err);
		if (rc)
			return rc;
		if (len > o->cap) {
			rc = br_write_all(o->fd, data, len, o->name, o->written, err);
			if (rc)
				return rc;
			o->written += len;
			return 0;
		}
	}
	memcpy(o->buf + o->len, data, len);
	o->len += len;
	return 0;
}

int br_fdout_close(br_fdout *o, br_error *err)
{
	int rc = br_fdout_flush(o, err);
	if (o->owns_fd && close(o->fd) != 0 && !rc)
		rc = br_error_set(err, BR_ESYS, errno, o->name, (int64_t)o->written, "close failed");
	o->fd = -1;
	free(o->buf);
	o->buf = NULL;
	return rc;
}
