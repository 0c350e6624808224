/*
 * fuzz_config.c - libFuzzer target for the experiment parser (src/config.c):
 * any bytes give an experiment or an error message that names the file, and
 * an accepted experiment is consistent (every VM has a plugin or a runner, a
 * variant and a language; every benchmark a param).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct experiment ex;
	struct kerr e = KERR_INIT;
	/* check_vms 0: the parse and checks, not the machine's PATH */
	int r = config_parse("fuzz.yaml", (const char *)data, size, "/nonexistent", 0, &ex, &e);
	if (r < 0) {
		if (strncmp(sb_str(&e.msg), "fuzz.yaml", 9))
			abort(); /* every error names the file */
	} else {
		for (size_t i = 0; i < ex.nvms; i++)
			if (!ex.vms[i].variant || !ex.vms[i].language || (!ex.vms[i].pl && !ex.vms[i].runner.n))
				abort();
		for (size_t i = 0; i < ex.nbenchs; i++)
			if (!ex.benchs[i].param)
				abort();
	}
	config_free(&ex);
	kerr_release(&e);
	return 0;
}
