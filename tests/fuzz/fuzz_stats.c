/* libFuzzer target: fuzzed event streams (fuzz_events.h) through the shared
 * statistics (blkreel/stats.h) with and without a device filter, latency
 * series on and off, then the series at the widths the plot and report ask
 * for. */
#include "fuzz_events.h"
#include "blkreel/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fe_stream s;
	if (fe_decode(data + 1, size - 1, &s))
		return 0;
	br_stats_opts o = { .latency_series = data[0] & 1, .has_device = (data[0] & 2) != 0,
			    .device = BR_MKDEV(8, 0), .has_origin = (data[0] & 4) != 0,
			    .origin_ns = s.n ? s.ev[0].time : 0 };
	br_stats *st;
	br_error err;
	if (br_stats_new(&st, &o, &err) == 0) {
		int rc = 0;
		for (size_t i = 0; i < s.n && rc == 0; i++)
			rc = br_stats_add(st, &s.ev[i], &err);
		if (rc == 0 && br_stats_finish(st, &err) == 0) {
			const br_stats_totals *t = br_stats_get_totals(st);
			(void)t;
			uint64_t widths[3] = { br_stats_base_width(st), br_stats_pick_width(st, 1 + data[0]),
					       br_stats_pick_width(st, 1000) };
			for (int k = 0; k < 3; k++) {
				br_stats_series ser;
				if (widths[k] && br_stats_series_get(st, widths[k], 0, 0, &ser, &err) == 0) {
					for (size_t b = 0; b < ser.n; b++) {
						(void)br_stats_bucket_mbps(&ser.b[b], BR_DIR_READ);
						(void)br_stats_bucket_iops(&ser.b[b]);
						(void)br_stats_bucket_seeks(&ser.b[b]);
					}
					br_stats_series_free(&ser);
				}
			}
		}
		br_stats_free(st);
	}
	fe_free(&s);
	return 0;
}
