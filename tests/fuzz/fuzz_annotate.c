/*
 * fuzz_annotate.c - libFuzzer target for what kiln annotate reads
 * (src/cmd-annotate.c): a profile folder made of the input, split at its
 * first line "--\n" into jit/jit-1.dump (bytes before) and
 * perf-script-leaf.txt (after), annotated for the symbol on the input's
 * first line.  Any input ends in an annotation or an error, within the
 * bounds (ANN_MAX_*: a crafted dump's overlapping loads cost a bounded
 * count, not a quadratic one).
 * Seeds: node's jitdump head with samples in it, many loads at one address.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(p, 1, n, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64], dump[96], leaf[96];
	if (!*dir) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-annotate.%d", (int)getpid());
		snprintf(dump, sizeof(dump), "%s/jit/jit-1.dump", dir);
		snprintf(leaf, sizeof(leaf), "%s/perf-script-leaf.txt", dir);
		char *jit = xasprintf("%s/jit", dir);
		mkdir_p(jit, 0700);
		free(jit);
		if (!freopen("/dev/null", "w", stdout))
			abort();
		setenv("NO_COLOR", "1", 1);
	}
	/* SYMBOL\n DUMP --\n LEAF */
	const uint8_t *nl = memchr(data, '\n', size);
	if (!nl || nl - data > 200)
		return 0;
	char *sym = xstrndup((const char *)data, (size_t)(nl - data));
	const uint8_t *body = nl + 1, *end = data + size;
	const uint8_t *sep = memmem(body, (size_t)(end - body), "--\n", 3);
	size_t nd = sep ? (size_t)(sep - body) : (size_t)(end - body);
	put(dump, body, nd);
	put(leaf, sep ? sep + 3 : end, sep ? (size_t)(end - sep - 3) : 0);
	struct kerr e = KERR_INIT;
	if (annotate_profile(dir, sym, -1, 5, (size & 1) != 0, &e) < 0 && !e.msg.len)
		abort(); /* a refusal says why */
	kerr_release(&e);
	free(sym);
	return 0;
}
