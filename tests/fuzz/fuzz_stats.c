/*
 * fuzz_stats.c - libFuzzer target for the `stats` counter-dump parser
 * (plugins/stats/parse_stats.c): any text must give records or an error,
 * and every record must be a per-pexec value with a name and a finite value.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "../../plugins/stats/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_list l = REC_LIST_INIT;
	struct rec_sink s = rec_list_sink(&l);
	struct kerr e = KERR_INIT;
	int r = stats_parse_mem("fuzz", (const char *)data, size, &s, &e);
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].kind != REC_PEXEC || !*l.v[i].name || !isfinite(l.v[i].value))
			abort();
	if (r < 0 && !e.msg.len)
		abort();
	rec_list_clear(&l);
	kerr_release(&e);
	return 0;
}
