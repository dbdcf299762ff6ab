#include "tool/sibling.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *tool_sibling_find(const char *name, const char *override, const char *argv0, char *buf, size_t size,
			      char *why, size_t whysize)
{
	const char *p = override;
	if (p && !*p) {
		snprintf(why, whysize, "%s was not wanted", name);
		return NULL;
	}
	if (!p) {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n > 0)
			self[n] = 0;
		else
			snprintf(self, sizeof self, "%s", argv0 ? argv0 : "");
		char *slash = strrchr(self, '/');
		if (slash)
			slash[1] = 0;
		else
			self[0] = 0;
		snprintf(buf, size, "%s%s", self, name);
		p = buf;
	}
	if (access(p, X_OK)) {
		snprintf(why, whysize, "%s is not installed (%s)", name, p);
		return NULL;
	}
	return p;
}

int tool_sibling_run(const char *const *argv, char *why, size_t whysize)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		snprintf(why, whysize, "could not run %s: %s", argv[0], strerror(rc));
		return -1;
	}
	int st = 0;
	pid_t w;
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, whysize, "%s failed (status %d)", argv[0], w >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	return 0;
}
