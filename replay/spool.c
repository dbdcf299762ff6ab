#include "spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tool/io.h"

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
		int rc = tool_write_all(fd, buf, (size_t)n, path, (uint64_t)total, err);
		if (rc) {
			close(fd);
			unlink(path);
			return rc;
		}
		total += n;
	}
	if (close(fd) != 0) {
		int e = errno;
		unlink(path);
		return br_error_set(err, BR_ESYS, e, path, total, "writing");
	}
	return 0;
}
