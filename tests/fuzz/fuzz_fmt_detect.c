/* libFuzzer target: content detection over every format (plain or gzip'd
 * text included), then reading whatever was detected. */
#include "fuzz_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_fmt_read(NULL, data, size);
	return 0;
}
