#include "testutil.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *tu_root(void)
{
	static char root[PATH_MAX];
	if (!root[0]) {
		const char *env = getenv("BLKREEL_ROOT");
		if (env && *env)
			snprintf(root, sizeof root, "%s", env);
		else if (!getcwd(root, sizeof root))
			snprintf(root, sizeof root, ".");
	}
	return root;
}

const char *tu_bin(const char *tool)
{
	static char path[PATH_MAX];
	const char *env = getenv("BLKREEL_BIN");
	if (env && *env)
		snprintf(path, sizeof path, "%s/%s", env, tool);
	else
		snprintf(path, sizeof path, "%s/bin/%s", tu_root(), tool);
	return path;
}

const char *tu_hook_bin(const char *tool)
{
	static char path[PATH_MAX];
	const char *env = getenv("BLKREEL_HOOK_BIN");
	if (env && *env)
		snprintf(path, sizeof path, "%s/%s", env, tool);
	else
		snprintf(path, sizeof path, "%s/build/release/hooks/%s", tu_root(), tool);
	return path;
}

const char *tu_realtrace(const char *rel)
{
	static char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof path, "%s/../shared/realtraces/%s", tu_root(), rel);
	return stat(path, &st) == 0 ? path : NULL;
}

const char *tu_sample(const char *rel)
{
	static char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/samples/%s", tu_root(), rel);
	return path;
}

char *tu_tmpdir(void)
{
	char tmpl[] = "/tmp/blkreel-test-XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

void tu_tmpdir_remove(char *dir)
{
	if (!dir)
		return;
	if (strncmp(dir, "/tmp/blkreel-test-", 18) == 0) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0) {
			/* leave it: a test dir in /tmp is harmless */
		}
	}
	free(dir);
}

char *tu_dir;

void tu_dir_setup(void)
{
	tu_dir = tu_tmpdir();
	cr_assert(tu_dir, "cannot make a temp dir");
}

void tu_dir_teardown(void)
{
	tu_tmpdir_remove(tu_dir);
	tu_dir = NULL;
}

const char *tu_path(const char *name)
{
	static char paths[8][PATH_MAX];
	static unsigned k;
	char *p = paths[k++ % 8];
	snprintf(p, PATH_MAX, "%s/%s", tu_dir, name);
	return p;
}

static char *slurp_fd(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int tu_run(const char *cmd, char **out, size_t *out_len, char **err)
{
	char errpath[] = "/tmp/blkreel-stderr-XXXXXX";
	int errfd = mkstemp(errpath);
	int pipefd[2];
	if (errfd < 0 || pipe(pipefd) != 0)
		return -1;
	unlink(errpath);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(errfd, 2);
		close(pipefd[0]);
		close(pipefd[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	size_t n;
	char *o = slurp_fd(pipefd[0], &n);
	close(pipefd[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = o;
	else
		free(o);
	if (out_len)
		*out_len = n;
	lseek(errfd, 0, SEEK_SET);
	char *e = slurp_fd(errfd, NULL);
	close(errfd);
	if (err)
		*err = e;
	else
		free(e);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int tu_runf(char **out, size_t *out_len, char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd = NULL;
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (!cmd)
		return -1;
	int rc = tu_run(cmd, out, out_len, err);
	free(cmd);
	return rc;
}

int tu_vrun_tool(char **out, char **err, const char *tool, const char *fmt, va_list ap)
{
	char *args = NULL;
	if (vasprintf(&args, fmt, ap) < 0)
		return -1;
	int rc = tu_runf(out, NULL, err, "'%s' %s", tu_bin(tool), args);
	free(args);
	return rc;
}

int tu_run_tool(char **out, char **err, const char *tool, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = tu_vrun_tool(out, err, tool, fmt, ap);
	va_end(ap);
	return rc;
}

int tu_loop_create(const char *dir, const char *img, unsigned mib, char *dev, size_t size)
{
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL, "truncate -s %uM '%s/%s' && losetup --find --show '%s/%s'",
			 mib, dir, img, dir, img);
	bool ok = rc == 0 && out && strncmp(out, "/dev/loop", 9) == 0;
	if (ok)
		snprintf(dev, size, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	return ok ? 0 : -1;
}

void tu_loop_detach(const char *dev)
{
	if (dev && dev[0])
		tu_runf(NULL, NULL, NULL, "losetup -d '%s'", dev);
}

uint8_t *tu_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	size_t n;
	char *b = slurp_fd(fd, &n);
	close(fd);
	if (len)
		*len = n;
	return (uint8_t *)b;
}

char *tu_read_text(const char *path)
{
	char *s = (char *)tu_read_file(path, NULL);
	return s ? s : strdup("");
}

int tu_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	return (fclose(f) == 0 && w == len) ? 0 : -1;
}

size_t tu_count_lines(const char *text, const char *needle)
{
	size_t count = 0;
	const char *line = text;
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (memmem(line, len, needle, strlen(needle)))
			count++;
		line = end ? end + 1 : NULL;
	}
	return count;
}

bool tu_have(const char *prog)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* An exclusive flock on /run/lock/NAME (/tmp/NAME where /run/lock is not
 * writable), waiting as long as it takes; -1 when it cannot be opened. */
static int lock_file(const char *name, bool say_wait)
{
	char path[128];
	snprintf(path, sizeof path, "/run/lock/%s", name);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(path, sizeof path, "/tmp/%s", name);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return -1;
	if (say_wait && flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	if (say_wait)
		fprintf(stderr, "[INFO] waiting for %s: another kernel suite is running\n", path);
	while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
		;
	return fd;
}

int tu_tracer_lock(void)
{
	return lock_file("blkreel-tracer.lock", false);
}

int tu_kernel_suite_lock(void)
{
	return lock_file("blkreel-kernel-suites.lock", true);
}

void tu_tracer_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

char *tu_json_eval(const char *path, const char *expr)
{
	char *out = NULL, *err = NULL;
	int rc = tu_runf(&out, NULL, &err,
			 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
			 "print(json.dumps(eval(sys.argv[2]), separators=(\",\", \":\"), ensure_ascii=True))' '%s' '%s'",
			 path, expr);
	cr_assert_eq(rc, 0, "%s: %s: %s", path, expr, err ? err : "");
	free(err);
	size_t n = strlen(out);
	if (n && out[n - 1] == '\n')
		out[n - 1] = 0;
	return out;
}

void tu_expect_json(const char *path, const char *expr, const char *want)
{
	char *got = tu_json_eval(path, expr);
	cr_expect_str_eq(got, want, "%s: %s", path, expr);
	free(got);
}

unsigned long long tu_capture_unrecorded(int rc, const char *err, bool *only_loss)
{
	const char *line = err ? strstr(err, "blkreel-capture: drops: ") : NULL;
	const char *said = line ? strstr(line, " unrecorded=") : NULL;
	const char *eol = line ? strchr(line, '\n') : NULL;
	unsigned long long n = said && (!eol || said < eol) ? strtoull(said + 12, NULL, 10) : 0;
	unsigned long long lost = 0, unrecorded = 0;
	const char *fail = err ? strstr(err, "blkreel-capture: ") : NULL;
	for (; fail; fail = strstr(fail + 1, "blkreel-capture: ")) {
		int end = 0; /* set only when the whole sentence matched */
		if (sscanf(fail, "blkreel-capture: %llu events lost (%llu completions unrecorded); exit 1%n", &lost,
			   &unrecorded, &end) == 2 && end > 0)
			break;
	}
	if (!line && fail) /* -q: no summary, only the failure */
		n = unrecorded;
	*only_loss = n == 0 ? rc == 0 : rc == 1 && fail && lost == n && unrecorded == n;
	return n;
}
