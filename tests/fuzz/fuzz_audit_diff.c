/*
 * fuzz_audit_diff.c - comparing two audit records read back from a results
 * file (platform_audit_diff in src/platform-audit.c) when they are not what
 * kiln wrote: the input is two JSON texts separated by a NUL byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *z = memchr(s, 0, size);
	size_t n1 = z ? (size_t)(z - s) : size;
	json_t *a = json_loadb(s, n1, 0, NULL);
	json_t *b = z ? json_loadb(z + 1, size - n1 - 1, 0, NULL) : NULL;
	if (!a || !b)
		goto out;
	struct strvec lines = STRVEC_INIT;
	platform_audit_diff(a, b, &lines);
	platform_audit_diff(b, a, &lines);
	size_t n = lines.n;
	sv_clear(&lines);
	/* a record compared with itself has no difference */
	platform_audit_diff(a, a, &lines);
	if (lines.n)
		abort();
	(void)n;
out:
	json_decref(a);
	json_decref(b);
	return 0;
}
