/*
 * session-record.c - the record of measured sessions in kiln's state
 * folder, written by `kiln bench` at the end of each session and read by
 * `kiln diff` to learn the machine's session-to-session variation
 * (session-record.h says what a row holds and the bounds).
 *
 * The file is <state>/record/sessions.db: the folder is kiln's own
 * (sfs_state_path checks owner and mode, writable by nobody else), the file
 * is opened without following a link, must be a regular file of one link
 * that kiln's user owns, and is created 0600.  A failure to record is a
 * warning: the results file, not this record, holds the measurement.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis.h"
#include "dataset.h"
#include "history-track.h"
#include "import.h"
#include "safefs.h"
#include "session-record.h"
#include "store.h"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS sessions(id INTEGER PRIMARY KEY, program TEXT NOT NULL, machine TEXT NOT NULL,"
	" fingerprint TEXT NOT NULL UNIQUE, key TEXT NOT NULL, started TEXT, recorded TEXT NOT NULL,"
	" n INTEGER NOT NULL, log_mean REAL NOT NULL, within_var REAL NOT NULL);"
	"CREATE INDEX IF NOT EXISTS sessions_pm ON sessions(program, machine, id);";

/* the record's path; with `create`, the file is made (0600) when missing; NULL when absent or unsafe */
static char *record_path(int create, struct kerr *e)
{
	char *dir = sfs_state_path("record", 0700, e);
	if (!dir)
		return NULL;
	char *path = path_join(dir, "sessions.db");
	free(dir);
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
	    (st.st_mode & 022)) {
		if (fd >= 0 || errno != ENOENT)
			kerr_set(e, "%s: not kiln's own regular file (%s)", path, fd < 0 ? strerror(errno) : "owner, mode or links");
		if (fd >= 0)
			close(fd);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static sqlite3 *record_open(int create, struct kerr *e)
{
	char *path = record_path(create, e);
	if (!path)
		return NULL;
	sqlite3 *db = NULL;
	int fl = (create ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOFOLLOW;
	if (sqlite3_open_v2(path, &db, fl, NULL) != SQLITE_OK ||
	    (sqlite3_busy_timeout(db, 5000), create && sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK)) {
		kerr_set(e, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
		sqlite3_close(db);
		db = NULL;
	}
	free(path);
	return db;
}

/* this machine, as the record names it: a hash of its identity (host, CPU, memory, machine-id) */
static void machine_hash(char out[65])
{
	char *id = track_machine_identity();
	hash_hex(id, strlen(id), out);
	free(id);
}

/* a hash of the key's own data in this file: the same session gives the same one wherever the file is */
static void fingerprint(const struct ds_key *k, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, k->key);
	for (size_t i = 0; i < k->npexecs; i++) {
		const struct ds_pexec *p = &k->pexecs[i];
		sb_addf(&sb, "\n%ld %d", p->num, (int)p->status);
		for (size_t j = 0; j < p->n; j++)
			sb_addf(&sb, " %a", p->wall[j]);
	}
	hash_hex(sb.buf, sb.len, out);
	sb_release(&sb);
}

/* the provenance hash of the program k's pexecs ran, from its results file st; NULL: none recorded */
static char *program_hash(struct store *st, const struct ds_key *k)
{
	if (!st || k->program <= 0)
		return NULL;
	size_t vl = strlen(k->variant);
	char suffix[32];
	int sl = snprintf(suffix, sizeof(suffix), "#%ld", k->program);
	if (k->program > 1 && vl > (size_t)sl && !strcmp(k->variant + vl - (size_t)sl, suffix))
		vl -= (size_t)sl; /* ds_split_programs' KEY#N */
	sqlite3_stmt *q;
	char *h = NULL;
	if (sqlite3_prepare_v2(store_db(st),
			       "SELECT g.hash FROM programs g JOIN keys k ON k.id = g.key_id WHERE k.bench = ?1 AND "
			       "k.vm = ?2 AND k.variant = ?3 AND g.seq = ?4",
			       -1, &q, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(q, 1, k->bench, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, k->vm, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, k->variant, (int)vl, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, k->program);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		h = xstrdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return h;
}

/* the newest SREC_KEEP sessions of (program, machine) */
static int prune(sqlite3 *db, const char *program, const char *machine)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db,
			       "DELETE FROM sessions WHERE program = ?1 AND machine = ?2 AND id NOT IN (SELECT id FROM "
			       "sessions WHERE program = ?1 AND machine = ?2 ORDER BY id DESC LIMIT ?3)",
			       -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(q, 1, program, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, machine, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, SREC_KEEP);
	int r = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(q);
	return r;
}

/* the newest SREC_MAX_ROWS rows in all: once a session, after its keys */
static int prune_all(sqlite3 *db)
{
	char sql[160];
	snprintf(sql, sizeof(sql), "DELETE FROM sessions WHERE id NOT IN (SELECT id FROM sessions ORDER BY id DESC LIMIT %d)",
		 SREC_MAX_ROWS);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* one key's row: nothing when it has no program recorded or too few units */
static int add_key(sqlite3 *db, struct store *st, const char *machine, const char *started, const struct an_key *ak)
{
	double *u, y, v;
	int within;
	size_t n = an_key_units(ak, &u, &within);
	int ok = !within && ss_of_units(u, n, &y, &v) == 0;
	free(u);
	char *prog = ok ? program_hash(st, ak->key) : NULL;
	if (!prog)
		return 0;
	char fp[65], now[32];
	fingerprint(ak->key, fp);
	time_t t = time(NULL);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	sqlite3_stmt *q;
	int r = -1;
	if (sqlite3_prepare_v2(db,
			       "INSERT OR IGNORE INTO sessions(program, machine, fingerprint, key, started, recorded, n, "
			       "log_mean, within_var) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
			       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, prog, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, machine, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, fp, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, ak->key->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 5, started, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 6, now, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 7, (sqlite3_int64)n);
		sqlite3_bind_double(q, 8, y);
		sqlite3_bind_double(q, 9, v);
		r = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(q);
	}
	if (r == 0)
		r = prune(db, prog, machine);
	free(prog);
	return r;
}

int srec_add_session(const char *results, const struct an_result *r, struct kerr *e)
{
	struct store *st = NULL;
	if (store_open(results, 0, &st, e) < 0)
		return -1;
	sqlite3 *db = record_open(1, e);
	if (!db) {
		store_close(st);
		return e->msg.len ? -1 : 0;
	}
	char machine[65], *started = NULL;
	machine_hash(machine);
	store_meta_get(st, "started", &started);
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < r->nkeys; i++)
		rc = add_key(db, st, machine, started, &r->keys[i]);
	if (rc == 0)
		rc = prune_all(db);
	if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = -1;
	if (rc < 0) {
		kerr_set(e, "the session record: %s", sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	free(started);
	sqlite3_close(db);
	store_close(st);
	return rc;
}

/* ---- kiln diff's side ---- */

struct srec_diff {
	sqlite3 *db;               /* NULL: nothing recorded */
	struct store *st[2];       /* A's and B's results files (NULL: not kiln's) */
	char machine[65];
	const char *why;           /* set: no key of this diff can be measured, and why */
};

/* was the file measured here?  Its recorded host name against this machine's */
static int measured_here(const struct dataset *ds)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	return ds->machine && !strcmp(ds->machine, host);
}

struct srec_diff *srec_diff_open(const char *a, const struct dataset *da, const char *b, const struct dataset *db)
{
	struct srec_diff *d = xcalloc(1, sizeof(*d));
	struct kerr e = KERR_INIT;
	const char *in[2] = { a, b };
	for (int s = 0; s < 2; s++)
		if (imp_detect(in[s]) != IMP_KILN || store_open(in[s], 0, &d->st[s], &e) < 0) {
			d->st[s] = NULL;
			kerr_release(&e);
			e = (struct kerr)KERR_INIT;
		}
	if (!d->st[0] || !d->st[1])
		d->why = "A or B is not a kiln results file: no program identity";
	else if (!measured_here(da) || !measured_here(db))
		d->why = "A or B was not measured on this machine";
	else {
		d->db = record_open(0, &e);
		if (!d->db && e.msg.len)
			kiln_warn("%s", sb_str(&e.msg));
	}
	kerr_release(&e);
	machine_hash(d->machine);
	return d;
}

/* the other sessions of program on this machine (the newest SREC_KEEP, not fp[0] nor fp[1]), as group g */
static void collect(struct srec_diff *d, const char *program, char fp[2][65], long g, struct ss_session **s, size_t *n)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(d->db,
			       "SELECT log_mean, within_var FROM sessions WHERE program = ?1 AND machine = ?2 AND "
			       "fingerprint NOT IN (?3, ?4) ORDER BY id DESC LIMIT ?5",
			       -1, &q, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(q, 1, program, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, d->machine, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, fp[0], -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, fp[1], -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 5, SREC_KEEP);
	while (sqlite3_step(q) == SQLITE_ROW) {
		double y = sqlite3_column_double(q, 0), v = sqlite3_column_double(q, 1);
		if (!isfinite(y) || !isfinite(v) || v < 0)
			continue; /* not a row kiln wrote */
		*s = xrealloc(*s, (*n + 1) * sizeof(**s));
		(*s)[(*n)++] = (struct ss_session){ g, y, v };
	}
	sqlite3_finalize(q);
}

void srec_diff_key(struct srec_diff *d, const struct an_key *ka, const struct an_key *kb, double dflt,
		   struct srec_sd *out)
{
	*out = (struct srec_sd){ .sd = dflt, .source = SREC_ASSUMED, .why = d->why };
	if (d->why)
		return;
	char *prog[2] = { program_hash(d->st[0], ka->key), program_hash(d->st[1], kb->key) };
	if (!prog[0] || !prog[1]) {
		out->why = "no program recorded for the key in A or B";
	} else if (!d->db) {
		out->why = "no session recorded on this machine";
	} else {
		char fp[2][65];
		fingerprint(ka->key, fp[0]);
		fingerprint(kb->key, fp[1]);
		struct ss_session *s = NULL;
		size_t n = 0;
		collect(d, prog[0], fp, 0, &s, &n);
		if (strcmp(prog[0], prog[1]))
			collect(d, prog[1], fp, 1, &s, &n);
		out->looked_up = 1;
		out->sessions = n;
		ss_estimate(s, n, &out->est);
		free(s);
		if (out->est.measured) {
			out->sd = out->est.sd_hi;
			out->source = SREC_MEASURED;
			out->why = NULL;
		} else
			out->why = "too few other sessions of this program on this machine";
	}
	free(prog[0]);
	free(prog[1]);
}

void srec_diff_close(struct srec_diff *d)
{
	if (!d)
		return;
	sqlite3_close(d->db);
	for (int s = 0; s < 2; s++)
		if (d->st[s])
			store_close(d->st[s]);
	free(d);
}

const char *srec_source_name(enum srec_source s)
{
	switch (s) {
	case SREC_OPTION: return "option";
	case SREC_MEASURED: return "measured";
	case SREC_ASSUMED: return "assumed";
	default: return "none";
	}
}
