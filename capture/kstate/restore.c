/* restore.c — putting the kernel back as a journal (kstate.h) says it was:
 * newest change first, each undone its own way (a file's old value, the
 * relay trace torn down, our mount unmounted). */
#include "kstate/kstate.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kstate/fs_mount.h"

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
	if (c->kind == KS_MOUNT)
		return cap_fs_unmount(c->path, err);
	return cap_kstate_write_file(c->path, c->old, err);
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
	cap_kstate_sync(ks);
	return 0;
}
