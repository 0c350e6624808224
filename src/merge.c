/*
 * merge.c - shards back into the main results file (see merge.h).
 *
 * Each shard is ATTACHed to the main file's connection as `s` and checked
 * before anything is read from it as data: SQLite's own check, kiln's
 * schema and nothing else (store_check_attached: a shard is a file from
 * another machine, and a view named `pexecs` could show rows that are not
 * there), then its identity, config, schedule and the pexecs it holds.  The copy is column by column for every column
 * the main file's tables have and the shard's have too, so a column a later
 * kiln adds (a provenance hash) is carried without a change here.
 */
#include "merge.h"

#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefs.h"
#include "shard.h"

/* what every shard is checked against */
struct merge_ctx {
	sqlite3 *db;
	const char *results;
	char *config_hash, *cluster_id, *name;
	char schedule_hash[65];
};

/* per-pexec columns that must agree with the key's first pexec (provenance) */
static const char *const provenance_cols[] = { "env_hash" };
/* the tables holding a pexec's measurements, keyed by pexec_id */
static const char *const data_tables[] = { "iterations", "series", "scalars", "events" };
#define FINISHED "('ok','failed','timeout','tainted')"

static int db_error(struct merge_ctx *cx, struct kerr *e, const char *what)
{
	return kerr_setc(e, KEXIT_STORE, "%s: merge: %s: %s", cx->results, what, sqlite3_errmsg(cx->db));
}

/* prepare q and bind the texts given (NULL-terminated); NULL on error */
static sqlite3_stmt *prep(sqlite3 *db, const char *q, const char *const *binds)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	for (int i = 0; binds && binds[i]; i++)
		sqlite3_bind_text(st, i + 1, binds[i], -1, SQLITE_TRANSIENT);
	return st;
}

/* the first column of the first row, as text (NULL: none) */
static char *one_text(sqlite3 *db, const char *q, const char *const *binds)
{
	sqlite3_stmt *st = prep(db, q, binds);
	char *v = NULL;
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* the first column of the first row, as a number; -1 on error */
static long one_long(sqlite3 *db, const char *q, const char *const *binds)
{
	sqlite3_stmt *st = prep(db, q, binds);
	long v = -1;
	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* run q with binds to completion; 0 or -1 */
static int run(sqlite3 *db, const char *q, const char *const *binds)
{
	sqlite3_stmt *st = prep(db, q, binds);
	int r = st && sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return r;
}

/* does schema.table have this column? */
static int has_col(sqlite3 *db, const char *schema, const char *table, const char *col)
{
	char *q = xasprintf("SELECT COUNT(*) FROM pragma_table_info('%s', '%s') WHERE name=?1", table, schema);
	const char *b[] = { col, NULL };
	long n = one_long(db, q, b);
	free(q);
	return n > 0;
}

/* the columns of main.TABLE that s.TABLE has too, but not those in skip, as a quoted list */
static void common_cols(sqlite3 *db, const char *table, const char *const *skip, size_t nskip, struct strbuf *out)
{
	char *q = xasprintf("SELECT name FROM pragma_table_info('%s', 'main') ORDER BY cid", table);
	sqlite3_stmt *st = prep(db, q, NULL);
	free(q);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		int skipped = 0;
		for (size_t i = 0; i < nskip; i++)
			skipped |= !strcmp(c, skip[i]);
		if (!skipped && has_col(db, "s", table, c))
			sb_addf(out, "%s\"%s\"", out->len ? ", " : "", c);
	}
	sqlite3_finalize(st);
}

KILN_PRINTF(3, 4)
static void refuse(struct merge_shard *ms, int code, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	ms->refused = code;
	ms->merged = 0; /* a refused shard merges nothing (its transaction is rolled back) */
	free(ms->why);
	ms->why = sb_detach(&sb);
}

/* is the attached file a results file kiln wrote, and a shard of ours? 0 or refused */
static int check_identity(struct merge_ctx *cx, struct store *main, struct merge_shard *ms)
{
	sqlite3 *db = cx->db;
	char *ok = one_text(db, "PRAGMA s.quick_check", NULL);
	int good = ok && !strcmp(ok, "ok");
	free(ok);
	if (!good) {
		refuse(ms, KEXIT_STORE, "not a kiln results file, or damaged (%s)", sqlite3_errmsg(db));
		return -1;
	}
	/* kiln's schema and nothing else (no view, no trigger), as store_open checks a results file */
	struct kerr se = KERR_INIT;
	if (store_check_attached(main, "s", ms->path, &se) < 0 ||
	    one_long(db, "SELECT COUNT(*) FROM s.sqlite_master WHERE type='table' AND name IN ('meta','keys','pexecs')",
		     NULL) != 3) {
		refuse(ms, KEXIT_STORE, "not a shard kiln wrote: %s", se.msg.len ? se.msg.buf : "tables missing");
		kerr_release(&se);
		return -1;
	}
	kerr_release(&se);
	char *hash = one_text(db, "SELECT value FROM s.meta WHERE name='config_hash'", NULL);
	char *of = one_text(db, "SELECT value FROM s.meta WHERE name='shard_of'", NULL);
	char *name = one_text(db, "SELECT value FROM s.meta WHERE name='shard'", NULL);
	char *sched = one_text(db, "SELECT value FROM s.meta WHERE name='schedule_hash'", NULL);
	char *exp = one_text(db, "SELECT value FROM s.meta WHERE name='name'", NULL);
	const char *b[] = { name ? name : "", NULL };
	if (!hash || strcmp(hash, cx->config_hash))
		refuse(ms, KEXIT_CONFIG, "from another config: experiment '%s', config sha256 %.12s, where %s holds '%s', "
		       "config sha256 %.12s", exp ? exp : "?", hash ? hash : "(none)", cx->results, cx->name, cx->config_hash);
	else if (!of || !name)
		refuse(ms, KEXIT_CONFIG, "a results file of the same config, but not a shard (no shard name)");
	else if (strcmp(of, cx->cluster_id))
		refuse(ms, KEXIT_CONFIG, "a shard of another results file of this config (cluster id %.12s, not %.12s)", of,
		       cx->cluster_id);
	else if (one_long(db, "SELECT COUNT(*) FROM main.cluster_shards WHERE name=?1", b) != 1)
		refuse(ms, KEXIT_CONFIG, "%s never made a shard named '%s'", cx->results, name);
	else if (!sched || strcmp(sched, cx->schedule_hash))
		refuse(ms, KEXIT_CONFIG, "made from another schedule (sha256 %.12s, %s's is %.12s)", sched ? sched : "?",
		       cx->results, cx->schedule_hash);
	if (!ms->refused) {
		free(ms->name);
		ms->name = xstrdup(name);
		ms->machine = one_text(db, "SELECT value FROM s.meta WHERE name='machine'", NULL);
	}
	free(hash);
	free(of);
	free(name);
	free(sched);
	free(exp);
	return ms->refused ? -1 : 0;
}

/* every key and pexec row as in the main file, and every pexec given to this shard */
static int check_rows(struct merge_ctx *cx, struct merge_shard *ms)
{
	sqlite3 *db = cx->db;
	const char *b[] = { ms->name, NULL };
	long badkeys = one_long(db, "SELECT COUNT(*) FROM s.keys x LEFT JOIN main.keys k ON k.id = x.id WHERE k.id IS NULL"
				" OR k.bench IS NOT x.bench OR k.vm IS NOT x.vm OR k.variant IS NOT x.variant"
				" OR k.iterations IS NOT x.iterations", NULL);
	long badrows = one_long(db, "SELECT COUNT(*) FROM s.pexecs x LEFT JOIN main.pexecs p ON p.id = x.id"
				" LEFT JOIN main.cluster_assign a ON a.pexec_id = x.id AND a.shard = ?1"
				" WHERE p.id IS NULL OR a.shard IS NULL OR p.key_id IS NOT x.key_id OR p.num IS NOT x.num"
				" OR p.seq IS NOT x.seq", b);
	if (badkeys != 0)
		refuse(ms, KEXIT_CONFIG, "its keys are not %s's", cx->results);
	else if (badrows != 0)
		refuse(ms, KEXIT_CONFIG, "holds %ld pexec(s) that %s did not give it", badrows, cx->results);
	return ms->refused ? -1 : 0;
}

/*
 * Provenance: a pexec to merge (not tainted) must have run a program its
 * key is known by in the main file (that a pexec of it there ran, or that
 * kiln run recorded, --force included), or, where the main file knows the
 * key by none yet, the program of the key's first pexec in this shard:
 * else two programs would be pooled in one key.  A shard of a round
 * submitted with --force takes a new program, kept apart as a local
 * --force keeps it (its program copied, numbered after the main file's).
 */
static int check_provenance(struct merge_ctx *cx, struct merge_shard *ms)
{
	char *round = ms->name ? xasprintf("cluster_force_round_%ld", one_long(cx->db, "SELECT round FROM"
					   " main.cluster_shards WHERE name=?1", (const char *const[]){ ms->name, NULL }))
			       : NULL;
	int forced = round && one_long(cx->db, "SELECT COUNT(*) FROM main.meta WHERE name=?1 AND value='1'",
				       (const char *const[]){ round, NULL }) > 0;
	free(round);
	if (forced)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(provenance_cols); i++) {
		const char *c = provenance_cols[i];
		if (!has_col(cx->db, "main", "pexecs", c) || !has_col(cx->db, "s", "pexecs", c))
			continue;
		char *q = xasprintf(
			"WITH known AS (SELECT key_id, \"%s\" AS v FROM main.pexecs WHERE status IN " FINISHED
			" AND \"%s\" IS NOT NULL UNION SELECT key_id, hash FROM main.programs)"
			" SELECT k.bench || ':' || k.vm || ':' || k.variant, COUNT(*) FROM s.pexecs x"
			" JOIN main.keys k ON k.id = x.key_id WHERE x.id IN (SELECT id FROM temp.kiln_merge)"
			" AND x.status != 'tainted' AND CASE WHEN EXISTS (SELECT 1 FROM known WHERE key_id = x.key_id)"
			" THEN NOT EXISTS (SELECT 1 FROM known WHERE key_id = x.key_id AND v = x.\"%s\")"
			" ELSE x.\"%s\" IS NOT (SELECT y.\"%s\" FROM s.pexecs y WHERE y.key_id = x.key_id AND y.id IN"
			" (SELECT id FROM temp.kiln_merge) AND y.\"%s\" IS NOT NULL ORDER BY y.seq LIMIT 1) END"
			" GROUP BY x.key_id LIMIT 1",
			c, c, c, c, c, c);
		sqlite3_stmt *st = prep(cx->db, q, NULL);
		free(q);
		if (!st)
			return db_error(cx, NULL, "provenance");
		if (sqlite3_step(st) == SQLITE_ROW)
			refuse(ms, KEXIT_CONFIG, "%lld pexec(s) of %s ran a program %s does not know the key by (%s differs: "
			       "the nodes ran another program: its VM, libraries, files, argv, env or limits; "
			       "docs/provenance.md); `kiln run CONFIG --slurm --force` gives them out again and keeps "
			       "the new program's pexecs apart", (long long)sqlite3_column_int64(st, 1),
			       sqlite3_column_text(st, 0), cx->results, c);
		sqlite3_finalize(st);
		if (ms->refused)
			return -1;
	}
	return 0;
}

/* the task's own record, kept in the main file's audit beside the shard's */
static int keep_audit(struct merge_ctx *cx, struct merge_shard *ms)
{
	sqlite3 *db = cx->db;
	const char *b[] = { ms->name, NULL };
	if (run(db, "INSERT OR REPLACE INTO main.audit(name, value) SELECT 'shard:' || ?1 || ':' || name, value"
		" FROM s.audit", b) < 0 && one_long(db, "SELECT COUNT(*) FROM s.sqlite_master WHERE name='audit'", NULL) > 0)
		return -1;
	json_t *task = json_object();
	static const char *const meta[] = { "machine", "task_job", "task_array_job", "task_index", "task_started",
					    "task_ended", "task_exit", "task_error", "task_restarts", "kiln_build" };
	for (size_t i = 0; i < ARRAY_SIZE(meta); i++) {
		const char *mb[] = { meta[i], NULL };
		char *v = one_text(db, "SELECT value FROM s.meta WHERE name=?1", mb);
		if (v)
			json_object_set_new(task, meta[i], json_string(v));
		free(v);
	}
	char *txt = json_dumps(task, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(task);
	char *name = xasprintf("shard:%s:task", ms->name);
	const char *tb[] = { name, txt ? txt : "{}", NULL };
	int r = run(db, "INSERT OR REPLACE INTO main.audit(name, value) VALUES(?1, ?2)", tb);
	free(name);
	free(txt);
	return r;
}

/*
 * The programs (provenance.h) the merged pexecs ran, those the main file
 * lacks, numbered after its own (a shard numbers its programs from 1): a
 * pexec's env_hash must name a program of its key in the file that holds
 * it, or readers take it for one recorded by an older kiln.
 */
static int copy_programs(sqlite3 *db)
{
	const char *tb[] = { "programs", NULL };
	if (one_long(db, "SELECT COUNT(*) FROM s.sqlite_master WHERE type='table' AND name=?1", tb) != 1)
		return 0;
	return run(db, "INSERT OR IGNORE INTO main.programs(key_id, hash, seq, description, setting, since)"
		   " SELECT g.key_id, g.hash, g.seq + (SELECT COALESCE(MAX(seq), 0) FROM main.programs m"
		   " WHERE m.key_id = g.key_id), g.description, g.setting, g.since FROM s.programs g"
		   " WHERE EXISTS (SELECT 1 FROM temp.kiln_merge t JOIN s.pexecs x ON x.id = t.id"
		   " WHERE x.key_id = g.key_id AND x.env_hash = g.hash)"
		   " AND NOT EXISTS (SELECT 1 FROM main.programs m WHERE m.key_id = g.key_id AND m.hash = g.hash)", NULL);
}

/* copy the pexecs listed in temp.kiln_merge, whole, from s into main */
static int copy_pexecs(struct merge_ctx *cx, struct merge_shard *ms)
{
	sqlite3 *db = cx->db;
	static const char *const ident[] = { "id", "key_id", "num", "seq" };
	struct strbuf cols = STRBUF_INIT;
	common_cols(db, "pexecs", ident, ARRAY_SIZE(ident), &cols);
	char *q = xasprintf("UPDATE main.pexecs AS p SET (%s) = (SELECT %s FROM s.pexecs AS x WHERE x.id = p.id)"
			    " WHERE p.id IN (SELECT id FROM temp.kiln_merge)", cols.buf, cols.buf);
	int r = run(db, q, NULL);
	free(q);
	for (size_t t = 0; r == 0 && t < ARRAY_SIZE(data_tables); t++) {
		const char *tb[] = { data_tables[t], NULL };
		sb_reset(&cols);
		q = xasprintf("DELETE FROM main.\"%s\" WHERE pexec_id IN (SELECT id FROM temp.kiln_merge)", data_tables[t]);
		r = run(db, q, NULL);
		free(q);
		if (r < 0 || one_long(db, "SELECT COUNT(*) FROM s.sqlite_master WHERE type='table' AND name=?1", tb) != 1)
			continue;
		common_cols(db, data_tables[t], NULL, 0, &cols);
		q = xasprintf("INSERT INTO main.\"%s\"(%s) SELECT %s FROM s.\"%s\" WHERE pexec_id IN"
			      " (SELECT id FROM temp.kiln_merge)", data_tables[t], cols.buf, cols.buf, data_tables[t]);
		r = run(db, q, NULL);
		free(q);
	}
	sb_release(&cols);
	if (r == 0)
		r = copy_programs(db);
	const char *b[] = { ms->name, ms->machine ? ms->machine : "unknown", NULL };
	if (r == 0)
		r = run(db, "INSERT OR REPLACE INTO main.origins(pexec_id, machine, shard) SELECT id, ?2, ?1"
			" FROM temp.kiln_merge", b);
	if (r == 0)
		r = run(db, "UPDATE main.cluster_assign SET merged = 1 WHERE shard = ?1 AND pexec_id IN"
			" (SELECT id FROM temp.kiln_merge)", b);
	return r;
}

/* what this shard holds for the main file: to copy (temp.kiln_merge), duplicates, counts */
static int sort_pexecs(struct merge_ctx *cx, struct merge_shard *ms)
{
	sqlite3 *db = cx->db;
	const char *b[] = { ms->name, NULL };
	if (run(db, "DELETE FROM temp.kiln_merge", NULL) < 0 ||
	    run(db, "INSERT INTO temp.kiln_merge(id) SELECT x.id FROM s.pexecs x JOIN main.pexecs p ON p.id = x.id"
		" JOIN main.cluster_assign a ON a.pexec_id = x.id AND a.shard = ?1 WHERE a.merged = 0 AND x.status IN "
		FINISHED " AND p.status IN ('pending','running')", b) < 0)
		return -1;
	ms->merged = one_long(db, "SELECT COUNT(*) FROM temp.kiln_merge", NULL);
	ms->before = one_long(db, "SELECT COUNT(*) FROM main.cluster_assign WHERE shard = ?1 AND merged = 1", b);
	ms->unfinished = one_long(db, "SELECT COUNT(*) FROM s.pexecs WHERE status NOT IN " FINISHED, NULL);
	/* run twice (a local run meanwhile): the main file's stays, this one is not merged */
	ms->duplicates = one_long(db, "SELECT COUNT(*) FROM s.pexecs x JOIN main.pexecs p ON p.id = x.id"
				  " JOIN main.cluster_assign a ON a.pexec_id = x.id AND a.shard = ?1 WHERE a.merged = 0"
				  " AND x.status IN " FINISHED " AND p.status IN " FINISHED, b);
	if (ms->duplicates > 0 &&
	    run(db, "UPDATE main.cluster_assign SET merged = 2 WHERE shard = ?1 AND merged = 0 AND pexec_id IN"
		" (SELECT x.id FROM s.pexecs x JOIN main.pexecs p ON p.id = x.id WHERE x.status IN " FINISHED
		" AND p.status IN " FINISHED ")", b) < 0)
		return -1;
	return ms->merged < 0 || ms->unfinished < 0 || ms->duplicates < 0 ? -1 : 0;
}

/* one shard, attached as s, in one transaction of the main file */
static int merge_attached(struct merge_ctx *cx, struct store *main, struct merge_shard *ms, struct kerr *e)
{
	sqlite3 *db = cx->db;
	if (check_identity(cx, main, ms) < 0 || check_rows(cx, ms) < 0)
		return 0;
	if (run(db, "BEGIN IMMEDIATE", NULL) < 0)
		return db_error(cx, e, "begin");
	int r = sort_pexecs(cx, ms);
	if (r == 0 && check_provenance(cx, ms) < 0) {
		run(db, "ROLLBACK", NULL);
		return ms->refused ? 0 : db_error(cx, e, "provenance");
	}
	if (r == 0 && ms->merged > 0)
		r = copy_pexecs(cx, ms);
	if (r == 0)
		r = keep_audit(cx, ms);
	if (r == 0 && run(db, "COMMIT", NULL) == 0)
		return 0;
	db_error(cx, e, ms->name);
	run(db, "ROLLBACK", NULL);
	return -1;
}

/*
 * A shard and its pexec log lie on a filesystem the cluster's nodes write:
 * kiln never opens them there with SQLite (a link to another results file
 * would have its log folded into that file, as root).  They are copied
 * first, each opened without following a link and only as a regular file,
 * into a folder of kiln's own, and the copy is folded and merged.
 */
static char *private_copy(struct merge_shard *ms, char **dirp)
{
	static const char *const sfx[] = { "", "-log", "-wal" };
	struct kerr e = KERR_INIT;
	char *base = sfs_state_path("merge", 0700, &e);
	char *dir = base ? xasprintf("%s/shard.XXXXXX", base) : NULL;
	free(base);
	if (!dir || !mkdtemp(dir)) {
		refuse(ms, KEXIT_STORE, "no private folder to read it in: %s", dir ? strerror(errno) : sb_str(&e.msg));
		free(dir);
		kerr_release(&e);
		return NULL;
	}
	char *from = path_dirname(ms->path);
	const char *name = strrchr(ms->path, '/') ? strrchr(ms->path, '/') + 1 : ms->path;
	char *copy = xasprintf("%s/shard.kiln.db", dir);
	int r = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sfx) && r == 0; i++) {
		char *n = xasprintf("%s%s", name, sfx[i]), *to = xasprintf("%s%s", copy, sfx[i]);
		r = sfs_copy_file(from, n, (uid_t)-1, (off_t)1 << 42, to, 0600, &e);
		if (r == 1 && i == 0) {
			refuse(ms, KEXIT_STORE, "no such file");
			r = -1;
		} else if (r < 0) {
			refuse(ms, KEXIT_STORE, "%s", sb_str(&e.msg));
		} else {
			r = 0;
		}
		free(n);
		free(to);
	}
	free(from);
	kerr_release(&e);
	if (r < 0) {
		rm_rf(dir);
		free(dir);
		free(copy);
		return NULL;
	}
	*dirp = dir;
	return copy;
}

/*
 * A shard a task still writes (it holds the file's lock) is attached where
 * it is, read-only in effect, its log left to the writer; one no task
 * writes is copied and the copy folded and attached.  Either way the path
 * must not be a link: the shard is opened first with O_NOFOLLOW.
 */
static int merge_one(struct merge_ctx *cx, struct store *main, struct merge_shard *ms, struct kerr *e)
{
	int fd = open(ms->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		refuse(ms, KEXIT_STORE, "%s", fd < 0 && errno == ENOENT ? "no such file" :
		       fd < 0 && errno == ELOOP ? "a symbolic link: refused (a shard is a regular file)" :
		       fd < 0 ? strerror(errno) : "not a regular file: refused");
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int live = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	char *dir = NULL, *copy = live ? xstrdup(ms->path) : private_copy(ms, &dir);
	int r = 0;
	if (copy) {
		const char *b[] = { copy, NULL };
		/* the pexecs a killed task left in the shard's pexec log go into it first */
		struct kerr le = KERR_INIT;
		if (!live && store_fold_log(copy, &le) < 0)
			refuse(ms, le.code ? le.code : KEXIT_STORE, "%s", sb_str(&le.msg));
		else if (run(cx->db, "ATTACH DATABASE ?1 AS s", b) < 0)
			refuse(ms, KEXIT_STORE, "cannot open it: %s", sqlite3_errmsg(cx->db));
		else {
			r = merge_attached(cx, main, ms, e);
			run(cx->db, "DETACH DATABASE s", NULL);
		}
		kerr_release(&le);
	}
	close(fd);
	if (dir)
		rm_rf(dir);
	free(dir);
	free(copy);
	return r;
}

/* the shards the main file made, oldest first */
static void known_shards(struct merge_ctx *cx, struct strvec *paths)
{
	sqlite3_stmt *st = prep(cx->db, "SELECT name FROM main.cluster_shards ORDER BY round, task", NULL);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char *p = shard_path(cx->results, (const char *)sqlite3_column_text(st, 0));
		sv_push(paths, p);
		free(p);
	}
	sqlite3_finalize(st);
}

static int merge_ctx_init(struct store *main, struct merge_ctx *cx, struct kerr *e)
{
	memset(cx, 0, sizeof(*cx));
	cx->db = store_db(main);
	cx->results = store_path(main);
	if (!shard_is_cluster(main))
		return kerr_setc(e, KEXIT_USAGE, "%s was never run with --slurm: it has no shards to merge", cx->results);
	store_meta_get(main, "config_hash", &cx->config_hash);
	store_meta_get(main, "cluster_id", &cx->cluster_id);
	store_meta_get(main, "name", &cx->name);
	struct schedule sc;
	if (!cx->config_hash || !cx->cluster_id || store_load_schedule(main, &sc, e) < 0)
		return kerr_setc(e, KEXIT_STORE, "%s: no experiment or cluster id in it", cx->results);
	shard_schedule_hash(&sc, cx->schedule_hash);
	schedule_free(&sc);
	if (run(cx->db, "CREATE TEMP TABLE IF NOT EXISTS kiln_merge(id INTEGER PRIMARY KEY)", NULL) < 0)
		return db_error(cx, e, "temp table");
	return 0;
}

static void merge_ctx_release(struct merge_ctx *cx)
{
	free(cx->config_hash);
	free(cx->cluster_id);
	free(cx->name);
}

/* the experiment is complete once nothing is pending: it ended now */
static void note_end(struct store *main, struct merge_result *mr)
{
	sqlite3 *db = store_db(main);
	mr->total = one_long(db, "SELECT COUNT(*) FROM main.pexecs", NULL);
	mr->done = one_long(db, "SELECT COUNT(*) FROM main.pexecs WHERE status IN " FINISHED, NULL);
	char *ended = NULL;
	if (mr->total > 0 && mr->done == mr->total && (store_meta_get(main, "ended", &ended) < 0 || !ended)) {
		char ts[32];
		iso_time(wall_ns(), ts, sizeof(ts));
		store_meta_set(main, "ended", ts, NULL);
	}
	free(ended);
}

int merge_shards(struct store *main, const struct strvec *paths, struct merge_result *mr, struct kerr *e)
{
	memset(mr, 0, sizeof(*mr));
	struct merge_ctx cx;
	if (merge_ctx_init(main, &cx, e) < 0) {
		merge_ctx_release(&cx);
		return -1;
	}
	struct strvec all = STRVEC_INIT;
	if (!paths || !paths->n)
		known_shards(&cx, &all);
	const struct strvec *use = paths && paths->n ? paths : &all;
	mr->v = xcalloc(use->n + 1, sizeof(*mr->v));
	int r = 0;
	for (size_t i = 0; i < use->n && r == 0; i++) {
		struct merge_shard *ms = &mr->v[mr->n++];
		ms->path = xstrdup(use->v[i]);
		const char *base = strrchr(use->v[i], '/');
		ms->name = xstrdup(base ? base + 1 : use->v[i]);
		r = merge_one(&cx, main, ms, e);
	}
	if (r == 0)
		note_end(main, mr);
	sv_clear(&all);
	merge_ctx_release(&cx);
	return r;
}

int merge_exit_code(const struct merge_result *mr)
{
	for (size_t i = 0; i < mr->n; i++)
		if (mr->v[i].refused)
			return mr->v[i].refused;
	return KEXIT_OK;
}

void merge_result_free(struct merge_result *mr)
{
	for (size_t i = 0; i < mr->n; i++) {
		free(mr->v[i].name);
		free(mr->v[i].path);
		free(mr->v[i].machine);
		free(mr->v[i].why);
	}
	free(mr->v);
	memset(mr, 0, sizeof(*mr));
}
