/* fuzz_fmt.h — shared body of the text-format fuzz targets: the input is
 * written to a temp file and read to the end with one format forced, with
 * and without skip_bad, through the public reader API. */
#ifndef BLKREEL_FUZZ_FMT_H
#define BLKREEL_FUZZ_FMT_H

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "blkreel/reader.h"

static inline void fuzz_fmt_read(const char *format, const uint8_t *data, size_t size)
{
	char path[] = "/tmp/blkreel-fuzz-fmt-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return;
	}
	close(fd);
	for (int skip = 0; skip < 2; skip++) {
		const char *paths[] = { path };
		br_reader_opts opts = { .threads = 1, .format = format, .skip_bad = skip };
		br_reader *r;
		br_error err;
		if (br_reader_open(&r, paths, 1, &opts, &err) == 0) {
			br_event ev;
			while (br_reader_next(r, &ev, &err) == 1)
				;
			br_reader_input(r, 0);
			br_reader_close(r);
		}
	}
	unlink(path);
}

#endif
