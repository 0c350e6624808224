/*
 * fuzz_fmt.h - what the fuzz targets of fmt.h's readers (fuzz_fmt_*.c)
 * check: any bytes give a dataset or a clean error that says what, and an
 * accepted dataset holds only finite, non-negative times, each key a
 * well-formed bench:vm:variant.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "fmt.h"

static int fuzz_fmt(const struct kiln_format *f, const uint8_t *data, size_t size)
{
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	f->sniff((const char *)data, size);
	if (f->read("fuzz", (const char *)data, size, &ds, &e) == 0) {
		for (size_t i = 0; i < ds.nkeys; i++) {
			const struct ds_key *k = &ds.keys[i];
			if (!*k->bench || !*k->vm || !*k->variant)
				abort();
			for (size_t p = 0; p < k->npexecs; p++)
				for (size_t j = 0; j < k->pexecs[p].n; j++)
					if (!isfinite(k->pexecs[p].wall[j]) || k->pexecs[p].wall[j] < 0)
						abort();
		}
	} else if (!e.msg.len) {
		abort();
	}
	ds_free(&ds);
	kerr_release(&e);
	return 0;
}
