/*
 * fuzz_tune_state.c - `kiln doctor --restore` reading a state file
 * (platform_restore in src/platform-tune.c) that may be anything: not JSON,
 * wrong types, paths outside /sys and /proc/sys, "..".  The root is an
 * empty temporary tree, so nothing real is ever written.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[64], *state;
	if (!root[0]) {
		strcpy(root, "/tmp/kiln-fuzz-tune.XXXXXX");
		if (!mkdtemp(root))
			abort();
		platform_set_root(root);
		state = xasprintf("%s/tune-state.json", root);
	}
	FILE *f = fopen(state, "w");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	struct strbuf log = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	platform_restore(state, NULL, &log, &e);
	unlink(state);
	sb_release(&log);
	kerr_release(&e);
	return 0;
}
