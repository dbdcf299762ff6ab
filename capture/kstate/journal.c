/* journal.c — the record of one capture's changes to kernel state and its
 * state file (kstate.h): each change written down, and the file on disk,
 * before the change is made; entries forgotten once undone or finished. */
#include "kstate/kstate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkreel/event.h" /* BR_MKDEV */

void cap_kstate_init(cap_kstate *ks, const char *backend)
{
	memset(ks, 0, sizeof *ks);
	snprintf(ks->backend, sizeof ks->backend, "%s", backend);
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

void cap_kstate_sync(cap_kstate *ks)
{
	if (ks->n == 0) {
		if (ks->path[0])
			unlink(ks->path);
		ks->path[0] = 0;
		return;
	}
	br_error ignored;
	save(ks, &ignored);
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
	return cap_kstate_write_file(path, value, err);
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

void cap_kstate_drop(cap_kstate *ks, size_t i)
{
	memmove(&ks->ch[i], &ks->ch[i + 1], (ks->n - i - 1) * sizeof ks->ch[0]);
	ks->n--;
	cap_kstate_sync(ks);
}

void cap_kstate_forget_relay(cap_kstate *ks, const char *devpath)
{
	for (size_t i = ks->n; i-- > 0;)
		if (ks->ch[i].kind == KS_RELAY && strcmp(ks->ch[i].path, devpath) == 0) {
			cap_kstate_drop(ks, i);
			return;
		}
}

void cap_kstate_forget_spool(cap_kstate *ks)
{
	for (size_t i = ks->n; i-- > 0;)
		if (ks->ch[i].kind == KS_SPOOL || ks->ch[i].kind == KS_SPLIT)
			cap_kstate_drop(ks, i);
}

/* The --split base a capture noted, or NULL. */
const char *cap_kstate_split(const cap_kstate *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		if (ks->ch[i].kind == KS_SPLIT && ks->ch[i].path[0])
			return ks->ch[i].path;
	return NULL;
}
