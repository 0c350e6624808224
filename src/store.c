/*
 * store.c - the results file (see store.h for what it holds and why).
 *
 * Schema version 1:
 *   meta(name, value)             experiment: name, config text/hash, seed, order,
 *                                 kiln version, schema, started, ended
 *   keys(id, bench, vm, variant, iterations)
 *   pexecs(id, key_id, num, seq, status, ...)   the schedule and each outcome
 *   iterations(pexec_id, n, wall, counter_names, counters)  delta-varint blobs
 *   series(pexec_id, name, unit, vals)  per-iteration records, float64 blobs
 *   scalars(pexec_id, name, unit, value)
 *   events(pexec_id, name, start_ns, end_ns)
 *   audit(name, value)
 *   cache(kind, key, value)       analyses and profiles keyed by a hash
 *   origins(pexec_id, machine, shard)  where a pexec merged from a cluster
 *                                 task's shard ran (none for local pexecs)
 *   cluster_rounds, cluster_shards, cluster_assign  what a cluster run's
 *                                 results file gave out (shard.h)
 *   programs(key_id, hash, seq, description, setting, since)
 *                                 what each key's pexecs ran (provenance.h);
 *                                 pexecs.env_hash names the program by hash
 */
#include "store.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "provenance.h"
#include "secret.h"
#include "store-log.h"

/* the pexec log is folded into the results at most this often, unless it is full */
#define FOLD_EVERY_NS 1000000000LL
/* a fold reads the log back this much at a time */
#define FOLD_AHEAD ((size_t)256 << 10)
/* the log's first size (it doubles when records need more, up to PLOG_CAP) */
#define LOG_RESERVE ((off_t)64 << 10)

struct store {
	sqlite3 *db;
	char *path;
	int lock_fd;
	int held_known; /* same_file has looked up the locked file's identity: */
	dev_t held_dev;
	ino_t held_ino;
	int gone;       /* the path no longer names the locked file: nothing more is written */
	int durable;    /* 1: every commit reaches the disk (synchronous=FULL) */
	int setup;      /* a run before store_prepare: commits not flushed each (synchronous=NORMAL) */
	int unflushed;  /* what the setup committed is not flushed yet (flush_setup) */
	int txn_depth;  /* store_begin calls not yet committed */
	/* prepared statements of the per-pexec path, kept for the session */
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} cache[24];
	/* the pexec log (store-log.h): fd -1 when commits go to the file directly */
	struct plog log;
	struct plog_rec rec;     /* the commit being built, reused */
	struct strbuf readback;  /* a record read back to be folded */
	int64_t folded_ns;       /* when the log was last folded */
	int64_t fold_every_ns;   /* and how often it is (FOLD_EVERY_NS; tests: KILN_LOG_FOLD_MS) */
	long nlogged, nfolds;    /* records written and folds done this session, */
	int64_t fold_ns, fold_max_ns; /* and their time (KILN_DEBUG_LOG: bench/pexec reads it) */
	uint64_t done_num;       /* records of this generation already in the file (a fold the disk stopped) */
	off_t done_end;          /* and the bytes they take */
	int folding, fold_failed;
	int64_t next_deferred;   /* folding: the pexec a record marked running, not yet written (merge_next) */
	int count_next;          /* folding: this record's pexec row also counts that attempt */
};

/*
 * The statements of the per-pexec path, prepared once (store_prepare()
 * before the run loop, so that SQLite's parser is not needed, nor kept in
 * memory, while benchmarks run).
 */
enum {
	Q_BEGIN, Q_COMMIT, Q_SET_STATUS, Q_CLEAR_ITER, Q_CLEAR_SERIES, Q_CLEAR_SCALARS, Q_CLEAR_EVENTS,
	Q_PEXEC, Q_ITER, Q_NEXT_RUNNING, Q_SCALAR, Q_EVENT, Q_SERIES, Q_META_SET, NQ
};
/* a finished pexec's row: Q_PEXEC's columns, and pexec_counted_sql's */
#define PEXEC_ROW "status=?, wall_start_ns=?, duration_s=?, exit_status=?, signal=?, user_s=?, sys_s=?," \
		  " maxrss_kb=?, personality=?, error=?, stdout=?, stderr=?, instr_error=?, taint=?, env_hash=?, n_iter=?"
static const char *const pexec_sql[NQ] = {
	[Q_BEGIN] = "BEGIN IMMEDIATE",
	[Q_COMMIT] = "COMMIT",
	[Q_SET_STATUS] = "UPDATE pexecs SET status=?, attempts=attempts+1 WHERE id=?",
	[Q_CLEAR_ITER] = "DELETE FROM iterations WHERE pexec_id=?",
	[Q_CLEAR_SERIES] = "DELETE FROM series WHERE pexec_id=?",
	[Q_CLEAR_SCALARS] = "DELETE FROM scalars WHERE pexec_id=?",
	[Q_CLEAR_EVENTS] = "DELETE FROM events WHERE pexec_id=?",
	[Q_PEXEC] = "UPDATE pexecs SET " PEXEC_ROW " WHERE id=?",
	[Q_ITER] = "INSERT INTO iterations(pexec_id, n, wall, counter_names, counters, clock, unavailable)"
		   " VALUES(?,?,?,?,?,?,?)",
	[Q_NEXT_RUNNING] = "UPDATE pexecs SET status='running', attempts=attempts+1 WHERE id=?",
	[Q_SCALAR] = "INSERT OR REPLACE INTO scalars(pexec_id, name, unit, value) VALUES(?,?,?,?)",
	[Q_EVENT] = "INSERT INTO events(pexec_id, name, start_ns, end_ns) VALUES(?,?,?,?)",
	[Q_SERIES] = "INSERT OR REPLACE INTO series(pexec_id, name, unit, vals) VALUES(?,?,?,?)",
	[Q_META_SET] = "INSERT OR REPLACE INTO meta(name, value) VALUES(?, ?)",
};

/*
 * The statements a record of the pexec log may hold (a pexec's commit),
 * which of their values is the pexec's id (1-based; ID_LAST: the last;
 * 0: another pexec's), whether they must change one row, and what an
 * error names.
 */
enum { NOT_IN_RECORDS = -1, ID_LAST = 99 };
static const struct {
	signed char id_at;
	char one_row;
	const char *what;
} rec_stmts[NQ] = {
	[Q_BEGIN] = { NOT_IN_RECORDS, 0, "begin" },
	[Q_COMMIT] = { NOT_IN_RECORDS, 0, "commit" },
	[Q_SET_STATUS] = { NOT_IN_RECORDS, 0, "pexecs" },
	[Q_CLEAR_ITER] = { 1, 0, "clear" },
	[Q_CLEAR_SERIES] = { 1, 0, "clear" },
	[Q_CLEAR_SCALARS] = { 1, 0, "clear" },
	[Q_CLEAR_EVENTS] = { 1, 0, "clear" },
	[Q_PEXEC] = { ID_LAST, 1, "pexecs" },
	[Q_ITER] = { 1, 1, "iterations" },
	[Q_NEXT_RUNNING] = { 0, 1, "pexecs" },
	[Q_SCALAR] = { 1, 1, "scalars" },
	[Q_EVENT] = { 1, 1, "events" },
	[Q_SERIES] = { 1, 1, "series" },
	[Q_META_SET] = { NOT_IN_RECORDS, 0, "meta" },
};

/*
 * Not in records: while a fold runs, a record's "the next pexec is
 * running" is held back, and when the next record is that pexec's (almost
 * always), its row is written once with the attempt counted, instead of
 * twice (see merge_next).  The same parameters as Q_PEXEC.
 */
static const char pexec_counted_sql[] = "UPDATE pexecs SET " PEXEC_ROW ", attempts=attempts+1 WHERE id=?";

/* the identity of these statements, in every record */
static uint32_t log_table(void)
{
	static uint32_t id;
	if (!id)
		id = plog_table_id(pexec_sql, NQ);
	return id;
}

void store_library_init(void)
{
	/* no count of SQLite's memory kept: kiln never reads it, and keeping it takes a lock per allocation */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/*
 * A cached prepared statement, reset and unbound, ready to use, or
 * prepared now.  The statements of a pexec's commit are the same strings
 * each time: found by address first.
 */
static sqlite3_stmt *stmt(struct store *s, const char *sql)
{
	size_t i;
	sqlite3_stmt *st = NULL;
	for (i = 0; i < ARRAY_SIZE(s->cache) && s->cache[i].sql && !st; i++)
		if (s->cache[i].sql == sql)
			st = s->cache[i].st;
	for (i = 0; i < ARRAY_SIZE(s->cache) && s->cache[i].sql && !st; i++)
		if (!strcmp(s->cache[i].sql, sql))
			st = s->cache[i].st;
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
		return NULL;
	if (i < ARRAY_SIZE(s->cache)) {
		s->cache[i].sql = sql;
		s->cache[i].st = st;
	}
	return st;
}

static const char *const status_names[] = { "pending", "running", "ok", "failed", "timeout", "tainted" };

const char *pexec_status_name(enum pexec_status s)
{
	return (unsigned)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

/* a stored status: one of status_names, or -1 */
static int status_known(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(status_names); i++)
		if (s && !strcmp(s, status_names[i]))
			return (int)i;
	return -1;
}

static enum pexec_status status_parse(const char *s)
{
	int i = status_known(s);
	return i < 0 ? PX_PENDING : (enum pexec_status)i;
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

/* one transaction: one flush when a results file is created */
static const char schema_sql[] =
	"BEGIN;"
	"CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS keys(id INTEGER PRIMARY KEY, bench TEXT NOT NULL, vm TEXT NOT NULL,"
	" variant TEXT NOT NULL, iterations INTEGER NOT NULL, UNIQUE(bench, vm, variant));"
	"CREATE TABLE IF NOT EXISTS pexecs(id INTEGER PRIMARY KEY, key_id INTEGER NOT NULL REFERENCES keys(id),"
	" num INTEGER NOT NULL, seq INTEGER NOT NULL UNIQUE, status TEXT NOT NULL DEFAULT 'pending',"
	" attempts INTEGER NOT NULL DEFAULT 0, wall_start_ns INTEGER, duration_s REAL, exit_status INTEGER,"
	" signal INTEGER, user_s REAL, sys_s REAL, maxrss_kb INTEGER, personality INTEGER, error TEXT,"
	" stdout BLOB, stderr BLOB, instr_error TEXT, taint TEXT, env_hash TEXT, n_iter INTEGER,"
	" UNIQUE(key_id, num));"
	"CREATE TABLE IF NOT EXISTS iterations(pexec_id INTEGER PRIMARY KEY REFERENCES pexecs(id), n INTEGER,"
	" wall BLOB, counter_names TEXT, counters BLOB, clock TEXT, unavailable TEXT);"
	"CREATE TABLE IF NOT EXISTS series(pexec_id INTEGER NOT NULL, name TEXT NOT NULL, unit TEXT, vals BLOB,"
	" PRIMARY KEY(pexec_id, name));"
	"CREATE TABLE IF NOT EXISTS scalars(pexec_id INTEGER NOT NULL, name TEXT NOT NULL, unit TEXT, value REAL,"
	" PRIMARY KEY(pexec_id, name));"
	"CREATE TABLE IF NOT EXISTS events(pexec_id INTEGER NOT NULL, name TEXT, start_ns INTEGER, end_ns INTEGER);"
	"CREATE INDEX IF NOT EXISTS events_pexec ON events(pexec_id);"
	"CREATE TABLE IF NOT EXISTS audit(name TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS cache(kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB,"
	" PRIMARY KEY(kind, key));"
	"CREATE TABLE IF NOT EXISTS origins(pexec_id INTEGER PRIMARY KEY, machine TEXT NOT NULL, shard TEXT NOT NULL);"
	/* what a cluster run's results file gave out (shard.h) */
	"CREATE TABLE IF NOT EXISTS cluster_rounds(round INTEGER PRIMARY KEY, tasks INTEGER NOT NULL, job TEXT,"
	" merge_job TEXT, submitted TEXT NOT NULL, sbatch TEXT);"
	"CREATE TABLE IF NOT EXISTS cluster_shards(name TEXT PRIMARY KEY, round INTEGER NOT NULL, task INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS cluster_assign(shard TEXT NOT NULL, pexec_id INTEGER NOT NULL,"
	" merged INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(shard, pexec_id));"
	"CREATE TABLE IF NOT EXISTS programs(key_id INTEGER NOT NULL, hash TEXT NOT NULL, seq INTEGER NOT NULL,"
	" description TEXT NOT NULL, setting TEXT, since TEXT, PRIMARY KEY(key_id, hash));"
	/* the rounds of a schedule in rounds (store-rounds.c) */
	"CREATE TABLE IF NOT EXISTS pexec_rounds(pexec_id INTEGER PRIMARY KEY, round INTEGER NOT NULL,"
	" pair INTEGER NOT NULL DEFAULT 0, slot INTEGER NOT NULL DEFAULT 0);"
	"COMMIT;";

static int dberr(struct store *s, struct kerr *e, const char *what)
{
	int code = sqlite3_errcode(s->db);
	int ex = KEXIT_STORE;
	if (code == SQLITE_FULL && s->folding)
		return kerr_setc(e, ex, "%s: %s: the disk is full; the finished pexecs stay in %s, and `kiln run` "
			"folds them into the results and resumes once space is freed", s->path, what, s->log.path);
	if (code == SQLITE_FULL)
		return kerr_setc(e, ex, "%s: %s: the disk is full; nothing of the pexec in flight was "
			"kept, and `kiln run` resumes once space is freed", s->path, what);
	return kerr_setc(e, ex, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int gone_err(struct store *s, struct kerr *e)
{
	return kerr_setc(e, KEXIT_STORE, "%s: the results file is no longer there: nothing more is written", s->path);
}

static int exec_sql(struct store *s, const char *sql, struct kerr *e)
{
	char *msg = NULL;
	if (s->gone)
		return gone_err(s, e);
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int r = dberr(s, e, msg ? msg : sql);
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

/* BEGIN and COMMIT, prepared once per session like the per-pexec statements */
static int txn(struct store *s, const char *sql, struct kerr *e)
{
	if (s->gone)
		return gone_err(s, e);
	sqlite3_stmt *st = stmt(s, sql);
	if (!st)
		return dberr(s, e, sql);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, sql);
}

/*
 * Give the WAL file the size it will grow to before the first checkpoint
 * (SQLite's default of 1000 pages), written with zeros and flushed once.
 * Commits then overwrite blocks the file already has, so a commit's flush
 * is the data alone: growing the file would also make every fdatasync
 * commit the filesystem's journal (size and block allocation), which on
 * the reference VM is 50-100 us more per pexec.  It is safe by the WAL
 * format: a reader takes frames only while their salts and running
 * checksum match the header, so zeros past the last commit are never
 * read as data, and SQLite writes frames at offsets of their own, reusing
 * the file from the start after each checkpoint (it never truncates it
 * while kiln has it open: journal_size_limit stays at its default, -1).
 */
static void wal_reserve(struct store *s)
{
	int page = 4096;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			page = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	off_t want = 32 + (off_t)1024 * (page + 24);
	char *wal = xasprintf("%s-wal", s->path);
	int fd = open(wal, O_WRONLY | O_CLOEXEC);
	free(wal);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0 || sb.st_size >= want || sb.st_size < 32) {
		/* no WAL yet (nothing committed) or already that large: nothing to do */
		if (fd >= 0)
			close(fd);
		return;
	}
	for (off_t at = sb.st_size; at < want; at += 65536)
		if (pwrite_zeros(fd, at, 65536) < 0) {
			/* no room: give the space back to the results, as it was */
			if (ftruncate(fd, sb.st_size) < 0) {
				/* the zeros stay; SQLite writes frames into them all the same */
			}
			break;
		}
	fdatasync(fd);
	close(fd);
}

/* the pexec log's part (below): what it holds folded in before other writes, and after a crash */
static int settle(struct store *s, struct kerr *e);
static int log_recover(struct store *s, struct kerr *e);
static int log_fold(struct store *s, struct kerr *e);
static void note_unfolded(struct store *s);
static int log_start(struct store *s, struct kerr *e);
static int end_setup(struct store *s, struct kerr *e);
static int flush_setup(struct store *s, struct kerr *e);

int store_begin(struct store *s, struct kerr *e)
{
	if (s->txn_depth)
		return s->txn_depth++, 0;
	/* what the pexec log holds goes in first, outside the caller's transaction */
	if (settle(s, e) < 0)
		return -1;
	s->txn_depth++;
	int r = txn(s, pexec_sql[Q_BEGIN], e);
	if (r < 0)
		s->txn_depth = 0;
	return r;
}

int store_commit(struct store *s, struct kerr *e)
{
	if (!s->txn_depth || --s->txn_depth)
		return 0;
	if (txn(s, pexec_sql[Q_COMMIT], e) == 0)
		return 0;
	exec_sql(s, "ROLLBACK", NULL);
	return -1;
}

int store_prepare(struct store *s, size_t commits, struct kerr *e)
{
	if (s->setup && end_setup(s, e) < 0)
		return -1;
	for (int q = 0; q < NQ; q++)
		if (!stmt(s, pexec_sql[q]))
			return dberr(s, e, pexec_sql[q]);
	if (!stmt(s, pexec_counted_sql))
		return dberr(s, e, pexec_counted_sql);
	if (commits >= 32)
		wal_reserve(s);
	return log_start(s, e);
}


/*
 * A results file may come from elsewhere (diff, report, a resumed run of
 * a file someone sent): SQLite is told not to trust what the file holds.
 * DEFENSIVE: no writes to the schema or to shadow tables from SQL;
 * TRUSTED_SCHEMA off: no function with side effects runs from the
 * schema; no triggers fire and no views are read (kiln makes neither); no
 * extensions; no double-quoted strings taken for names.  Then only kiln's
 * own schema is accepted (schema_check).
 */
void store_defensive(sqlite3 *db)
{
	static const int off[] = { SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_TRIGGER,
				   SQLITE_DBCONFIG_ENABLE_VIEW, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
				   SQLITE_DBCONFIG_DQS_DML, SQLITE_DBCONFIG_DQS_DDL };
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	for (size_t i = 0; i < ARRAY_SIZE(off); i++)
		sqlite3_db_config(db, off[i], 0, (int *)NULL);
	sqlite3_exec(db, "PRAGMA cell_size_check=ON", NULL, NULL, NULL);
}

/* one object of a schema as sqlite_master keeps it */
struct schema_obj {
	char *type, *name, *tbl, *sql;
};

/*
 * kiln's schema as SQLite writes it down (the CREATE texts normalised as
 * SQLite stores them), from a scratch in-memory database, made once; plus
 * the statistics table ANALYZE adds, which only guides the planner.
 * A schema change that files already written lack must keep their form
 * here too, or such files are refused.
 */
static const struct schema_obj *schema_expected(size_t *n)
{
	static struct schema_obj *objs;
	static size_t nobjs;
	if (objs) {
		*n = nobjs;
		return objs;
	}
	sqlite3 *db;
	sqlite3_stmt *st;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "ANALYZE", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM sqlite_master", -1, &st, NULL) != SQLITE_OK)
		kiln_die(KEXIT_FAIL, "cannot build kiln's schema in memory: %s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		objs = xrealloc(objs, (nobjs + 1) * sizeof(*objs));
		struct schema_obj *o = &objs[nobjs++];
		o->type = col_text(st, 0);
		o->name = col_text(st, 1);
		o->tbl = col_text(st, 2);
		o->sql = col_text(st, 3);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	*n = nobjs;
	return objs;
}

static int same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/*
 * Every table, index, view and trigger in the file must be one of kiln's,
 * exactly as kiln creates it: a trigger deleting iterations on resume, a
 * view standing in for pexecs, a changed constraint or default, a virtual
 * table are refused before anything is read or written.  (A file may lack
 * some of kiln's tables: a writer adds them, a reader finds none.)
 */
static int schema_check_in(sqlite3 *db, const char *schema, const char *path, struct kerr *e)
{
	size_t n;
	const struct schema_obj *want = schema_expected(&n);
	sqlite3_stmt *st;
	char *q = xasprintf("SELECT type, name, tbl_name, sql FROM \"%s\".sqlite_master", schema);
	int prc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
	free(q);
	if (prc != SQLITE_OK)
		return kerr_setc(e, KEXIT_STORE, "%s: not a kiln results file (%s)", path, esc(ESC_TERM, sqlite3_errmsg(db)));
	int r = 0;
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		struct schema_obj o = { (char *)sqlite3_column_text(st, 0), (char *)sqlite3_column_text(st, 1),
					(char *)sqlite3_column_text(st, 2), (char *)sqlite3_column_text(st, 3) };
		const struct schema_obj *w = NULL;
		for (size_t i = 0; i < n && !w; i++)
			if (same(want[i].type, o.type) && same(want[i].name, o.name))
				w = &want[i];
		if (!w || !same(w->tbl, o.tbl) || !same(w->sql, o.sql))
			r = kerr_setc(e, KEXIT_STORE,
				      "%s: not a schema kiln wrote: %s '%s' %s (refused: it could change what is read "
				      "or written)", path, esc(ESC_TERM, o.type), esc(ESC_TERM, o.name),
				      w ? "differs from kiln's" : "is not one of kiln's");
	}
	sqlite3_finalize(st);
	return r;
}

static int schema_check(struct store *s, struct kerr *e)
{
	return schema_check_in(s->db, "main", s->path, e);
}

int store_check_attached(struct store *s, const char *schema, const char *path, struct kerr *e)
{
	return schema_check_in(s->db, schema, path, e);
}

/*
 * Does the database hold kiln's tables (or no table yet: *empty)?  *blank:
 * it holds nothing at all (a file just made), so there is no schema to check.
 */
static int kiln_or_empty(struct store *s, int *empty, int *blank)
{
	sqlite3_stmt *st;
	*empty = *blank = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT SUM(type='table'), SUM(type='table' AND name='meta'), COUNT(*)"
			       " FROM sqlite_master", -1, &st, NULL) != SQLITE_OK)
		return 0;
	int ok = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		int tables = sqlite3_column_int(st, 0), meta = sqlite3_column_int(st, 1);
		*empty = tables == 0;
		*blank = sqlite3_column_int(st, 2) == 0;
		ok = tables == 0 || meta == 1;
	}
	sqlite3_finalize(st);
	return ok;
}

/* "file:PATH?immutable=1", the path percent-encoded for SQLite's URI parser */
static char *immutable_uri(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			sb_addc(&sb, (char)*p);
		else
			sb_addf(&sb, "%%%02X", *p);
	}
	sb_adds(&sb, "?immutable=1");
	return sb_detach(&sb);
}

/* can this connection read the schema? SQLITE_OK or the error */
static int can_read(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db);
		sqlite3_finalize(st);
	}
	return rc;
}

/*
 * A reader's connection, on any file the user may read.  SQLite reads a
 * WAL-mode file through its -shm index, which it creates beside the file
 * when missing; where the reader cannot (a file it may not write, a
 * read-only folder or medium) every read fails with "attempt to write a
 * readonly database".  Such a file is opened immutable instead, which needs
 * no -shm and takes no locks.  Immutable reads ignore the -wal, so that is
 * done only when no -wal holds changes the file itself lacks; one that does
 * (a run in progress, or killed) is refused, saying why.  Returns an SQLite
 * code; e is set when the message is better than SQLite's.
 */
static int open_reader(struct store *s, struct kerr *e)
{
	int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = can_read(s->db);
	if (rc != SQLITE_READONLY && rc != SQLITE_CANTOPEN)
		return SQLITE_OK; /* read, or another problem store_open's checks name */
	char *wal = xasprintf("%s-wal", s->path);
	struct stat sb;
	int pending = stat(wal, &sb) == 0 && sb.st_size > 0;
	free(wal);
	if (pending) {
		kerr_setc(e, KEXIT_STORE, "%s: its -wal file holds changes not yet in the file (a run in progress or "
			  "interrupted) that a reader needs write access to the folder to see: copy %s with its -wal "
			  "and -shm files to a writable folder", s->path, s->path);
		return SQLITE_CANTOPEN;
	}
	sqlite3_close(s->db);
	s->db = NULL;
	char *uri = immutable_uri(s->path);
	rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	return rc;
}

/* the store before its file is opened: nothing held yet, so store_close can undo any step after */
static struct store *store_new(const char *path)
{
	struct store *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	s->lock_fd = -1;
	s->log = (struct plog)PLOG_INIT;
	s->durable = 1;
	return s;
}

/* a file that is not SQLite, or a damaged one, is caught here, before kiln reads a table of it */
static int check_intact(struct store *s, struct kerr *e)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
		return kerr_setc(e, KEXIT_STORE, "%s: not a kiln results file (%s)", s->path, sqlite3_errmsg(s->db));
	int rc = sqlite3_step(st);
	const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (!res || strcmp(res, "ok")) {
		kerr_setc(e, KEXIT_STORE, "%s: the results file is damaged (integrity check: %s)", s->path,
			  res ? res : sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * A writer's settings: WAL, or a rollback journal for a cluster run's file
 * on a shared filesystem (store_set_rollback), whose commits are flushed
 * each (the file is left as it was); otherwise a run's setup commits
 * unflushed (flush_setup); and the tables made when missing.
 */
static int writer_setup(struct store *s, int setup, int empty, struct kerr *e)
{
	char *journal = NULL;
	if (!empty)
		store_meta_get(s, "journal", &journal);
	int rollback = journal && !strcmp(journal, "delete");
	free(journal);
	s->setup = setup && !rollback;
	if (exec_sql(s, s->setup ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL", e) < 0 ||
	    exec_sql(s, rollback ? "PRAGMA journal_mode=DELETE" : "PRAGMA journal_mode=WAL", e) < 0 ||
	    exec_sql(s, "PRAGMA foreign_keys=ON; PRAGMA cache_size=-64;", e) < 0 || exec_sql(s, schema_sql, e) < 0)
		return -1;
	return 0;
}

/* a file of a newer schema than this kiln's is refused rather than misread */
static int check_not_newer(struct store *s, struct kerr *e)
{
	char *ver = NULL;
	if (store_meta_get(s, "schema", &ver) != 0 || !ver)
		return 0;
	long v = atol(ver);
	free(ver);
	if (v > STORE_SCHEMA)
		return kerr_setc(e, KEXIT_STORE, "%s: written by a newer kiln (results schema %ld; this kiln "
				 "reads up to %d): upgrade kiln", s->path, v, STORE_SCHEMA);
	return 0;
}

/*
 * The checks of an open file, in order: SQLite and intact, kiln's tables,
 * its schema (kiln's, built in memory to compare with, costs a start 4 M
 * instructions: not for a new file); *empty: no tables yet.
 */
static int check_file(struct store *s, int writable, int *empty, struct kerr *e)
{
	int blank;
	if (check_intact(s, e) < 0)
		return -1;
	if (!kiln_or_empty(s, empty, &blank) || (!writable && *empty))
		return kerr_setc(e, KEXIT_STORE, "%s: not a kiln results file (an SQLite database without kiln's "
				 "tables)", s->path);
	return blank ? 0 : schema_check(s, e);
}

static int open_store(const char *path, int writable, int setup, struct store **out, struct kerr *e)
{
	*out = NULL;
	if (!writable && !file_exists(path))
		return kerr_setc(e, KEXIT_STORE, "%s: no such results file", path);
	struct store *s = store_new(path);
	/*
	 * Readers (status, report, export...) never change the file.  One
	 * thread uses a connection: SQLite's per-call locking of it (~5k
	 * instructions a pexec) is not needed.
	 */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	int opened = writable ? sqlite3_open_v2(path, &s->db, flags, NULL) : open_reader(s, e);
	if (opened != SQLITE_OK) {
		if (!e || !e->msg.len)
			kerr_setc(e, KEXIT_STORE, "%s: cannot open: %s", path,
				  s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return -1;
	}
	store_defensive(s->db);
	sqlite3_busy_timeout(s->db, 5000);
	sqlite3_extended_result_codes(s->db, 0);
	int empty;
	if (check_file(s, writable, &empty, e) < 0 || (writable && writer_setup(s, setup, empty, e) < 0) ||
	    check_not_newer(s, e) < 0) {
		store_close(s);
		return -1;
	}
	if (!writable)
		note_unfolded(s);
	*out = s;
	return 0;
}

int store_open(const char *path, int writable, struct store **out, struct kerr *e)
{
	return open_store(path, writable, 0, out, e);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->log.fd >= 0) {
		/* what the log holds goes into the file; a log with nothing to fold goes away */
		struct kerr e = KERR_INIT;
		if (!s->fold_failed && log_fold(s, &e) < 0)
			kiln_warn("%s", sb_str(&e.msg));
		/* (a moved results file's log may be another run's by now: it stays) */
		plog_close(&s->log, s->log.num == s->done_num && !s->gone);
		kerr_release(&e);
		if (getenv("KILN_DEBUG_LOG"))
			kiln_note("pexec log: %ld records, %ld folds, %.3f ms in all, at most %.3f ms", s->nlogged, s->nfolds,
				  (double)s->fold_ns / 1e6, (double)s->fold_max_ns / 1e6);
	}
	plog_rec_release(&s->rec);
	sb_release(&s->readback);
	for (size_t i = 0; i < ARRAY_SIZE(s->cache) && s->cache[i].sql; i++)
		sqlite3_finalize(s->cache[i].st);
	if (s->db)
		sqlite3_close(s->db);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->path);
	free(s);
}

/*
 * An exclusive flock on the file at path (created when `create`), checked
 * to be still the file there once locked: a --quick run that started
 * afresh may have removed or replaced it in between.
 */
static int lock_file(const char *path, int create, int *out, struct kerr *e)
{
	for (int tries = 0; tries < 10; tries++) {
		int fd = open(path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, 0644);
		if (fd < 0)
			return kerr_setc(e, KEXIT_STORE, "%s: %s", path, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int err = errno;
			close(fd);
			if (err == EWOULDBLOCK)
				return kerr_setc(e, KEXIT_LOCKED, "%s: another kiln is running this experiment", path);
			return kerr_setc(e, KEXIT_STORE, "%s: lock: %s", path, strerror(err));
		}
		struct stat held, now;
		if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev &&
		    held.st_ino == now.st_ino) {
			*out = fd;
			return 0;
		}
		close(fd);
		if (!create)
			break;
	}
	return kerr_setc(e, KEXIT_LOCKED, "%s: the file was removed or replaced while kiln locked it", path);
}

/*
 * Is the file at the path still the one kiln locked?  Checked before every
 * commit: a results file deleted, moved or replaced during a run would
 * otherwise take the run's pexecs with it, or let a second kiln start on
 * the path beside this one.
 */
/*
 * The file kiln has open is no longer at its path: write nothing more.
 * What was committed is moved from the WAL into that file (SQLite would
 * not checkpoint a moved file at close), and the WAL, still named after
 * the path, is emptied: whatever file is at the path now never reads this
 * file's frames as its own.  SQLite is kept from deleting RESULTS-wal by
 * name at close: it may be another kiln's by then.
 */
static void store_abandon(struct store *s)
{
	int one = 1;
	/* the pexec log's records go into the file they are of (the log stays: it may be another run's by now) */
	struct kerr e = KERR_INIT;
	if (s->log.fd >= 0)
		log_fold(s, &e);
	s->fold_failed = 1;
	kerr_release(&e);
	s->gone = 1;
	sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
	sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
}

static int same_file(struct store *s, struct kerr *e)
{
	struct stat held, now;
	if (s->lock_fd < 0)
		return 0;
	if (s->gone)
		return gone_err(s, e);
	/*
	 * The held file's identity is looked up once: kiln holds it open, so
	 * its inode number stays its own; a path that no longer names it
	 * (deleted, moved, replaced) fails stat or names another inode.
	 */
	int missing = 0;
	if (!s->held_known) {
		if (fstat(s->lock_fd, &held) < 0)
			return kerr_setc(e, KEXIT_STORE, "%s: %s", s->path, strerror(errno));
		missing = held.st_nlink == 0;
		s->held_dev = held.st_dev;
		s->held_ino = held.st_ino;
		s->held_known = 1;
	}
	missing = missing || stat(s->path, &now) < 0;
	if (!missing && now.st_dev == s->held_dev && now.st_ino == s->held_ino)
		return 0;
	store_abandon(s);
	if (missing)
		return kerr_setc(e, KEXIT_STORE,
				 "%s: the results file was deleted or moved while this run had it open: stopping "
				 "(the pexec in flight is not stored)", s->path);
	return kerr_setc(e, KEXIT_STORE,
			 "%s: the results file was replaced by another file while this run had it open: stopping "
			 "(the pexec in flight is not stored, nothing is written into the new file)", s->path);
}

int store_lock(struct store *s, struct kerr *e)
{
	if (s->lock_fd >= 0)
		return 0;
	if (lock_file(s->path, 0, &s->lock_fd, e) < 0 || same_file(s, e) < 0)
		return -1;
	/* the only writer now: whatever a killed one left in the pexec log is folded first */
	return log_recover(s, e);
}

/*
 * RESULTS-wal beside an empty RESULTS (just created, or emptied) is a
 * deleted results file's: opened with it, SQLite would take its frames for
 * this file's, and share them with the kiln that may still write there.
 */
static int foreign_wal(const char *path, int fd, struct kerr *e)
{
	struct stat db, wal;
	char *w = xasprintf("%s-wal", path);
	int r = 0;
	if (fstat(fd, &db) == 0 && db.st_size == 0 && stat(w, &wal) == 0 && wal.st_size > 0)
		r = kerr_setc(e, KEXIT_STORE, "%s: %s is there beside an empty results file: it belongs to a results "
			      "file that was deleted (remove it and %s-shm)", path, w, path);
	free(w);
	return r;
}

int store_open_locked(const char *path, int setup, struct store **out, struct kerr *e)
{
	int fd;
	*out = NULL;
	if (lock_file(path, 1, &fd, e) < 0)
		return -1;
	if (foreign_wal(path, fd, e) < 0) {
		close(fd);
		return -1;
	}
	if (open_store(path, 1, setup, out, e) < 0) {
		close(fd);
		return -1;
	}
	(*out)->lock_fd = fd;
	if (same_file(*out, e) < 0 || log_recover(*out, e) < 0) {
		store_close(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int store_wipe_scratch(const char *path, const char *scratch, struct kerr *e)
{
	int fd;
	if (lock_file(path, 0, &fd, e) < 0)
		return -1;
	char *q = NULL;
	struct store *old;
	if (store_open(path, 0, &old, e) == 0) {
		store_meta_get(old, scratch, &q);
		store_close(old);
	}
	int ok = q && !strcmp(q, "1");
	free(q);
	if (ok) {
		/* removed while locked: a run on it now would have held the lock */
		char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path), *log = plog_path(path);
		unlink(wal);
		unlink(shm);
		unlink(log);
		unlink(path);
		free(wal);
		free(shm);
		free(log);
	}
	close(fd);
	if (!ok)
		return kerr_setc(e, KEXIT_USAGE, "%s holds results that are not from %s: not overwriting them", path,
				 !strcmp(scratch, "quick") ? "--quick" : "kiln bench");
	return 0;
}

int store_set_rollback(struct store *s, struct kerr *e)
{
	if (store_meta_set(s, "journal", "delete", e) < 0)
		return -1;
	return exec_sql(s, "PRAGMA journal_mode=DELETE", e);
}

int store_set_durable(struct store *s, int durable, struct kerr *e)
{
	s->durable = durable;
	if (s->setup)
		return 0; /* store_prepare's */
	return exec_sql(s, durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", e);
}

/*
 * The end of a run's setup (store_open_locked's `setup`): the session's
 * durability from here on; when that is a flush per commit, what the setup
 * committed without one is flushed by log_start (flush_setup), before any
 * pexec can be recorded: one fdatasync of the WAL instead of one per
 * commit (4 of a run's 17 flushes, with the rollback journal SQLite keeps
 * while it makes the file a WAL one).
 */
static int end_setup(struct store *s, struct kerr *e)
{
	s->setup = 0;
	s->unflushed = s->durable;
	return store_set_durable(s, s->durable, e);
}

/* the setup's commits flushed, when no commit since has done it (one fdatasync of the WAL, and of its folder when new) */
static int flush_setup(struct store *s, struct kerr *e)
{
	sqlite3_file *wal = NULL;
	if (!s->unflushed)
		return 0;
	s->unflushed = 0;
	if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK || !wal ||
	    !wal->pMethods)
		return 0; /* no WAL: nothing was committed */
	int rc = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL);
	return rc == SQLITE_OK ? 0 : kerr_setc(e, KEXIT_STORE, "%s: flushing its -wal: %s", s->path, sqlite3_errstr(rc));
}

char *store_sibling(const char *results, const char *suffix)
{
	size_t n = strlen(results);
	if (str_ends_with(results, ".kiln.db"))
		n -= strlen(".kiln.db");
	return xasprintf("%.*s%s", (int)n, results, suffix);
}

const char *store_path(const struct store *s)
{
	return s->path;
}

struct sqlite3 *store_db(struct store *s)
{
	/* whoever uses the connection itself sees (and writes after) every finished pexec */
	struct kerr e = KERR_INIT;
	if (settle(s, &e) < 0)
		kiln_warn("%s", sb_str(&e.msg));
	kerr_release(&e);
	return s->db;
}

static int kv_get(struct store *s, const char *table, const char *name, char **value)
{
	*value = NULL;
	char sql[96];
	snprintf(sql, sizeof(sql), "SELECT value FROM %s WHERE name=?", table);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int r = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*value = col_text(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

static int kv_set(struct store *s, const char *table, const char *name, const char *value, struct kerr *e)
{
	if (settle(s, e) < 0)
		return -1;
	char sql[96];
	if (s->gone)
		return gone_err(s, e);
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s(name, value) VALUES(?, ?)", table);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return dberr(s, e, table);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, table);
}

int store_meta_get(struct store *s, const char *name, char **value)
{
	return kv_get(s, "meta", name, value);
}

int store_meta_set(struct store *s, const char *name, const char *value, struct kerr *e)
{
	return kv_set(s, "meta", name, value, e);
}

int store_audit_get(struct store *s, const char *name, char **value)
{
	return kv_get(s, "audit", name, value);
}

int store_audit_set(struct store *s, const char *name, const char *value, struct kerr *e)
{
	return kv_set(s, "audit", name, value, e);
}

void store_audit_names(struct store *s, const char *prefix, struct strvec *names)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT name FROM audit WHERE substr(name, 1, length(?1)) = ?1 ORDER BY name", -1,
			       &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_text(st, 0))
			sv_push(names, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

int store_has_experiment(struct store *s)
{
	char *v = NULL;
	int r = store_meta_get(s, "config_hash", &v) == 0 && v;
	free(v);
	return r;
}

void schedule_free(struct schedule *sc)
{
	for (size_t i = 0; i < sc->nkeys; i++) {
		free(sc->keys[i].bench);
		free(sc->keys[i].vm);
		free(sc->keys[i].variant);
	}
	free(sc->keys);
	free(sc->items);
	memset(sc, 0, sizeof(*sc));
}

/* a meta value as a number >= 0 (absent or not a number: 0) */
static long meta_long(struct store *s, const char *name)
{
	char *v = NULL;
	long n = 0;
	store_meta_get(s, name, &v);
	if (!v || parse_long(v, &n) < 0 || n < 0)
		n = 0;
	free(v);
	return n;
}

/*
 * The session's description in meta, what a resumed run, `kiln status` and
 * the reports read back: the config as written (its credentials masked: the
 * results travel), its order and seed, the schedule's size and warmup.
 */
static int init_meta(struct store *s, const struct experiment *ex, const struct schedule *sc, const char *order,
		     struct kerr *e)
{
	char buf[64], ts[32];
	iso_time(wall_ns(), ts, sizeof(ts));
	snprintf(buf, sizeof(buf), "%d", STORE_SCHEMA);
	/* the results travel: the config's credentials stay out (its hash is of the text as written) */
	struct strbuf text = STRBUF_INIT;
	secret_mask(&text, ex->text);
	const char *kv[][2] = {
		{ "schema", buf }, { "kiln_version", KILN_VERSION }, { "name", ex->name },
		{ "config_path", ex->path }, { "config_text", text.buf }, { "config_hash", ex->hash },
		{ "order", order }, { "started", ts },
	};
	for (size_t i = 0; i < ARRAY_SIZE(kv); i++)
		if (store_meta_set(s, kv[i][0], kv[i][1], e) < 0) {
			sb_release(&text);
			return -1;
		}
	sb_release(&text);
	snprintf(buf, sizeof(buf), "%lu", ex->seed);
	if (store_meta_set(s, "seed", buf, e) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%ld", sc->pexecs);
	if (store_meta_set(s, "pexecs", buf, e) < 0)
		return -1;
	long warm[2] = { sc->warmup_pexecs, sc->warmup_iterations };
	static const char *const warm_names[2] = { "warmup_pexecs", "warmup_iterations" };
	for (int w = 0; w < 2; w++) {
		snprintf(buf, sizeof(buf), "%ld", warm[w]);
		if (warm[w] && store_meta_set(s, warm_names[w], buf, e) < 0)
			return -1;
	}
	return 0;
}

/* the keys, numbered from 1 in the schedule's order (pexecs refer to them by it) */
static int init_keys(struct store *s, const struct schedule *sc, struct kerr *e)
{
	sqlite3_stmt *kst;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO keys(id, bench, vm, variant, iterations) VALUES(?,?,?,?,?)",
			       -1, &kst, NULL) != SQLITE_OK)
		return dberr(s, e, "keys");
	for (size_t i = 0; i < sc->nkeys; i++) {
		sqlite3_bind_int64(kst, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_text(kst, 2, sc->keys[i].bench, -1, SQLITE_STATIC);
		sqlite3_bind_text(kst, 3, sc->keys[i].vm, -1, SQLITE_STATIC);
		sqlite3_bind_text(kst, 4, sc->keys[i].variant, -1, SQLITE_STATIC);
		sqlite3_bind_int64(kst, 5, sc->keys[i].iterations);
		if (sqlite3_step(kst) != SQLITE_DONE) {
			sqlite3_finalize(kst);
			return dberr(s, e, "keys");
		}
		sqlite3_reset(kst);
	}
	sqlite3_finalize(kst);
	return 0;
}

/* one pending pexec row per schedule item, seq its place in the order they run */
static int init_pexecs(struct store *s, const struct schedule *sc, struct kerr *e)
{
	sqlite3_stmt *pst;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO pexecs(key_id, num, seq) VALUES(?,?,?)", -1, &pst, NULL) != SQLITE_OK)
		return dberr(s, e, "pexecs");
	for (size_t i = 0; i < sc->n; i++) {
		sqlite3_bind_int64(pst, 1, sc->items[i].key + 1);
		sqlite3_bind_int64(pst, 2, sc->items[i].num);
		sqlite3_bind_int64(pst, 3, (sqlite3_int64)i);
		if (sqlite3_step(pst) != SQLITE_DONE) {
			sqlite3_finalize(pst);
			return dberr(s, e, "pexecs");
		}
		sqlite3_reset(pst);
	}
	sqlite3_finalize(pst);
	return 0;
}

/* the new results file's meta, keys and pexecs in one transaction: all of them or none */
int store_init(struct store *s, const struct experiment *ex, const struct schedule *sc,
	       const char *order, struct kerr *e)
{
	if (txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	if (init_meta(s, ex, sc, order, e) < 0 || init_keys(s, sc, e) < 0 || init_pexecs(s, sc, e) < 0 ||
	    store_rounds_put(s, sc->items, sc->n, 0, e) < 0) {
		exec_sql(s, "ROLLBACK", NULL);
		return -1;
	}
	return txn(s, pexec_sql[Q_COMMIT], e);
}

long schedule_key_index(const struct schedule *sc, long kid)
{
	size_t lo = 0, hi = sc->nkeys;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sc->keys[mid].id < kid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sc->nkeys && sc->keys[lo].id == kid ? (long)lo : -1;
}

int store_load_schedule(struct store *s, struct schedule *sc, struct kerr *e)
{
	memset(sc, 0, sizeof(*sc));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT id, bench, vm, variant, iterations FROM keys ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return dberr(s, e, "keys");
	size_t alloc = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sc->nkeys == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			sc->keys = xrealloc(sc->keys, alloc * sizeof(*sc->keys));
		}
		struct sched_key *k = &sc->keys[sc->nkeys++];
		k->id = sqlite3_column_int64(st, 0);
		k->bench = col_text(st, 1);
		k->vm = col_text(st, 2);
		k->variant = col_text(st, 3);
		k->iterations = sqlite3_column_int64(st, 4);
		if (!k->bench || !k->vm || !k->variant) {
			sqlite3_finalize(st);
			schedule_free(sc);
			return kerr_setc(e, KEXIT_STORE, "%s: damaged keys table", s->path);
		}
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "SELECT id, seq, key_id, num, status FROM pexecs ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		schedule_free(sc);
		return dberr(s, e, "pexecs");
	}
	alloc = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sc->n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			sc->items = xrealloc(sc->items, alloc * sizeof(*sc->items));
		}
		struct sched_item *it = &sc->items[sc->n++];
		it->id = sqlite3_column_int64(st, 0);
		it->seq = sqlite3_column_int64(st, 1);
		it->key = schedule_key_index(sc, sqlite3_column_int64(st, 2));
		it->num = sqlite3_column_int64(st, 3);
		/*
		 * A status kiln does not write (a file edited, or of another
		 * version) is refused, not read as pending: a resumed run would
		 * run that pexec again over the rows it has.
		 */
		const char *stt = (const char *)sqlite3_column_text(st, 4);
		int known = status_known(stt);
		if (known < 0 && it->key >= 0) {
			const struct sched_key *k = &sc->keys[it->key];
			int r = kerr_setc(e, KEXIT_STORE, "%s: pexec %ld of key %s:%s:%s has status '%s', not one kiln "
					  "writes (pending, running, ok, failed, timeout, tainted): the file was edited or "
					  "written by another program", s->path, it->num, esc(ESC_TERM, k->bench),
					  esc(ESC_TERM, k->vm), esc(ESC_TERM, k->variant), esc(ESC_TERM, stt ? stt : "(null)"));
			sqlite3_finalize(st);
			schedule_free(sc);
			return r;
		}
		it->status = (enum pexec_status)known;
		if (it->key < 0) {
			long id = it->id;
			sqlite3_finalize(st);
			schedule_free(sc);
			return kerr_setc(e, KEXIT_STORE, "%s: pexec %ld refers to a missing key", s->path, id);
		}
		if (it->num + 1 > sc->pexecs)
			sc->pexecs = it->num + 1;
	}
	sqlite3_finalize(st);
	/* a shard holds some of the pexecs: the planned number is the experiment's */
	char *planned = NULL;
	long p;
	if (store_meta_get(s, "pexecs", &planned) == 0 && planned && parse_long(planned, &p) == 0 && p > sc->pexecs)
		sc->pexecs = p;
	sc->warmup_pexecs = meta_long(s, "warmup_pexecs");
	sc->warmup_iterations = meta_long(s, "warmup_iterations");
	free(planned);
	if (store_rounds_load(s, sc, e) < 0) {
		schedule_free(sc);
		return -1;
	}
	return 0;
}

int store_add_keys(struct store *s, const struct sched_key *keys, size_t n, struct schedule *sc, struct kerr *e)
{
	sqlite3_stmt *st = NULL;
	if (txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO keys(bench, vm, variant, iterations) VALUES(?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK) {
		dberr(s, e, "keys");
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_text(st, 1, keys[i].bench, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, keys[i].vm, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, keys[i].variant, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, keys[i].iterations);
		if (sqlite3_step(st) != SQLITE_DONE) {
			dberr(s, e, "keys");
			goto fail;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (txn(s, pexec_sql[Q_COMMIT], e) < 0)
		goto fail0;
	schedule_free(sc);
	return store_load_schedule(s, sc, e);
fail:
	sqlite3_finalize(st);
fail0:
	exec_sql(s, "ROLLBACK", NULL);
	return -1;
}

int store_add_pexecs(struct store *s, const struct sched_item *items, size_t n, struct schedule *sc,
		     struct kerr *e)
{
	long seq = 0, most = sc->pexecs;
	for (size_t i = 0; i < sc->n; i++)
		if (sc->items[i].seq + 1 > seq)
			seq = sc->items[i].seq + 1;
	sqlite3_stmt *st = NULL;
	if (settle(s, e) < 0 || txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO pexecs(key_id, num, seq) VALUES(?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		dberr(s, e, "pexecs");
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, sc->keys[items[i].key].id);
		sqlite3_bind_int64(st, 2, items[i].num);
		sqlite3_bind_int64(st, 3, seq++);
		if (items[i].num + 1 > most)
			most = items[i].num + 1;
		if (sqlite3_step(st) != SQLITE_DONE) {
			dberr(s, e, "pexecs");
			goto fail;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld", most);
	if (store_rounds_put(s, items, n, seq - (long)n, e) < 0 || store_meta_set(s, "pexecs", buf, e) < 0 ||
	    txn(s, pexec_sql[Q_COMMIT], e) < 0)
		goto fail;
	schedule_free(sc);
	return store_load_schedule(s, sc, e);
fail:
	sqlite3_finalize(st);
	exec_sql(s, "ROLLBACK", NULL);
	return -1;
}

/*
 * Only a session's first pexec is marked on its own (the later ones are
 * marked by the commit before them), so this is one small commit per
 * session, with the session's durability: no PRAGMA to switch it, which
 * would bring SQLite's parser back into memory inside the run loop.
 */
int store_mark_running(struct store *s, long pexec_id, struct kerr *e)
{
	if (same_file(s, e) < 0 || settle(s, e) < 0)
		return -1;
	sqlite3_stmt *st = stmt(s, pexec_sql[Q_SET_STATUS]);
	if (!st)
		return dberr(s, e, "pexecs");
	sqlite3_bind_text(st, 1, "running", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, pexec_id);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "pexecs");
}

/* the tables holding what a finished pexec left, each keyed by pexec_id */
static const char *const pexec_tables[] = { "iterations", "series", "scalars", "events", "origins" };

int store_unfinish(struct store *s, long pexec_id, struct kerr *e)
{
	if (settle(s, e) < 0 || txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	for (size_t i = 0; i <= ARRAY_SIZE(pexec_tables); i++) {
		char *sql = i < ARRAY_SIZE(pexec_tables)
				    ? xasprintf("DELETE FROM %s WHERE pexec_id=%ld", pexec_tables[i], pexec_id)
				    : xasprintf("UPDATE pexecs SET status='pending' WHERE id=%ld", pexec_id);
		int r = exec_sql(s, sql, e);
		free(sql);
		if (r < 0) {
			exec_sql(s, "ROLLBACK", NULL);
			return -1;
		}
	}
	return txn(s, pexec_sql[Q_COMMIT], e);
}

int store_retry(struct store *s, int failed, int tainted, struct kerr *e)
{
	if (!failed && !tainted)
		return 0;
	if (settle(s, e) < 0)
		return -1;
	char which[64];
	snprintf(which, sizeof(which), "status IN (%s%s%s)", failed ? "'failed','timeout'" : "",
		 failed && tainted ? "," : "", tainted ? "'tainted'" : "");
	if (txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(pexec_tables); i++) {
		char *sql = xasprintf("DELETE FROM %s WHERE pexec_id IN (SELECT id FROM pexecs WHERE %s)", pexec_tables[i],
				      which);
		int r = exec_sql(s, sql, e);
		free(sql);
		if (r < 0) {
			exec_sql(s, "ROLLBACK", NULL);
			return -1;
		}
	}
	char *sql = xasprintf("UPDATE pexecs SET status='pending' WHERE %s", which);
	int r = exec_sql(s, sql, e);
	free(sql);
	int n = r < 0 ? -1 : sqlite3_changes(s->db);
	if (r < 0 || txn(s, pexec_sql[Q_COMMIT], e) < 0) {
		exec_sql(s, "ROLLBACK", NULL);
		return -1;
	}
	return n;
}

/*
 * A pending pexec has no rows: those of a pexec put back to pending go in
 * the same transaction.  A running one may have some from an earlier
 * attempt: a tainted pexec run again (platform.rerun_tainted) keeps its
 * tainted rows until its rerun commits, so a Ctrl-C or kill -9 in the
 * rerun left them behind a pending pexec, and its next commit failed on
 * iterations' primary key in every later session.  Pending pexecs of such
 * files lose theirs too.
 */
int store_reset_running(struct store *s, struct kerr *e)
{
	static const char *const clear[] = {
		"DELETE FROM iterations WHERE pexec_id IN (SELECT id FROM pexecs WHERE status IN ('pending','running'))",
		"DELETE FROM series WHERE pexec_id IN (SELECT id FROM pexecs WHERE status IN ('pending','running'))",
		"DELETE FROM scalars WHERE pexec_id IN (SELECT id FROM pexecs WHERE status IN ('pending','running'))",
		"DELETE FROM events WHERE pexec_id IN (SELECT id FROM pexecs WHERE status IN ('pending','running'))",
	};
	if (settle(s, e) < 0 || txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(clear); i++)
		if (exec_sql(s, clear[i], e) < 0)
			goto fail;
	if (exec_sql(s, "UPDATE pexecs SET status='pending' WHERE status='running'", e) < 0)
		goto fail;
	int n = sqlite3_changes(s->db);
	if (txn(s, pexec_sql[Q_COMMIT], e) < 0)
		goto fail;
	return n;
fail:
	exec_sql(s, "ROLLBACK", NULL);
	return -1;
}

/* ---- compact int64 series ---- */

void store_encode_i64(const int64_t *v, size_t n, struct strbuf *out)
{
	int64_t prev = 0;
	sb_addc(out, 1); /* format: delta + zigzag + LEB128 varint */
	for (size_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)v[i] - (uint64_t)prev;
		int64_t sd = (int64_t)d;
		uint64_t z = ((uint64_t)sd << 1) ^ (uint64_t)(sd >> 63);
		prev = v[i];
		do {
			unsigned char b = z & 0x7f;
			z >>= 7;
			if (z)
				b |= 0x80;
			sb_addc(out, (char)b);
		} while (z);
	}
}

int store_decode_i64(const void *blob, size_t len, int64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!len) /* SQLite gives a NULL pointer for an empty blob */
		return 0;
	const unsigned char *p = blob, *end = p + len;
	if (*p++ != 1)
		return -1;
	size_t alloc = 0, cnt = 0;
	int64_t *v = NULL, prev = 0;
	while (p < end) {
		uint64_t z = 0;
		int shift = 0;
		for (;;) {
			if (p >= end || shift > 63) {
				free(v);
				return -1;
			}
			unsigned char b = *p++;
			z |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
			if (!(b & 0x80))
				break;
		}
		int64_t d = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
		prev = (int64_t)((uint64_t)prev + (uint64_t)d);
		if (cnt == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[cnt++] = prev;
	}
	*out = v;
	*n = cnt;
	return 0;
}

/* ---- the pexec log: its generation (meta pexec_log), recovery, start ---- */

static int log_new_gen(uint64_t *gen, struct kerr *e)
{
	do
		if (random_bytes(gen, sizeof(*gen), e) < 0)
			return -1;
	while (!*gen);
	return 0;
}

/*
 * meta pexec_log: the generation whose records are not yet all in the
 * file, in hex, and after a slash how many of its first records are (a fold
 * that the disk stopped half way); -1 when the file has none.
 */
static int log_gen(struct store *s, uint64_t *gen, uint64_t *done)
{
	char *v = NULL, *end = NULL;
	int r = -1;
	*done = 0;
	if (store_meta_get(s, "pexec_log", &v) == 0 && v) {
		errno = 0;
		*gen = strtoull(v, &end, 16);
		r = end != v && !errno ? 0 : -1;
		if (r == 0 && *end == '/') {
			const char *d = end + 1;
			*done = strtoull(d, &end, 10);
			r = end != d && !errno ? 0 : -1;
		}
		if (*end)
			r = -1;
	}
	free(v);
	return r;
}

static int log_set_gen(struct store *s, uint64_t gen, uint64_t done, struct kerr *e)
{
	char v[48];
	if (done)
		snprintf(v, sizeof(v), "%016llx/%llu", (unsigned long long)gen, (unsigned long long)done);
	else
		snprintf(v, sizeof(v), "%016llx", (unsigned long long)gen);
	sqlite3_stmt *st = stmt(s, pexec_sql[Q_META_SET]);
	if (!st)
		return dberr(s, e, "meta");
	sqlite3_bind_text(st, 1, "pexec_log", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, v, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "meta");
}

/* the log's files get the results file's permissions, as SQLite's own do */
static mode_t results_mode(const struct store *s)
{
	struct stat sb;
	return stat(s->path, &sb) == 0 ? sb.st_mode & 0777 : 0644;
}

/*
 * What a writer killed (or a machine lost) left in the log: the records of
 * the file's generation, up to the first that is not whole, folded in by
 * the next one to take the lock.  A log of another generation holds
 * nothing to fold (it was folded, or is another file's).
 */
static int log_recover(struct store *s, struct kerr *e)
{
	char *path = plog_path(s->path);
	uint64_t gen, done;
	int r = 0;
	if (file_exists(path) && log_gen(s, &gen, &done) == 0) {
		if (plog_open(&s->log, path, results_mode(s), 0, e) < 0) {
			r = -1;
		} else {
			struct plog_hdr h;
			plog_restart(&s->log, gen);
			s->done_num = 0;
			s->done_end = 0;
			while (plog_read(s->log.fd, s->log.end, s->log.size, gen, s->log.num, &s->readback, &h) == 1) {
				s->log.end += h.size;
				if (++s->log.num == done) {
					s->done_num = done;
					s->done_end = s->log.end;
				}
			}
			if (s->log.num < done) { /* fewer than were folded: none of them is run twice */
				s->done_num = s->log.num;
				s->done_end = s->log.end;
			}
			r = log_fold(s, e);
		}
	}
	free(path);
	return r;
}

long store_log_pending(struct store *s)
{
	char *path = plog_path(s->path);
	uint64_t gen, done;
	long n = 0;
	if (log_gen(s, &gen, &done) == 0)
		n = plog_count(path, gen) - (long)done;
	free(path);
	return n > 0 ? n : 0;
}

/*
 * A reader is told of finished pexecs that only the log holds (its writer
 * was killed; the next writer folds them in); not while a writer is at
 * work (it folds them itself, within about a second: docs/results.md).
 */
static void note_unfolded(struct store *s)
{
	long n = store_log_pending(s);
	if (n > 0) {
		char *path = plog_path(s->path);
		kiln_note("%s: %ld finished pexec(s) are kept in %s and not yet in the results: the run that wrote "
			  "them was stopped before it folded them in; the next `kiln run` (or `kiln merge`, for a "
			  "shard) folds them in", s->path, n, path);
		free(path);
	}
}

int store_fold_log(const char *path, struct kerr *e)
{
	char *log = plog_path(path);
	struct stat sb;
	int there = lstat(log, &sb) == 0;
	free(log);
	if (!there)
		return 0;
	struct store *s;
	struct kerr le = KERR_INIT;
	int r = 0;
	if (store_open(path, 1, &s, e) < 0)
		return -1;
	if (store_lock(s, &le) < 0) {
		/* a writer at work folds its own log */
		r = le.code == KEXIT_LOCKED ? 0 : -1;
		if (r < 0)
			kerr_setc(e, le.code, "%s", sb_str(&le.msg));
	}
	kerr_release(&le);
	store_close(s);
	return r;
}

/*
 * Before the run loop: the log open (made, reserved and flushed when
 * missing), its generation known to the file.  A log that cannot be made
 * (no room, a filesystem that refuses) is done without: each commit then
 * goes to the results file, durably, as it is.
 */
static int log_start(struct store *s, struct kerr *e)
{
	uint64_t gen, done;
	if (s->lock_fd < 0)
		return flush_setup(s, e);
	/* (a log left with records was folded when the lock was taken: none of gen's is left) */
	int fresh = log_gen(s, &gen, &done) < 0 || done;
	if (fresh && (log_new_gen(&gen, e) < 0 || txn(s, pexec_sql[Q_BEGIN], e) < 0 || log_set_gen(s, gen, 0, e) < 0 ||
		      txn(s, pexec_sql[Q_COMMIT], e) < 0)) {
		exec_sql(s, "ROLLBACK", NULL);
		return -1;
	}
	/* that commit, flushed, flushed the setup's before it too */
	if (fresh)
		s->unflushed = 0;
	if (flush_setup(s, e) < 0)
		return -1;
	char *path = plog_path(s->path);
	struct kerr le = KERR_INIT;
	if (s->log.fd < 0 && plog_open(&s->log, path, results_mode(s), LOG_RESERVE, &le) < 0)
		kiln_warn("%s; each pexec is committed to the results file directly", sb_str(&le.msg));
	kerr_release(&le);
	free(path);
	plog_restart(&s->log, gen);
	s->done_num = 0;
	s->done_end = 0;
	s->folded_ns = mono_ns();
	/* the tests' way to see a log that is not folded yet (kill -9 with records in it) */
	const char *ms = getenv("KILN_LOG_FOLD_MS");
	long v;
	s->fold_every_ns = ms && parse_long(ms, &v) == 0 && v > 0 ? v * 1000000LL : FOLD_EVERY_NS;
	return 0;
}

/* ---- committing a pexec ---- */

/*
 * Blobs are little-endian on every host: float64 series as IEEE-754 binary64
 * words, counter lengths as uint32 (the delta-varints are bytes already).
 * On little-endian hosts the doubles are used as they are; elsewhere *tmp
 * holds a converted copy (the caller frees it).
 */
static const void *f64_le(const double *v, size_t n, uint64_t **tmp)
{
	*tmp = NULL;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return v;
#else
	uint64_t *w = xmalloc((n ? n : 1) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		memcpy(&u, &v[i], sizeof(u));
		w[i] = htole64(u);
	}
	*tmp = w;
	return w;
#endif
}

int store_bind_f64(sqlite3_stmt *st, int col, const double *v, size_t n)
{
	uint64_t *tmp;
	const void *p = f64_le(v, n, &tmp);
	return sqlite3_bind_blob64(st, col, p, n * sizeof(double), tmp ? free : SQLITE_STATIC);
}

static void f64_from_le(const void *p, size_t n, double *out)
{
	memcpy(out, p, n * sizeof(double));
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		memcpy(&u, &out[i], sizeof(u));
		u = le64toh(u);
		memcpy(&out[i], &u, sizeof(u));
	}
#endif
}

/*
 * A pexec's commit is built as a record of the pexec log (store-log.h):
 * the statements it runs, in order, with their values.  The same record
 * is written to the log and later folded, or run at once when there is no
 * log; so what a fold after a crash runs is exactly what a commit runs.
 */
static void rec_series(struct plog_rec *rec, long id, const char *name, const char *unit, const double *v, size_t n)
{
	uint64_t *tmp;
	const void *p = f64_le(v, n, &tmp);
	plog_rec_op(rec, Q_SERIES);
	plog_rec_int(rec, id);
	plog_rec_text(rec, name);
	plog_rec_text(rec, unit);
	plog_rec_blob(rec, p, n * sizeof(double));
	free(tmp);
}

/* per-iteration records become one float64 series per name (sums when repeated) */
struct series_acc {
	const char *name, *unit;
	double *v;
	size_t n;
};

static void rec_records(struct plog_rec *rec, long id, const struct pexec_result *r)
{
	const struct rec_list *l = r->records;
	if (!l || !l->n)
		return;
	/* by the records' interned name (rec_list): one slot per name, no search */
	size_t nacc = l->names.n;
	struct series_acc *acc = xcalloc(nacc ? nacc : 1, sizeof(*acc));
	for (size_t i = 0; i < l->n; i++) {
		const struct kiln_rec *x = &l->v[i];
		if (x->kind == REC_PEXEC) {
			plog_rec_op(rec, Q_SCALAR);
			plog_rec_int(rec, id);
			plog_rec_text(rec, x->name);
			plog_rec_text(rec, x->unit ? x->unit : "");
			plog_rec_real(rec, x->value);
		} else if (x->kind == REC_EVENT) {
			plog_rec_op(rec, Q_EVENT);
			plog_rec_int(rec, id);
			plog_rec_text(rec, x->name);
			plog_rec_int(rec, x->start_ns);
			plog_rec_int(rec, x->end_ns);
		} else {
			if (x->iter < 0 || x->iter > 100000000)
				continue;
			struct series_acc *a = &acc[x->nid];
			if (!a->name) {
				a->name = x->name;
				a->unit = x->unit ? x->unit : "";
			}
			size_t need = (size_t)x->iter + 1;
			if (need < r->n)
				need = r->n;
			if (need > a->n) {
				a->v = xrealloc(a->v, need * sizeof(double));
				for (size_t k = a->n; k < need; k++)
					a->v[k] = NAN;
				a->n = need;
			}
			double *slot = &a->v[x->iter];
			*slot = isnan(*slot) ? x->value : *slot + x->value;
		}
	}
	for (size_t k = 0; k < nacc; k++) {
		if (acc[k].name)
			rec_series(rec, id, acc[k].name, acc[k].unit, acc[k].v, acc[k].n);
		free(acc[k].v);
	}
	free(acc);
}

static void rec_pexec_row(struct plog_rec *rec, long id, const struct pexec_result *r)
{
	int keep_output = r->status != PX_OK;
	plog_rec_op(rec, Q_PEXEC);
	plog_rec_text(rec, pexec_status_name(r->status));
	plog_rec_int(rec, r->wall_start_ns);
	plog_rec_real(rec, r->duration_s);
	plog_rec_int(rec, r->exit_status);
	plog_rec_int(rec, r->signal);
	plog_rec_real(rec, r->user_s);
	plog_rec_real(rec, r->sys_s);
	plog_rec_int(rec, r->maxrss_kb);
	plog_rec_int(rec, r->personality);
	plog_rec_text(rec, r->error);
	plog_rec_blob(rec, keep_output ? r->out : NULL, r->out_len);
	plog_rec_blob(rec, keep_output ? r->err : NULL, r->err_len);
	plog_rec_text(rec, r->instr_error);
	plog_rec_text(rec, r->taint);
	plog_rec_text(rec, r->env_hash);
	plog_rec_int(rec, (int64_t)r->n);
	plog_rec_int(rec, id);
}

static void rec_iterations(struct plog_rec *rec, long id, const struct pexec_result *r)
{
	struct strbuf wall = STRBUF_INIT, ctr = STRBUF_INIT, names = STRBUF_INIT;
	store_encode_i64(r->wall_ns, r->n, &wall);
	if (r->ncounters) {
		for (size_t k = 0; k < r->ncounters; k++)
			sb_addf(&names, "%s%s", k ? "," : "", r->counter_names[k]);
		/* column-major so each counter's deltas compress */
		int64_t *col = xmalloc((r->n ? r->n : 1) * sizeof(int64_t));
		for (size_t k = 0; k < r->ncounters; k++) {
			for (size_t i = 0; i < r->n; i++)
				col[i] = r->counters[i * r->ncounters + k];
			struct strbuf one = STRBUF_INIT;
			store_encode_i64(col, r->n, &one);
			uint32_t len = htole32((uint32_t)one.len);
			sb_add(&ctr, &len, sizeof(len));
			sb_add(&ctr, one.buf, one.len);
			sb_release(&one);
		}
		free(col);
	}
	plog_rec_op(rec, Q_ITER);
	plog_rec_int(rec, id);
	plog_rec_int(rec, (int64_t)r->n);
	plog_rec_blob(rec, wall.buf ? wall.buf : "", wall.len);
	plog_rec_text(rec, r->ncounters ? sb_str(&names) : NULL);
	plog_rec_blob(rec, r->ncounters ? (ctr.buf ? ctr.buf : "") : NULL, ctr.len);
	plog_rec_text(rec, r->clock);
	plog_rec_text(rec, r->unavailable && *r->unavailable ? r->unavailable : NULL);
	sb_release(&wall);
	sb_release(&ctr);
	sb_release(&names);
}

/* the record of pexec id's commit, in s->rec */
static void build_record(struct store *s, long id, const struct pexec_result *r)
{
	struct plog_rec *rec = &s->rec;
	plog_rec_start(rec, id);
	/* a rerun replaces what an earlier attempt left */
	for (int q = Q_CLEAR_ITER; r->rerun && q <= Q_CLEAR_EVENTS; q++) {
		plog_rec_op(rec, q);
		plog_rec_int(rec, id);
	}
	rec_pexec_row(rec, id, r);
	rec_iterations(rec, id, r);
	rec_records(rec, id, r);
	if (r->next_id > 0) {
		/* the next pexec is marked running here: one transaction per pexec */
		plog_rec_op(rec, Q_NEXT_RUNNING);
		plog_rec_int(rec, r->next_id);
	}
}

/* a record that is not one kiln wrote (a log from elsewhere, or damaged) */
static int bad_record(struct store *s, struct kerr *e, int64_t id, const char *why)
{
	return kerr_setc(e, KEXIT_STORE, "%s: a record for pexec %lld is not one kiln wrote (%s): it is not folded "
			 "into the results; remove the log to run its pexecs again", s->log.path ? s->log.path : s->path,
			 (long long)id, why);
}

static int finished_status(const struct plog_val *v)
{
	if (v->type != SQLITE_TEXT)
		return 0;
	for (enum pexec_status x = PX_OK; x <= PX_TAINTED; x++)
		if (strlen(status_names[x]) == v->n && !memcmp(status_names[x], v->p, v->n))
			return 1;
	return 0;
}

/* an op's values bound to its checked statement st, run, the row it must change checked */
static int run_op(struct store *s, sqlite3_stmt *st, const struct plog_op *op, int64_t id, struct kerr *e)
{
	for (int i = 0; i < op->n; i++) {
		const struct plog_val *v = &op->v[i];
		if (v->type == SQLITE_INTEGER)
			sqlite3_bind_int64(st, i + 1, v->i);
		else if (v->type == SQLITE_FLOAT)
			sqlite3_bind_double(st, i + 1, v->d);
		else if (v->type == SQLITE_TEXT)
			sqlite3_bind_text(st, i + 1, v->p, (int)v->n, SQLITE_STATIC);
		else if (v->type == SQLITE_BLOB)
			sqlite3_bind_blob(st, i + 1, v->n ? v->p : "", (int)v->n, SQLITE_STATIC);
	}
	int rc = sqlite3_step(st), changed = sqlite3_changes(s->db);
	if (rc != SQLITE_DONE) {
		dberr(s, e, rec_stmts[op->stmt].what);
		sqlite3_reset(st);
		return -1;
	}
	/* (its values point into the record, never read again: stmt() unbinds them before the next use) */
	sqlite3_reset(st);
	if (rec_stmts[op->stmt].one_row && changed != 1)
		return bad_record(s, e, id, "a pexec the results file does not have");
	return 0;
}

/* a held-back "the next pexec is running" written now, as the record had it */
static int next_running_now(struct store *s, struct kerr *e)
{
	int64_t id = s->next_deferred;
	if (!id)
		return 0;
	s->next_deferred = 0;
	sqlite3_stmt *st = stmt(s, pexec_sql[Q_NEXT_RUNNING]);
	if (!st)
		return dberr(s, e, rec_stmts[Q_NEXT_RUNNING].what);
	struct plog_op op = { .stmt = Q_NEXT_RUNNING, .n = 1 };
	op.v[0].type = SQLITE_INTEGER;
	op.v[0].i = id;
	return run_op(s, st, &op, id, e);
}

/* one op of a record run: its statement with its values, each checked */
static int apply_op(struct store *s, const struct plog_op *op, int64_t id, struct kerr *e)
{
	if (op->stmt >= NQ || rec_stmts[op->stmt].id_at == NOT_IN_RECORDS)
		return bad_record(s, e, id, "a statement a pexec's commit does not run");
	int counted = op->stmt == Q_PEXEC && s->count_next;
	sqlite3_stmt *st = stmt(s, counted ? pexec_counted_sql : pexec_sql[op->stmt]);
	if (!st)
		return dberr(s, e, rec_stmts[op->stmt].what);
	if (sqlite3_bind_parameter_count(st) != op->n)
		return bad_record(s, e, id, "a statement with another number of values");
	if (s->folding && op->stmt == Q_NEXT_RUNNING && op->v[0].type == SQLITE_INTEGER) {
		if (next_running_now(s, e) < 0)
			return -1;
		s->next_deferred = op->v[0].i;
		return 0;
	}
	s->count_next &= !counted;
	int at = rec_stmts[op->stmt].id_at == ID_LAST ? op->n : rec_stmts[op->stmt].id_at;
	if (at > 0 && (op->v[at - 1].type != SQLITE_INTEGER || op->v[at - 1].i != id))
		return bad_record(s, e, id, "a value for another pexec");
	if (op->stmt == Q_PEXEC && !finished_status(&op->v[0]))
		return bad_record(s, e, id, "not a status of a finished pexec");
	return run_op(s, st, op, id, e);
}

/*
 * A fold's records come in the order they ran, each marking the next
 * pexec running (for a crash before its own record).  Within one fold
 * that mark is overwritten at once by the next record, so it is held back
 * (apply_op) and merged into that record's row, which then counts the
 * attempt itself: one write of the row instead of two, the same row in
 * the end.  A record of another pexec, or the fold's end, writes a
 * held-back mark as it was.
 */
static int merge_next(struct store *s, int64_t id, struct kerr *e)
{
	if (s->next_deferred && s->next_deferred == id) {
		s->next_deferred = 0;
		s->count_next = 1;
		return 0;
	}
	return next_running_now(s, e);
}

/* every op of a record's payload, inside the caller's transaction */
static int apply_record(struct store *s, const unsigned char *payload, size_t len, int64_t id, struct kerr *e)
{
	const unsigned char *cur = payload;
	struct plog_op op;
	int r;
	if (merge_next(s, id, e) < 0)
		return -1;
	while ((r = plog_next_op(&cur, payload + len, &op)) == 1)
		if (apply_op(s, &op, id, e) < 0)
			return -1;
	if (r < 0)
		return bad_record(s, e, id, "its values cannot be read");
	if (s->count_next) { /* no row of its own after all: the mark as it was */
		s->count_next = 0;
		s->next_deferred = id;
		return next_running_now(s, e);
	}
	return 0;
}

/* the record in s->rec run now, in a transaction of its own */
static int commit_direct(struct store *s, int64_t id, struct kerr *e)
{
	size_t len;
	const unsigned char *p = plog_rec_payload(&s->rec, &len);
	if (txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	if (apply_record(s, p, len, id, e) < 0 || txn(s, pexec_sql[Q_COMMIT], e) < 0) {
		exec_sql(s, "ROLLBACK", NULL);
		return -1;
	}
	return 0;
}

/* the log's records from->num-1 (the first at byte `at`) run in the caller's transaction; *at advances */
static int apply_logged(struct store *s, uint64_t from, uint64_t to, off_t *at, struct kerr *e)
{
	struct plog *l = &s->log;
	s->next_deferred = 0;
	s->count_next = 0;
	/* (above malloc's mmap threshold, and released after the fold: not kept beside the benchmarks) */
	struct plog_reader rd = { l->fd, l->size, 0, FOLD_AHEAD, &s->readback };
	sb_reset(&s->readback);
	for (uint64_t k = from; k < to; k++) {
		struct plog_hdr h;
		int got = plog_read_next(&rd, *at, l->gen, k, &h);
		if (got < 0)
			return kerr_setc(e, KEXIT_STORE, "%s: cannot read it back: %s", l->path, strerror(errno));
		if (!got)
			return kerr_setc(e, KEXIT_STORE, "%s: record %llu is not there as it was written: the disk lost it",
					 l->path, (unsigned long long)k);
		if (h.table != log_table())
			return bad_record(s, e, h.pexec_id, "written by another kiln, for other statements");
		if (apply_record(s, h.payload, h.len, h.pexec_id, e) < 0)
			return -1;
		*at += h.size;
	}
	return next_running_now(s, e);
}

/*
 * When the whole fold fails (the disk is full), as many records as the
 * file takes, one transaction each, the meta saying how many: the results
 * file then holds every pexec it has room for, and the log the rest.
 */
static void fold_one_by_one(struct store *s)
{
	struct kerr e = KERR_INIT;
	while (s->done_num < s->log.num) {
		off_t at = s->done_end;
		if (txn(s, pexec_sql[Q_BEGIN], &e) < 0)
			break;
		if (apply_logged(s, s->done_num, s->done_num + 1, &at, &e) < 0 ||
		    log_set_gen(s, s->log.gen, s->done_num + 1, &e) < 0 || txn(s, pexec_sql[Q_COMMIT], &e) < 0) {
			exec_sql(s, "ROLLBACK", NULL);
			break;
		}
		s->done_num++;
		s->done_end = at;
	}
	kerr_release(&e);
}

/*
 * The log's records run into the results file in one transaction, which
 * also gives the log a new generation: once it commits, no record in the
 * file counts any more, and the log starts again from its beginning.
 * Until it commits, every record stays valid, and a crash in between
 * folds them again from the log, exactly once (the generation is the
 * file's).
 */
static int log_fold_now(struct store *s, struct kerr *e)
{
	struct plog *l = &s->log;
	uint64_t gen;
	if (l->fd < 0 || l->num == s->done_num)
		return 0;
	if (log_new_gen(&gen, e) < 0 || txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	s->folding = 1;
	off_t at = s->done_end;
	int r = apply_logged(s, s->done_num, l->num, &at, e);
	if (r == 0 && (log_set_gen(s, gen, 0, e) < 0 || txn(s, pexec_sql[Q_COMMIT], e) < 0))
		r = -1;
	if (r < 0) {
		exec_sql(s, "ROLLBACK", NULL);
		fold_one_by_one(s);
		s->fold_failed = 1;
	} else {
		plog_restart(l, gen);
		s->done_num = 0;
		s->done_end = 0;
		s->folded_ns = mono_ns();
	}
	s->folding = 0;
	sb_release(&s->readback);
	return r;
}

/* the fold timed: what it costs between pexecs is part of a pexec's cost */
static int log_fold(struct store *s, struct kerr *e)
{
	if (s->log.fd < 0 || s->log.num == s->done_num)
		return 0;
	int64_t t0 = mono_ns();
	int r = log_fold_now(s, e);
	int64_t dt = mono_ns() - t0;
	s->nfolds++;
	s->fold_ns += dt;
	if (dt > s->fold_max_ns)
		s->fold_max_ns = dt;
	return r;
}

/* before anything else writes to the file: what the log holds goes first (not inside a store_begin) */
static int settle(struct store *s, struct kerr *e)
{
	return s->log.num > s->done_num && !s->txn_depth ? log_fold(s, e) : 0;
}

int store_settle(struct store *s, struct kerr *e)
{
	return settle(s, e);
}

/*
 * Which commits go to the log: a short pexec that ended well, whose commit
 * is most of what kiln adds to it.  A pexec that failed (rare, and looked
 * for at once by whoever watches: kiln status, a cluster task's end), one
 * that ran long enough for the file's own commit not to matter (and that
 * a reader would otherwise wait its whole length for), and a record too
 * large for the log go to the file directly, after what the log holds.
 */
static int wants_log(const struct store *s, const struct pexec_result *r)
{
	/* long: a tenth of the fold interval (100 ms), which it would otherwise hold a record back for */
	return s->log.fd >= 0 && r->status == PX_OK && r->duration_s * 1e9 < (double)s->fold_every_ns / 10 &&
	       s->rec.b.len <= PLOG_REC_MAX;
}

/*
 * Into the log, made durable there; folded when it is full, and at most
 * once a second otherwise (FOLD_EVERY_NS).  A log that cannot take the
 * record (the disk is full) gives back its unused space and is folded; the
 * record then goes to the results file directly, and so do the session's
 * next ones.
 */
static int commit_logged(struct store *s, int64_t id, struct kerr *e)
{
	struct plog *l = &s->log;
	size_t len = (s->rec.b.len + PLOG_BLOCK - 1) / PLOG_BLOCK * PLOG_BLOCK;
	if (!plog_room(l, len) && log_fold(s, e) < 0)
		return -1;
	plog_rec_finish(&s->rec, l->gen, l->num, log_table());
	struct kerr le = KERR_INIT;
	if (plog_append(l, &s->rec, s->durable, &le) < 0) {
		kerr_release(&le);
		plog_trim(l);
		if (log_fold(s, e) < 0)
			return -1;
		plog_close(l, 1);
		s->done_num = 0;
		s->done_end = 0;
		return commit_direct(s, id, e);
	}
	kerr_release(&le);
	s->nlogged++;
	return mono_ns() - s->folded_ns >= s->fold_every_ns ? log_fold(s, e) : 0;
}

int store_commit_pexec(struct store *s, long id, const struct pexec_result *r, struct kerr *e)
{
	if (same_file(s, e) < 0)
		return -1;
	build_record(s, id, r);
	int rc = wants_log(s, r) ? commit_logged(s, id, e) : settle(s, e) < 0 ? -1 : commit_direct(s, id, e);
	/* a large record's buffer is not kept for the next pexec */
	if (s->rec.b.alloc > ((size_t)1 << 20))
		plog_rec_release(&s->rec);
	return rc;
}

int store_status(struct store *s, const struct schedule *sc, struct key_status **out, struct kerr *e)
{
	struct key_status *ks = xcalloc(sc->nkeys ? sc->nkeys : 1, sizeof(*ks));
	for (size_t k = 0; k < sc->nkeys; k++)
		ks[k].key = (long)k;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT key_id, status, COUNT(*), TOTAL(duration_s) FROM pexecs GROUP BY key_id, status",
			       -1, &st, NULL) != SQLITE_OK) {
		free(ks);
		return dberr(s, e, "pexecs");
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		long k = schedule_key_index(sc, sqlite3_column_int64(st, 0));
		enum pexec_status stt = status_parse((const char *)sqlite3_column_text(st, 1));
		if (k >= 0) {
			ks[k].n[stt] += sqlite3_column_int64(st, 2);
			ks[k].seconds += sqlite3_column_double(st, 3);
		}
	}
	sqlite3_finalize(st);
	*out = ks;
	return 0;
}

/* ---- datasets ---- */

static enum ds_status to_ds(enum pexec_status s)
{
	switch (s) {
	case PX_OK: return DS_OK;
	case PX_FAILED: return DS_FAILED;
	case PX_TIMEOUT: return DS_TIMEOUT;
	case PX_TAINTED: return DS_TAINTED;
	default: return DS_PENDING;
	}
}

/* the seq of the key's program with this hash, 0: not recorded */
static long program_seq(const struct store_program *pg, size_t n, long kid, const char *hash)
{
	for (size_t i = 0; hash && i < n; i++)
		if (pg[i].key_id == kid && !strcmp(pg[i].hash, hash))
			return pg[i].seq;
	return 0;
}

static const struct store_program *program_by_seq(const struct store_program *pg, size_t n, long kid, long seq)
{
	for (size_t i = 0; i < n; i++)
		if (pg[i].key_id == kid && pg[i].seq == seq)
			return &pg[i];
	return NULL;
}

/*
 * A key whose pexecs ran several programs: how each differs from the one
 * before it, as the key's program_note (ds_split_programs puts it after its
 * summary).
 */
static void explain_programs(struct ds_key *dk, const struct store_program *pg, size_t n, long kid)
{
	long prev = -1;
	struct strbuf sb = STRBUF_INIT;
	for (long seq = 0; seq <= (long)n; seq++) {
		int ran = 0;
		for (size_t i = 0; i < dk->npexecs && !ran; i++)
			ran = dk->pexecs[i].program == seq;
		if (!ran)
			continue;
		if (prev >= 0) {
			const struct store_program *a = program_by_seq(pg, n, kid, prev), *b = program_by_seq(pg, n, kid, seq);
			struct strvec d = STRVEC_INIT;
			if (a && b)
				prov_diff(a->description, b->description, 4, &d);
			sb_addf(&sb, "%sprogram %ld%s%s differs from program %ld: ", sb.len ? "; " : "", seq,
				b && b->since ? " since " : "", b && b->since ? b->since : "", prev);
			if (!a)
				sb_adds(&sb, "the earlier pexecs were recorded without a provenance (an older kiln)");
			for (size_t i = 0; i < d.n; i++)
				sb_addf(&sb, "%s%s", i ? ", " : "", d.v[i]);
			sv_clear(&d);
		}
		prev = seq;
	}
	if (sb.len)
		dk->program_note = sb_detach(&sb);
	sb_release(&sb);
}

/* the per-pexec scalars store_load_dataset makes from columns of pexecs, in column order */
static const char *const column_scalars[4] = { "exit_status", "user_time", "sys_time", "max_rss" };

int store_is_column_scalar(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(column_scalars); i++)
		if (!strcmp(name, column_scalars[i]))
			return 1;
	return 0;
}

/* the first n iterations of a pexec left out of its wall times and series (they stay in the file) */
static void drop_warmup_iterations(struct ds_pexec *p, size_t n)
{
	size_t w = n < p->n ? n : p->n;
	memmove(p->wall, p->wall + w, (p->n - w) * sizeof(double));
	p->n -= w;
	for (size_t i = 0; i < p->nseries; i++) {
		struct ds_series *se = &p->series[i];
		size_t d = n < se->n ? n : se->n;
		memmove(se->v, se->v + d, (se->n - d) * sizeof(double));
		se->n -= d;
	}
}

/* what store_load_dataset reads each pexec row with */
struct ds_load {
	const char *path;
	struct schedule sc;
	long wp, wi;                /* warmup_pexecs, warmup_iterations */
	struct store_program *pg;
	size_t npg;
	sqlite3_stmt *st, *ss, *sk, *so; /* pexecs (+ iterations), series, scalars, origins */
};

/* the experiment's name, machine and keys, with their warm-up pexecs and iterations taken out */
static void ds_load_keys(struct dataset *ds, struct store *s, struct ds_load *L)
{
	char *name = NULL;
	store_meta_get(s, "name", &name);
	ds->name = name ? name : xstrdup("experiment");
	ds->source = xstrdup(L->path);
	store_audit_get(s, "hostname", &ds->machine);
	/* warm-up pexecs and iterations (the config's warmup_pexecs, warmup_iterations): kept here, never analysed */
	L->wp = meta_long(s, "warmup_pexecs");
	L->wi = meta_long(s, "warmup_iterations");
	const struct schedule *sc = &L->sc;
	for (size_t k = 0; k < sc->nkeys; k++) {
		struct ds_key *dk = ds_add_key(ds, sc->keys[k].bench, sc->keys[k].vm, sc->keys[k].variant);
		dk->planned_pexecs = sc->pexecs > L->wp ? sc->pexecs - L->wp : 0;
		dk->iterations = sc->keys[k].iterations > L->wi ? sc->keys[k].iterations - L->wi : sc->keys[k].iterations;
		dk->warmup_iterations = sc->keys[k].iterations > L->wi ? L->wi : 0;
	}
}

static int ds_load_prepare(struct store *s, struct ds_load *L, struct kerr *e)
{
	if (sqlite3_prepare_v2(s->db,
			       "SELECT p.id, p.key_id, p.num, p.status, i.wall, i.counter_names, i.counters,"
			       " p.exit_status, p.user_s, p.sys_s, p.maxrss_kb, p.error, p.instr_error, p.taint, p.env_hash,"
			       " p.duration_s, p.wall_start_ns"
			       " FROM pexecs p LEFT JOIN iterations i ON i.pexec_id = p.id ORDER BY p.key_id, p.num",
			       -1, &L->st, NULL) != SQLITE_OK)
		return dberr(s, e, "pexecs");
	sqlite3_prepare_v2(s->db, "SELECT name, unit, vals FROM series WHERE pexec_id=? ORDER BY name", -1, &L->ss, NULL);
	sqlite3_prepare_v2(s->db, "SELECT name, unit, value FROM scalars WHERE pexec_id=? ORDER BY name", -1, &L->sk, NULL);
	/* a file from an older kiln has no origins table: every pexec is the file's machine's */
	sqlite3_prepare_v2(s->db, "SELECT machine FROM origins WHERE pexec_id=?", -1, &L->so, NULL);
	return 0;
}

/* the row's status, errors, times, machine and program */
static void ds_load_status(struct ds_pexec *p, const struct ds_load *L, enum pexec_status stt, long id, long kid)
{
	sqlite3_stmt *st = L->st;
	p->status = to_ds(stt);
	const char *err = (const char *)sqlite3_column_text(st, stt == PX_TAINTED ? 13 : 11);
	const char *ierr = (const char *)sqlite3_column_text(st, 12);
	p->error = err && *err ? xstrdup(err) : NULL;
	p->instr_error = ierr && *ierr ? xstrdup(ierr) : NULL;
	if (sqlite3_column_type(st, 15) != SQLITE_NULL)
		p->duration = sqlite3_column_double(st, 15);
	if (sqlite3_column_type(st, 16) != SQLITE_NULL)
		p->start = (double)sqlite3_column_int64(st, 16) / 1e9;
	if (L->so) {
		sqlite3_bind_int64(L->so, 1, id);
		if (sqlite3_step(L->so) == SQLITE_ROW)
			p->machine = col_text(L->so, 0);
		sqlite3_reset(L->so);
	}
	p->program = program_seq(L->pg, L->npg, kid, (const char *)sqlite3_column_text(st, 14));
}

/* the row's iteration wall times, in seconds */
static int ds_load_wall(struct ds_pexec *p, const struct ds_load *L, long id, struct kerr *e)
{
	int64_t *w = NULL;
	size_t n = 0;
	if (store_decode_i64(sqlite3_column_blob(L->st, 4), (size_t)sqlite3_column_bytes(L->st, 4), &w, &n) < 0)
		return kerr_setc(e, KEXIT_STORE, "%s: pexec %ld: damaged iteration data", L->path, id);
	p->wall = xmalloc((n ? n : 1) * sizeof(double));
	p->n = n;
	for (size_t i = 0; i < n; i++)
		p->wall[i] = (double)w[i] / 1e9;
	free(w);
	return 0;
}

/* the row's counters (names, and one length-prefixed blob each) become series too */
static void ds_load_counters(struct ds_pexec *p, sqlite3_stmt *st)
{
	const char *cn = (const char *)sqlite3_column_text(st, 5);
	const unsigned char *cb = sqlite3_column_blob(st, 6);
	size_t cl = (size_t)sqlite3_column_bytes(st, 6), off = 0;
	if (!cn || !cb)
		return;
	char *names = xstrdup(cn), *save = NULL;
	for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint32_t len;
		if (off + sizeof(len) > cl)
			break;
		memcpy(&len, cb + off, sizeof(len));
		len = le32toh(len);
		off += sizeof(len);
		if (off + len > cl)
			break;
		int64_t *cv = NULL;
		size_t cnn = 0;
		if (store_decode_i64(cb + off, len, &cv, &cnn) == 0) {
			struct ds_series *se = ds_add_series(p, t, "", cnn);
			for (size_t i = 0; i < cnn; i++)
				se->v[i] = cv[i] == INT64_MIN ? NAN : (double)cv[i];
		}
		free(cv);
		off += len;
	}
	free(names);
}

/* the pexec's series, and its scalars: the columns of pexecs first, then the scalars table's */
static void ds_load_records(struct ds_pexec *p, const struct ds_load *L, long id)
{
	sqlite3_bind_int64(L->ss, 1, id);
	while (sqlite3_step(L->ss) == SQLITE_ROW) {
		size_t bytes = (size_t)sqlite3_column_bytes(L->ss, 2);
		struct ds_series *se = ds_add_series(p, (const char *)sqlite3_column_text(L->ss, 0),
						     (const char *)sqlite3_column_text(L->ss, 1), bytes / sizeof(double));
		if (bytes)
			f64_from_le(sqlite3_column_blob(L->ss, 2), bytes / sizeof(double), se->v);
	}
	sqlite3_reset(L->ss);
	/* what every pexec's process did, kept as columns of pexecs (NULL: not recorded, as in imports) */
	static const char *const units[4] = { "", "s", "s", "KiB" };
	for (int c = 0; c < 4; c++)
		if (sqlite3_column_type(L->st, 7 + c) != SQLITE_NULL)
			ds_add_scalar(p, column_scalars[c], units[c], sqlite3_column_double(L->st, 7 + c));
	sqlite3_bind_int64(L->sk, 1, id);
	while (sqlite3_step(L->sk) == SQLITE_ROW)
		ds_add_scalar(p, (const char *)sqlite3_column_text(L->sk, 0), (const char *)sqlite3_column_text(L->sk, 1),
			      sqlite3_column_double(L->sk, 2));
	sqlite3_reset(L->sk);
}

/* one row of the pexecs query into its key's pexecs (a pending, unknown-key or warm-up one counted or passed over) */
static int ds_load_pexec(struct dataset *ds, const struct ds_load *L, long id, long kid, long num, struct kerr *e)
{
	enum pexec_status stt = status_parse((const char *)sqlite3_column_text(L->st, 3));
	if (stt == PX_PENDING || stt == PX_RUNNING)
		return 0;
	long ki = schedule_key_index(&L->sc, kid);
	if (ki < 0)
		return 0;
	struct ds_key *dk = &ds->keys[ki];
	if (num < L->wp) {
		dk->warmup_pexecs++;
		return 0;
	}
	struct ds_pexec *p = ds_add_pexec(dk, num);
	ds_load_status(p, L, stt, id, kid);
	if (ds_load_wall(p, L, id, e) < 0)
		return -1;
	ds_load_counters(p, L->st);
	ds_load_records(p, L, id);
	for (size_t k = 0; k < L->sc.nkeys; k++)
		if (L->sc.keys[k].id == kid && L->sc.keys[k].iterations > L->wi)
			drop_warmup_iterations(p, (size_t)L->wi);
	return 0;
}

/* every finished pexec's row, in key and pexec order */
static int ds_load_rows(struct dataset *ds, const struct ds_load *L, struct kerr *e)
{
	long last_kid = -1, last_num = -1;
	while (sqlite3_step(L->st) == SQLITE_ROW) {
		long id = sqlite3_column_int64(L->st, 0), kid = sqlite3_column_int64(L->st, 1),
		     num = sqlite3_column_int64(L->st, 2);
		if (kid == last_kid && num == last_num)
			/* UNIQUE(key_id, num) says it cannot be: a damaged or crafted index */
			return kerr_setc(e, KEXIT_STORE, "%s: pexec %ld of key %ld is there twice: the file is damaged",
					 L->path, num, kid);
		last_kid = kid;
		last_num = num;
		if (ds_load_pexec(ds, L, id, kid, num, e) < 0)
			return -1;
	}
	return 0;
}

int store_load_dataset(const char *path, struct dataset *ds, struct kerr *e)
{
	struct store *s;
	memset(ds, 0, sizeof(*ds));
	if (store_open(path, 0, &s, e) < 0)
		return -1;
	struct ds_load L;
	memset(&L, 0, sizeof(L));
	L.path = path;
	if (store_load_schedule(s, &L.sc, e) < 0) {
		store_close(s);
		return -1;
	}
	ds_load_keys(ds, s, &L);
	int rc = -1;
	if (store_programs(s, 0, &L.pg, &L.npg, e) == 0 && ds_load_prepare(s, &L, e) == 0 &&
	    ds_load_rows(ds, &L, e) == 0) {
		/* one key is one program: a key that ran several is shown as one key each */
		for (size_t k = 0; k < L.sc.nkeys; k++)
			explain_programs(&ds->keys[k], L.pg, L.npg, L.sc.keys[k].id);
		store_rounds_dataset(&L.sc, ds);
		ds_split_programs(ds);
		rc = 0;
	}
	sqlite3_finalize(L.ss);
	sqlite3_finalize(L.sk);
	sqlite3_finalize(L.so);
	sqlite3_finalize(L.st);
	store_programs_free(L.pg, L.npg);
	schedule_free(&L.sc);
	store_close(s);
	if (rc < 0)
		ds_free(ds);
	return rc;
}

int store_cache_put(struct store *s, const char *kind, const char *key, const char *value, struct kerr *e)
{
	if (s->gone)
		return gone_err(s, e);
	if (settle(s, e) < 0)
		return -1;
	sqlite3_stmt *st = stmt(s, "INSERT OR REPLACE INTO cache(kind, key, value) VALUES(?, ?, ?)");
	if (!st)
		return dberr(s, e, "cache");
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "cache");
}

int store_cache_get(struct store *s, const char *kind, const char *key, char **value)
{
	*value = NULL;
	sqlite3_stmt *st = stmt(s, "SELECT value FROM cache WHERE kind=? AND key=?");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*value = col_text(st, 0);
	sqlite3_reset(st);
	return *value ? 0 : -1;
}

int store_cache_last(struct store *s, const char *kind, const char *prefix, size_t max, char **key, char **value)
{
	*key = *value = NULL;
	sqlite3_stmt *st = stmt(s, "SELECT key, length(value) <= ?, CASE WHEN length(value) <= ? THEN value END FROM cache "
				   "WHERE kind=? AND substr(key, 1, length(?)) = ? ORDER BY key DESC LIMIT 1");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, prefix, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, prefix, -1, SQLITE_STATIC);
	int r = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*key = col_text(st, 0);
		if (sqlite3_column_int(st, 1))
			*value = col_text(st, 2);
		r = 0;
	}
	sqlite3_reset(st);
	return r;
}

int store_hold(const char *path, const char *command, struct store **out, struct kerr *e)
{
	struct kerr le = KERR_INIT;
	int r = 0;
	*out = NULL;
	if (store_open_locked(path, 0, out, &le) < 0 && le.code == KEXIT_LOCKED)
		r = kerr_setc(e, KEXIT_LOCKED, "%s: another kiln (a run, stat or profile of this experiment) has the results "
			      "file: kiln %s would disturb its measurements; try again when it has finished", path, command);
	else if (!*out)
		kiln_warn("%s; kiln %s measures without storing its result", sb_str(&le.msg), command);
	kerr_release(&le);
	return r;
}

void store_programs_free(struct store_program *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].hash);
		free(p[i].description);
		free(p[i].setting);
		free(p[i].since);
	}
	free(p);
}

#define FINISHED "('ok','failed','timeout','tainted')"

/* a count from sql with ?1 the key and ?2 a text (NULL: null); 0 when it cannot be asked */
static long count_of(struct store *s, const char *sql, long key_id, const char *text)
{
	sqlite3_stmt *st;
	long n = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, key_id);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static long program_pexecs(struct store *s, long key_id, const char *hash)
{
	return count_of(s, "SELECT COUNT(*) FROM pexecs WHERE key_id=?1 AND env_hash IS ?2 AND status IN " FINISHED,
			key_id, hash);
}

int store_programs(struct store *s, long key_id, struct store_program **out, size_t *n, struct kerr *e)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	/* a file from an older kiln has no programs table: no program is recorded */
	if (sqlite3_prepare_v2(s->db, "SELECT key_id, hash, seq, description, setting, since FROM programs"
			       " WHERE ?1 = 0 OR key_id = ?1 ORDER BY key_id, seq", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, key_id);
	size_t alloc = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 8;
			*out = xrealloc(*out, alloc * sizeof(**out));
		}
		struct store_program *p = &(*out)[(*n)++];
		p->key_id = sqlite3_column_int64(st, 0);
		p->hash = col_text(st, 1);
		p->seq = sqlite3_column_int64(st, 2);
		p->description = col_text(st, 3);
		p->setting = col_text(st, 4);
		p->since = col_text(st, 5);
		p->pexecs = 0;
		if (!p->hash || !p->description) {
			sqlite3_finalize(st);
			store_programs_free(*out, *n);
			*out = NULL;
			*n = 0;
			return kerr_setc(e, KEXIT_STORE, "%s: damaged programs table", s->path);
		}
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < *n; i++)
		(*out)[i].pexecs = program_pexecs(s, (*out)[i].key_id, (*out)[i].hash);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "programs");
}

int store_program_put(struct store *s, long key_id, const char *hash, const char *description, const char *setting,
		      struct kerr *e)
{
	char ts[32];
	iso_time(wall_ns(), ts, sizeof(ts));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO programs(key_id, hash, seq, description, setting, since) VALUES(?1, ?2,"
			       " (SELECT COALESCE(MAX(seq), 0) + 1 FROM programs WHERE key_id = ?1), ?3, ?4, ?5)"
			       " ON CONFLICT(key_id, hash) DO UPDATE SET setting = excluded.setting",
			       -1, &st, NULL) != SQLITE_OK)
		return dberr(s, e, "programs");
	sqlite3_bind_int64(st, 1, key_id);
	sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, description, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, setting, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, ts, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, e, "programs");
}

long store_unrecorded_pexecs(struct store *s, long key_id)
{
	long n = count_of(s, "SELECT COUNT(*) FROM pexecs p WHERE key_id=?1 AND status IN " FINISHED " AND NOT EXISTS"
			  " (SELECT 1 FROM programs g WHERE g.key_id = ?1 AND g.hash = p.env_hash)", key_id, NULL);
	/* an older kiln's file without a programs table: none of its pexecs is recorded */
	return n >= 0 ? n : count_of(s, "SELECT COUNT(*) FROM pexecs WHERE key_id=?1 AND status IN " FINISHED, key_id, NULL);
}

int store_drop_keys(struct store *s, const long *key_ids, size_t n, struct kerr *e)
{
	static const char *const sql[] = {
		"SELECT COUNT(*) FROM pexecs WHERE key_id=?1 AND status NOT IN ('pending', 'running')",
		"DELETE FROM programs WHERE key_id=?1",
		"DELETE FROM iterations WHERE pexec_id IN (SELECT id FROM pexecs WHERE key_id=?1)",
		"DELETE FROM series WHERE pexec_id IN (SELECT id FROM pexecs WHERE key_id=?1)",
		"DELETE FROM scalars WHERE pexec_id IN (SELECT id FROM pexecs WHERE key_id=?1)",
		"DELETE FROM events WHERE pexec_id IN (SELECT id FROM pexecs WHERE key_id=?1)",
		"DELETE FROM pexecs WHERE key_id=?1",
		"DELETE FROM keys WHERE id=?1",
	};
	if (settle(s, e) < 0 || txn(s, pexec_sql[Q_BEGIN], e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t q = 0; q < ARRAY_SIZE(sql); q++) {
			sqlite3_stmt *st;
			if (sqlite3_prepare_v2(s->db, sql[q], -1, &st, NULL) != SQLITE_OK) {
				dberr(s, e, "keys");
				exec_sql(s, "ROLLBACK", NULL);
				return -1;
			}
			sqlite3_bind_int64(st, 1, key_ids[i]);
			int rc = sqlite3_step(st);
			long ran = q == 0 && rc == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
			sqlite3_finalize(st);
			if ((q == 0 && rc != SQLITE_ROW) || (q > 0 && rc != SQLITE_DONE) || ran) {
				if (ran)
					kerr_setc(e, KEXIT_STORE, "%s: key %ld has pexecs that ran: not dropped", s->path, key_ids[i]);
				else
					dberr(s, e, "keys");
				exec_sql(s, "ROLLBACK", NULL);
				return -1;
			}
		}
	return txn(s, pexec_sql[Q_COMMIT], e);
}
