/*
 * fuzz_convert.c - libFuzzer target for the converters of other tools'
 * configs (src/convert-rebench.c, src/convert-krun.c): the first byte picks
 * ReBench's YAML or Krun's Python; any input converts or fails with an
 * error, and what converted names no control character in its notes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct convert_out out = CONVERT_OUT_INIT;
	struct kerr e = KERR_INIT;
	const char *text = (const char *)data + 1;
	int r = data[0] & 1 ? convert_krun("fuzz.krun", text, size - 1, &out, &e)
			    : convert_rebench("fuzz.conf", text, size - 1, NULL, &out, &e);
	if (r < 0 && !e.msg.len)
		abort();
	if (r == 0 && !out.yaml.len)
		abort();
	convert_out_release(&out);
	kerr_release(&e);
	return 0;
}
