/* libFuzzer target: the fiu text reader (forced by name). */
#include "fuzz_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_fmt_read("fiu", data, size);
	return 0;
}
