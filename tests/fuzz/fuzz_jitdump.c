/*
 * fuzz_jitdump.c - libFuzzer target for the jitdump parser (src/jitdump.c):
 * any bytes give loads or an error with a message, and every load's name and
 * code lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jitdump jd;
	struct kerr e = KERR_INIT;
	int r = jitdump_parse(data, size, &jd, &e);
	if (r < 0) {
		if (!e.msg.len || jd.nloads)
			abort();
	} else {
		for (size_t i = 0; i < jd.nloads; i++) {
			const struct jd_load *l = &jd.loads[i];
			const uint8_t *n = (const uint8_t *)l->name;
			if (n < data || n >= data + size || l->code < data || l->code + l->code_size > data + size)
				abort();
			if (strlen(l->name) >= (size_t)(data + size - n))
				abort();
		}
	}
	jitdump_free(&jd);
	kerr_release(&e);
	return 0;
}
