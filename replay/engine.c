#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

const engine_ops *const engine_list[] = { &engine_uring, &engine_pool, NULL };

const engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; engine_list[i]; i++)
		if (strcmp(engine_list[i]->name, name) == 0)
			return engine_list[i];
	return NULL;
}

int engine_check(const engine_ops *ops)
{
	return (ops->name && ops->init && ops->queue && ops->commit && ops->finish) ? 0 : -1;
}

static int discard(replay_io *io)
{
	struct stat st;
	if (fstat(io->fd, &st) != 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t range[2] = { io->it.off, io->it.len };
		return ioctl(io->fd, BLKDISCARD, range) == 0 ? 0 : -errno;
	}
	return fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)io->it.off,
			 (off_t)io->it.len) == 0 ? 0 : -errno;
}

int engine_sync_exec(replay_io *io)
{
	ssize_t n;
	switch (io->it.kind) {
	case RK_READ:
		n = pread(io->fd, io->buf, io->it.len, (off_t)io->it.off);
		break;
	case RK_WRITE: {
		struct iovec iov = { io->buf, io->it.len };
		n = pwritev2(io->fd, &iov, 1, (off_t)io->it.off, io->it.fua ? RWF_DSYNC : 0);
		break;
	}
	case RK_FLUSH:
		return fdatasync(io->fd) == 0 ? 0 : -errno;
	case RK_DISCARD:
		return discard(io);
	default:
		return -EINVAL;
	}
	return n < 0 ? -errno : (int)n;
}
