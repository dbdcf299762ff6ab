/* steady_trace: a trace of 4 KiB random reads at a fixed rate, for the
 * replay timing benchmark (the Buttress mark: IOs within 100 us of their
 * target at >= 10k IOPS).
 *   steady_trace OUT IOPS SECONDS
 * Each IO is a D at its time and a C 50 us later, on device 7,99, spread
 * over the first GiB. */
#include <stdio.h>
#include <stdlib.h>

#include "blkreel/writer.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: steady_trace OUT IOPS SECONDS\n");
		return 2;
	}
	unsigned long iops = strtoul(argv[2], NULL, 10);
	double seconds = strtod(argv[3], NULL);
	if (!iops || seconds <= 0) {
		fprintf(stderr, "steady_trace: IOPS and SECONDS must be positive\n");
		return 2;
	}
	br_error err;
	br_writer *w;
	if (br_writer_open(&w, BR_OUT_STREAM, argv[1], NULL, &err)) {
		fprintf(stderr, "steady_trace: %s: %s\n", err.file, err.msg);
		return 1;
	}
	uint64_t n = (uint64_t)(iops * seconds), gap = 1000000000ull / iops;
	uint64_t rng = 88172645463325252ull, seq = 1;
	for (uint64_t i = 0; i < n; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		uint64_t t = 1000000000ull + i * gap;
		br_event d = { .time = t, .sector = (rng % (262144 - 1)) * 8, .bytes = 4096,
			       .action = BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_READ), .pid = 1,
			       .device = BR_MKDEV(7, 99), .sequence = (uint32_t)seq++ };
		br_event c = d;
		c.time = t + 50000;
		c.action = BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_READ);
		c.sequence = (uint32_t)seq++;
		if (br_writer_write(w, &d, &err) || br_writer_write(w, &c, &err)) {
			fprintf(stderr, "steady_trace: %s\n", err.msg);
			return 1;
		}
	}
	return br_writer_close(w, &err) ? 1 : 0;
}
