/* make_trace: build a large, realistic blk_io_trace stream for benchmarks by
 * repeating a real capture back to back (times shifted by its span, sectors
 * kept), until N events are written.
 *   make_trace SAMPLE N OUT.bin */
#include <stdio.h>
#include <stdlib.h>

#include "blkreel/reader.h"
#include "blkreel/writer.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: make_trace SAMPLE N OUT\n");
		return 2;
	}
	unsigned long long want = strtoull(argv[2], NULL, 10);
	br_error err;
	br_writer *w;
	if (br_writer_open(&w, BR_OUT_STREAM, argv[3], NULL, &err)) {
		fprintf(stderr, "make_trace: %s\n", err.msg);
		return 1;
	}
	unsigned long long n = 0;
	uint64_t shift = 0, span = 0;
	while (n < want) {
		br_reader *r;
		const char *paths[] = { argv[1] };
		if (br_reader_open(&r, paths, 1, NULL, &err)) {
			fprintf(stderr, "make_trace: %s: %s\n", err.file, err.msg);
			return 1;
		}
		uint64_t start = br_reader_start_time(r), last = start;
		br_event ev;
		while (n < want && br_reader_next(r, &ev, &err) == 1) {
			if (ev.time > last)
				last = ev.time;
			ev.time = ev.time - start + shift;
			if (br_writer_write(w, &ev, &err)) {
				fprintf(stderr, "make_trace: %s\n", err.msg);
				return 1;
			}
			n++;
		}
		br_reader_close(r);
		span = last - start;
		shift += span + 1000000; /* 1 ms idle between repeats */
	}
	return br_writer_close(w, &err) ? 1 : 0;
}
