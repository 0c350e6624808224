/*
 * fuzz_kmsg.c - the kernel log scanner (platform_kmsg_scan in
 * src/platform-run.c) on arbitrary bytes: records without ';', without a
 * newline, continuation lines, NULs, huge lines.  The allow-list is the
 * built-in one plus one configured regex, as in a run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct platform p;
	static int ready;
	if (!ready) {
		struct platform_conf pc;
		platform_conf_defaults(&pc);
		pc.temperature = CHECK_OFF;
		sv_push(&pc.kmsg_allow, "^fuzz: ");
		platform_set_root("/nonexistent-kiln-fuzz-root");
		if (platform_open(&p, &pc, NULL) < 0)
			abort();
		ready = 1;
	}
	struct strbuf reason = STRBUF_INIT;
	int bad = platform_kmsg_scan(&p, (const char *)data, size, &reason);
	if (bad < 0 || (bad > 0) != (reason.len > 0))
		abort();
	sb_release(&reason);
	return 0;
}
