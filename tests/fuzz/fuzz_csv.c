/*
 * fuzz_csv.c - libFuzzer target for the warmup_stats CSV reader
 * (src/import.c): any bytes must give a dataset or a clean error, and an
 * accepted dataset must hold only finite, non-negative times.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	if (imp_csv_buf("fuzz.csv", (const char *)data, size, &ds, &e) == 0) {
		for (size_t i = 0; i < ds.nkeys; i++)
			for (size_t p = 0; p < ds.keys[i].npexecs; p++)
				for (size_t j = 0; j < ds.keys[i].pexecs[p].n; j++)
					if (!isfinite(ds.keys[i].pexecs[p].wall[j]) || ds.keys[i].pexecs[p].wall[j] < 0)
						abort();
	}
	ds_free(&ds);
	kerr_release(&e);
	return 0;
}
