/* leftovers.c — the state files in CAP_STATE_DIR of captures that are no
 * longer running (leftovers.h): which are stale, which running capture
 * owns a kernel file, loading and describing one. */
#include "kstate/leftovers.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A state file whose pid is gone (or is no longer a capture: pids are reused). */
static bool stale(const char *path, int *pid_out)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	int pid = 0;
	bool ok = fscanf(f, "blkreel-capture pid %d", &pid) == 1;
	fclose(f);
	*pid_out = pid;
	if (!ok || pid <= 0)
		return true;
	char p[64], comm[32] = "";
	snprintf(p, sizeof p, "/proc/%d/comm", pid);
	FILE *c = fopen(p, "re");
	if (!c)
		return true;
	bool alive = fgets(comm, sizeof comm, c) && strncmp(comm, "blkreel-capture", 15) == 0;
	fclose(c);
	if (alive) {
		/* killed but not yet reaped by its parent: a zombie is gone too */
		char st[600];
		snprintf(p, sizeof p, "/proc/%d/stat", pid);
		FILE *sf = fopen(p, "re");
		if (sf) {
			size_t n = fread(st, 1, sizeof st - 1, sf);
			st[n] = 0;
			fclose(sf);
			char *rp = strrchr(st, ')');
			if (rp && (rp[2] == 'Z' || rp[2] == 'X'))
				alive = false;
		}
	}
	return !alive;
}

int cap_kstate_owner(const char *path)
{
	DIR *d = opendir(CAP_STATE_DIR);
	if (!d)
		return 0;
	int owner = 0;
	struct dirent *de;
	while (!owner && (de = readdir(d))) {
		if (strncmp(de->d_name, "capture-", 8))
			continue;
		char sp[512];
		snprintf(sp, sizeof sp, CAP_STATE_DIR "/%s", de->d_name);
		int pid;
		if (stale(sp, &pid) || pid == getpid())
			continue;
		FILE *f = fopen(sp, "re");
		if (!f)
			continue;
		char line[700];
		size_t plen = strlen(path);
		while (fgets(line, sizeof line, f)) {
			char *tab = strchr(line, '\t');
			if (tab && strncmp(tab + 1, path, plen) == 0 && (tab[1 + plen] == '\t' || tab[1 + plen] == '\n'))
				owner = pid;
		}
		fclose(f);
	}
	closedir(d);
	return owner;
}

int cap_kstate_each_leftover(cap_kstate_leftover_fn fn, void *arg)
{
	DIR *d = opendir(CAP_STATE_DIR);
	if (!d)
		return 0;
	int n = 0, first = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (strncmp(de->d_name, "capture-", 8) || len < 6 || strcmp(de->d_name + len - 6, ".state"))
			continue;
		char path[512];
		snprintf(path, sizeof path, CAP_STATE_DIR "/%s", de->d_name);
		int pid;
		if (!stale(path, &pid))
			continue;
		n++;
		int rc = fn(path, pid, arg);
		if (rc && !first)
			first = rc;
	}
	closedir(d);
	return first ? first : n;
}

int cap_kstate_load(const char *path, cap_kstate *ks)
{
	memset(ks, 0, sizeof *ks);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[700];
	if (fgets(line, sizeof line, f) && sscanf(line, "blkreel-capture pid %*d backend %31s", ks->backend) != 1)
		ks->backend[0] = 0;
	while (fgets(line, sizeof line, f) && ks->n < CAP_KSTATE_MAX) {
		line[strcspn(line, "\n")] = 0;
		char *kind = strtok(line, "\t"), *p = strtok(NULL, "\t"), *old = strtok(NULL, "\t");
		cap_kchange *c = &ks->ch[ks->n];
		if (kind && p && strcmp(kind, "file") == 0) {
			c->kind = KS_FILE;
			snprintf(c->path, sizeof c->path, "%s", p);
			snprintf(c->old, sizeof c->old, "%s", old ? old : "");
			ks->n++;
		} else if (kind && p && (strcmp(kind, "relay") == 0 || strcmp(kind, "mount") == 0 ||
					 strcmp(kind, "spool") == 0 || strcmp(kind, "config") == 0 ||
					 strcmp(kind, "split") == 0)) {
			c->kind = strcmp(kind, "relay") == 0   ? KS_RELAY
				  : strcmp(kind, "mount") == 0 ? KS_MOUNT
				  : strcmp(kind, "spool") == 0 ? KS_SPOOL
				  : strcmp(kind, "split") == 0 ? KS_SPLIT
							       : KS_CONFIG;
			snprintf(c->path, sizeof c->path, "%s", p);
			ks->n++;
		}
	}
	fclose(f);
	snprintf(ks->path, sizeof ks->path, "%s", path);
	return 0;
}

void cap_kstate_describe(FILE *out, const cap_kstate *ks, int pid)
{
	fprintf(out, "leftover kernel state from capture pid %d (%s, no longer running):\n", pid, ks->path);
	for (size_t i = 0; i < ks->n; i++) {
		const cap_kchange *c = &ks->ch[i];
		if (c->kind == KS_RELAY) {
			fprintf(out, "  relay trace set up on %s\n", c->path);
			continue;
		}
		if (c->kind == KS_MOUNT) {
			fprintf(out, "  %s mounted by it\n", c->path);
			continue;
		}
		if (c->kind == KS_CONFIG || c->kind == KS_SPLIT)
			continue;
		if (c->kind == KS_SPOOL) {
			const char *split = cap_kstate_split(ks);
			if (access(c->path, F_OK) == 0)
				fprintf(out, "  unfinished capture file %s (--cleanup compresses it%s%s%s)\n", c->path,
					split ? " and makes the per-CPU set " : "", split ? split : "",
					split ? ".blktrace.*" : "");
			continue;
		}
		char now[64] = "?";
		br_error ignored;
		cap_kstate_read(c->path, now, sizeof now, &ignored);
		fprintf(out, "  %s is %s (was %s)\n", c->path, now, c->old);
	}
}

static int describe_one(const char *path, int pid, void *arg)
{
	cap_kstate *ks = malloc(sizeof *ks);
	if (!ks)
		return BR_ENOMEM;
	if (cap_kstate_load(path, ks) == 0 && arg)
		cap_kstate_describe(arg, ks, pid);
	free(ks);
	return 0;
}

int cap_kstate_leftovers(FILE *out)
{
	return cap_kstate_each_leftover(describe_one, out);
}
