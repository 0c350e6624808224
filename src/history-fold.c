/*
 * history-fold.c - a commit's results file into the history, and a run of
 * the history back out as a results file (docs/history.md: the tables of
 * a results file, per run).  The fold copies rows with SQL on an attached
 * file, renumbering pexec ids by an offset, then stores what kiln's warmup
 * analysis makes of each pexec and key, so that series are read without
 * analysing anything.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "dataset.h"
#include "history-int.h"
#include "store.h"

/* the pexecs columns the two files share, in order */
#define PEXEC_COLS "num, seq, status, attempts, wall_start_ns, duration_s, exit_status, signal, user_s, sys_s," \
		   " maxrss_kb, personality, error, stdout, stderr, instr_error, taint, env_hash, n_iter"
#define PEXEC_COLS_P "p.num, p.seq, p.status, p.attempts, p.wall_start_ns, p.duration_s, p.exit_status, p.signal," \
		     " p.user_s, p.sys_s, p.maxrss_kb, p.personality, p.error, p.stdout, p.stderr, p.instr_error," \
		     " p.taint, p.env_hash, p.n_iter"

/* run sql with ?1 = a, ?2 = b, ?3 = suffix (each bound when the statement has it) */
static int exec3(struct history *h, const char *sql, long a, long b, const char *suffix, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, sql, e);
	if (!st)
		return -1;
	int np = sqlite3_bind_parameter_count(st);
	if (np >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (np >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (np >= 3 && suffix)
		sqlite3_bind_text(st, 3, suffix, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : history_dberr(h, e, "fold");
}

static int attach(struct history *h, const char *path, const char *as, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, as[0] == 'r' ? "ATTACH ? AS r" : "ATTACH ? AS x", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : history_dberr(h, e, "attach");
}

static void detach(struct history *h, const char *as)
{
	sqlite3_exec(history_db(h), as[0] == 'r' ? "DETACH r" : "DETACH x", NULL, NULL, NULL);
}

/*
 * The rows of the attached results file `r` into run ?1, pexec ids offset
 * by ?2; only the keys whose VM name ends in ?3 (NULL: every key), stored
 * without that suffix: one A/B results file holds two runs, its VMs named
 * NAME.HASH8 after their commits.
 */
static const char *const fold_sql[] = {
	"DELETE FROM figures WHERE pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"DELETE FROM iterations WHERE pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"DELETE FROM series WHERE pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"DELETE FROM scalars WHERE pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"DELETE FROM events WHERE pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"DELETE FROM pexecs WHERE run_id=?1",
	"DELETE FROM programs WHERE run_id=?1",
	"DELETE FROM run_meta WHERE run_id=?1",
	"DELETE FROM audit WHERE run_id=?1",
	"DELETE FROM run_keys WHERE run_id=?1",
	"INSERT OR IGNORE INTO keys(bench, vm, variant) SELECT bench, CASE WHEN ?3 IS NULL THEN vm"
	" ELSE substr(vm, 1, length(vm) - length(?3)) END, variant FROM r.keys"
	" WHERE ?3 IS NULL OR (length(vm) > length(?3) AND substr(vm, -length(?3)) = ?3)",
	"DROP TABLE IF EXISTS temp.kmap",
	"CREATE TEMP TABLE kmap AS SELECT rk.id AS rid, k.id AS hid, rk.iterations AS iterations FROM r.keys rk"
	" JOIN main.keys k ON k.bench = rk.bench AND k.variant = rk.variant AND k.vm = CASE WHEN ?3 IS NULL"
	" THEN rk.vm ELSE substr(rk.vm, 1, length(rk.vm) - length(?3)) END"
	" WHERE ?3 IS NULL OR (length(rk.vm) > length(?3) AND substr(rk.vm, -length(?3)) = ?3)",
	"INSERT INTO pexecs(id, run_id, key_id, " PEXEC_COLS ") SELECT ?2 + p.id, ?1, m.hid, " PEXEC_COLS_P
	" FROM r.pexecs p JOIN temp.kmap m ON m.rid = p.key_id WHERE p.status NOT IN ('pending', 'running')",
	"INSERT INTO iterations(pexec_id, n, wall, counter_names, counters, clock, unavailable)"
	" SELECT ?2 + i.pexec_id, i.n, i.wall, i.counter_names, i.counters, i.clock, i.unavailable FROM r.iterations i"
	" WHERE ?2 + i.pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"INSERT INTO series(pexec_id, name, unit, vals) SELECT ?2 + s.pexec_id, s.name, s.unit, s.vals FROM r.series s"
	" WHERE ?2 + s.pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"INSERT INTO scalars(pexec_id, name, unit, value) SELECT ?2 + s.pexec_id, s.name, s.unit, s.value"
	" FROM r.scalars s WHERE ?2 + s.pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"INSERT INTO events(pexec_id, name, start_ns, end_ns) SELECT ?2 + v.pexec_id, v.name, v.start_ns, v.end_ns"
	" FROM r.events v WHERE ?2 + v.pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)",
	"INSERT INTO programs(run_id, key_id, hash, seq, description, setting, since)"
	" SELECT ?1, m.hid, g.hash, g.seq, g.description, g.setting, g.since FROM r.programs g"
	" JOIN temp.kmap m ON m.rid = g.key_id",
	"INSERT INTO run_meta(run_id, name, value) SELECT ?1, name, value FROM r.meta",
	"INSERT INTO audit(run_id, name, value) SELECT ?1, name, value FROM r.audit",
	"INSERT INTO run_keys(run_id, key_id, iterations) SELECT ?1, hid, iterations FROM temp.kmap",
	"DROP TABLE temp.kmap",
};

/* the history's pexec id of pexec num of key k in run_id, 0: none */
static long pexec_id(sqlite3_stmt *find, long run_id, const struct ds_key *k, long num)
{
	sqlite3_reset(find);
	sqlite3_bind_int64(find, 1, run_id);
	sqlite3_bind_text(find, 2, k->bench, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(find, 3, k->vm, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(find, 4, k->variant, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(find, 5, num);
	return sqlite3_step(find) == SQLITE_ROW ? (long)sqlite3_column_int64(find, 0) : 0;
}

static void bind_opt_long(sqlite3_stmt *st, int col, long v, int ok)
{
	if (ok)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

/* one key's figures: a row per analysed pexec */
static int put_pexec_figures(struct history *h, sqlite3_stmt *find, sqlite3_stmt *ins, long run_id,
			     const struct ds_key *dk, const struct an_key *ak, struct kerr *e)
{
	for (size_t i = 0; i < ak->np; i++) {
		const struct an_pexec *ap = &ak->p[i];
		const struct ds_pexec *dp = &dk->pexecs[ap->index];
		long id = pexec_id(find, run_id, dk, dp->num);
		if (!id)
			continue;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_text(ins, 2, an_class_name(ap->cls), -1, SQLITE_STATIC);
		bind_opt_long(ins, 3, ap->steady_iter, ap->steady_iter >= 0);
		history_bind_double(ins, 4, ap->time_to_steady);
		history_bind_double(ins, 5, ap->steady_mean);
		history_bind_double(ins, 6, ap->warmup_cost);
		sqlite3_bind_int64(ins, 7, ap->warn);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return history_dberr(h, e, "figures");
	}
	return 0;
}

/* the key's row of run_keys: its analysis as kiln report gives it */
static int put_key_figures(struct history *h, sqlite3_stmt *upd, long run_id, const struct ds_key *dk,
			   const struct an_key *ak, struct kerr *e)
{
	sqlite3_reset(upd);
	sqlite3_bind_text(upd, 1, an_class_name(ak->cls), -1, SQLITE_STATIC);
	sqlite3_bind_int64(upd, 2, (long)ak->np);
	for (int c = 0; c < AN_NPCLASS; c++)
		sqlite3_bind_int64(upd, 3 + c, (long)ak->counts[c]);
	history_bind_double(upd, 7, ak->has_steady ? ak->perf_med : NAN);
	history_bind_double(upd, 8, ak->has_steady ? ak->perf_lo : NAN);
	history_bind_double(upd, 9, ak->has_steady ? ak->perf_hi : NAN);
	history_bind_double(upd, 10, ak->has_steady ? ak->tts_med : NAN);
	history_bind_double(upd, 11, ak->has_steady ? ak->tts_p5 : NAN);
	history_bind_double(upd, 12, ak->has_steady ? ak->tts_p95 : NAN);
	sqlite3_bind_int64(upd, 13, ak->warn);
	sqlite3_bind_int64(upd, 14, run_id);
	sqlite3_bind_text(upd, 15, dk->bench, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(upd, 16, dk->vm, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(upd, 17, dk->variant, -1, SQLITE_TRANSIENT);
	return sqlite3_step(upd) == SQLITE_DONE ? 0 : history_dberr(h, e, "run_keys");
}

int history_clock_cpu(struct history *h)
{
	char *v = NULL;
	history_meta_get(h, "clock", &v);
	int cpu = v && !strcmp(v, "cpu");
	free(v);
	return cpu;
}

void history_clock_key(const struct ds_key *k, int cpu, struct ds_key *out)
{
	*out = *k;
	if (!cpu)
		return;
	out->pexecs = xcalloc(k->npexecs + 1, sizeof(*out->pexecs));
	out->npexecs = 0;
	for (size_t i = 0; i < k->npexecs; i++) {
		const struct ds_pexec *p = &k->pexecs[i];
		const struct ds_series *c = ds_find_series(p, "cpu.time");
		int ok = c && c->n == p->n && p->n > 0;
		for (size_t j = 0; ok && j < c->n; j++)
			ok = isfinite(c->v[j]) && c->v[j] > 0;
		if (!ok)
			continue; /* no CPU time for each iteration: not analysed on this clock */
		struct ds_pexec *q = &out->pexecs[out->npexecs++];
		*q = *p;
		q->wall = c->v; /* borrowed */
	}
}

void history_clock_release(struct ds_key *out, int cpu)
{
	if (cpu)
		free(out->pexecs);
}

/* every key of ds (whose VM ends in suffix, without it) analysed with o, into figures and run_keys of run_id */
static int put_figures(struct history *h, long run_id, const struct dataset *ds, const char *suffix,
		       const struct an_opts *o, struct kerr *e)
{
	sqlite3_stmt *find = history_prepare(h, "SELECT p.id FROM pexecs p JOIN keys k ON k.id = p.key_id WHERE"
					       " p.run_id=? AND k.bench=? AND k.vm=? AND k.variant=? AND p.num=?", e);
	sqlite3_stmt *ins = history_prepare(h, "INSERT OR REPLACE INTO figures(pexec_id, class, steady_iter,"
					      " time_to_steady, steady_mean, warmup_cost, warn) VALUES(?,?,?,?,?,?,?)", e);
	sqlite3_stmt *upd = history_prepare(h, "UPDATE run_keys SET class=?1, n_ok=?2, n_flat=?3, n_warmup=?4,"
					      " n_slowdown=?5, n_nosteady=?6, steady_mean=?7, steady_lo=?8, steady_hi=?9,"
					      " tts_med=?10, tts_p5=?11, tts_p95=?12, warn=?13,"
					      " program=(SELECT CASE WHEN COUNT(DISTINCT p.env_hash) = 1 THEN MAX(p.env_hash) END"
					      "  FROM pexecs p WHERE p.run_id=?14 AND p.key_id=run_keys.key_id)"
					      " WHERE run_id=?14 AND key_id=(SELECT id FROM keys WHERE bench=?15 AND vm=?16"
					      " AND variant=?17)", e);
	int r = find && ins && upd ? 0 : -1, cpu = history_clock_cpu(h);
	for (size_t k = 0; r == 0 && k < ds->nkeys; k++) {
		struct ds_key dk;
		history_clock_key(&ds->keys[k], cpu, &dk);
		size_t vl = strlen(dk.vm), sl = suffix ? strlen(suffix) : 0;
		if (suffix && (vl <= sl || strcmp(dk.vm + vl - sl, suffix)))
			continue;
		char *name = xstrndup(dk.vm, vl - sl);
		dk.vm = name;
		struct an_key ak;
		memset(&ak, 0, sizeof(ak));
		an_analyse_key(&dk, o, &ak);
		r = put_pexec_figures(h, find, ins, run_id, &dk, &ak, e);
		if (r == 0)
			r = put_key_figures(h, upd, run_id, &dk, &ak, e);
		an_key_free(&ak);
		free(name);
		history_clock_release(&dk, cpu);
	}
	sqlite3_finalize(find);
	sqlite3_finalize(ins);
	sqlite3_finalize(upd);
	return r;
}

static long max_pexec_id(struct history *h)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT COALESCE(MAX(id), 0) FROM pexecs", NULL);
	long v = st && sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return v;
}

int history_fold(struct history *h, long run_id, const char *results, const struct an_opts *o, struct kerr *e)
{
	return history_fold_suffix(h, run_id, results, NULL, o, e);
}

int history_fold_suffix(struct history *h, long run_id, const char *results, const char *suffix,
			const struct an_opts *o, struct kerr *e)
{
	/* read through kiln's own checks first: the dataset the analysis needs, and a file kiln's schema */
	struct dataset ds;
	if (store_load_dataset(results, &ds, e) < 0)
		return -1;
	int r = attach(h, results, "r", e);
	if (r < 0) {
		ds_free(&ds);
		return -1;
	}
	r = history_exec(h, "BEGIN IMMEDIATE", e);
	long base = max_pexec_id(h);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(fold_sql); i++)
		r = exec3(h, fold_sql[i], run_id, base, suffix, e);
	if (r == 0)
		r = put_figures(h, run_id, &ds, suffix, o, e);
	if (r == 0) {
		char oh[65];
		an_opts_hash(o, oh);
		r = history_meta_set(h, "analysis", oh, e);
	}
	if (r == 0)
		r = history_exec(h, "COMMIT", e);
	else
		sqlite3_exec(history_db(h), "ROLLBACK", NULL, NULL, NULL);
	detach(h, "r");
	ds_free(&ds);
	return r;
}

/*
 * Every run's figures made again with o (and the history's clock): after
 * the analysis changed, or `kiln track --reanalyse --clock`.  One
 * transaction; returns how many runs, or -1 (nothing changed).
 */
long history_refigure(struct history *h, const struct an_opts *o, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT DISTINCT run_id FROM pexecs ORDER BY run_id", e);
	if (!st)
		return -1;
	long *ids = NULL, n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		ids = xrealloc(ids, (size_t)(n + 1) * sizeof(long));
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	/* one transaction for them all: one flush, not one a run (200 runs: 30 s of flushes on a busy disk) */
	long done = 0;
	int r = history_exec(h, "BEGIN IMMEDIATE", e);
	for (long i = 0; r == 0 && i < n; i++) {
		struct dataset ds;
		r = history_load_run(h, ids[i], &ds, e);
		if (r == 0)
			r = exec3(h, "DELETE FROM figures WHERE pexec_id IN (SELECT id FROM pexecs WHERE run_id=?1)", ids[i], 0,
				  NULL, e);
		if (r == 0)
			r = put_figures(h, ids[i], &ds, NULL, o, e);
		ds_free(&ds);
		done += r == 0;
	}
	char oh[65];
	an_opts_hash(o, oh);
	if (r == 0)
		r = history_meta_set(h, "analysis", oh, e);
	if (r == 0)
		r = history_exec(h, "COMMIT", e);
	else
		sqlite3_exec(history_db(h), "ROLLBACK", NULL, NULL, NULL);
	free(ids);
	return r < 0 ? -1 : done;
}

/* ---- out again ---- */

/*
 * A run's rows from the attached history `h` into the results file's own
 * tables: run on the results file's connection, so that a history open
 * read-only (a reader: publish, --changes) can be exported from.
 */
static const char *const export_sql[] = {
	"INSERT INTO main.meta(name, value) SELECT name, value FROM h.run_meta WHERE run_id=?1",
	"INSERT INTO main.keys(id, bench, vm, variant, iterations) SELECT k.id, k.bench, k.vm, k.variant,"
	" COALESCE(rk.iterations, 1) FROM h.run_keys rk JOIN h.keys k ON k.id = rk.key_id WHERE rk.run_id=?1",
	"INSERT INTO main.pexecs(id, key_id, " PEXEC_COLS ") SELECT p.id, p.key_id, " PEXEC_COLS_P
	" FROM h.pexecs p WHERE p.run_id=?1",
	"INSERT INTO main.iterations SELECT i.* FROM h.iterations i JOIN h.pexecs p ON p.id = i.pexec_id WHERE p.run_id=?1",
	"INSERT INTO main.series SELECT s.* FROM h.series s JOIN h.pexecs p ON p.id = s.pexec_id WHERE p.run_id=?1",
	"INSERT INTO main.scalars SELECT s.* FROM h.scalars s JOIN h.pexecs p ON p.id = s.pexec_id WHERE p.run_id=?1",
	"INSERT INTO main.events SELECT v.* FROM h.events v JOIN h.pexecs p ON p.id = v.pexec_id WHERE p.run_id=?1",
	"INSERT INTO main.programs(key_id, hash, seq, description, setting, since) SELECT key_id, hash, seq,"
	" description, setting, since FROM h.programs WHERE run_id=?1",
	"INSERT INTO main.audit(name, value) SELECT name, value FROM h.audit WHERE run_id=?1",
};

static int export_rows(sqlite3 *db, const char *hist, long run_id, const char *path, struct kerr *e)
{
	sqlite3_stmt *st = NULL;
	int r = 0;
	if (sqlite3_prepare_v2(db, "ATTACH ? AS h", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, hist, -1, SQLITE_TRANSIENT) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
		r = -1;
	sqlite3_finalize(st);
	r = r < 0 ? -1 : sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(export_sql); i++) {
		if (sqlite3_prepare_v2(db, export_sql[i], -1, &st, NULL) != SQLITE_OK) {
			r = -1;
			break;
		}
		sqlite3_bind_int64(st, 1, run_id);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	if (r < 0)
		kerr_setc(e, KEXIT_STORE, "%s: writing run %ld: %s", path, run_id, esc(ESC_TERM, sqlite3_errmsg(db)));
	sqlite3_exec(db, r == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(db, "DETACH h", NULL, NULL, NULL);
	return r;
}

/* the run into a new results file at path; scratch: a file read once and removed, never flushed */
static int export_run(struct history *h, long run_id, const char *path, int scratch, struct kerr *e)
{
	if (file_exists(path))
		return kerr_setc(e, KEXIT_USAGE, "%s: already there (kiln writes a new results file)", path);
	struct store *s;
	if (store_open(path, 1, &s, e) < 0)
		return -1;
	if (scratch)
		sqlite3_exec(store_db(s), "PRAGMA synchronous=OFF", NULL, NULL, NULL);
	char *hist = abspath(history_path(h));
	int r = export_rows(store_db(s), hist, run_id, path, e);
	free(hist);
	store_close(s);
	if (r < 0)
		unlink(path);
	return r;
}

int history_export_run(struct history *h, long run_id, const char *path, struct kerr *e)
{
	return export_run(h, run_id, path, 0, e);
}

int history_load_run(struct history *h, long run_id, struct dataset *ds, struct kerr *e)
{
	memset(ds, 0, sizeof(*ds));
	char tmpl[] = "/tmp/kiln-run.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir)
		return kerr_setc(e, KEXIT_FAIL, "a scratch folder for run %ld: %s", run_id, strerror(errno));
	char *path = path_join(dir, "run.kiln.db");
	int r = export_run(h, run_id, path, 1, e);
	if (r == 0)
		r = store_load_dataset(path, ds, e);
	rm_rf(dir);
	free(path);
	return r;
}
