/*
 * idcache.c - file identities, content hashes and the state folder's cache
 * of what was learned from unchanged files (see idcache.h).
 *
 * The cache is one SQLite file, <state>/cache/ids.db: a row per (kind,
 * key) with the value's JSON text, a checksum of the three and when the row
 * was last used.  A run reads the rows it looks up and writes, in one
 * transaction at idc_save, the rows it added and the last use of the rows
 * it hit; the cost of starting does not grow with the file.  Several kilns
 * share it: a rollback journal (opening a WAL file costs twice as much, its
 * -shm made and mapped each time, for concurrency a run's few statements do
 * not need), whose locks are held for a statement or a commit, and which a
 * kiln waits for up to IDC_BUSY_MS.  It is a cache: nothing is flushed
 * (synchronous=OFF: a killed kiln leaves a journal the next one rolls back;
 * a power cut may damage the file), and a file found damaged (SQLite's own
 * checks, a row whose checksum does not match) is emptied in place and
 * learned again, never believed.
 */
#include "idcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sha2.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "safefs.h"

#define IDC_VERSION 2               /* ids.db's user_version (1 was ids.json) */
#define IDC_MAX_ENTRIES 1024        /* per kind: past it the least recently used rows go */
#define IDC_MAX_KEY 512
#define IDC_MAX_VALUE (1 << 20)     /* a longer value is not kept */
#define IDC_TOUCH_SECS 3600         /* a hit's last use is written when older than this */
#define IDC_BUSY_MS 5000
#define HASH_MAX_BYTES (1ull << 30)

static const char idc_schema[] =
	"CREATE TABLE IF NOT EXISTS ids(kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
	" sum TEXT NOT NULL, used INTEGER NOT NULL, UNIQUE(kind, key));"
	"CREATE INDEX IF NOT EXISTS ids_used ON ids(kind, used);";

static struct {
	sqlite3 *db;
	sqlite3_stmt *get;
	char *path;
	int tried;      /* opened, or failed to: not tried again until idc_release */
	int broken;     /* emptied once this process: not again */
	json_t *seen;   /* {kind: {key: value}}: what this process got or put (idc_get's borrowed values) */
	json_t *put;    /* {kind: {key: true}}: rows to write */
	json_t *touch;  /* {kind: {key: true}}: hits whose last use is to be written */
} idc;

static void id_text(const struct stat *st, char out[96])
{
	snprintf(out, 96, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld", (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino, (long long)st->st_size, (long long)st->st_mtim.tv_sec,
		 st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

int fileid(const char *path, char out[96])
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	id_text(&st, out);
	return 0;
}

int fileid_fd(int fd, char out[96])
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	id_text(&st, out);
	return 0;
}

/* the checksum a row carries: a torn or misplaced page does not pass for an entry */
static void row_sum(const char *kind, const char *key, const char *value, size_t n, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	sb_add(&sb, kind, strlen(kind) + 1);
	sb_add(&sb, key, strlen(key) + 1);
	sb_add(&sb, value, n);
	hash_hex(sb.buf, sb.len, out);
	sb_release(&sb);
}

static int db_damaged(int rc)
{
	return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
}

/*
 * NAME in the cache folder, when it exists, is a regular file of kiln's
 * with one link; anything else (a link, a folder, another user's file) is
 * removed, never opened.  0 when NAME is fit or gone.
 */
static int own_file(int dfd, const char *name)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1)
		return 0;
	return unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
}

/* the cache as kiln kept it before ids.db: one JSON file, and the temporary copies a crash left */
static void drop_legacy(int dfd)
{
	unlinkat(dfd, "ids.json", 0);
	int d2 = dup(dfd);
	DIR *d = d2 < 0 ? NULL : fdopendir(d2);
	if (!d) {
		if (d2 >= 0)
			close(d2);
		return;
	}
	for (struct dirent *de; (de = readdir(d));)
		if (!strncmp(de->d_name, "ids.json.tmp.", 13))
			unlinkat(dfd, de->d_name, 0);
	closedir(d);
}

static int db_exec(const char *sql)
{
	return sqlite3_exec(idc.db, sql, NULL, NULL, NULL);
}

static int db_version(int *v)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(idc.db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*v = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The connection's settings, then the schema when the file is new (or was
 * emptied): *fresh says it was.  An SQLite code, with *why set when the
 * file is to be emptied (damaged: SQLite sees it here or at the first read
 * of a damaged page; or an older kiln's).  A newer kiln's file is left to
 * it: SQLITE_ERROR, the cache is not used.
 */
static int db_setup(int *fresh, char **why)
{
	int v = 0;
	int rc = db_exec("PRAGMA cell_size_check=ON; PRAGMA synchronous=OFF; PRAGMA journal_mode=TRUNCATE");
	if (rc == SQLITE_OK)
		rc = db_version(&v);
	*fresh = rc == SQLITE_OK && v == 0;
	if (rc == SQLITE_OK && v == 0) {
		char *sql = xasprintf("BEGIN IMMEDIATE; %s PRAGMA user_version=%d; COMMIT", idc_schema, IDC_VERSION);
		rc = db_exec(sql);
		free(sql);
		if (rc != SQLITE_OK)
			db_exec("ROLLBACK");
	} else if (rc == SQLITE_OK && v != IDC_VERSION) {
		if (v < IDC_VERSION)
			*why = xasprintf("an older kiln's cache (version %d)", v);
		return SQLITE_ERROR;
	}
	sqlite3_finalize(idc.get);
	idc.get = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(idc.db, "SELECT value, sum, used FROM ids WHERE kind=?1 AND key=?2", -1,
					&idc.get, NULL);
	if (db_damaged(rc))
		*why = xstrdup(sqlite3_errmsg(idc.db));
	return rc;
}

static void db_close(void)
{
	sqlite3_finalize(idc.get);
	idc.get = NULL;
	sqlite3_close(idc.db);
	idc.db = NULL;
}

/*
 * The file is damaged (or an older kiln's): emptied in place, which is
 * safe beside other kilns that have it open (unlinking it would not be:
 * they would go on writing the old file, and its journal into the new
 * one's), then made anew.  Once per process; if that fails the cache is
 * not used.  Takes why.
 */
static void db_empty(char *why)
{
	int fresh, rc = SQLITE_ERROR;
	char *again = NULL;
	if (!idc.broken) {
		idc.broken = 1;
		kiln_warn("%s: the identity cache is damaged (%s): emptied, what it held is learned again", idc.path,
			  why);
		sqlite3_finalize(idc.get);
		idc.get = NULL;
		sqlite3_db_config(idc.db, SQLITE_DBCONFIG_RESET_DATABASE, 1, (int *)NULL);
		rc = db_exec("VACUUM");
		sqlite3_db_config(idc.db, SQLITE_DBCONFIG_RESET_DATABASE, 0, (int *)NULL);
		if (rc == SQLITE_OK)
			rc = db_setup(&fresh, &again);
	}
	if (rc != SQLITE_OK)
		db_close();
	free(again);
	free(why);
}

/* <state>/cache/ids.db, opened on first use; 1 when the cache is there to use */
static int db_open(void)
{
	if (idc.db || idc.tried)
		return idc.db != NULL;
	idc.tried = 1;
	struct kerr e = KERR_INIT;
	char *dir = sfs_state_path("cache", 0700, &e);
	kerr_release(&e);
	int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (dfd < 0 || own_file(dfd, "ids.db") < 0 || own_file(dfd, "ids.db-journal") < 0 ||
	    own_file(dfd, "ids.db-wal") < 0 || own_file(dfd, "ids.db-shm") < 0)
		goto out;
	free(idc.path);
	idc.path = path_join(dir, "ids.db");
	if (sqlite3_open_v2(idc.path, &idc.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK) {
		db_close();
		goto out;
	}
	sqlite3_db_config(idc.db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	sqlite3_busy_timeout(idc.db, IDC_BUSY_MS);
	int fresh = 0;
	char *why = NULL;
	if (db_setup(&fresh, &why) != SQLITE_OK) {
		if (why)
			db_empty(why);
		else
			db_close();
	}
	if (idc.db && fresh)
		drop_legacy(dfd);
out:
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return idc.db != NULL;
}

/* a set {kind: {key: true}} of rows */
static void mark(json_t **set, const char *kind, const char *key)
{
	if (!*set)
		*set = json_object();
	json_t *k = json_object_get(*set, kind);
	if (!k)
		json_object_set_new(*set, kind, k = json_object());
	json_object_set_new(k, key, json_true());
}

/* remember value (taken) as this process's (kind, key) */
static json_t *keep(const char *kind, const char *key, json_t *value)
{
	if (!idc.seen)
		idc.seen = json_object();
	json_t *k = json_object_get(idc.seen, kind);
	if (!k)
		json_object_set_new(idc.seen, kind, k = json_object());
	json_object_set_new(k, key, value);
	return value;
}

/*
 * Is v an entry as kiln writes one?  An object; every kind but sha256
 * names the files it was learned from ("ids": {path: identity}), a sha256
 * entry's key being its file's identity already ({"sha256": HEX}).
 */
static int entry_shaped(const char *kind, const json_t *v)
{
	if (!strcmp(kind, "sha256"))
		return json_is_string(json_object_get(v, "sha256"));
	return json_is_object(json_object_get(v, "ids"));
}

/* the row (kind, key) as a JSON object, NULL when there is none; a row that fails its checks empties the file */
static json_t *db_get(const char *kind, const char *key, long long *used)
{
	if (!db_open())
		return NULL;
	sqlite3_bind_text(idc.get, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(idc.get, 2, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(idc.get);
	json_t *v = NULL;
	const char *why = NULL;
	if (rc == SQLITE_ROW) {
		const char *txt = (const char *)sqlite3_column_text(idc.get, 0);
		int n = sqlite3_column_bytes(idc.get, 0);
		const char *sum = (const char *)sqlite3_column_text(idc.get, 1);
		char want[65];
		*used = sqlite3_column_int64(idc.get, 2);
		if (txt && sum && n <= IDC_MAX_VALUE)
			row_sum(kind, key, txt, (size_t)n, want);
		if (!txt || !sum || n > IDC_MAX_VALUE || strcmp(sum, want))
			why = "a row whose checksum does not match";
		else if (!(v = json_loadb(txt, (size_t)n, 0, NULL)) || !entry_shaped(kind, v))
			why = "a row that is no entry";
	} else if (db_damaged(rc)) {
		why = sqlite3_errmsg(idc.db);
	}
	char *msg = why ? xstrdup(why) : NULL;
	sqlite3_reset(idc.get);
	sqlite3_clear_bindings(idc.get);
	if (msg) {
		json_decref(v);
		v = NULL;
		db_empty(msg);
	}
	return v;
}

/* does every file the entry was learned from still have the identity it had? */
static int still_valid(const json_t *value)
{
	const json_t *ids = json_object_get(value, "ids");
	const char *path;
	json_t *id;
	char now[96];
	json_object_foreach((json_t *)ids, path, id)
		if (!json_is_string(id) || fileid(path, now) < 0 || strcmp(now, json_string_value(id)))
			return 0;
	return 1;
}

json_t *idc_get(const char *kind, const char *key)
{
	json_t *v = json_object_get(json_object_get(idc.seen, kind), key);
	if (v)
		return still_valid(v) ? v : NULL;
	long long used = 0;
	if (strlen(key) > IDC_MAX_KEY || !(v = db_get(kind, key, &used)))
		return NULL;
	if (!still_valid(v)) {
		json_decref(v);
		return NULL;
	}
	if (used < (long long)time(NULL) - IDC_TOUCH_SECS)
		mark(&idc.touch, kind, key);
	return keep(kind, key, v);
}

void idc_put(const char *kind, const char *key, json_t *value)
{
	if (strlen(key) > IDC_MAX_KEY) {
		json_decref(value);
		return;
	}
	keep(kind, key, value);
	mark(&idc.put, kind, key);
}

/* one row this process added, as its JSON text and checksum */
static int save_row(sqlite3_stmt *ins, const char *kind, const char *key, long long now)
{
	json_t *v = json_object_get(json_object_get(idc.seen, kind), key);
	char *txt = v ? json_dumps(v, JSON_COMPACT) : NULL;
	int rc = SQLITE_OK;
	if (txt && strlen(txt) <= IDC_MAX_VALUE) {
		char sum[65];
		row_sum(kind, key, txt, strlen(txt), sum);
		sqlite3_bind_text(ins, 1, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 2, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, txt, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, sum, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 5, now);
		rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_reset(ins);
		sqlite3_reset(ins);
	}
	free(txt);
	return rc;
}

/* sql run for each row of `set` (?1 kind, ?2 key, ?3 now), or with only_kind once per kind (?3 the bound) */
static int save_each(const char *sql, json_t *set, int only_kind, long long now)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(idc.db, sql, -1, &st, NULL);
	const char *kind, *key;
	json_t *keys, *t;
	json_object_foreach(set, kind, keys) {
		json_object_foreach(keys, key, t) {
			if (rc != SQLITE_OK)
				break;
			sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 3, only_kind ? IDC_MAX_ENTRIES : now);
			rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_reset(st);
			sqlite3_reset(st);
			if (only_kind)
				break;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* the rows this process added and the last use of those it hit, in one transaction; each kind kept to its bound */
static int save_rows(long long now)
{
	int rc = db_exec("BEGIN IMMEDIATE");
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_stmt *ins = NULL;
	rc = sqlite3_prepare_v2(idc.db, "INSERT OR REPLACE INTO ids(kind, key, value, sum, used) VALUES (?1, ?2, ?3, ?4, ?5)",
				-1, &ins, NULL);
	const char *kind, *key;
	json_t *keys, *t;
	json_object_foreach(idc.put, kind, keys)
		json_object_foreach(keys, key, t)
			if (rc == SQLITE_OK)
				rc = save_row(ins, kind, key, now);
	sqlite3_finalize(ins);
	if (rc == SQLITE_OK)
		rc = save_each("UPDATE ids SET used=?3 WHERE kind=?1 AND key=?2", idc.touch, 0, now);
	if (rc == SQLITE_OK)
		rc = save_each("DELETE FROM ids WHERE kind=?1 AND rowid NOT IN (SELECT rowid FROM ids WHERE kind=?1"
			       " ORDER BY used DESC, rowid DESC LIMIT ?3)", idc.put, 1, now);
	if (rc == SQLITE_OK)
		rc = db_exec("COMMIT");
	if (rc != SQLITE_OK)
		db_exec("ROLLBACK");
	return rc;
}

void idc_save(void)
{
	if ((json_object_size(idc.put) || json_object_size(idc.touch)) && db_open()) {
		int rc = save_rows((long long)time(NULL));
		if (db_damaged(rc))
			db_empty(xstrdup(sqlite3_errmsg(idc.db)));
	}
	json_decref(idc.put);
	json_decref(idc.touch);
	idc.put = idc.touch = NULL;
}

void idc_release(void)
{
	db_close();
	json_decref(idc.seen);
	json_decref(idc.put);
	json_decref(idc.touch);
	free(idc.path);
	memset(&idc, 0, sizeof(idc));
}

/* the hash of an open regular file, cached under its identity */
static int sha256_fd(int fd, const char *what, char out[65], struct kerr *e)
{
	char id[96];
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return kerr_set(e, "%s: not a regular file", what);
	if ((unsigned long long)st.st_size > HASH_MAX_BYTES)
		return kerr_set(e, "%s: %lld bytes: larger than kiln hashes (1 GiB)", what, (long long)st.st_size);
	id_text(&st, id);
	json_t *hit = json_object_get(idc_get("sha256", id), "sha256");
	if (json_is_string(hit) && strlen(json_string_value(hit)) == 64) {
		memcpy(out, json_string_value(hit), 65);
		return 0;
	}
	SHA2_CTX c;
	SHA256Init(&c);
	static char buf[1 << 16];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kerr_set(e, "%s: %s", what, strerror(errno));
		SHA256Update(&c, (const uint8_t *)buf, (size_t)n);
	}
	SHA256End(&c, out);
	/* read again after hashing: a file rewritten meanwhile is not cached */
	char id2[96];
	if (fileid_fd(fd, id2) == 0 && !strcmp(id, id2))
		idc_put("sha256", id, json_pack("{s:s}", "sha256", out));
	return 0;
}

int idc_sha256_at(int dirfd, const char *dirname, const char *name, char out[65], struct kerr *e)
{
	int fd = sfs_open_file_at(dirfd, dirname, name, (uid_t)-1, NULL, e);
	if (fd < 0)
		return -1;
	char *what = xasprintf("%s/%s", dirname ? dirname : ".", name);
	int r = sha256_fd(fd, what, out, e);
	free(what);
	close(fd);
	return r;
}

int idc_sha256(const char *path, char out[65], struct kerr *e)
{
	char *real = realpath(path, NULL);
	if (!real)
		return kerr_set(e, "%s: %s", path, strerror(errno));
	char *dir = path_dirname(real);
	const char *base = strrchr(real, '/') + 1;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = dfd < 0 ? kerr_set(e, "%s: %s", dir, strerror(errno)) : idc_sha256_at(dfd, dir, base, out, e);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	free(real);
	return r;
}
