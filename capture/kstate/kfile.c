/* kfile.c — one small kernel file read or written whole (kfile.h). */
#include "kstate/kfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cap_kstate_read(const char *path, char *buf, size_t size, br_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open");
	char tmp[256];
	ssize_t r = read(fd, tmp, sizeof tmp - 1);
	int e = errno;
	close(fd);
	if (r < 0)
		return br_error_set(err, BR_ESYS, e, path, -1, "cannot read");
	tmp[r] = 0;
	char *nl = strchr(tmp, '\n');
	if (nl)
		*nl = 0;
	const char *v = tmp;
	char *exp = strstr(tmp, "(expanded: ");
	if (exp) {
		v = exp + 11;
		char *close_paren = strchr(v, ')');
		if (close_paren)
			*close_paren = 0;
	}
	snprintf(buf, size, "%s", v);
	return 0;
}

int cap_kstate_write_file(const char *path, const char *value, br_error *err)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open for writing");
	size_t len = strlen(value);
	ssize_t w = write(fd, value, len);
	int e = errno;
	close(fd);
	if (w != (ssize_t)len)
		return br_error_set(err, BR_ESYS, w < 0 ? e : EIO, path, -1, "cannot write '%s'", value);
	return 0;
}
