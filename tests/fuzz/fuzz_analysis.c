/* libFuzzer target: fuzzed event streams (fuzz_events.h) through the
 * analysis (blkreel/analysis.h): the stream is cut in two at a point the
 * input chooses, each part analysed on its own (with a bio callback, a
 * small hot-range size and burst gap from the input), then the two results
 * compared as blkreel-report compares traces. */
#include "fuzz_events.h"
#include "blkreel/analysis.h"

static int count_bio(void *arg, const br_analysis_bio *bio)
{
	(void)bio;
	++*(uint64_t *)arg;
	return 0;
}

static br_analysis *analyse(const br_event *ev, size_t n, uint8_t knobs, uint64_t *bios)
{
	br_analysis_opts o = {
		.stats = { .has_device = (knobs & 1) != 0, .device = BR_MKDEV(8, 0),
			   .latency_series = (knobs & 2) != 0 },
		.range_bytes = (knobs & 4) ? 4096ull << (knobs >> 4) : 0,
		.burst_gap_ns = (knobs & 8) ? 1000ull << (knobs >> 4) : 0,
		.on_bio = count_bio, .on_bio_arg = bios,
	};
	br_analysis *a;
	br_error err;
	if (br_analysis_new(&a, &o, &err))
		return NULL;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = br_analysis_add(a, &ev[i], &err);
	if (rc == 0)
		rc = br_analysis_finish(a, &err);
	if (rc) {
		br_analysis_free(a);
		return NULL;
	}
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	fe_stream s;
	if (fe_decode(data + 2, size - 2, &s))
		return 0;
	size_t cut = s.n ? (size_t)data[1] * s.n / 255 : 0;
	uint64_t bios = 0;
	br_analysis *a = analyse(s.ev, cut, data[0], &bios);
	br_analysis *b = analyse(s.ev + cut, s.n - cut, (uint8_t)(data[0] ^ 0x5a), &bios);
	if (a && b) {
		const br_analysis_result *res[3] = { br_analysis_get(a), br_analysis_get(b),
						     br_analysis_get(a) };
		br_cmp c;
		br_error err;
		if (br_analysis_compare(res, 2 + (data[0] >> 7), &c, &err) == 0)
			br_cmp_free(&c);
	}
	br_analysis_free(a);
	br_analysis_free(b);
	fe_free(&s);
	return 0;
}
