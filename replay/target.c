#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int target_stat(target *t, const char *path, br_error *err)
{
	memset(t, 0, sizeof *t);
	t->path = path;
	t->fd = t->fd_buf = -1;
	t->align = 512;
	struct stat st;
	if (stat(path, &st) != 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "target");
	if (S_ISBLK(st.st_mode)) {
		t->blockdev = true;
		t->rdev = st.st_rdev;
		t->queue_depth = target_queue_depth("/sys", st.st_rdev);
		uint64_t kb = target_queue_attr("/sys", st.st_rdev, "max_sectors_kb");
		uint64_t segs = target_queue_attr("/sys", st.st_rdev, "max_segments");
		long page = sysconf(_SC_PAGESIZE);
		uint64_t by_segs = segs * (uint64_t)(page > 0 ? page : 4096);
		t->whole_max = kb * 1024;
		if (by_segs && (!t->whole_max || by_segs < t->whole_max))
			t->whole_max = by_segs;
		t->chunk = target_queue_attr("/sys", st.st_rdev, "chunk_sectors") * 512;
	} else if (S_ISREG(st.st_mode)) {
		t->size = (uint64_t)st.st_size;
	} else {
		return br_error_set(err, BR_EINVAL, 0, path, -1,
				    "target is neither a block device nor a regular file");
	}
	return 0;
}

static unsigned read_uint_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned long v = 0;
	int ok = fscanf(f, "%lu", &v) == 1;
	fclose(f);
	return ok && v <= 1u << 20 ? (unsigned)v : 0;
}

uint64_t target_queue_attr(const char *sysfs_root, dev_t rdev, const char *name)
{
	char path[512];
	unsigned maj = major(rdev), min = minor(rdev);
	snprintf(path, sizeof path, "%s/dev/block/%u:%u/queue/%s", sysfs_root, maj, min, name);
	unsigned n = read_uint_file(path);
	if (!n) { /* a partition: the queue is its disk's, one level up */
		snprintf(path, sizeof path, "%s/dev/block/%u:%u/../queue/%s", sysfs_root, maj, min,
			 name);
		n = read_uint_file(path);
	}
	return n;
}

unsigned target_queue_depth(const char *sysfs_root, dev_t rdev)
{
	return (unsigned)target_queue_attr(sysfs_root, rdev, "nr_requests");
}

bool target_would_split(const target *t, uint64_t off, uint64_t len)
{
	if (!len)
		return false;
	if (t->whole_max && len > t->whole_max)
		return true;
	return t->chunk && off / t->chunk != (off + len - 1) / t->chunk;
}

static void dio_alignment(target *t)
{
#ifdef STATX_DIOALIGN
	struct statx sx;
	if (statx(t->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align) {
		t->align = sx.stx_dio_offset_align;
		return;
	}
#endif
	int ssz;
	if (t->blockdev && ioctl(t->fd, BLKSSZGET, &ssz) == 0 && ssz > 0)
		t->align = (unsigned)ssz;
}

int target_open(target *t, bool write, bool excl, br_error *err)
{
	int mode = write ? O_RDWR : O_RDONLY;
	int ex = (excl && t->blockdev) ? O_EXCL : 0;
	t->fd_buf = open(t->path, mode | ex | O_CLOEXEC);
	if (t->fd_buf < 0) {
		int e = errno;
		if (e == EBUSY)
			return br_error_set(err, BR_ESYS, e, t->path, -1,
					    write ? "refusing to write: busy, mounted or opened "
						    "exclusively by another program; never written, "
						    "--force or not"
						  : "busy: mounted or opened exclusively by another "
						    "program (--force to read it anyway)");
		return br_error_set(err, BR_ESYS, e, t->path, -1, "opening the target");
	}
	t->excl = ex != 0;
	t->fd = open(t->path, mode | O_DIRECT | O_CLOEXEC);
	if (t->fd >= 0) {
		t->direct = true;
	} else {
		t->direct_note = errno == EINVAL ? "the filesystem does not support O_DIRECT"
						 : "O_DIRECT open failed";
		t->fd = t->fd_buf;
	}
	if (t->blockdev) {
		uint64_t size;
		if (ioctl(t->fd_buf, BLKGETSIZE64, &size) != 0) {
			int e = errno;
			target_close(t);
			return br_error_set(err, BR_ESYS, e, t->path, -1, "BLKGETSIZE64");
		}
		t->size = size;
	}
	if (t->direct)
		dio_alignment(t);
	return 0;
}

void target_close(target *t)
{
	if (t->fd >= 0 && t->fd != t->fd_buf)
		close(t->fd);
	if (t->fd_buf >= 0)
		close(t->fd_buf);
	t->fd = t->fd_buf = -1;
}
