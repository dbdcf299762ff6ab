/* libFuzzer target: fuzzed event streams (fuzz_events.h) written as a
 * blk_io_trace file and loaded by the plot's data path (plot/plot/load.c:
 * the reader, the shared statistics, the density grid of IO marks, the
 * series at the chosen bucket width), then the offset ranges the io panels
 * would show, with a device filter, a time window and a bucket width the
 * input picks. Nothing is drawn. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz_events.h"
#include "tracegen.h"
#include "../../plot/plot/plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	fe_stream s;
	if (fe_decode(data + 4, size - 4, &s))
		return 0;
	tg_buf b = { 0 };
	for (size_t i = 0; i < s.n; i++)
		tg_append(&b, &s.ev[i], (data[0] & 0x80) != 0);
	char path[] = "/tmp/blkreel-fuzz-plot-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		tg_free(&b);
		fe_free(&s);
		return 0;
	}
	close(fd);
	if (tg_write(&b, path) == 0) {
		plot_opts o = { .ntraces = 1, .width = 1100, .height = 1300,
				.panels = (1u << PANEL_COUNT) - 1, .quiet = true,
				.allow_empty = (data[0] & 1) != 0, .has_dev = (data[0] & 2) != 0,
				.dev = BR_MKDEV(8, 0), .stack = (data[0] & 4) != 0,
				.by_process = (data[0] & 8) != 0 };
		o.paths[0] = path;
		o.labels[0] = "fuzz";
		if (data[0] & 0x10) {
			o.has_x = true;
			o.x0 = (uint64_t)data[1] << 12;
			o.x1 = o.x0 + ((uint64_t)data[2] << 16) + 1;
		}
		if (data[0] & 0x20)
			o.bucket_ns = (uint64_t)data[3] << 10;
		if (data[0] & 0x40)
			o.avg_window_ns = (uint64_t)data[3] << 14;
		plot_data d;
		br_error err;
		if (plot_load(&o, &d, &err) == 0)
			plot_offset_ranges(&o, &d);
		plot_data_free(&d);
	}
	unlink(path);
	tg_free(&b);
	fe_free(&s);
	return 0;
}
