/*
 * shard.c - the files of a cluster run and the main file's record of them
 * (see shard.h).  Shards are written through the main file's SQLite
 * connection with the shard attached, so that what is copied (meta, keys,
 * pexec rows) goes straight from one file to the other in SQL.  The
 * cluster tables are part of kiln's schema (store.c).
 */
#include "shard.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *shard_dir(const char *results)
{
	return store_sibling(results, ".shards");
}

char *shard_path(const char *results, const char *name)
{
	char *dir = shard_dir(results);
	char *p = xasprintf("%s/%s.kiln.db", dir, name);
	free(dir);
	return p;
}

static int sql(sqlite3 *db, const char *what, const char *q, struct kerr *e)
{
	char *msg = NULL;
	if (sqlite3_exec(db, q, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	kerr_setc(e, KEXIT_STORE, "%s: %s", what, msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

int shard_is_cluster(struct store *main)
{
	char *id = NULL;
	int r = store_meta_get(main, "cluster_id", &id) == 0 && id;
	free(id);
	return r;
}

/* 16 random bytes as hex: tells one results file's shards from another's with the same config */
static int random_id(char out[33], struct kerr *e)
{
	unsigned char b[16];
	if (random_bytes(b, sizeof(b), e) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

int shard_init_main(struct store *main, char **id, struct kerr *e)
{
	*id = NULL;
	if (store_meta_get(main, "cluster_id", id) == 0 && *id)
		return 0;
	char fresh[33];
	if (random_id(fresh, e) < 0 || store_meta_set(main, "cluster_id", fresh, e) < 0)
		return -1;
	*id = xstrdup(fresh);
	return 0;
}

void shard_schedule_hash(const struct schedule *sc, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "kiln-schedule v1\n%ld\n", sc->pexecs);
	for (size_t k = 0; k < sc->nkeys; k++)
		sb_addf(&sb, "k %ld %s %s %s %ld\n", sc->keys[k].id, sc->keys[k].bench, sc->keys[k].vm, sc->keys[k].variant,
			sc->keys[k].iterations);
	for (size_t i = 0; i < sc->n; i++)
		sb_addf(&sb, "p %ld %ld %ld %ld\n", sc->items[i].id, sc->keys[sc->items[i].key].id, sc->items[i].num,
			sc->items[i].seq);
	hash_hex(sb.buf, sb.len, out);
	sb_release(&sb);
}

/* the copy into an attached, freshly made shard, in one transaction */
static int shard_fill(sqlite3 *db, const char *name, const long *ids, size_t n, const char *schedule_hash,
		      const char *build, struct kerr *e)
{
	if (sql(db, name, "BEGIN IMMEDIATE;"
		"CREATE TEMP TABLE IF NOT EXISTS kiln_ids(id INTEGER PRIMARY KEY); DELETE FROM temp.kiln_ids;"
		"INSERT OR REPLACE INTO shard.meta(name, value) SELECT name, value FROM main.meta"
		" WHERE name NOT IN ('ended', 'journal', 'cluster_id');"
		"INSERT INTO shard.keys(id, bench, vm, variant, iterations) SELECT id, bench, vm, variant, iterations FROM main.keys;", e) < 0)
		return -1;
	sqlite3_stmt *st;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "INSERT INTO temp.kiln_ids(id) VALUES(?)", -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			goto out;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (sql(db, name, "INSERT INTO shard.pexecs(id, key_id, num, seq) SELECT id, key_id, num, seq FROM main.pexecs"
		" WHERE id IN (SELECT id FROM temp.kiln_ids)", e) < 0)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO shard.meta(name, value) VALUES('shard', ?1), "
			       "('shard_of', (SELECT value FROM main.meta WHERE name='cluster_id')), "
			       "('schedule_hash', ?2), ('kiln_build', ?3)", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schedule_hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, build, -1, SQLITE_STATIC);
	int x = sqlite3_step(st);
	sqlite3_finalize(st);
	if (x != SQLITE_DONE)
		goto out;
	rc = sql(db, name, "COMMIT", e);
out:
	if (rc < 0) {
		if (!e->msg.len)
			kerr_setc(e, KEXIT_STORE, "%s: %s", name, sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	return rc;
}

int shard_create(struct store *main, const char *path, const char *name, const long *ids, size_t n,
		 const char *schedule_hash, const char *build, struct kerr *e)
{
	if (file_exists(path))
		return kerr_setc(e, KEXIT_USAGE, "%s exists already: kiln does not overwrite a shard", path);
	struct store *sh;
	if (store_open(path, 1, &sh, e) < 0)
		return -1;
	int r = store_set_rollback(sh, e);
	store_close(sh);
	if (r < 0)
		return -1;
	sqlite3 *db = store_db(main);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS shard", -1, &st, NULL) != SQLITE_OK)
		return kerr_setc(e, KEXIT_STORE, "%s: %s", path, sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	int x = sqlite3_step(st);
	sqlite3_finalize(st);
	if (x != SQLITE_DONE)
		return kerr_setc(e, KEXIT_STORE, "%s: %s", path, sqlite3_errmsg(db));
	r = shard_fill(db, name, ids, n, schedule_hash, build, e);
	sqlite3_exec(db, "DETACH DATABASE shard", NULL, NULL, NULL);
	if (r < 0)
		unlink(path);
	return r;
}

void shard_read(const char *path, struct shard_info *si)
{
	memset(si, 0, sizeof(*si));
	si->exit = -1;
	struct store *st;
	struct kerr e = KERR_INIT;
	if (store_open(path, 0, &st, &e) < 0) {
		si->why = xstrdup(sb_str(&e.msg));
		kerr_release(&e);
		return;
	}
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(store_db(st), "SELECT status, COUNT(*), TOTAL(duration_s) FROM pexecs GROUP BY status", -1,
			       &q, NULL) == SQLITE_OK) {
		static const char *const names[] = { "pending", "running", "ok", "failed", "timeout", "tainted" };
		while (sqlite3_step(q) == SQLITE_ROW) {
			const char *s = (const char *)sqlite3_column_text(q, 0);
			for (size_t i = 0; i < ARRAY_SIZE(names); i++)
				if (s && !strcmp(s, names[i])) {
					si->n[i] += sqlite3_column_int64(q, 1);
					if (i >= PX_OK)
						si->seconds += sqlite3_column_double(q, 2);
				}
			si->total += sqlite3_column_int64(q, 1);
		}
		sqlite3_finalize(q);
		si->readable = 1;
	}
	store_meta_get(st, "machine", &si->machine);
	store_meta_get(st, "task_started", &si->started);
	store_meta_get(st, "task_ended", &si->ended);
	store_meta_get(st, "task_error", &si->error);
	char *x = NULL;
	if (store_meta_get(st, "task_exit", &x) == 0 && x && parse_long(x, &si->exit) < 0)
		si->exit = -1;
	free(x);
	store_close(st);
	kerr_release(&e);
}

void shard_info_free(struct shard_info *si)
{
	free(si->why);
	free(si->machine);
	free(si->started);
	free(si->ended);
	free(si->error);
	memset(si, 0, sizeof(*si));
}
