/* fuzz_fmt_pyperf.c - libFuzzer target for the pyperf reader (src/fmt-pyperf.c); the checks in fuzz_fmt.h */
#include "fuzz_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_fmt(&fmt_pyperf, data, size);
}
