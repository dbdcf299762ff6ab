#include "probe.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static bool at(const uint8_t *buf, size_t len, size_t off, const void *magic, size_t n)
{
	return off + n <= len && memcmp(buf + off, magic, n) == 0;
}

static bool mbr_like(const uint8_t *buf, size_t len)
{
	if (len < 512 || buf[510] != 0x55 || buf[511] != 0xAA)
		return false;
	/* at least one partition entry with a type and a sane status byte */
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = buf + 446 + 16 * i;
		if ((e[0] == 0 || e[0] == 0x80) && e[4] != 0)
			return true;
	}
	return false;
}

const char *probe_buffer(const uint8_t *buf, size_t len)
{
	if (len >= 1082 && le16(buf + 1024 + 56) == 0xEF53)
		return "ext2/3/4 filesystem";
	if (at(buf, len, 0, "XFSB", 4))
		return "XFS filesystem";
	if (at(buf, len, 65536 + 64, "_BHRfS_M", 8))
		return "btrfs filesystem";
	if (at(buf, len, 512, "EFI PART", 8))
		return "GPT partition table";
	if (at(buf, len, 4096 - 10, "SWAPSPACE2", 10) || at(buf, len, 4096 - 10, "SWAP-SPACE", 10))
		return "Linux swap";
	if (mbr_like(buf, len))
		return "MBR partition table";
	return NULL;
}

int probe_fd(int fd, const char *path, const char **found, br_error *err)
{
	/* aligned, so it can go through an O_DIRECT descriptor and leave the
	 * page cache (and readahead) alone */
	uint8_t *buf = NULL;
	if (posix_memalign((void **)&buf, 4096, PROBE_BYTES))
		buf = NULL;
	if (!buf)
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory");
	size_t got = 0;
	while (got < PROBE_BYTES) {
		ssize_t n = pread(fd, buf + got, PROBE_BYTES - got, (off_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			return br_error_set(err, BR_ESYS, e, path, (int64_t)got,
					    "reading the start to look for a filesystem");
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	*found = probe_buffer(buf, got);
	free(buf);
	return 0;
}
