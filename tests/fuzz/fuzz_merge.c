/*
 * fuzz_merge.c - libFuzzer target for what kiln merge reads (src/merge.c):
 * any bytes as a shard of a real cluster run (tests/fuzz/data/
 * merge-main.db, two shards r1-t0 and r1-t1 of four pexecs; the
 * seeds are those shards) are merged or refused, never merged twice or
 * into a pexec the main file did not give that shard, and the main file
 * then loads and reports.  What someone with write access to the
 * cluster's shared folder can put there.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis.h"
#include "merge.h"
#include "report.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct strbuf main_tmpl = STRBUF_INIT;

static long count(const char *path, const char *q)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = (long)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64], mainp[96], shard[128];
	if (!*dir) {
		struct kerr e = KERR_INIT;
		if (read_file("tests/fuzz/data/merge-main.db", &main_tmpl, &e) < 0) {
			fprintf(stderr, "fuzz_merge: %s (run from the source tree)\n", sb_str(&e.msg));
			abort();
		}
		snprintf(dir, sizeof(dir), "/tmp/fuzz-merge.%d", (int)getpid());
		snprintf(mainp, sizeof(mainp), "%s/exp.kiln.db", dir);
		snprintf(shard, sizeof(shard), "%s/exp.shards/r1-t0.kiln.db", dir);
		char *sd = xasprintf("%s/exp.shards", dir), *state = xasprintf("%s/state", dir);
		mkdir_p(sd, 0700);
		mkdir_p(state, 0700);
		setenv("KILN_STATE_DIR", state, 1);
		setenv("NO_COLOR", "1", 1);
		free(sd);
		free(state);
	}
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal", "-log" };
	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++) {
		char *a = xasprintf("%s%s", mainp, sfx[i]), *b = xasprintf("%s%s", shard, sfx[i]);
		unlink(a);
		unlink(b);
		free(a);
		free(b);
	}
	struct kerr e = KERR_INIT;
	if (write_file(mainp, main_tmpl.buf, main_tmpl.len, &e) < 0 || write_file(shard, data, size, &e) < 0)
		abort();
	struct store *st;
	if (store_open(mainp, 1, &st, &e) < 0 || store_lock(st, &e) < 0)
		abort(); /* the template is kiln's */
	struct merge_result mr;
	struct strvec paths = STRVEC_INIT;
	sv_push(&paths, shard);
	int r = merge_shards(st, &paths, &mr, &e);
	if (r == 0 && mr.n == 1 && mr.v[0].refused && !mr.v[0].why)
		abort(); /* a refusal says why */
	long merged = r == 0 && mr.n == 1 ? mr.v[0].merged : 0;
	merge_result_free(&mr);
	sv_clear(&paths);
	store_close(st);
	/*
	 * only the pexecs one shard (the one its meta names) was given, each
	 * once, all of them finished, and no other row of the main file's
	 */
	if (merged > 0) {
		if (count(mainp, "SELECT COUNT(DISTINCT shard) FROM cluster_assign WHERE merged = 1") != 1 ||
		    count(mainp, "SELECT COUNT(*) FROM pexecs p JOIN cluster_assign a ON a.pexec_id = p.id AND a.merged = 1 "
				 "WHERE p.status NOT IN ('ok','failed','timeout','tainted')") != 0 ||
		    count(mainp, "SELECT COUNT(*) FROM cluster_assign WHERE merged = 1") != merged ||
		    count(mainp, "SELECT COUNT(*) FROM pexecs") != 4 || count(mainp, "SELECT COUNT(*) FROM keys") != 2)
			abort();
		struct dataset ds = { 0 };
		struct kerr le = KERR_INIT;
		if (store_load_dataset(mainp, &ds, &le) == 0) {
			struct an_opts o;
			an_opts_default(&o);
			o.resamples = 10;
			struct an_result ar;
			if (an_analyse(&ds, &o, &ar, &le) == 0) {
				FILE *null = fopen("/dev/null", "w");
				struct rep_opts ro = { 0, 1, NULL };
				for (int fmt = REP_TEXT; fmt <= REP_CSV; fmt++)
					if (fmt != REP_HTML)
						rep_write(null, (enum rep_format)fmt, &ds, &ar, &ro, &le);
				fclose(null);
				an_result_free(&ar);
			}
		}
		ds_free(&ds);
		kerr_release(&le);
	}
	kerr_release(&e);
	return 0;
}
