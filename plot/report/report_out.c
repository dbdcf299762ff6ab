/* Output files appear whole or not at all: written to a temporary name
 * beside the target, flushed, then renamed over it. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int report_write_file(const char *path, report_writer fn, const report_ctx *ctx, const void *arg)
{
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (!tmp) {
		fprintf(stderr, "blkreel-report: %s: out of memory\n", path);
		return -1;
	}
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "blkreel-report: %s: %s\n", path, strerror(errno));
		free(tmp);
		return -1;
	}
	int rc = fn(f, ctx, arg);
	int e = errno;
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		rc = -1;
		e = errno;
	}
	if (fclose(f)) {
		rc = -1;
		e = errno;
	}
	if (!rc && rename(tmp, path)) {
		rc = -1;
		e = errno;
	}
	if (rc) {
		fprintf(stderr, "blkreel-report: %s: %s\n", path, e ? strerror(e) : "write failed");
		unlink(tmp);
	}
	free(tmp);
	return rc ? -1 : 0;
}
