#include "spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int spool_stdin(char *path, size_t size, br_error *err)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, size, "%s/blkreel-replay-stdin.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "creating a file for standard input");
	char buf[1 << 16];
	int64_t total = 0;
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			unlink(path);
			return br_error_set(err, BR_ESYS, e, "<stdin>", total, "reading");
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				int e = errno;
				close(fd);
				unlink(path);
				return br_error_set(err, BR_ESYS, e, path, total, "writing");
			}
			off += w;
			total += w;
		}
	}
	if (close(fd) != 0) {
		int e = errno;
		unlink(path);
		return br_error_set(err, BR_ESYS, e, path, total, "writing");
	}
	return 0;
}
