/* libFuzzer target: the blk_io_trace stream reader (raw records, either
 * byte order, reorder window) through the public reader API. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "blkreel/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/blkreel-fuzz-stream-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	const char *paths[] = { path };
	br_reader_opts opts = { .threads = 1, .format = "blktrace" };
	br_reader *r;
	br_error err;
	if (br_reader_open(&r, paths, 1, &opts, &err) == 0) {
		br_event ev;
		while (br_reader_next(r, &ev, &err) == 1)
			;
		br_reader_close(r);
	}
	unlink(path);
	return 0;
}
