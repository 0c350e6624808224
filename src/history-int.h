/*
 * history-int.h - what the history-*.c files share and nothing else uses:
 * the connection, SQL helpers, and the writers of commits, machines and
 * runs (history.h is the readers' interface).
 */
#ifndef KILN_HISTORY_INT_H
#define KILN_HISTORY_INT_H

#include "history.h"

struct sqlite3;
struct sqlite3_stmt;
struct an_opts;

struct sqlite3 *history_db(struct history *h);
/* set e from SQLite's error (KEXIT_STORE), returns -1 */
int history_dberr(struct history *h, struct kerr *e, const char *what);
int history_exec(struct history *h, const char *sql, struct kerr *e);
/* a prepared statement or NULL with e set */
struct sqlite3_stmt *history_prepare(struct history *h, const char *sql, struct kerr *e);
/*
 * The same for a statement used over and over: prepared once per history
 * (keyed by the address of sql, a string constant), reset and unbound;
 * history_stmt_done resets it (a statement the cache had no room for is
 * finalized)
 */
struct sqlite3_stmt *history_stmt(struct history *h, const char *sql, struct kerr *e);
void history_stmt_done(struct history *h, struct sqlite3_stmt *st);
char *history_col_text(struct sqlite3_stmt *st, int i);
double history_col_double(struct sqlite3_stmt *st, int i); /* NAN for NULL */
void history_bind_double(struct sqlite3_stmt *st, int i, double v); /* NULL for NAN */
/* the checks of an attached file (schema "main" or the attached name) */
int history_check_intact(struct history *h, const char *schema, const char *path, struct kerr *e);
int history_check_schema(struct history *h, const char *schema, const char *path, struct kerr *e);

/* the commit's id (inserted, or the one of its hash: depth updated), -1 on error */
long history_put_commit(struct history *h, const struct hist_commit *c, struct kerr *e);
long history_commit_id(struct history *h, const char *hash); /* 0: none */
/*
 * The machine's id, inserted with identity when new; *old_identity (malloc'd)
 * is the stored one when it was there already (the caller compares).
 */
long history_put_machine(struct history *h, const char *name, const char *identity, char **old_identity,
			 struct kerr *e);
/* a new run, status running; its id or -1 */
long history_begin_run(struct history *h, long commit_id, long machine_id, const char *kind, const char *session,
		       const char *config_hash, struct kerr *e);
/* the run's outcome (binary, error may be NULL; build_s NAN unknown) */
int history_end_run(struct history *h, long run_id, const char *status, double build_s, const char *binary,
		    const char *error, struct kerr *e);
/* s is a git object name: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits (a history read or merged is checked) */
int history_hash_ok(const char *s);
/* the pexecs folded into the history for run_id, finished or failed (-1: cannot say) */
long history_run_pexecs(struct history *h, long run_id);
/* why a track stopped at this run, which stays running: the same track resumes it once the cause is gone */
int history_stop_run(struct history *h, long run_id, const char *error, struct kerr *e);

/*
 * A results file's rows into run run_id (history-fold.c): its finished
 * pexecs with everything they recorded, its programs, meta and audit, and
 * the analysis with o (per pexec `figures`, per key `run_keys`), in one
 * transaction.  What the run had before is replaced.
 */
int history_fold(struct history *h, long run_id, const char *results, const struct an_opts *o, struct kerr *e);
/* the same for the keys whose VM name ends in suffix (NULL: all), stored without it (an A/B file's half) */
int history_fold_suffix(struct history *h, long run_id, const char *results, const char *suffix,
			const struct an_opts *o, struct kerr *e);

/* the clock the history's figures are of: 1 the iterations' CPU time (meta clock=cpu), 0 their wall time */
int history_clock_cpu(struct history *h);
struct ds_key;
/*
 * k with its iterations timed by the clock: with cpu, each pexec's wall
 * times are its cpu.time series (borrowed; a pexec without one is left
 * out), else k itself; history_clock_release frees what it made
 */
void history_clock_key(const struct ds_key *k, int cpu, struct ds_key *out);
void history_clock_release(struct ds_key *out, int cpu);

#endif
