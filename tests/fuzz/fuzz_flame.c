/*
 * fuzz_flame.c - libFuzzer target for what kiln flame reads (src/flame.c):
 * any bytes as a profile.json give checked flame data or an error naming
 * the field; checked data goes through every writer (folded, speedscope,
 * Firefox, the page, the differential top list) within the documented
 * bounds, and a stack's frames never exceed FLAME_MAX_DEPTH.
 * Seeds: profile.json files kiln wrote, a cycle, a deep chain.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	if (!*dir) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-flame.%d", (int)getpid());
		mkdir_p(dir, 0700);
	}
	json_error_t je;
	json_t *rep = json_loadb((const char *)data, size, 0, &je);
	if (!rep)
		return 0;
	struct kerr e = KERR_INIT;
	json_t *d = flame_of_profile(rep, "fuzz.json", &e);
	json_decref(rep);
	if (!d) {
		if (strncmp(sb_str(&e.msg), "fuzz.json: ", 11))
			abort(); /* every refusal names the file */
		kerr_release(&e);
		return 0;
	}
	struct flame_sel all, steady;
	flame_sel_all(&all);
	flame_sel_all(&steady);
	steady.phase = 1;
	char *p = xasprintf("%s/out", dir);
	const struct flame_sel *sels[] = { &all, &steady };
	for (size_t s = 0; s < 2; s++) {
		struct kerr we = KERR_INIT;
		flame_write_folded(p, d, sels[s], &we);
		flame_write_speedscope(p, d, sels[s], &we);
		flame_write_gecko(p, d, sels[s], &we);
		kerr_release(&we);
	}
	struct strbuf page = STRBUF_INIT;
	flame_page(&page, d, NULL, &all);
	/* the data in the page cannot end its script element */
	const char *end = strstr(page.buf, "<script type=\"application/json\"");
	const char *close = end ? strstr(end, "</script>") : NULL;
	if (!close || !strstr(close, "'use strict'"))
		abort();
	sb_release(&page);
	json_decref(flame_diff_top(d, &all, d, &steady, 20));
	unlink(p);
	free(p);
	json_decref(d);
	kerr_release(&e);
	return 0;
}
