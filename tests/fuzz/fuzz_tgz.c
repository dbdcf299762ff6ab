/* fuzz_tgz.c — libFuzzer target for the compressed trace reader.
 * The input bytes become a memfd file; the first byte picks threads, salvage
 * and whether to seek, so every path of the reader gets hostile input. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h> /* memfd_create */
#include <unistd.h>

#include "blkreel/error.h"
#include "common/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	data++, size--;
	int fd = memfd_create("fuzz_tgz", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	br_input in;
	br_error err;
	if (br_input_open(&in, path, &err) == 0) {
		const uint8_t *peek;
		ssize_t got = br_input_peek(&in, BR_INPUT_PEEK_MAX, &peek, &err);
		br_reader_opts opts = { .threads = 1 + (mode & 3), .salvage = (mode & 4) != 0 };
		br_source *src = NULL;
		if (got >= 0 && br_tgz_probe(peek, (size_t)got) &&
		    br_tgz_source_open(&src, &in, &opts, &err) == 0) {
			if ((mode & 8) && src->ops->seek_time)
				src->ops->seek_time(src, (uint64_t)mode << 20, &err);
			if (src->ops->first_time)
				src->ops->first_time(src);
			br_event ev;
			unsigned long n = 0;
			while (src->ops->next(src, &ev, &err) == 1 && n < 1000000)
				n++;
			br_input_info info = { 0 };
			src->ops->info(src, &info);
			src->ops->close(src);
		} else {
			br_input_close(&in);
		}
	}
	close(fd);
	return 0;
}
