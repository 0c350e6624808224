/*
 * fuzz_stream.c - libFuzzer target for the result-stream checker
 * (src/stream.c).  The input is fed in chunks whose sizes come from its first
 * byte, so line splitting across reads is exercised; whatever the bytes, the
 * checker must end either complete (exactly the iterations asked for) or
 * with an error, and never keep iterations past the first fault.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t chunk = (size_t)(data[0] % 64) + 1;
	long expected = data[1] % 8;
	data += 2;
	size -= 2;
	struct stream s;
	stream_init(&s, expected);
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		stream_feed(&s, (const char *)data + off, n);
	}
	int r = stream_finish(&s);
	if (r == 0 && ((long)s.n != expected || !s.done || s.error.len))
		abort();
	if (r < 0 && !s.error.len)
		abort();
	if ((long)s.n > expected)
		abort();
	stream_release(&s);
	return 0;
}
