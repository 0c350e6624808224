/*
 * history-merge.c - `kiln merge HISTORY OTHER...`: other histories (other
 * machines', or the same machine's from another file) folded into one.
 * An OTHER is read through the same checks as any history from elsewhere
 * (integrity, exactly kiln's tables, defensive SQLite) before a row is
 * copied.  Machines, commits and keys are matched by name, hash and key;
 * a run is copied whole (its pexecs with everything they recorded, its
 * figures, programs, audit) unless the file has it already (the same
 * machine, commit, kind, session, start and first pexec's start), so
 * merging twice changes nothing; each OTHER is one transaction.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "history-int.h"
#include "history-track.h"

/* ?1: the new run, ?2: the run in o, ?3: the pexec id offset */
static const char *const copy_run_sql[] = {
	"INSERT INTO pexecs(id, run_id, key_id, num, seq, status, attempts, wall_start_ns, duration_s, exit_status,"
	" signal, user_s, sys_s, maxrss_kb, personality, error, stdout, stderr, instr_error, taint, env_hash, n_iter)"
	" SELECT ?3 + p.id, ?1, m.hid, p.num, p.seq, p.status, p.attempts, p.wall_start_ns, p.duration_s, p.exit_status,"
	" p.signal, p.user_s, p.sys_s, p.maxrss_kb, p.personality, p.error, p.stdout, p.stderr, p.instr_error, p.taint,"
	" p.env_hash, p.n_iter FROM o.pexecs p JOIN temp.hkmap m ON m.oid = p.key_id WHERE p.run_id = ?2",
	"INSERT INTO iterations SELECT ?3 + i.pexec_id, i.n, i.wall, i.counter_names, i.counters, i.clock, i.unavailable"
	" FROM o.iterations i JOIN o.pexecs p ON p.id = i.pexec_id WHERE p.run_id = ?2",
	"INSERT INTO series SELECT ?3 + s.pexec_id, s.name, s.unit, s.vals FROM o.series s JOIN o.pexecs p"
	" ON p.id = s.pexec_id WHERE p.run_id = ?2",
	"INSERT INTO scalars SELECT ?3 + s.pexec_id, s.name, s.unit, s.value FROM o.scalars s JOIN o.pexecs p"
	" ON p.id = s.pexec_id WHERE p.run_id = ?2",
	"INSERT INTO events SELECT ?3 + v.pexec_id, v.name, v.start_ns, v.end_ns FROM o.events v JOIN o.pexecs p"
	" ON p.id = v.pexec_id WHERE p.run_id = ?2",
	"INSERT INTO figures SELECT ?3 + f.pexec_id, f.class, f.steady_iter, f.time_to_steady, f.steady_mean,"
	" f.warmup_cost, f.warn FROM o.figures f JOIN o.pexecs p ON p.id = f.pexec_id WHERE p.run_id = ?2",
	"INSERT INTO programs SELECT ?1, m.hid, g.hash, g.seq, g.description, g.setting, g.since FROM o.programs g"
	" JOIN temp.hkmap m ON m.oid = g.key_id WHERE g.run_id = ?2",
	"INSERT INTO run_meta SELECT ?1, name, value FROM o.run_meta WHERE run_id = ?2",
	"INSERT INTO audit SELECT ?1, name, value FROM o.audit WHERE run_id = ?2",
	"INSERT INTO run_keys SELECT ?1, m.hid, rk.iterations, rk.class, rk.n_ok, rk.n_flat, rk.n_warmup, rk.n_slowdown,"
	" rk.n_nosteady, rk.steady_mean, rk.steady_lo, rk.steady_hi, rk.tts_med, rk.tts_p5, rk.tts_p95, rk.program,"
	" rk.warn FROM o.run_keys rk JOIN temp.hkmap m ON m.oid = rk.key_id WHERE rk.run_id = ?2",
};

static const char *const prepare_sql[] = {
	"INSERT OR IGNORE INTO machines(name, identity) SELECT name, identity FROM o.machines",
	"INSERT OR IGNORE INTO commits(hash, parent, depth, time, author, subject) SELECT hash, parent, depth, time,"
	" author, subject FROM o.commits",
	"INSERT OR IGNORE INTO keys(bench, vm, variant) SELECT bench, vm, variant FROM o.keys",
	"DROP TABLE IF EXISTS temp.hkmap",
	"CREATE TEMP TABLE hkmap AS SELECT ok.id AS oid, k.id AS hid FROM o.keys ok JOIN main.keys k ON"
	" k.bench = ok.bench AND k.vm = ok.vm AND k.variant = ok.variant",
};

static int run3(struct history *h, const char *sql, long a, long b, long c, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, sql, e);
	if (!st)
		return -1;
	int np = sqlite3_bind_parameter_count(st);
	if (np >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (np >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (np >= 3)
		sqlite3_bind_int64(st, 3, c);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : history_dberr(h, e, "merge");
}

static long max_id(struct history *h, const char *table)
{
	char *q = xasprintf("SELECT COALESCE(MAX(id), 0) FROM %s", table);
	sqlite3_stmt *st = history_prepare(h, q, NULL);
	free(q);
	long v = st && sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return v;
}

/* the merge of one OTHER: runs copied, there already, left out as still running there */
struct merge_count {
	long copied, had, running;
};

/*
 * every run of o the main file lacks, copied, but not one o still has
 * running (a kiln track interrupted there): it has no pexecs yet, its
 * results file is in o's work folder, so in the main file it would stay
 * running for good or be measured again from nothing by a track of that
 * machine; and once o's track finished it, it would come a second time.
 * It is merged once finished.
 */
static int copy_runs(struct history *h, struct merge_count *n, struct kerr *e)
{
	sqlite3_stmt *runs = history_prepare(h,
		"SELECT r.id, mc.id, mm.id, r.kind, r.session, r.status, r.started, r.ended, r.build_s, r.binary,"
		" r.config_hash, r.error, (SELECT MIN(wall_start_ns) FROM o.pexecs WHERE run_id = r.id)"
		" FROM o.runs r JOIN o.commits oc ON oc.id = r.commit_id"
		" JOIN o.machines om ON om.id = r.machine_id JOIN main.commits mc ON mc.hash = oc.hash"
		" JOIN main.machines mm ON mm.name = om.name ORDER BY r.id", e);
	if (!runs)
		return -1;
	/* one run: its machine, commit, kind, session, start and its first pexec's start (the two runs of a commit
	 * measured against itself share all but that) */
	sqlite3_stmt *have = history_prepare(h, "SELECT COUNT(*) FROM main.runs x WHERE commit_id=?1 AND machine_id=?2 AND"
					       " kind=?3 AND session IS ?4 AND started IS ?5 AND"
					       " (SELECT MIN(wall_start_ns) FROM main.pexecs WHERE run_id = x.id) IS ?6", e);
	sqlite3_stmt *ins = history_prepare(h, "INSERT INTO main.runs(commit_id, machine_id, kind, session, status, started,"
					      " ended, build_s, binary, config_hash, error) VALUES(?,?,?,?,?,?,?,?,?,?,?)", e);
	int r = have && ins ? 0 : -1;
	while (r == 0 && sqlite3_step(runs) == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(runs, 5);
		if (!status || !strcmp(status, "running")) {
			n->running++;
			continue;
		}
		sqlite3_reset(have);
		for (int i = 0; i < 3; i++)
			sqlite3_bind_value(have, i + 1, sqlite3_column_value(runs, i + 1));
		sqlite3_bind_value(have, 4, sqlite3_column_value(runs, 4));
		sqlite3_bind_value(have, 5, sqlite3_column_value(runs, 6));
		sqlite3_bind_value(have, 6, sqlite3_column_value(runs, 12));
		if (sqlite3_step(have) == SQLITE_ROW && sqlite3_column_int(have, 0) > 0) {
			n->had++;
			continue;
		}
		sqlite3_reset(ins);
		for (int i = 1; i < 12; i++)
			sqlite3_bind_value(ins, i, sqlite3_column_value(runs, i));
		if (sqlite3_step(ins) != SQLITE_DONE) {
			r = history_dberr(h, e, "runs");
			break;
		}
		long nid = (long)sqlite3_last_insert_rowid(history_db(h)), oid = sqlite3_column_int64(runs, 0);
		long base = max_id(h, "main.pexecs");
		/* the other's pexec ids are offset past every id the main file has: no clash */
		for (size_t i = 0; r == 0 && i < ARRAY_SIZE(copy_run_sql); i++)
			r = run3(h, copy_run_sql[i], nid, oid, base, e);
		n->copied++;
	}
	sqlite3_finalize(runs);
	sqlite3_finalize(have);
	sqlite3_finalize(ins);
	return r;
}

/* the other's commits all named by git object names (history_commits refuses a history with one that is not) */
static int other_hashes_ok(struct history *h, const char *path, struct kerr *e)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT id, hash, parent FROM o.commits", e);
	if (!st)
		return -1;
	int bad = 0;
	long id = 0;
	while (!bad && sqlite3_step(st) == SQLITE_ROW) {
		/* the types first: sqlite3_column_type says nothing once a column was converted */
		int ht = sqlite3_column_type(st, 1), pt = sqlite3_column_type(st, 2);
		const char *hash = (const char *)sqlite3_column_text(st, 1), *parent = (const char *)sqlite3_column_text(st, 2);
		bad = ht != SQLITE_TEXT || !history_hash_ok(hash) ||
		      (pt != SQLITE_NULL && (pt != SQLITE_TEXT || !history_hash_ok(parent)));
		id = (long)sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return bad ? kerr_setc(e, KEXIT_STORE, "%s: commit %ld: a hash that is not a git object name (40 or 64 hex "
			       "digits): not a history kiln wrote", esc(ESC_TERM, path), id) : 0;
}

/*
 * every row of the other names a row it has: a pexec its run and key, a
 * run its commit and machine, a measurement its pexec.  The copy joins on
 * them, so a row naming none would be left out of its pexec and still be
 * copied, with its id moved past the main file's: the next pexec the main
 * file numbers so would have it as its own.
 */
static int other_refs_ok(struct history *h, const char *path, struct kerr *e)
{
	static const struct {
		const char *table, *col, *target;
	} refs[] = {
		{ "runs", "commit_id", "commits" },  { "runs", "machine_id", "machines" }, { "pexecs", "run_id", "runs" },
		{ "pexecs", "key_id", "keys" },      { "iterations", "pexec_id", "pexecs" }, { "series", "pexec_id", "pexecs" },
		{ "scalars", "pexec_id", "pexecs" }, { "events", "pexec_id", "pexecs" },   { "figures", "pexec_id", "pexecs" },
		{ "programs", "run_id", "runs" },    { "programs", "key_id", "keys" },     { "run_meta", "run_id", "runs" },
		{ "audit", "run_id", "runs" },       { "run_keys", "run_id", "runs" },     { "run_keys", "key_id", "keys" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(refs); i++) {
		char *q = xasprintf("SELECT x.%s FROM o.%s x WHERE NOT EXISTS (SELECT 1 FROM o.%s y WHERE y.id = x.%s) LIMIT 1",
				    refs[i].col, refs[i].table, refs[i].target, refs[i].col);
		sqlite3_stmt *st = history_prepare(h, q, e);
		free(q);
		if (!st)
			return -1;
		int bad = sqlite3_step(st) == SQLITE_ROW;
		char *id = bad ? xstrdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL") : NULL;
		sqlite3_finalize(st);
		if (bad) {
			kerr_setc(e, KEXIT_STORE, "%s: a row of %s names %s %s, which the file does not have: not a history "
				  "kiln wrote (nothing merged)", esc(ESC_TERM, path), refs[i].table, refs[i].col,
				  esc(ESC_TERM, id));
			free(id);
			return -1;
		}
	}
	return 0;
}

/*
 * A machine is matched by its name: one of the other's whose identity
 * says it is another machine than the one the main file knows by that
 * name (CPU model, CPUs, memory, as kiln track checks it) has its runs
 * join that machine's series.  Said, as kiln track says it.
 */
static void say_other_machines(struct history *h, const char *path)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT m.name, m.identity, om.identity FROM main.machines m"
					  " JOIN o.machines om ON om.name = m.name ORDER BY m.name", NULL);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct strbuf why = STRBUF_INIT;
		if (track_identity_differs((const char *)sqlite3_column_text(st, 1), (const char *)sqlite3_column_text(st, 2),
					   &why))
			kiln_warn("%s: its machine '%s' is not the machine this history knows by that name (%s): its runs "
				  "are merged under that name, and the machine's series are then not one machine's",
				  esc(ESC_TERM, path), esc(ESC_TERM, (const char *)sqlite3_column_text(st, 0)),
				  esc(ESC_TERM, sb_str(&why)));
		sb_release(&why);
	}
	sqlite3_finalize(st);
}

/* the other, before SQLite opens it: a file, not a link (SQLite would not follow it), not the history itself */
static int other_file_ok(struct history *h, const char *path, struct kerr *e)
{
	struct stat ls, ms;
	if (lstat(path, &ls) < 0)
		return kerr_setc(e, KEXIT_STORE, "%s: cannot read it: %s", esc(ESC_TERM, path), strerror(errno));
	if (S_ISLNK(ls.st_mode))
		return kerr_setc(e, KEXIT_STORE, "%s: a symbolic link: refused (name the history itself)", esc(ESC_TERM, path));
	if (!S_ISREG(ls.st_mode))
		return kerr_setc(e, KEXIT_STORE, "%s: not a regular file", esc(ESC_TERM, path));
	if (stat(history_path(h), &ms) == 0 && ms.st_dev == ls.st_dev && ms.st_ino == ls.st_ino)
		return kerr_setc(e, KEXIT_USAGE, "%s is the history merged into: a history has its own runs already",
				 esc(ESC_TERM, path));
	return 0;
}

static int merge_one(struct history *h, const char *path, struct merge_count *n, struct kerr *e)
{
	if (other_file_ok(h, path, e) < 0)
		return -1;
	sqlite3_stmt *st = history_prepare(h, "ATTACH ? AS o", e);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return kerr_setc(e, KEXIT_STORE, "%s: cannot read it: %s", path, esc(ESC_TERM, sqlite3_errmsg(history_db(h))));
	int r = history_check_intact(h, "o", path, e) < 0 || history_check_schema(h, "o", path, e) < 0 ? -1 : 0;
	if (r == 0) {
		sqlite3_stmt *k = history_prepare(h, "SELECT value FROM o.meta WHERE name='kind'", e);
		const char *v = k && sqlite3_step(k) == SQLITE_ROW ? (const char *)sqlite3_column_text(k, 0) : NULL;
		if (!v || strcmp(v, "kiln-history"))
			r = kerr_setc(e, KEXIT_STORE, "%s: not a kiln history", path);
		sqlite3_finalize(k);
	}
	if (r == 0)
		r = other_hashes_ok(h, path, e);
	if (r == 0)
		r = other_refs_ok(h, path, e);
	if (r == 0)
		say_other_machines(h, path);
	if (r == 0)
		r = history_exec(h, "BEGIN IMMEDIATE", e);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(prepare_sql); i++)
		r = history_exec(h, prepare_sql[i], e);
	if (r == 0)
		r = copy_runs(h, n, e);
	if (r == 0)
		r = history_exec(h, "DROP TABLE temp.hkmap; COMMIT", e);
	else
		sqlite3_exec(history_db(h), "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(history_db(h), "DETACH o", NULL, NULL, NULL);
	return r;
}

int history_merge(const char *main_path, const struct strvec *others, int quiet)
{
	struct history *h;
	struct kerr e = KERR_INIT;
	if (history_open(main_path, 1, &h, &e) < 0) {
		kerr_print(&e);
		int code = e.code;
		kerr_release(&e);
		return code;
	}
	int code = KEXIT_OK;
	for (size_t i = 0; i < others->n; i++) {
		struct merge_count n = { 0, 0, 0 };
		if (merge_one(h, others->v[i], &n, &e) < 0) {
			kerr_print(&e);
			code = code ? code : (e.code ? e.code : KEXIT_STORE);
			sb_reset(&e.msg);
			continue;
		}
		if (!quiet) {
			printf("%s: %ld runs merged, %ld there already", esc(ESC_TERM, others->v[i]), n.copied, n.had);
			if (n.running)
				printf(", %ld still running there (not merged: the kiln track that left them running "
				       "finishes them there, then merge again)", n.running);
			printf("\n");
		}
	}
	history_close(h);
	kerr_release(&e);
	return code;
}
