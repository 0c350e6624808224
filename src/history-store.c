/*
 * history-store.c - the history file (history.h; docs/history.md is the
 * schema): opening it as distrustfully as a results file, the commits,
 * machines and runs, and the fold of one commit's results file into it
 * (and back out, for the readers of results files).
 */
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "dataset.h"
#include "history-int.h"
#include "store.h"

/* one transaction: a new history's tables */
static const char history_schema_sql[] =
	"BEGIN;"
	"CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS machines(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, identity TEXT);"
	"CREATE TABLE IF NOT EXISTS commits(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, parent TEXT,"
	" depth INTEGER NOT NULL, time INTEGER, author TEXT, subject TEXT);"
	"CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, commit_id INTEGER NOT NULL REFERENCES commits(id),"
	" machine_id INTEGER NOT NULL REFERENCES machines(id), kind TEXT NOT NULL, session TEXT,"
	" status TEXT NOT NULL, started TEXT, ended TEXT, build_s REAL, binary TEXT, config_hash TEXT, error TEXT);"
	"CREATE INDEX IF NOT EXISTS runs_commit ON runs(commit_id, machine_id);"
	"CREATE TABLE IF NOT EXISTS run_meta(run_id INTEGER NOT NULL, name TEXT NOT NULL, value TEXT,"
	" PRIMARY KEY(run_id, name));"
	"CREATE TABLE IF NOT EXISTS keys(id INTEGER PRIMARY KEY, bench TEXT NOT NULL, vm TEXT NOT NULL,"
	" variant TEXT NOT NULL, UNIQUE(bench, vm, variant));"
	"CREATE TABLE IF NOT EXISTS pexecs(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
	" key_id INTEGER NOT NULL REFERENCES keys(id), num INTEGER NOT NULL, seq INTEGER, status TEXT NOT NULL,"
	" attempts INTEGER, wall_start_ns INTEGER, duration_s REAL, exit_status INTEGER, signal INTEGER, user_s REAL,"
	" sys_s REAL, maxrss_kb INTEGER, personality INTEGER, error TEXT, stdout BLOB, stderr BLOB, instr_error TEXT,"
	" taint TEXT, env_hash TEXT, n_iter INTEGER, UNIQUE(run_id, key_id, num));"
	"CREATE TABLE IF NOT EXISTS iterations(pexec_id INTEGER PRIMARY KEY REFERENCES pexecs(id), n INTEGER,"
	" wall BLOB, counter_names TEXT, counters BLOB, clock TEXT, unavailable TEXT);"
	"CREATE TABLE IF NOT EXISTS series(pexec_id INTEGER NOT NULL, name TEXT NOT NULL, unit TEXT, vals BLOB,"
	" PRIMARY KEY(pexec_id, name));"
	"CREATE TABLE IF NOT EXISTS scalars(pexec_id INTEGER NOT NULL, name TEXT NOT NULL, unit TEXT, value REAL,"
	" PRIMARY KEY(pexec_id, name));"
	"CREATE TABLE IF NOT EXISTS events(pexec_id INTEGER NOT NULL, name TEXT, start_ns INTEGER, end_ns INTEGER);"
	"CREATE INDEX IF NOT EXISTS events_pexec ON events(pexec_id);"
	"CREATE TABLE IF NOT EXISTS programs(run_id INTEGER NOT NULL, key_id INTEGER NOT NULL, hash TEXT NOT NULL,"
	" seq INTEGER NOT NULL, description TEXT NOT NULL, setting TEXT, since TEXT, PRIMARY KEY(run_id, key_id, hash));"
	"CREATE TABLE IF NOT EXISTS audit(run_id INTEGER NOT NULL, name TEXT NOT NULL, value TEXT,"
	" PRIMARY KEY(run_id, name));"
	"CREATE TABLE IF NOT EXISTS figures(pexec_id INTEGER PRIMARY KEY REFERENCES pexecs(id), class TEXT,"
	" steady_iter INTEGER, time_to_steady REAL, steady_mean REAL, warmup_cost REAL, warn INTEGER);"
	"CREATE TABLE IF NOT EXISTS run_keys(run_id INTEGER NOT NULL, key_id INTEGER NOT NULL, iterations INTEGER,"
	" class TEXT, n_ok INTEGER, n_flat INTEGER, n_warmup INTEGER, n_slowdown INTEGER, n_nosteady INTEGER,"
	" steady_mean REAL, steady_lo REAL, steady_hi REAL, tts_med REAL, tts_p5 REAL, tts_p95 REAL, program TEXT,"
	" warn INTEGER, PRIMARY KEY(run_id, key_id));"
	"COMMIT;";

struct history {
	sqlite3 *db;
	char *path;
	int lock_fd;
	int writable;
	/* statements readers use over and over (history_stmt), prepared once */
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} cache[16];
};

sqlite3_stmt *history_stmt(struct history *h, const char *sql, struct kerr *e)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(h->cache) && h->cache[i].sql; i++)
		if (h->cache[i].sql == sql) {
			sqlite3_reset(h->cache[i].st);
			sqlite3_clear_bindings(h->cache[i].st);
			return h->cache[i].st;
		}
	sqlite3_stmt *st = history_prepare(h, sql, e);
	if (st && i < ARRAY_SIZE(h->cache)) {
		h->cache[i].sql = sql;
		h->cache[i].st = st;
	}
	return st;
}

/* a statement from history_stmt is the cache's: done with it, reset, never finalized by the caller */
void history_stmt_done(struct history *h, sqlite3_stmt *st)
{
	for (size_t i = 0; i < ARRAY_SIZE(h->cache) && h->cache[i].sql; i++)
		if (h->cache[i].st == st) {
			sqlite3_reset(st);
			return;
		}
	sqlite3_finalize(st);
}

sqlite3 *history_db(struct history *h)
{
	return h->db;
}

const char *history_path(const struct history *h)
{
	return h->path;
}

int history_dberr(struct history *h, struct kerr *e, const char *what)
{
	int full = sqlite3_errcode(h->db) == SQLITE_FULL;
	return kerr_setc(e, KEXIT_STORE, "%s: %s: %s", h->path, what,
			 full ? "the disk is full" : esc(ESC_TERM, sqlite3_errmsg(h->db)));
}

int history_exec(struct history *h, const char *sql, struct kerr *e)
{
	char *msg = NULL;
	if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	int r = kerr_setc(e, KEXIT_STORE, "%s: %s", h->path, esc(ESC_TERM, msg ? msg : sqlite3_errmsg(h->db)));
	sqlite3_free(msg);
	return r;
}

sqlite3_stmt *history_prepare(struct history *h, const char *sql, struct kerr *e)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
		history_dberr(h, e, "query");
		return NULL;
	}
	return st;
}

char *history_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

double history_col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

void history_bind_double(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

char *history_short(const char *s, size_t width)
{
	struct strbuf sb = STRBUF_INIT;
	esc_add(&sb, ESC_TERM, s ? s : "");
	size_t bytes;
	display_cut(sb_str(&sb), width, &bytes);
	char *r = xstrndup(sb_str(&sb), bytes);
	sb_release(&sb);
	return r;
}

/* ---- the schema a file must have ---- */

struct hobj {
	char *type, *name, *sql;
};

/* the history's schema as SQLite writes it down, built once in memory */
static const struct hobj *expected_schema(size_t *n)
{
	static struct hobj *objs;
	static size_t nobjs;
	if (!objs) {
		sqlite3 *db;
		sqlite3_stmt *st;
		if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, history_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(db, "SELECT type, name, sql FROM sqlite_master", -1, &st, NULL) != SQLITE_OK)
			kiln_die(KEXIT_FAIL, "cannot build the history schema in memory: %s", sqlite3_errmsg(db));
		while (sqlite3_step(st) == SQLITE_ROW) {
			objs = xrealloc(objs, (nobjs + 1) * sizeof(*objs));
			objs[nobjs++] = (struct hobj){ history_col_text(st, 0), history_col_text(st, 1),
						      history_col_text(st, 2) };
		}
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	*n = nobjs;
	return objs;
}

static int same_text(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/*
 * Every object of `schema` (main, or an attached history) must be one of
 * the history's, exactly as kiln makes it: a trigger, a view, a changed
 * table is refused before anything is read.  The statistics tables of
 * ANALYZE only guide the planner.
 */
int history_check_schema(struct history *h, const char *schema, const char *path, struct kerr *e)
{
	size_t n;
	const struct hobj *want = expected_schema(&n);
	char *q = xasprintf("SELECT type, name, sql FROM \"%s\".sqlite_master", schema);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(h->db, q, -1, &st, NULL);
	free(q);
	if (rc != SQLITE_OK)
		return kerr_setc(e, KEXIT_STORE, "%s: not a kiln history (%s)", path, esc(ESC_TERM, sqlite3_errmsg(h->db)));
	int r = 0;
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0), *name = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);
		if (name && (!strcmp(name, "sqlite_stat1") || !strcmp(name, "sqlite_stat4")) && same_text(type, "table"))
			continue;
		const struct hobj *w = NULL;
		for (size_t i = 0; i < n && !w; i++)
			if (same_text(want[i].type, type) && same_text(want[i].name, name))
				w = &want[i];
		if (!w || !same_text(w->sql, sql))
			r = kerr_setc(e, KEXIT_STORE, "%s: not a schema kiln wrote: %s '%s' %s (refused: it could change "
				      "what is read or written)", path, esc(ESC_TERM, type), esc(ESC_TERM, name),
				      w ? "differs from kiln's" : "is not one of kiln's");
	}
	sqlite3_finalize(st);
	return r;
}

/* quick_check of `schema`: a file that is not SQLite, or a damaged one, is caught before a table is read */
int history_check_intact(struct history *h, const char *schema, const char *path, struct kerr *e)
{
	char *q = xasprintf("PRAGMA \"%s\".quick_check", schema);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(h->db, q, -1, &st, NULL);
	free(q);
	if (rc != SQLITE_OK)
		return kerr_setc(e, KEXIT_STORE, "%s: not a kiln history (%s)", path, esc(ESC_TERM, sqlite3_errmsg(h->db)));
	const char *res = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	int r = 0;
	if (!res || strcmp(res, "ok"))
		r = kerr_setc(e, KEXIT_STORE, "%s: the history is damaged (integrity check: %s)", path,
			      esc(ESC_TERM, res ? res : sqlite3_errmsg(h->db)));
	sqlite3_finalize(st);
	return r;
}

/* meta kind and schema of `schema`: a history this kiln can read */
static int check_kind(struct history *h, const char *schema, const char *path, struct kerr *e)
{
	char *q = xasprintf("SELECT (SELECT value FROM \"%s\".meta WHERE name='kind'),"
			    " (SELECT value FROM \"%s\".meta WHERE name='schema')", schema, schema);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(h->db, q, -1, &st, NULL);
	free(q);
	if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return kerr_setc(e, KEXIT_STORE, "%s: not a kiln history (no meta table)", path);
	}
	const char *kind = (const char *)sqlite3_column_text(st, 0);
	long v = sqlite3_column_int64(st, 1);
	int r = 0;
	if (!kind || strcmp(kind, "kiln-history"))
		r = kerr_setc(e, KEXIT_STORE, "%s: not a kiln history (a results file? `kiln track` makes histories)",
			      path);
	else if (v > HISTORY_SCHEMA)
		r = kerr_setc(e, KEXIT_STORE, "%s: written by a newer kiln (history schema %ld; this kiln reads up to "
			      "%d): upgrade kiln", path, v, HISTORY_SCHEMA);
	sqlite3_finalize(st);
	return r;
}

/* ---- open and close ---- */

static int lock_history(struct history *h, struct kerr *e)
{
	int fd = open(h->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return kerr_setc(e, KEXIT_STORE, "%s: %s", h->path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;
		close(fd);
		if (err == EWOULDBLOCK)
			return kerr_setc(e, KEXIT_LOCKED, "%s: another kiln is writing this history", h->path);
		return kerr_setc(e, KEXIT_STORE, "%s: lock: %s", h->path, strerror(err));
	}
	h->lock_fd = fd;
	return 0;
}

/* a new file's tables and meta, or an existing file checked */
static int setup_file(struct history *h, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT COUNT(*) FROM sqlite_master", e);
	if (!st)
		return -1;
	int blank = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0;
	sqlite3_finalize(st);
	if (!blank && (history_check_intact(h, "main", h->path, e) < 0 ||
		       history_check_schema(h, "main", h->path, e) < 0 || check_kind(h, "main", h->path, e) < 0))
		return -1;
	if (blank && !h->writable)
		return kerr_setc(e, KEXIT_STORE, "%s: not a kiln history (an empty file)", h->path);
	if (!h->writable)
		return 0;
	if (history_exec(h, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;", e) < 0 ||
	    history_exec(h, history_schema_sql, e) < 0)
		return -1;
	if (!blank)
		return 0;
	char now[32], ver[8];
	iso_time(wall_ns(), now, sizeof(now));
	snprintf(ver, sizeof(ver), "%d", HISTORY_SCHEMA);
	return history_exec(h, "BEGIN", e) < 0 || history_meta_set(h, "kind", "kiln-history", e) < 0 ||
	       history_meta_set(h, "schema", ver, e) < 0 || history_meta_set(h, "created", now, e) < 0 ||
	       history_meta_set(h, "kiln_version", KILN_VERSION, e) < 0 || history_exec(h, "COMMIT", e) < 0 ? -1 : 0;
}

int history_open(const char *path, int writable, struct history **out, struct kerr *e)
{
	*out = NULL;
	if (!writable && !file_exists(path))
		return kerr_setc(e, KEXIT_STORE, "%s: no such history", path);
	struct history *h = xcalloc(1, sizeof(*h));
	h->path = xstrdup(path);
	h->lock_fd = -1;
	h->writable = writable;
	if (writable && lock_history(h, e) < 0) {
		history_close(h);
		return -1;
	}
	int flags = (writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
		    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW;
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
		kerr_setc(e, KEXIT_STORE, "%s: cannot open: %s", path, h->db ? sqlite3_errmsg(h->db) : "out of memory");
		history_close(h);
		return -1;
	}
	store_defensive(h->db);
	sqlite3_busy_timeout(h->db, 5000);
	if (setup_file(h, e) < 0) {
		history_close(h);
		return -1;
	}
	*out = h;
	return 0;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(h->cache) && h->cache[i].sql; i++)
		sqlite3_finalize(h->cache[i].st);
	if (h->db)
		sqlite3_close(h->db);
	if (h->lock_fd >= 0)
		close(h->lock_fd);
	free(h->path);
	free(h);
}

int history_is_history(const char *path)
{
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return 0;
	}
	store_defensive(db);
	sqlite3_stmt *st;
	int yes = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE name='kind'", -1, &st, NULL) == SQLITE_OK) {
		const char *v = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
		yes = v && !strcmp(v, "kiln-history");
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return yes;
}

int history_meta_get(struct history *h, const char *name, char **value)
{
	*value = NULL;
	sqlite3_stmt *st = history_prepare(h, "SELECT value FROM meta WHERE name=?", NULL);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*value = history_col_text(st, 0);
	sqlite3_finalize(st);
	return *value ? 0 : -1;
}

int history_meta_set(struct history *h, const char *name, const char *value, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "INSERT OR REPLACE INTO meta(name, value) VALUES(?, ?)", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	int r = sqlite3_step(st) == SQLITE_DONE ? 0 : history_dberr(h, e, "meta");
	sqlite3_finalize(st);
	return r;
}

int history_meta_del(struct history *h, const char *name, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "DELETE FROM meta WHERE name=?", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	int r = sqlite3_step(st) == SQLITE_DONE ? 0 : history_dberr(h, e, "meta");
	sqlite3_finalize(st);
	return r;
}

/* ---- commits, machines, runs ---- */

/* text kept from the repository: at most HISTORY_TEXT_MAX bytes, cut on a character boundary */
static void bind_untrusted(sqlite3_stmt *st, int col, const char *s)
{
	if (!s) {
		sqlite3_bind_null(st, col);
		return;
	}
	sqlite3_bind_text(st, col, s, (int)utf8_cut(s, HISTORY_TEXT_MAX), SQLITE_TRANSIENT);
}

long history_put_commit(struct history *h, const struct hist_commit *c, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "INSERT INTO commits(hash, parent, depth, time, author, subject)"
					      " VALUES(?,?,?,?,?,?) ON CONFLICT(hash) DO UPDATE SET depth=excluded.depth",
					   e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, c->hash, -1, SQLITE_TRANSIENT);
	if (c->parent)
		sqlite3_bind_text(st, 2, c->parent, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, c->depth);
	sqlite3_bind_int64(st, 4, c->time);
	bind_untrusted(st, 5, c->author);
	bind_untrusted(st, 6, c->subject);
	int ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	if (!ok)
		return history_dberr(h, e, "commits");
	return history_commit_id(h, c->hash);
}

long history_commit_id(struct history *h, const char *hash)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT id FROM commits WHERE hash=?", NULL);
	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_TRANSIENT);
	long id = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return id;
}

long history_machine_id(struct history *h, const char *name)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT id FROM machines WHERE name=?", NULL);
	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	long id = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return id;
}

long history_put_machine(struct history *h, const char *name, const char *identity, char **old_identity,
			 struct kerr *e)
{
	*old_identity = NULL;
	long id = history_machine_id(h, name);
	if (id) {
		sqlite3_stmt *st = history_prepare(h, "SELECT identity FROM machines WHERE id=?", e);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			*old_identity = history_col_text(st, 0);
		sqlite3_finalize(st);
		return id;
	}
	sqlite3_stmt *st = history_prepare(h, "INSERT INTO machines(name, identity) VALUES(?, ?)", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, identity, -1, SQLITE_TRANSIENT);
	int ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok ? (long)sqlite3_last_insert_rowid(h->db) : history_dberr(h, e, "machines");
}

long history_begin_run(struct history *h, long commit_id, long machine_id, const char *kind, const char *session,
		       const char *config_hash, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "INSERT INTO runs(commit_id, machine_id, kind, session, status, started,"
					      " config_hash) VALUES(?,?,?,?,'running',?,?)", e);
	if (!st)
		return -1;
	char now[32];
	iso_time(wall_ns(), now, sizeof(now));
	sqlite3_bind_int64(st, 1, commit_id);
	sqlite3_bind_int64(st, 2, machine_id);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
	if (session)
		sqlite3_bind_text(st, 4, session, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, now, -1, SQLITE_TRANSIENT);
	if (config_hash)
		sqlite3_bind_text(st, 6, config_hash, -1, SQLITE_TRANSIENT);
	int ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok ? (long)sqlite3_last_insert_rowid(h->db) : history_dberr(h, e, "runs");
}

int history_end_run(struct history *h, long run_id, const char *status, double build_s, const char *binary,
		    const char *error, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "UPDATE runs SET status=?, ended=?, build_s=?,"
					      " binary=COALESCE(?, binary), error=? WHERE id=?", e);
	if (!st)
		return -1;
	char now[32];
	iso_time(wall_ns(), now, sizeof(now));
	sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_TRANSIENT);
	history_bind_double(st, 3, build_s);
	if (binary)
		sqlite3_bind_text(st, 4, binary, -1, SQLITE_TRANSIENT);
	if (error)
		bind_untrusted(st, 5, error);
	sqlite3_bind_int64(st, 6, run_id);
	int r = sqlite3_step(st) == SQLITE_DONE ? 0 : history_dberr(h, e, "runs");
	sqlite3_finalize(st);
	return r;
}

long history_run_pexecs(struct history *h, long run_id)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT count(*) FROM pexecs WHERE run_id=?", NULL);
	long n = -1;
	if (!st)
		return n;
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int history_stop_run(struct history *h, long run_id, const char *error, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "UPDATE runs SET error=? WHERE id=?", e);
	if (!st)
		return -1;
	bind_untrusted(st, 1, error);
	sqlite3_bind_int64(st, 2, run_id);
	int r = sqlite3_step(st) == SQLITE_DONE ? 0 : history_dberr(h, e, "runs");
	sqlite3_finalize(st);
	return r;
}

/*
 * A git object name: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.  A
 * history file may be crafted or merged from elsewhere, and its hashes go
 * into pages, terminals and printed `kiln bisect` command lines
 */
int history_hash_ok(const char *s)
{
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;
	return s && !s[n] && (n == 40 || n == 64);
}

int history_commits(struct history *h, struct hist_commit **out, size_t *n, struct kerr *e)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = history_prepare(h, "SELECT id, hash, parent, depth, time, author, subject FROM commits"
					      " ORDER BY depth, id", e);
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct hist_commit *c = &(*out)[(*n)++];
		c->id = sqlite3_column_int64(st, 0);
		c->hash = history_col_text(st, 1);
		c->parent = history_col_text(st, 2);
		c->depth = sqlite3_column_int64(st, 3);
		c->time = sqlite3_column_int64(st, 4);
		c->author = history_col_text(st, 5);
		c->subject = history_col_text(st, 6);
		if (!history_hash_ok(c->hash) || (c->parent && !history_hash_ok(c->parent))) {
			long id = (long)c->id;
			sqlite3_finalize(st);
			history_commits_free(*out, *n);
			*out = NULL;
			*n = 0;
			return kerr_setc(e, KEXIT_STORE, "%s: commit %ld: a hash that is not a git object name (40 or 64 hex "
					 "digits): not a history kiln wrote", h->path, id);
		}
	}
	sqlite3_finalize(st);
	return 0;
}

void history_commits_free(struct hist_commit *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].hash);
		free(c[i].parent);
		free(c[i].author);
		free(c[i].subject);
	}
	free(c);
}

int history_machines(struct history *h, struct hist_machine **out, size_t *n, struct kerr *e)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = history_prepare(h, "SELECT id, name, identity FROM machines ORDER BY id", e);
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct hist_machine *m = &(*out)[(*n)++];
		m->id = sqlite3_column_int64(st, 0);
		m->name = history_col_text(st, 1);
		m->identity = history_col_text(st, 2);
	}
	sqlite3_finalize(st);
	return 0;
}

void history_machines_free(struct hist_machine *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].name);
		free(m[i].identity);
	}
	free(m);
}

int history_runs(struct history *h, long machine_id, struct hist_run **out, size_t *n, struct kerr *e)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = history_prepare(h, "SELECT r.id, r.commit_id, r.machine_id, r.kind, r.session, r.status,"
					      " r.started, r.ended, r.build_s, r.binary, r.config_hash, r.error"
					      " FROM runs r JOIN commits c ON c.id = r.commit_id"
					      " WHERE ?1 = 0 OR r.machine_id = ?1 ORDER BY c.depth, r.id", e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, machine_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		struct hist_run *r = &(*out)[(*n)++];
		r->id = sqlite3_column_int64(st, 0);
		r->commit_id = sqlite3_column_int64(st, 1);
		r->machine_id = sqlite3_column_int64(st, 2);
		r->kind = history_col_text(st, 3);
		r->session = history_col_text(st, 4);
		r->status = history_col_text(st, 5);
		r->started = history_col_text(st, 6);
		r->ended = history_col_text(st, 7);
		r->build_s = history_col_double(st, 8);
		r->binary = history_col_text(st, 9);
		r->config_hash = history_col_text(st, 10);
		r->error = history_col_text(st, 11);
		if (!r->kind)
			r->kind = xstrdup("");
		if (!r->status)
			r->status = xstrdup("");
	}
	sqlite3_finalize(st);
	return 0;
}

void history_runs_free(struct hist_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].kind);
		free(r[i].session);
		free(r[i].status);
		free(r[i].started);
		free(r[i].ended);
		free(r[i].binary);
		free(r[i].config_hash);
		free(r[i].error);
	}
	free(r);
}

int history_keys(struct history *h, long machine_id, struct strvec *keys, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT DISTINCT k.bench || ':' || k.vm || ':' || k.variant AS name"
					      " FROM run_keys rk JOIN keys k ON k.id = rk.key_id JOIN runs r ON r.id = rk.run_id"
					      " WHERE ?1 = 0 OR r.machine_id = ?1 ORDER BY name", e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, machine_id);
	while (sqlite3_step(st) == SQLITE_ROW)
		sv_push(keys, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}
