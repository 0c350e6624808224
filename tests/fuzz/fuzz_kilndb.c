/*
 * fuzz_kilndb.c - libFuzzer target for reading a .kiln.db from elsewhere
 * (store_open's defensive open and schema check, store_load_dataset,
 * store_load_schedule in src/store.c): any bytes, as a file, must give a
 * dataset or a clean error, and what loads is also written out as every
 * report format, so odd names and values reach the writers.
 * Seeds: kiln-written files, one with a trigger, one with a view.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis.h"
#include "report.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64], wal[80], shm[80];
	if (!*path) {
		snprintf(path, sizeof(path), "/tmp/fuzz-kilndb.%d.kiln.db", (int)getpid());
		snprintf(wal, sizeof(wal), "%s-wal", path);
		snprintf(shm, sizeof(shm), "%s-shm", path);
		setenv("NO_COLOR", "1", 1);
	}
	unlink(wal); /* nothing of the last input may be read with this one */
	unlink(shm);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	if (store_load_dataset(path, &ds, &e) == 0) {
		struct store *st;
		struct schedule sc;
		if (store_open(path, 0, &st, &e) == 0) {
			if (store_load_schedule(st, &sc, &e) == 0)
				schedule_free(&sc);
			store_close(st);
		}
		struct an_opts o;
		an_opts_default(&o);
		o.resamples = 10;
		struct an_result r;
		if (an_analyse(&ds, &o, &r, &e) == 0) {
			FILE *null = fopen("/dev/null", "w");
			struct rep_opts ro = { 0, 1, NULL };
			for (int fmt = REP_TEXT; fmt <= REP_CSV; fmt++)
				if (fmt != REP_HTML) /* HTML runs gnuplot: covered by the e2e tests */
					rep_write(null, (enum rep_format)fmt, &ds, &r, &ro, &e);
			fclose(null);
			an_result_free(&r);
		}
	}
	ds_free(&ds);
	kerr_release(&e);
	unlink(path);
	unlink(wal);
	unlink(shm);
	return 0;
}
