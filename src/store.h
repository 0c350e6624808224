/*
 * store.h - the results file: one SQLite database per experiment.
 *
 * What is in it (schema in store.c): the experiment (config text and hash,
 * seed, kiln version, start/end), its keys, the schedule (one row per pexec,
 * in run order, with its status pending|running|ok|failed|timeout|tainted),
 * every iteration's wall time and counters (delta-varint blobs), the
 * instrumentation records, the audit, cached analyses and profiles.
 *
 * Durability: WAL with synchronous=FULL; each pexec's outcome is one
 * commit (store_commit_pexec), so a crash loses at most the pexec in
 * flight.  A short pexec's commit is one durable record of the pexec log
 * beside the file (store-log.h), folded into it between pexecs at most once
 * a second, at the end, and by the next writer after a crash.  One writer
 * at a time: store_lock() takes an exclusive flock on the file that a
 * second `kiln run` cannot get, and folds what a killed writer left in the
 * log.
 */
#ifndef KILN_STORE_H
#define KILN_STORE_H

#include <stdint.h>
#include "dataset.h"
#include "record.h"
#include "util.h"

#define STORE_SCHEMA 1

struct store;
struct experiment;

enum pexec_status { PX_PENDING, PX_RUNNING, PX_OK, PX_FAILED, PX_TIMEOUT, PX_TAINTED };
const char *pexec_status_name(enum pexec_status s);

/*
 * Open a results file and check it (integrity, kiln's tables, schema).
 * writable 0: read-only, for readers (status, report, export); the file is
 * never changed.  1: read-write, created when missing (run, import, profile).
 */
/* once, first thing in main: SQLite set up for kiln's use (before any other SQLite call) */
void store_library_init(void);
int store_open(const char *path, int writable, struct store **out, struct kerr *e);
void store_close(struct store *s);
/* exclusive writer lock (non-blocking): KEXIT_LOCKED when another kiln holds it */
int store_lock(struct store *s, struct kerr *e);
/*
 * kiln run's open: the lock first (the file created if missing), then
 * SQLite, so that of two kilns started together the second never touches
 * the database and exits KEXIT_LOCKED.  Every commit then checks that the
 * path still names the locked file (KEXIT_STORE when it was deleted,
 * moved or replaced).  With `setup` (a run's session, which calls
 * store_prepare before its first pexec): until then no commit is flushed
 * on its own (the file's making, the schedule, the audit: nothing measured
 * yet; a power cut then loses only what the next run makes again), and
 * store_prepare flushes them all at once.
 */
int store_open_locked(const char *path, int setup, struct store **out, struct kerr *e);
/*
 * --quick and kiln bench: remove a scratch run's results (and -wal, -shm)
 * under its lock, when its meta `scratch` ("quick", "bench") is 1;
 * KEXIT_USAGE for other results
 */
int store_wipe_scratch(const char *path, const char *scratch, struct kerr *e);
/*
 * Finished pexecs that only the pexec log holds, not yet in the file (a
 * killed writer's; readers are told of them when they open the file): 0
 * when none or while a writer is at work on the file, which folds them
 * itself.
 */
long store_log_pending(struct store *s);
/*
 * What the writer's pexec log holds folded into the file now, between
 * pexecs: before another connection must see every finished pexec (kiln
 * bench reads the round it ran to choose the next one).
 */
int store_settle(struct store *s, struct kerr *e);
/*
 * What a killed writer left in the log of the results file at path folded
 * into it (kiln merge, before it reads a shard); nothing when there is no
 * log or a writer is at work on the file.
 */
int store_fold_log(const char *path, struct kerr *e);
const char *store_path(const struct store *s);
/* a file named after a results file: its stem (without .kiln.db) + suffix */
char *store_sibling(const char *results, const char *suffix);
/*
 * 1 (default): each commit is fsynced, so even a power loss costs at most
 * the pexec in flight.  0: commits reach the OS but are fsynced only at WAL
 * checkpoints: a crash or kill -9 of kiln still loses at most the pexec in
 * flight, a power loss may lose the pexecs since the last checkpoint (the
 * file stays consistent).  Config: `durability: power|crash`.
 */
int store_set_durable(struct store *s, int durable, struct kerr *e);
/*
 * Keep a rollback journal instead of the WAL, from now on and whenever the
 * file is opened again (meta journal=delete).  For a cluster run's files on
 * a shared filesystem: the WAL's index is shared memory, which readers on
 * other machines cannot see; a rollback journal needs only file locks.  It
 * costs flushes: a durable commit is 4 (journal, folder, journal header,
 * file) against the WAL's 1; DELETE is the fewest of the rollback modes
 * (PERSIST and TRUNCATE add one to clear the journal).
 */
int store_set_rollback(struct store *s, struct kerr *e);

/*
 * Several small writes as one transaction, one flush (meta, audit,
 * programs at the start and the end of a session).  Nested pairs make one
 * transaction, committed by the outermost; a failed commit is rolled back.
 */
int store_begin(struct store *s, struct kerr *e);
int store_commit(struct store *s, struct kerr *e);

/* experiment metadata (name/value) */
int store_meta_get(struct store *s, const char *name, char **value);
int store_meta_set(struct store *s, const char *name, const char *value, struct kerr *e);
int store_has_experiment(struct store *s);

struct sched_key {
	long id;
	char *bench, *vm, *variant;
	long iterations;
};

/* one pexec as scheduled */
struct sched_item {
	long id;         /* pexecs.id */
	long seq;        /* run order, 0-based */
	long key;        /* index into the keys array */
	long num;        /* pexec number of its key */
	enum pexec_status status;
	/*
	 * Rounds (schedule.h, ORDER_ROUNDS and ORDER_DUET): the round it runs
	 * in, from 1 (0: not run in rounds), and in a duet, the pair of its
	 * round it runs beside (from 1; 0: alone) and its slot in the pair
	 * (0, 1).  Stored in pexec_rounds (store-rounds.c).
	 */
	long round;
	int pair, slot;
};

struct schedule {
	struct sched_key *keys;
	size_t nkeys;
	struct sched_item *items;
	size_t n;
	long pexecs;     /* planned pexecs per key (warm-up pexecs included) */
	long warmup_pexecs, warmup_iterations; /* per key, per pexec: run and kept, never analysed */
};
void schedule_free(struct schedule *sc);

/*
 * store-rounds.c: the rounds of the pexecs items[0..n) (the pexecs numbered
 * from seq0 in run order), in the caller's transaction; nothing for items
 * without one.  And the stored rounds into a loaded schedule's items.
 */
int store_rounds_put(struct store *s, const struct sched_item *items, size_t n, long seq0, struct kerr *e);
int store_rounds_load(struct store *s, struct schedule *sc, struct kerr *e);
/* the rounds of sc's items into the pexecs of ds (loaded from sc: ds's keys are sc's, in order) */
struct dataset;
void store_rounds_dataset(const struct schedule *sc, struct dataset *ds);

/* write experiment, keys and the whole schedule in one transaction */
int store_init(struct store *s, const struct experiment *ex, const struct schedule *sc,
	       const char *order, struct kerr *e);
int store_load_schedule(struct store *s, struct schedule *sc, struct kerr *e);
/*
 * More pexecs for a stored schedule (a grown config; kiln bench, until a
 * CI is tight): items (key index of sc and pexec number, as
 * schedule_more() makes them) after every pexec already scheduled, in
 * their order; in one transaction, then sc is reloaded.
 */
int store_add_pexecs(struct store *s, const struct sched_item *items, size_t n, struct schedule *sc,
		     struct kerr *e);
/* new keys (no pexecs yet; store_add_pexecs gives them some), sc reloaded */
int store_add_keys(struct store *s, const struct sched_key *keys, size_t n, struct schedule *sc, struct kerr *e);
/*
 * Before the run loop: prepare the per-pexec statements, and, for a
 * session of `commits` pexecs or more than a few dozen, reserve the WAL's
 * space so that commits overwrite instead of growing the file (for a few,
 * writing and flushing 4 MiB would cost more than it saves).  What a
 * `setup` open committed is flushed here, and from here on each commit
 * is as store_set_durable says.
 */
int store_prepare(struct store *s, size_t commits, struct kerr *e);
/*
 * Put pexecs with the given statuses back to pending, their iterations,
 * series, scalars and events deleted, in one transaction.  Returns how
 * many, or -1.
 */
int store_retry(struct store *s, int failed, int tainted, struct kerr *e);
/* put one pexec back to pending, what it stored deleted, in one transaction */
int store_unfinish(struct store *s, long pexec_id, struct kerr *e);
/* mark a session's first pexec running (the commit of each pexec marks the next) */
int store_mark_running(struct store *s, long pexec_id, struct kerr *e);

/* the outcome of one pexec, committed in one durable transaction */
struct pexec_result {
	enum pexec_status status;
	int64_t wall_start_ns;    /* CLOCK_REALTIME at start */
	double duration_s;
	int exit_status, signal;
	double user_s, sys_s;
	long maxrss_kb;
	int personality;          /* the child's, read back; -1 unknown */
	const char *error;        /* why it failed, NULL if ok */
	const char *out, *err;    /* captured output (kept for failures) */
	size_t out_len, err_len;
	const int64_t *wall_ns;   /* iterations (partial when failed) */
	size_t n;
	char **counter_names;     /* ncounters names */
	size_t ncounters;
	const int64_t *counters;  /* n x ncounters, INT64_MIN where absent */
	const char *clock;        /* the runner's clock, from the stream's header */
	const char *unavailable;  /* counters asked for that the machine lacks, comma-separated */
	const struct rec_list *records;
	const char *instr_error;  /* the parser failed: records may be partial */
	const char *taint;        /* why tainted, NULL if not */
	const char *env_hash;     /* the program's provenance hash (store_program) */
	long next_id;             /* > 0: the pexec that runs next, marked running in the same transaction */
	int rerun;                /* an earlier attempt of this pexec may have stored rows: replace them */
};
int store_commit_pexec(struct store *s, long pexec_id, const struct pexec_result *r, struct kerr *e);
/*
 * The programs a key's pexecs ran (provenance.h): one row per program and
 * key, `seq` 1, 2, ... in the order the key first ran them (a second one
 * only under `kiln run --force`).  A pexec's program is the one whose hash
 * is its pexecs.env_hash (SQL: JOIN programs g ON g.key_id = p.key_id AND
 * g.hash = p.env_hash); docs/results.md#provenance.
 */
struct store_program {
	long key_id;
	char *hash;          /* SHA-256 of description */
	long seq;
	char *description;   /* "name<TAB>value" lines: what defines the program */
	char *setting;       /* lines recorded beside it, not part of it (PATH, HOME, user) */
	char *since;         /* when it was first recorded (ISO 8601) */
	long pexecs;         /* finished pexecs that ran it */
};
/* the programs of key_id (0: of every key), by key and seq; none from a file without the table */
int store_programs(struct store *s, long key_id, struct store_program **out, size_t *n, struct kerr *e);
void store_programs_free(struct store_program *p, size_t n);
/* record the key's program (the next seq), or, when it is recorded, its latest setting */
/*
 * Drop keys none of whose pexecs ran (each pending or left running), with
 * their pexecs and recorded programs, in one transaction; -1 (nothing
 * dropped) when one has a pexec that ran.
 */
int store_drop_keys(struct store *s, const long *key_ids, size_t n, struct kerr *e);
int store_program_put(struct store *s, long key_id, const char *hash, const char *description, const char *setting,
		      struct kerr *e);
/* finished pexecs of the key whose env_hash names no recorded program (an older kiln wrote them) */
long store_unrecorded_pexecs(struct store *s, long key_id);
/* put every `running` pexec back to pending (after a crash) and drop the rows of pending ones, returns count */
int store_reset_running(struct store *s, struct kerr *e);

/* counts per key and status for `kiln status` */
struct key_status {
	long key;
	long n[6];      /* by enum pexec_status */
	double seconds; /* total duration of finished pexecs */
};
int store_status(struct store *s, const struct schedule *sc, struct key_status **out, struct kerr *e);

/* the measurements as a dataset (analysis, report, export) */
int store_load_dataset(const char *path, struct dataset *ds, struct kerr *e);
/* exit_status, user_time, sys_time, max_rss: the per-pexec scalars kept as pexecs' columns */
int store_is_column_scalar(const char *name);
/* a new results file from a dataset (kiln import; store-write.c) */
int store_save_dataset(const char *path, const struct dataset *ds, struct kerr *e);

/*
 * A new results file written piece by piece (store-write.c): what a
 * streaming reader meets, in its order, so that an input is never in
 * memory whole.  Built under a temporary name in one transaction and
 * renamed into place by store_writer_close(w, 1, e); with keep 0, or on
 * any error, nothing is left behind.  Keys and pexecs are numbered by the
 * writer from 0: store_writer_key returns the key's index, store_writer_pexec
 * a pexec handle for times, series and scalars, and store_writer_finish
 * writes the pexec itself once all its data is in (every pexec must be
 * finished before the writer is closed).  A key's iterations are the most
 * of its pexecs' unless `iterations` is larger.
 */
struct store_writer;
struct store_writer_pexec {
	enum ds_status status;
	double duration;                 /* seconds, NAN unknown */
	double exit_status, user_s, sys_s, maxrss_kb; /* NAN unknown */
};
int store_writer_open(const char *path, const char *name, const char *source, struct store_writer **w,
		      struct kerr *e);
long store_writer_key(struct store_writer *w, const char *bench, const char *vm, const char *variant, long iterations,
		      struct kerr *e);
long store_writer_pexec(struct store_writer *w, long key, long num, struct kerr *e);
int store_writer_times(struct store_writer *w, long px, const double *v, size_t n, struct kerr *e);
int store_writer_series(struct store_writer *w, long px, const char *name, const char *unit, const double *v, size_t n,
			struct kerr *e);
int store_writer_scalar(struct store_writer *w, long px, const char *name, const char *unit, double value,
			struct kerr *e);
int store_writer_finish(struct store_writer *w, long px, const struct store_writer_pexec *p, struct kerr *e);
int store_writer_meta(struct store_writer *w, const char *name, const char *value, struct kerr *e);
int store_writer_audit(struct store_writer *w, const char *name, const char *value, struct kerr *e);
int store_writer_close(struct store_writer *w, int keep, struct kerr *e);

/* audit entries, text or JSON values */
int store_audit_set(struct store *s, const char *name, const char *value, struct kerr *e);
int store_audit_get(struct store *s, const char *name, char **value);
/* the names of the audit entries starting with prefix, in order */
void store_audit_names(struct store *s, const char *prefix, struct strvec *names);

/*
 * The cache table: derived results kept with the data they come from
 * (kind "analysis", "profile", "stat").  put replaces; get returns -1 on a
 * miss (value NULL).
 */
int store_cache_put(struct store *s, const char *kind, const char *key, const char *value, struct kerr *e);
int store_cache_get(struct store *s, const char *kind, const char *key, char **value);
/*
 * The entry of kind whose key starts with prefix and sorts last (kiln
 * profile's ids: KEY@TIME#PID, the newest); *value NULL when it is longer
 * than max bytes.  -1: none.
 */
int store_cache_last(struct store *s, const char *kind, const char *prefix, size_t max, char **key, char **value);
/*
 * kiln stat's and kiln profile's hold on the results file, taken before
 * they start the VM and kept until they have stored what they measured:
 * KEXIT_LOCKED while a kiln run of the experiment (or another stat or
 * profile) has it, so that they neither disturb its measurements nor write
 * into its file.  0 with *out NULL (and a warning saying so) when the file
 * cannot be opened for writing at all: the command measures without storing.
 */
int store_hold(const char *path, const char *command, struct store **out, struct kerr *e);

/* small helpers for other parts that keep their own tables */
struct sqlite3 *store_db(struct store *s);
/* a connection made distrustful of its file: defensive, no triggers, views, extensions (history files too) */
void store_defensive(struct sqlite3 *db);
/* n doubles bound as a little-endian float64 blob (the series' encoding) */
struct sqlite3_stmt;
int store_bind_f64(struct sqlite3_stmt *st, int col, const double *v, size_t n);
/* the index in sc->keys of the key with id kid (keys are sorted by id), -1 when there is none */
long schedule_key_index(const struct schedule *sc, long kid);
/*
 * A file ATTACHed to s's connection as `schema` (kiln merge's shards):
 * the same check of its schema as store_open makes, on the same
 * distrustful connection (no triggers fire, no views are read).
 */
int store_check_attached(struct store *s, const char *schema, const char *path, struct kerr *e);

/* compact encoding of int64 series (delta, zigzag, varint) */
void store_encode_i64(const int64_t *v, size_t n, struct strbuf *out);
int store_decode_i64(const void *blob, size_t len, int64_t **out, size_t *n);

#endif
