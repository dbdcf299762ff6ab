/* Output files appear whole or not at all: written to a temporary name
 * beside the target, flushed, then renamed over it. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

FILE *report_tmp_open(const char *path, char **tmp)
{
	size_t n = strlen(path) + 32;
	*tmp = malloc(n);
	if (!*tmp) {
		fprintf(stderr, "blkreel-report: %s: out of memory\n", path);
		return NULL;
	}
	snprintf(*tmp, n, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(*tmp, "w");
	if (!f) {
		fprintf(stderr, "blkreel-report: %s: %s\n", path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

int report_tmp_close(FILE *f, char *tmp, const char *path, bool ok)
{
	int e = 0;
	if (ok && (fflush(f) || ferror(f) || fsync(fileno(f))))
		e = errno ? errno : EIO;
	if (fclose(f) && ok && !e)
		e = errno;
	if (ok && !e && rename(tmp, path))
		e = errno;
	if (!ok || e)
		unlink(tmp);
	if (e)
		fprintf(stderr, "blkreel-report: %s: %s\n", path, strerror(e));
	free(tmp);
	return ok && !e ? 0 : -1;
}

int report_write_file(const char *path, report_writer fn, const report_ctx *ctx, const void *arg)
{
	char *tmp;
	FILE *f = report_tmp_open(path, &tmp);
	if (!f)
		return -1;
	int rc = fn(f, ctx, arg);
	if (rc)
		fprintf(stderr, "blkreel-report: %s: %s\n", path, errno ? strerror(errno) : "write failed");
	return report_tmp_close(f, tmp, path, rc == 0);
}
