/* fuzz_fmt_hyperfine.c - libFuzzer target for the hyperfine reader (src/fmt-hyperfine.c); the checks in fuzz_fmt.h */
#include "fuzz_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_fmt(&fmt_hyperfine, data, size);
}
