/*
 * store-write.c - a new results file written piece by piece (kiln import):
 * keys, pexecs and their measurements in the order a reader meets them,
 * so that an input file is never held whole in memory, whatever its size.
 *
 * The file is built under a temporary name beside the final one, in one
 * transaction with no journal and no flush (there is nothing to protect
 * before it exists: a failed or killed import only leaves the temporary
 * file, which is removed on failure), then flushed once and renamed into
 * place.  Statements are prepared once; keys and pexecs get their ids
 * from the writer, so no row is ever looked up while writing.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

/*
 * A series is a plain INSERT: the reader refuses a name twice in a pexec,
 * and should one get through, failing is better than replacing a measured
 * series with another unseen.
 */
enum { W_KEY, W_PEXEC, W_ITER, W_SERIES, W_SCALAR, W_KEY_ITERS, W_META, W_AUDIT, NW };
static const char *const wsql[NW] = {
	[W_KEY] = "INSERT INTO keys(id, bench, vm, variant, iterations) VALUES(?,?,?,?,0)",
	[W_PEXEC] = "INSERT INTO pexecs(id, key_id, num, seq, status, n_iter, duration_s, exit_status, user_s, sys_s,"
		    " maxrss_kb) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
	[W_ITER] = "INSERT OR REPLACE INTO iterations(pexec_id, n, wall) VALUES(?,?,?)",
	[W_SERIES] = "INSERT INTO series(pexec_id, name, unit, vals) VALUES(?,?,?,?)",
	[W_SCALAR] = "INSERT OR REPLACE INTO scalars(pexec_id, name, unit, value) VALUES(?,?,?,?)",
	[W_KEY_ITERS] = "UPDATE keys SET iterations=? WHERE id=?",
	[W_META] = "INSERT OR REPLACE INTO meta(name, value) VALUES(?,?)",
	[W_AUDIT] = "INSERT OR REPLACE INTO audit(name, value) VALUES(?,?)",
};

/* a pexec between store_writer_pexec and store_writer_finish */
struct wpexec {
	long key, num;
	size_t n;         /* iterations stored */
};

struct store_writer {
	struct store *st;
	sqlite3 *db;
	char *path, *tmp;
	sqlite3_stmt *q[NW];
	long *key_iters;  /* per key: the most iterations of a pexec */
	size_t nkeys;
	struct wpexec *px;
	size_t npx;
	long seq;
	struct strbuf blob;
	int64_t *ns;      /* scratch for times in ns */
	size_t ns_alloc;
};

static int werr(struct store_writer *w, struct kerr *e, const char *what)
{
	int full = sqlite3_errcode(w->db) == SQLITE_FULL;
	return kerr_setc(e, KEXIT_STORE, "%s: %s: %s", w->path, what,
			 full ? "the disk is full" : sqlite3_errmsg(w->db));
}

static int wexec(struct store_writer *w, const char *sql, struct kerr *e)
{
	char *msg = NULL;
	if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int r = kerr_setc(e, KEXIT_STORE, "%s: %s", w->path, msg ? msg : sql);
		sqlite3_free(msg);
		return r;
	}
	return 0;
}

/* step a prepared statement to its end and reset it; -1 with e set */
static int wstep(struct store_writer *w, int q, struct kerr *e)
{
	int rc = sqlite3_step(w->q[q]);
	sqlite3_reset(w->q[q]);
	sqlite3_clear_bindings(w->q[q]);
	return rc == SQLITE_DONE ? 0 : werr(w, e, wsql[q]);
}

int store_writer_open(const char *path, const char *name, const char *source, struct store_writer **out,
		      struct kerr *e)
{
	*out = NULL;
	if (file_exists(path))
		return kerr_setc(e, KEXIT_USAGE, "%s already exists; kiln import writes a new results file", path);
	struct store_writer *w = xcalloc(1, sizeof(*w));
	w->path = xstrdup(path);
	w->tmp = xasprintf("%s.import-%ld", path, (long)getpid());
	unlink(w->tmp);
	*out = w;
	if (store_open(w->tmp, 1, &w->st, e) < 0)
		return -1;
	w->db = store_db(w->st);
	/* a file nobody has yet: no journal, no flush until it is complete, a cache that fits the work */
	if (wexec(w, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=OFF;"
		     " PRAGMA cache_size=-16384; BEGIN", e) < 0)
		return -1;
	for (int i = 0; i < NW; i++)
		if (sqlite3_prepare_v2(w->db, wsql[i], -1, &w->q[i], NULL) != SQLITE_OK)
			return werr(w, e, wsql[i]);
	char buf[32], ts[32];
	snprintf(buf, sizeof(buf), "%d", STORE_SCHEMA);
	iso_time(wall_ns(), ts, sizeof(ts));
	if (store_writer_meta(w, "schema", buf, e) < 0 || store_writer_meta(w, "kiln_version", KILN_VERSION, e) < 0 ||
	    store_writer_meta(w, "name", name ? name : "imported", e) < 0 ||
	    store_writer_meta(w, "imported_from", source ? source : "", e) < 0 ||
	    store_writer_meta(w, "started", ts, e) < 0)
		return -1;
	return 0;
}

static int kv(struct store_writer *w, int q, const char *name, const char *value, struct kerr *e)
{
	sqlite3_bind_text(w->q[q], 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->q[q], 2, value, -1, SQLITE_STATIC);
	return wstep(w, q, e);
}

int store_writer_meta(struct store_writer *w, const char *name, const char *value, struct kerr *e)
{
	return kv(w, W_META, name, value, e);
}

int store_writer_audit(struct store_writer *w, const char *name, const char *value, struct kerr *e)
{
	return kv(w, W_AUDIT, name, value, e);
}

long store_writer_key(struct store_writer *w, const char *bench, const char *vm, const char *variant, long iterations,
		      struct kerr *e)
{
	long k = (long)w->nkeys;
	sqlite3_bind_int64(w->q[W_KEY], 1, k + 1);
	sqlite3_bind_text(w->q[W_KEY], 2, bench, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->q[W_KEY], 3, vm, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->q[W_KEY], 4, variant, -1, SQLITE_STATIC);
	if (wstep(w, W_KEY, e) < 0)
		return -1;
	if (!(w->nkeys & (w->nkeys - 1)))
		w->key_iters = xrealloc(w->key_iters, (w->nkeys ? 2 * w->nkeys : 1) * sizeof(long));
	w->key_iters[w->nkeys++] = iterations > 0 ? iterations : 0;
	return k;
}

long store_writer_pexec(struct store_writer *w, long key, long num, struct kerr *e)
{
	if (key < 0 || (size_t)key >= w->nkeys)
		return kerr_set(e, "%s: pexec %ld of key %ld: no such key", w->path, num, key);
	if (!(w->npx & (w->npx - 1)))
		w->px = xrealloc(w->px, (w->npx ? 2 * w->npx : 1) * sizeof(*w->px));
	w->px[w->npx] = (struct wpexec){ key, num, 0 };
	return (long)w->npx++;
}

int store_writer_times(struct store_writer *w, long px, const double *v, size_t n, struct kerr *e)
{
	if (n > w->ns_alloc) {
		w->ns_alloc = n > 2 * w->ns_alloc ? n : 2 * w->ns_alloc;
		free(w->ns);
		w->ns = xmalloc(w->ns_alloc * sizeof(int64_t));
	}
	for (size_t i = 0; i < n; i++) {
		/* every reader refuses such a time already; nothing that does not fit is ever wrapped */
		if (!(v[i] >= 0 && v[i] <= DS_TIME_MAX_S))
			return kerr_setc(e, KEXIT_CONFIG, "%s: pexec %ld of key %ld: iteration %zu: %g s is not a time kiln "
					 "can store (0 to %g s)", w->path, w->px[px].num, w->px[px].key, i, v[i], DS_TIME_MAX_S);
		w->ns[i] = (int64_t)llround(v[i] * 1e9);
	}
	sb_reset(&w->blob);
	store_encode_i64(w->ns, n, &w->blob);
	sqlite3_bind_int64(w->q[W_ITER], 1, px + 1);
	sqlite3_bind_int64(w->q[W_ITER], 2, (sqlite3_int64)n);
	sqlite3_bind_blob64(w->q[W_ITER], 3, w->blob.buf ? w->blob.buf : "", w->blob.len, SQLITE_STATIC);
	if (wstep(w, W_ITER, e) < 0)
		return -1;
	w->px[px].n = n;
	return 0;
}

int store_writer_series(struct store_writer *w, long px, const char *name, const char *unit, const double *v, size_t n,
			struct kerr *e)
{
	sqlite3_bind_int64(w->q[W_SERIES], 1, px + 1);
	sqlite3_bind_text(w->q[W_SERIES], 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->q[W_SERIES], 3, unit ? unit : "", -1, SQLITE_STATIC);
	store_bind_f64(w->q[W_SERIES], 4, v, n);
	return wstep(w, W_SERIES, e);
}

int store_writer_scalar(struct store_writer *w, long px, const char *name, const char *unit, double value,
			struct kerr *e)
{
	sqlite3_bind_int64(w->q[W_SCALAR], 1, px + 1);
	sqlite3_bind_text(w->q[W_SCALAR], 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->q[W_SCALAR], 3, unit ? unit : "", -1, SQLITE_STATIC);
	sqlite3_bind_double(w->q[W_SCALAR], 4, value);
	return wstep(w, W_SCALAR, e);
}

static void bind_maybe(sqlite3_stmt *st, int col, double v, int integer)
{
	if (isnan(v) || (integer && !(fabs(v) < 9.2e18)))
		sqlite3_bind_null(st, col); /* an integer that does not fit is not one kiln can keep */
	else if (integer)
		sqlite3_bind_int64(st, col, (sqlite3_int64)llround(v));
	else
		sqlite3_bind_double(st, col, v);
}

int store_writer_finish(struct store_writer *w, long px, const struct store_writer_pexec *p, struct kerr *e)
{
	static const char *const names[] = { [DS_OK] = "ok", [DS_FAILED] = "failed", [DS_TIMEOUT] = "timeout",
					     [DS_PENDING] = "pending", [DS_TAINTED] = "tainted" };
	struct wpexec *x = &w->px[px];
	sqlite3_stmt *st = w->q[W_PEXEC];
	sqlite3_bind_int64(st, 1, px + 1);
	sqlite3_bind_int64(st, 2, x->key + 1);
	sqlite3_bind_int64(st, 3, x->num);
	sqlite3_bind_int64(st, 4, w->seq++);
	sqlite3_bind_text(st, 5, names[p->status], -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)x->n);
	bind_maybe(st, 7, p->duration, 0);
	bind_maybe(st, 8, p->exit_status, 1);
	bind_maybe(st, 9, p->user_s, 0);
	bind_maybe(st, 10, p->sys_s, 0);
	bind_maybe(st, 11, p->maxrss_kb, 1);
	if (wstep(w, W_PEXEC, e) < 0) {
		if (strstr(sb_str(&e->msg), "UNIQUE"))
			kerr_setc(e, KEXIT_CONFIG, "%s: pexec %ld of a key is there twice", w->path, x->num);
		return -1;
	}
	if ((long)x->n > w->key_iters[x->key])
		w->key_iters[x->key] = (long)x->n;
	return 0;
}

/* the file flushed to the disk once it is complete */
static int flush_file(const char *path, struct kerr *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return kerr_setc(e, KEXIT_STORE, "%s: cannot flush: %s", path, strerror(err));
	}
	close(fd);
	return 0;
}

static int writer_commit(struct store_writer *w, struct kerr *e)
{
	for (size_t k = 0; k < w->nkeys; k++) {
		sqlite3_bind_int64(w->q[W_KEY_ITERS], 1, w->key_iters[k]);
		sqlite3_bind_int64(w->q[W_KEY_ITERS], 2, (sqlite3_int64)k + 1);
		if (wstep(w, W_KEY_ITERS, e) < 0)
			return -1;
	}
	for (int i = 0; i < NW; i++) {
		sqlite3_finalize(w->q[i]);
		w->q[i] = NULL;
	}
	/* from here on the file is like any other: later writers open it with the WAL */
	if (wexec(w, "COMMIT; PRAGMA journal_mode=DELETE", e) < 0)
		return -1;
	store_close(w->st);
	w->st = NULL;
	if (flush_file(w->tmp, e) < 0)
		return -1;
	if (file_exists(w->path))
		return kerr_setc(e, KEXIT_USAGE, "%s appeared while importing; the import is in %s", w->path, w->tmp);
	if (rename(w->tmp, w->path) < 0)
		return kerr_setc(e, KEXIT_STORE, "%s: cannot rename %s: %s", w->path, w->tmp, strerror(errno));
	char *dir = path_dirname(w->path);
	flush_file(dir, NULL);
	free(dir);
	return 0;
}

int store_writer_close(struct store_writer *w, int keep, struct kerr *e)
{
	if (!w)
		return 0;
	int r = 0;
	if (keep && w->st)
		r = writer_commit(w, e);
	for (int i = 0; i < NW; i++)
		sqlite3_finalize(w->q[i]);
	store_close(w->st);
	if (!keep || r < 0) {
		unlink(w->tmp);
		char *j = xasprintf("%s-journal", w->tmp);
		unlink(j);
		free(j);
	}
	free(w->path);
	free(w->tmp);
	free(w->key_iters);
	free(w->px);
	free(w->ns);
	sb_release(&w->blob);
	free(w);
	return r;
}

static int save_pexec(struct store_writer *w, long k, const struct ds_pexec *dp, struct kerr *e)
{
	long px = store_writer_pexec(w, k, dp->num, e);
	if (px < 0 || store_writer_times(w, px, dp->wall, dp->n, e) < 0)
		return -1;
	for (size_t j = 0; j < dp->nseries; j++)
		if (store_writer_series(w, px, dp->series[j].name, dp->series[j].unit, dp->series[j].v, dp->series[j].n,
					e) < 0)
			return -1;
	for (size_t j = 0; j < dp->nscalars; j++)
		if (!store_is_column_scalar(dp->scalars[j].name) &&
		    store_writer_scalar(w, px, dp->scalars[j].name, dp->scalars[j].unit, dp->scalars[j].value, e) < 0)
			return -1;
	struct store_writer_pexec f = {
		.status = dp->status, .duration = dp->duration, .exit_status = ds_scalar(dp, "exit_status"),
		.user_s = ds_scalar(dp, "user_time"), .sys_s = ds_scalar(dp, "sys_time"),
		.maxrss_kb = ds_scalar(dp, "max_rss"),
	};
	return store_writer_finish(w, px, &f, e);
}

int store_save_dataset(const char *path, const struct dataset *ds, struct kerr *e)
{
	struct store_writer *w;
	int r = store_writer_open(path, ds->name, ds->source, &w, e);
	for (size_t k = 0; r == 0 && k < ds->nkeys; k++) {
		const struct ds_key *dk = &ds->keys[k];
		if (store_writer_key(w, dk->bench, dk->vm, dk->variant, dk->iterations, e) < 0)
			r = -1;
		for (size_t p = 0; r == 0 && p < dk->npexecs; p++)
			r = save_pexec(w, (long)k, &dk->pexecs[p], e);
	}
	if (r == 0 && ds->machine)
		r = store_writer_audit(w, "hostname", ds->machine, e);
	if (r == 0 && ds->keep_name && ds->keep_text)
		r = store_writer_meta(w, ds->keep_name, ds->keep_text, e);
	return store_writer_close(w, r == 0, e) < 0 ? -1 : r;
}
