/* libFuzzer target: the msr text reader (forced by name). */
#include "fuzz_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_fmt_read("msr", data, size);
	return 0;
}
