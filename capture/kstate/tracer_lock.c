#include "kstate/tracer_lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* flock has no "who holds it"; /proc/locks does: a line per lock with the
 * holder's pid and the file's inode ("1: FLOCK ADVISORY WRITE 123 00:19:456 0 EOF"). */
static int lock_holder(ino_t ino)
{
	FILE *f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	char line[256];
	int found = 0;
	while (!found && fgets(line, sizeof line, f)) {
		char type[16], mode[16];
		int pid;
		unsigned maj, min;
		unsigned long long inode;
		if (strstr(line, "->"))
			continue; /* a waiter, not the holder */
		if (sscanf(line, "%*d: %15s %*s %15s %d %x:%x:%llu", type, mode, &pid, &maj, &min, &inode) == 6 &&
		    strcmp(type, "FLOCK") == 0 && (ino_t)inode == ino)
			found = pid;
	}
	fclose(f);
	return found;
}

/* Processes that have the lock file open, other than us (flock(1) in a
 * script takes the lock for the shell's descriptor and exits, so the pid in
 * /proc/locks may be gone: the shell that keeps the descriptor holds it). */
static int openers(ino_t ino, int *pids, int max)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return 0;
	int n = 0;
	struct dirent *pe;
	while (n < max && (pe = readdir(proc))) {
		int pid = atoi(pe->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		char dir[64];
		snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
		DIR *fds = opendir(dir);
		if (!fds)
			continue;
		struct dirent *fe;
		while ((fe = readdir(fds))) {
			char path[384];
			struct stat st;
			snprintf(path, sizeof path, "%s/%s", dir, fe->d_name);
			if (fe->d_name[0] != '.' && stat(path, &st) == 0 && st.st_ino == ino &&
			    S_ISREG(st.st_mode)) {
				pids[n++] = pid;
				break;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	return n;
}

static int parent_of(int pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char buf[512];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *rp = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	int ppid = 0;
	if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

static bool is_ancestor(int pid)
{
	for (int p = getppid(); p > 1; p = parent_of(p))
		if (p == pid)
			return true;
	return false;
}

static void comm_of(int pid, char *name, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", pid);
	FILE *f = fopen(path, "re");
	name[0] = 0;
	if (f) {
		if (fgets(name, (int)size, f))
			name[strcspn(name, "\n")] = 0;
		fclose(f);
	}
}

int cap_tracer_lock(br_error *err)
{
	int fd = open(CAP_TRACER_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, CAP_TRACER_LOCK, -1, "cannot open the tracer lock");
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		int e = errno;
		struct stat st;
		int holder = fstat(fd, &st) == 0 ? lock_holder(st.st_ino) : 0;
		close(fd);
		if (e != EWOULDBLOCK)
			return br_error_set(err, BR_ESYS, e, CAP_TRACER_LOCK, -1, "cannot lock");
		if (holder && is_ancestor(holder))
			return CAP_LOCK_INHERITED;
		char probe[64];
		snprintf(probe, sizeof probe, "/proc/%d", holder);
		if (!holder || access(probe, F_OK)) {
			int pids[16];
			int n = openers(st.st_ino, pids, 16);
			holder = 0;
			for (int i = 0; i < n; i++) {
				if (is_ancestor(pids[i]))
					return CAP_LOCK_INHERITED;
				if (!holder)
					holder = pids[i];
			}
		}
		char name[32];
		comm_of(holder, name, sizeof name);
		if (holder)
			return br_error_set(err, BR_EINVAL, 0, NULL, -1,
					    "another capture (pid %d, %s) is using the tracer (%s is locked)",
					    holder, name[0] ? name : "?", CAP_TRACER_LOCK);
		return br_error_set(err, BR_EINVAL, 0, NULL, -1,
				    "another capture is using the tracer (%s is locked)", CAP_TRACER_LOCK);
	}
	return fd;
}

void cap_tracer_unlock(int fd)
{
	if (fd >= 0 && fd != CAP_LOCK_INHERITED)
		close(fd);
}
