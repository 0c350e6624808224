/*
 * fuzz_jitcode.c - libFuzzer target for the JIT logs kiln profile reads
 * (src/jitcode.c): PYPYLOG's backend sections when the first byte is even,
 * the LuaJIT runner's trace lines when odd.  Whatever the bytes: an error
 * or a table whose every region is within the bounds, has a name and
 * bytes, is found again by lookup, and writes a jitdump that reads back
 * with as many loads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitcode.h"
#include "jitdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct jitcode jc;
	jitcode_init(&jc);
	struct kerr e = KERR_INIT;
	struct jc_ticks t = { 0.5, 0, 0, 1 };
	int r = data[0] % 2 ? jitcode_parse_luajit("f", (const char *)data + 1, size - 1, &jc, &e)
			    : jitcode_parse_pypylog("f", (const char *)data + 1, size - 1, &t, &jc, &e);
	if (r < 0 && !e.msg.len)
		abort();
	jitcode_index(&jc);
	if (jc.code_bytes > JC_MAX_TOTAL_CODE)
		abort();
	for (size_t i = 0; i < jc.n; i++) {
		const struct jc_entry *x = &jc.v[i];
		if (!x->name || strlen(x->name) > JC_MAX_NAME + 64 || x->size > JC_MAX_CODE || (x->size && !x->code))
			abort();
		if (x->size && !jitcode_lookup(&jc, x->addr, -1))
			abort();
	}
	char path[] = "/tmp/kiln-fuzz-jitcode.XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0) {
		close(fd);
		if (jitcode_write_jitdump(&jc, 1, NULL, path, &e) == 0) {
			struct strbuf b = STRBUF_INIT;
			struct jitdump jd;
			if (read_file(path, &b, &e) == 0 && jitdump_parse(b.buf, b.len, &jd, &e) == 0) {
				if (jd.nloads != jc.n)
					abort();
				jitdump_free(&jd);
			}
			sb_release(&b);
		}
		unlink(path);
	}
	kerr_release(&e);
	jitcode_free(&jc);
	return 0;
}
