#include "flight/trigger.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "blkreel-capture"

/* /proc/PID/cmdline: its arguments, NUL-separated, into buf; how many bytes. */
static size_t read_cmdline(const char *pid, char *buf, size_t size)
{
	char path[300];
	snprintf(path, sizeof path, "/proc/%.32s/cmdline", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return (size_t)n;
}

/* Is this a flight capture (and, with name, one writing it)? Its own
 * option parsing stops at "--": what follows is its command's. */
static bool is_flight_capture(const char *args, size_t len, const char *name, char *shown, size_t shown_size)
{
	const char *base = strrchr(args, '/');
	if (strcmp(base ? base + 1 : args, PROG) != 0)
		return false;
	bool flight = false, named = name == NULL, trigger = false;
	shown[0] = 0;
	for (const char *a = args + strlen(args) + 1; a < args + len; a += strlen(a) + 1) {
		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "--trigger") == 0)
			trigger = true;
		if (strncmp(a, "--flight", 8) == 0 && (a[8] == 0 || a[8] == '='))
			flight = true;
		const char *out = NULL;
		if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
			out = a + strlen(a) + 1 < args + len ? a + strlen(a) + 1 : NULL;
		else if (strncmp(a, "--output=", 9) == 0)
			out = a + 9;
		else if (strncmp(a, "-o", 2) == 0 && a[2])
			out = a + 2;
		if (out) {
			snprintf(shown, shown_size, "%s", out);
			if (name && strcmp(out, name) == 0)
				named = true;
		}
	}
	return flight && named && !trigger;
}

int capture_trigger(const char *name)
{
	DIR *d = opendir("/proc");
	if (!d) {
		fprintf(stderr, PROG ": cannot list /proc: %s\n", strerror(errno));
		return 1;
	}
	unsigned sent = 0;
	struct dirent *de;
	pid_t self = getpid();
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		char args[8192], shown[256];
		size_t len = pid == self ? 0 : read_cmdline(de->d_name, args, sizeof args);
		if (!len || !is_flight_capture(args, len, name, shown, sizeof shown))
			continue;
		if (kill(pid, SIGUSR1)) {
			fprintf(stderr, PROG ": cannot signal pid %d: %s\n", (int)pid, strerror(errno));
			continue;
		}
		printf(PROG ": triggered the flight capture pid %d%s%s\n", (int)pid, shown[0] ? " writing " : "", shown);
		sent++;
	}
	closedir(d);
	if (!sent) {
		fprintf(stderr, PROG ": no flight capture (--flight)%s%s is running\n", name ? " writing " : "",
			name ? name : "");
		return 1;
	}
	return 0;
}
