/* libFuzzer target: the blkreplay text reader (forced by name). */
#include "fuzz_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_fmt_read("blkreplay", data, size);
	return 0;
}
