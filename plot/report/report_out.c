/* Output files appear whole or not at all. The file is first an unnamed
 * one in the target's directory (O_TMPFILE), so even a killed run leaves
 * nothing behind; when it is complete and flushed it is linked under a
 * temporary name and renamed over the target. Where O_TMPFILE is not
 * supported, a named temporary file beside the target is used instead. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool/say.h"

static void fail(const char *path, int e)
{
	tool_say("blkreel-report", "%s: %s", path, strerror(e));
}

int report_out_open(report_out *o, const char *path)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	size_t n = strlen(path) + 32;
	o->tmp = malloc(n);
	char *dir = strdup(path);
	if (!o->tmp || !dir) {
		free(o->tmp);
		free(dir);
		tool_say("blkreel-report", "%s: out of memory", path);
		return -1;
	}
	snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	int fd = open(slash ? dir : ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(dir);
	if (fd >= 0) {
		o->unnamed = true;
	} else if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	}
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		fail(path, errno);
		if (fd >= 0) {
			close(fd);
			if (!o->unnamed)
				unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

/* Give the unnamed file the temporary name. */
static int link_unnamed(report_out *o)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(o->f));
	unlink(o->tmp); /* a leftover of an earlier run with our pid */
	return linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW);
}

int report_out_close(report_out *o, bool ok)
{
	if (!o->f)
		return ok ? -1 : 0;
	int e = 0;
	if (ok && (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f))))
		e = errno ? errno : EIO;
	bool named = !o->unnamed;
	if (ok && !e && o->unnamed) {
		if (link_unnamed(o))
			e = errno;
		else
			named = true;
	}
	if (fclose(o->f) && ok && !e)
		e = errno;
	o->f = NULL;
	if (ok && !e && rename(o->tmp, o->path))
		e = errno;
	if ((!ok || e) && named)
		unlink(o->tmp);
	if (e)
		fail(o->path, e);
	free(o->tmp);
	o->tmp = NULL;
	return ok && !e ? 0 : -1;
}

int report_write_file(const char *path, report_writer fn, const report_ctx *ctx, const void *arg)
{
	report_out o;
	if (report_out_open(&o, path))
		return -1;
	errno = 0;
	int rc = fn(o.f, ctx, arg);
	if (rc)
		tool_say("blkreel-report", "%s: %s", path, errno ? strerror(errno) : "write failed");
	return report_out_close(&o, rc == 0);
}
