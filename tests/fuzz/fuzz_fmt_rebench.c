/* fuzz_fmt_rebench.c - libFuzzer target for the rebench reader (src/fmt-rebench.c); the checks in fuzz_fmt.h */
#include "fuzz_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_fmt(&fmt_rebench, data, size);
}
