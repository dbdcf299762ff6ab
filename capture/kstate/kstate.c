#include "kstate/kstate.h"

#include "blkreel/writer.h"
#include "kstate/fs_mount.h"
#include "spool/raw_convert.h"
#include "spool/spool_finish.h"
#include "spool/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

void cap_kstate_init(cap_kstate *ks, const char *backend)
{
	memset(ks, 0, sizeof *ks);
	snprintf(ks->backend, sizeof ks->backend, "%s", backend);
}

int cap_kstate_read(const char *path, char *buf, size_t size, br_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open");
	char tmp[256];
	ssize_t r = read(fd, tmp, sizeof tmp - 1);
	int e = errno;
	close(fd);
	if (r < 0)
		return br_error_set(err, BR_ESYS, e, path, -1, "cannot read");
	tmp[r] = 0;
	char *nl = strchr(tmp, '\n');
	if (nl)
		*nl = 0;
	const char *v = tmp;
	char *exp = strstr(tmp, "(expanded: ");
	if (exp) {
		v = exp + 11;
		char *close_paren = strchr(v, ')');
		if (close_paren)
			*close_paren = 0;
	}
	snprintf(buf, size, "%s", v);
	return 0;
}

static int write_value(const char *path, const char *value, br_error *err)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot open for writing");
	size_t len = strlen(value);
	ssize_t w = write(fd, value, len);
	int e = errno;
	close(fd);
	if (w != (ssize_t)len)
		return br_error_set(err, BR_ESYS, w < 0 ? e : EIO, path, -1, "cannot write '%s'", value);
	return 0;
}

/* Rewrite the whole state file (small) and fsync it, so it is on disk
 * before the change it announces is made. */
static int save(cap_kstate *ks, br_error *err)
{
	if (!ks->path[0]) {
		if (mkdir(CAP_STATE_DIR, 0755) && errno != EEXIST)
			return br_error_set(err, BR_ESYS, errno, CAP_STATE_DIR, -1,
					    "cannot create the state directory");
		snprintf(ks->path, sizeof ks->path, CAP_STATE_DIR "/capture-%d.state", (int)getpid());
	}
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s.tmp", ks->path);
	FILE *f = fopen(tmp, "we");
	if (!f)
		return br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
	fprintf(f, "blkreel-capture pid %d backend %s\n", (int)getpid(), ks->backend);
	for (size_t i = 0; i < ks->n; i++) {
		if (ks->ch[i].kind == KS_FILE)
			fprintf(f, "file\t%s\t%s\n", ks->ch[i].path, ks->ch[i].old);
		else
			fprintf(f, "%s\t%s\n",
				ks->ch[i].kind == KS_RELAY   ? "relay"
				: ks->ch[i].kind == KS_MOUNT ? "mount"
				: ks->ch[i].kind == KS_SPOOL ? "spool"
				: ks->ch[i].kind == KS_SPLIT ? "split"
							     : "config",
				ks->ch[i].path);
	}
	int bad = fflush(f) || fsync(fileno(f));
	int e = errno;
	if (fclose(f) || bad || rename(tmp, ks->path)) {
		unlink(tmp);
		return br_error_set(err, BR_ESYS, bad ? e : errno, ks->path, -1, "cannot write the state file");
	}
	return 0;
}

int cap_kstate_write(cap_kstate *ks, const char *path, const char *value, br_error *err)
{
	bool known = false;
	for (size_t i = 0; i < ks->n; i++)
		if (ks->ch[i].kind == KS_FILE && strcmp(ks->ch[i].path, path) == 0)
			known = true;
	if (!known) {
		if (ks->n == CAP_KSTATE_MAX)
			return br_error_set(err, BR_EINVAL, 0, path, -1, "too many kernel changes to track");
		cap_kchange *c = &ks->ch[ks->n];
		c->kind = KS_FILE;
		snprintf(c->path, sizeof c->path, "%s", path);
		int rc = cap_kstate_read(path, c->old, sizeof c->old, err);
		if (rc)
			return rc;
		ks->n++;
		rc = save(ks, err);
		if (rc) {
			ks->n--;
			return rc;
		}
	}
	return write_value(path, value, err);
}

int cap_kstate_note_relay(cap_kstate *ks, const char *devpath, br_error *err)
{
	if (ks->n == CAP_KSTATE_MAX)
		return br_error_set(err, BR_EINVAL, 0, devpath, -1, "too many kernel changes to track");
	cap_kchange *c = &ks->ch[ks->n++];
	c->kind = KS_RELAY;
	snprintf(c->path, sizeof c->path, "%s", devpath);
	c->old[0] = 0;
	return save(ks, err);
}

int cap_kstate_note_mount(cap_kstate *ks, const char *dir, br_error *err)
{
	if (ks->n == CAP_KSTATE_MAX)
		return br_error_set(err, BR_EINVAL, 0, dir, -1, "too many kernel changes to track");
	cap_kchange *c = &ks->ch[ks->n++];
	c->kind = KS_MOUNT;
	snprintf(c->path, sizeof c->path, "%s", dir);
	c->old[0] = 0;
	return save(ks, err);
}

int cap_kstate_note_spool(cap_kstate *ks, const char *spool, br_error *err)
{
	if (ks->n == CAP_KSTATE_MAX)
		return br_error_set(err, BR_EINVAL, 0, spool, -1, "too many changes to track");
	cap_kchange *c = &ks->ch[ks->n++];
	c->kind = KS_SPOOL;
	snprintf(c->path, sizeof c->path, "%s", spool);
	c->old[0] = 0;
	return save(ks, err);
}

int cap_kstate_note_split(cap_kstate *ks, const char *split_base, br_error *err)
{
	if (ks->n == CAP_KSTATE_MAX)
		return br_error_set(err, BR_EINVAL, 0, split_base, -1, "too many changes to track");
	if (strlen(split_base) >= sizeof ks->ch[0].path)
		return br_error_set(err, BR_EINVAL, 0, split_base, -1, "name too long for the state file");
	cap_kchange *c = &ks->ch[ks->n++];
	c->kind = KS_SPLIT;
	snprintf(c->path, sizeof c->path, "%s", split_base);
	c->old[0] = 0;
	return save(ks, err);
}

int cap_kstate_note_config(cap_kstate *ks, const cap_config *cfg, br_error *err)
{
	if (ks->n == CAP_KSTATE_MAX)
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "too many changes to track");
	cap_kchange *c = &ks->ch[ks->n];
	size_t size = sizeof c->path;
	int len = snprintf(c->path, size, "mask=%x pid=%u start=%llu end=%llu ncpu=%u dev=", cfg->act_mask,
			   cfg->pid, (unsigned long long)cfg->start_lba, (unsigned long long)cfg->end_lba, cfg->ncpu);
	for (size_t i = 0; i < cfg->ndevices && len > 0 && (size_t)len < size; i++) {
		char one[32];
		int n = snprintf(one, sizeof one, "%s%u:%u", i ? "," : "", cfg->devices[i].major, cfg->devices[i].minor);
		if ((size_t)(len + n) >= size)
			break;
		memcpy(c->path + len, one, (size_t)n + 1);
		len += n;
	}
	c->kind = KS_CONFIG;
	c->old[0] = 0;
	ks->n++;
	return save(ks, err);
}

bool cap_kstate_config(const cap_kstate *ks, cap_config *cfg)
{
	for (size_t i = 0; i < ks->n; i++) {
		if (ks->ch[i].kind != KS_CONFIG)
			continue;
		memset(cfg, 0, sizeof *cfg);
		unsigned mask, pid, ncpu;
		unsigned long long start, end;
		int off = 0;
		if (sscanf(ks->ch[i].path, "mask=%x pid=%u start=%llu end=%llu ncpu=%u dev=%n", &mask, &pid, &start, &end,
			   &ncpu, &off) != 5 || off == 0)
			return false;
		cfg->act_mask = (uint16_t)mask;
		cfg->pid = pid;
		cfg->start_lba = start;
		cfg->end_lba = end;
		cfg->ncpu = ncpu;
		for (const char *p = ks->ch[i].path + off; *p && cfg->ndevices < CAP_MAX_DEVICES;) {
			unsigned ma, mi;
			int used = 0;
			if (sscanf(p, "%u:%u%n", &ma, &mi, &used) != 2)
				break;
			cap_device *d = &cfg->devices[cfg->ndevices++];
			d->major = ma;
			d->minor = mi;
			d->dev = BR_MKDEV(ma, mi);
			snprintf(d->sysfs, sizeof d->sysfs, "/sys/dev/block/%u:%u", ma, mi);
			snprintf(d->name, sizeof d->name, "%u:%u", ma, mi);
			d->path = d->sysfs;
			p += used;
			if (*p == ',')
				p++;
		}
		return cfg->ndevices > 0 && cfg->ncpu > 0;
	}
	return false;
}

/* Drop entry i; rewrite the state file, or remove it when it is empty. */
static void drop(cap_kstate *ks, size_t i)
{
	memmove(&ks->ch[i], &ks->ch[i + 1], (ks->n - i - 1) * sizeof ks->ch[0]);
	ks->n--;
	if (ks->n == 0 && ks->path[0]) {
		unlink(ks->path);
		ks->path[0] = 0;
		return;
	}
	br_error ignored;
	save(ks, &ignored);
}

void cap_kstate_forget_relay(cap_kstate *ks, const char *devpath)
{
	for (size_t i = ks->n; i-- > 0;)
		if (ks->ch[i].kind == KS_RELAY && strcmp(ks->ch[i].path, devpath) == 0) {
			drop(ks, i);
			return;
		}
}

void cap_kstate_forget_spool(cap_kstate *ks)
{
	for (size_t i = ks->n; i-- > 0;)
		if (ks->ch[i].kind == KS_SPOOL || ks->ch[i].kind == KS_SPLIT)
			drop(ks, i);
}

/* BLKTRACESTOP then BLKTRACETEARDOWN (the relay interface's "put back"). */
static int relay_teardown(const char *devpath, br_error *err)
{
	int fd = open(devpath, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, devpath, -1, "cannot open to tear down the relay trace");
	(void)ioctl(fd, BLKTRACESTOP); /* fails harmlessly when already stopped */
	int rc = 0;
	if (ioctl(fd, BLKTRACETEARDOWN) && errno != ENXIO && errno != EINVAL)
		rc = br_error_set(err, BR_ESYS, errno, devpath, -1, "BLKTRACETEARDOWN failed");
	close(fd);
	return rc;
}

static int undo(const cap_kchange *c, br_error *err)
{
	if (c->kind == KS_RELAY)
		return relay_teardown(c->path, err);
	if (c->kind == KS_MOUNT) {
		return cap_fs_unmount(c->path, err);
	}
	return write_value(c->path, c->old, err);
}

int cap_kstate_restore(cap_kstate *ks, br_error *err)
{
	int first = 0;
	br_error e;
	size_t keep = 0;
	for (size_t i = ks->n; i-- > 0;) {
		if (ks->ch[i].kind == KS_SPOOL || ks->ch[i].kind == KS_CONFIG || ks->ch[i].kind == KS_SPLIT)
			continue;
		int rc = undo(&ks->ch[i], &e);
		if (rc && !first) {
			first = rc;
			if (err)
				*err = e;
		}
	}
	if (first)
		return first;
	for (size_t i = 0; i < ks->n; i++)
		if (ks->ch[i].kind == KS_SPOOL || ks->ch[i].kind == KS_SPLIT)
			ks->ch[keep++] = ks->ch[i];
	ks->n = keep;
	if (ks->n == 0 && ks->path[0]) {
		unlink(ks->path);
		ks->path[0] = 0;
	} else if (ks->n) {
		br_error ignored;
		save(ks, &ignored);
	}
	return 0;
}

/* The --split base a capture noted, or NULL. */
static const char *split_of(const cap_kstate *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		if (ks->ch[i].kind == KS_SPLIT && ks->ch[i].path[0])
			return ks->ch[i].path;
	return NULL;
}

/* Finish a killed capture's files from its spool (unless the .gz exists
 * already): NAME.blktrace.gz and, when the capture was asked for one, the
 * --split set, each made as .part and renamed when whole (spool_finish.h);
 * then the spool is removed. A damaged spool stays, and nothing is put in
 * place. */
static int recover_spool(const char *spool, const char *split, FILE *out, br_error *err)
{
	if (access(spool, F_OK))
		return 0; /* gone already: nothing to do */
	char gz[300];
	size_t n = strlen(spool);
	if (n < 6 || strcmp(spool + n - 6, ".spool"))
		return br_error_set(err, BR_EINVAL, 0, spool, -1, "not a spool file name");
	snprintf(gz, sizeof gz, "%.*s.gz", (int)(n - 6), spool);
	/* killed while finishing: the unfinished files go, the spool is read again */
	char part[sizeof gz + 8];
	snprintf(part, sizeof part, "%s.part", gz);
	unlink(part);
	cap_spool_finish_remove_parts(split);
	if (access(gz, F_OK) == 0)
		return br_error_set(err, BR_EINVAL, 0, gz, -1, "exists; the spool %s is left as it is", spool);
	/* A raw spool is read, not punched: a damaged one stays for a look.
	 * An event spool is punched as it is read (it was before the raw one
	 * existed; its records are whole up to a torn tail). */
	bool raw = cap_raw_spool_is(spool);
	cap_finish fin = { .spool = spool, .gz = gz, .split_base = split, .punch = !raw };
	cap_finish_result res;
	int rc = cap_spool_finish(&fin, &res, err);
	if (rc)
		return rc;
	if (out) {
		fprintf(out, "  wrote %s (%lld %s)\n", gz, (long long)res.events,
			raw ? "events from the raw spool" : "records from the spool");
		if (split)
			fprintf(out, "  wrote the per-CPU set %s.blktrace.0-%u\n", split,
				res.split_files ? res.split_files - 1 : 0);
	}
	unlink(spool);
	return 0;
}

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

/* Calls fn for every stale state file. */
static int each_leftover(int (*fn)(const char *path, int pid, void *arg), void *arg)
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

static int load(const char *path, cap_kstate *ks)
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

static void describe(FILE *out, const cap_kstate *ks, int pid)
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
			const char *split = split_of(ks);
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
	if (load(path, ks) == 0 && arg)
		describe(arg, ks, pid);
	free(ks);
	return 0;
}

int cap_kstate_leftovers(FILE *out)
{
	return each_leftover(describe_one, out);
}

typedef struct cleanup_arg {
	FILE *out;
	cap_kstate_salvage_fn salvage;
	br_error *err;
} cleanup_arg;

static int cleanup_one(const char *path, int pid, void *arg)
{
	cleanup_arg *a = arg;
	cap_kstate *ks = malloc(sizeof *ks);
	if (!ks)
		return BR_ENOMEM;
	int rc = load(path, ks);
	if (rc == 0) {
		if (a->out)
			describe(a->out, ks, pid);
		/* a failed salvage is said, but the kernel is put back all the same */
		br_error se;
		if (a->salvage && a->salvage(ks, a->out, &se) && a->out) {
			char msg[1200];
			fprintf(a->out, "  could not read what the kernel still held: %s\n",
				br_error_format(&se, msg, sizeof msg));
		}
		rc = cap_kstate_restore(ks, a->err);
		for (size_t i = ks->n; rc == 0 && i-- > 0;)
			if (ks->ch[i].kind == KS_SPOOL &&
			    (rc = recover_spool(ks->ch[i].path, split_of(ks), a->out, a->err)) == 0)
				drop(ks, i);
		for (size_t i = ks->n; rc == 0 && i-- > 0;)
			if (ks->ch[i].kind == KS_SPLIT) /* made with its spool */
				drop(ks, i);
		if (a->out)
			fprintf(a->out, rc ? "  could not restore everything\n" : "  restored\n");
	}
	free(ks);
	return rc;
}

int cap_kstate_cleanup(FILE *out, cap_kstate_salvage_fn salvage, br_error *err)
{
	cleanup_arg a = { out, salvage, err };
	int rc = each_leftover(cleanup_one, &a);
	return rc < 0 ? rc : 0;
}
