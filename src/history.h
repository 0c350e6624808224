/*
 * history.h - a VM's performance across the commits of its repository:
 * the history file (one SQLite file per project; docs/history.md is its
 * schema) and what reads it.
 *
 * history-store.c  open/create a history, fold a commit's results file
 *                  into it, list commits, machines, runs and keys
 * history-series.c a key's series over commits on one machine (per-pexec
 *                  figures, key-level intervals, builds, same-binary pairs)
 * history-detect.c change points on a series (steady state, warmup), with
 *                  the false-alarm rate measured on its A/A pairs
 * history-git.c    the repository (ranges, commit data, clean checkouts)
 * history-track.c  `kiln track`: commit by commit, build, run, fold in
 * history-bisect.c `kiln bisect`'s search, apart from what measures
 *
 * Strings that came from the repository or a benchmark (subjects,
 * authors, errors, keys) are untrusted: escape them where they go.
 */
#ifndef KILN_HISTORY_H
#define KILN_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define HISTORY_SCHEMA 1
/* the bytes of a commit's subject or author kept */
#define HISTORY_TEXT_MAX 1000

struct history;
struct dataset;

/*
 * Open a history.  writable 0: read-only, the file is never changed (a
 * reader: publish, --changes); 1: read-write, created when missing, with an
 * exclusive lock (KEXIT_LOCKED when another kiln holds it).  A file from
 * elsewhere is checked as a results file is (integrity, exactly kiln's
 * tables, no triggers or views run): KEXIT_STORE when it is not one.
 */
int history_open(const char *path, int writable, struct history **out, struct kerr *e);
void history_close(struct history *h);
const char *history_path(const struct history *h);
/* does the SQLite file at path say it is a history (meta kind)?  1 yes, 0 no or unreadable */
int history_is_history(const char *path);
/* meta values (name, value); get: 0 and *value malloc'd, -1 none */
int history_meta_get(struct history *h, const char *name, char **value);
int history_meta_set(struct history *h, const char *name, const char *value, struct kerr *e);
/* the meta value of name removed (none there: nothing done); 0, or -1 with e set */
int history_meta_del(struct history *h, const char *name, struct kerr *e);

struct hist_commit {
	long id;
	char *hash;         /* full hex hash */
	char *parent;       /* first parent, NULL: root */
	long depth;         /* commits before it on its first-parent line: the order of series */
	int64_t time;       /* committer time, s since the epoch */
	char *author, *subject; /* untrusted */
};
struct hist_machine {
	long id;
	char *name;
	char *identity;     /* JSON */
};
struct hist_run {
	long id, commit_id, machine_id;
	char *kind;         /* "track" or "ab" */
	char *session;      /* ab: shared by the two runs measured together; NULL */
	char *status;       /* "ok", "build-failed", "failed", "running" */
	char *started, *ended;
	double build_s;     /* NAN unknown */
	char *binary;       /* SHA-256 of the built VM executables, NULL: none */
	char *config_hash;
	char *error;        /* NULL: none */
};

/* every commit, in depth order (then id) */
int history_commits(struct history *h, struct hist_commit **out, size_t *n, struct kerr *e);
void history_commits_free(struct hist_commit *c, size_t n);
int history_machines(struct history *h, struct hist_machine **out, size_t *n, struct kerr *e);
void history_machines_free(struct hist_machine *m, size_t n);
/* the machine's id by name, 0: none */
long history_machine_id(struct history *h, const char *name);
/* runs of a machine (0: every machine), by commit depth then id */
int history_runs(struct history *h, long machine_id, struct hist_run **out, size_t *n, struct kerr *e);
void history_runs_free(struct hist_run *r, size_t n);
/* the keys measured on a machine (0: any), "bench:vm:variant", sorted */
int history_keys(struct history *h, long machine_id, struct strvec *keys, struct kerr *e);
/* one run written out as an ordinary results file at path (which must not exist) */
int history_export_run(struct history *h, long run_id, const char *path, struct kerr *e);
/* one run's measurements as a results dataset (report, plot, diff work on it) */
int history_load_run(struct history *h, long run_id, struct dataset *ds, struct kerr *e);

/*
 * kiln merge HISTORY OTHER...: the runs of each other history that HISTORY
 * lacks, copied (history-merge.c); each OTHER checked as any file from
 * elsewhere, one transaction each.  A KEXIT_* code, errors printed.
 */
int history_merge(const char *main_path, const struct strvec *others, int quiet);

/*
 * Every run's figures (per pexec and per key) made again with o and the
 * history's clock (meta clock: wall or cpu).  Returns the runs redone, -1.
 */
struct an_opts;
long history_refigure(struct history *h, const struct an_opts *o, struct kerr *e);

/* untrusted text (a subject) escaped for a terminal and cut to width columns (malloc'd) */
char *history_short(const char *s, size_t width);

/* ---- series over commits (history-series.c) ---- */

/* the per-pexec class as stored (AN_FLAT .. AN_NO_STEADY), HIST_NOCLASS for a pexec not analysed */
#define HIST_NOCLASS 255

/* one commit of a key's series: its track runs pooled */
struct hist_point {
	size_t commit;          /* index into the commits array history_series was given */
	long commit_id;
	long run_id;            /* its latest track run */
	int built;              /* 0: the build failed (no pexec: a gap in the series) */
	size_t n;               /* analysed pexecs (all its track runs') */
	double *steady;         /* n per-pexec steady means, seconds (NAN: none) */
	double *tts;            /* n times to steady state, seconds (NAN: none) */
	double *cost;           /* n warmup costs, seconds (NAN: none) */
	unsigned char *cls;     /* n per-pexec classes */
	size_t counts[4];       /* pexecs per class */
	size_t runs;            /* track runs pooled (> 1: the commit was repeated) */
	double mean, lo, hi;    /* the latest run's steady mean and its interval (seconds, NAN: none) */
	char *binary;           /* NULL: unknown */
	char *program;          /* the key's program hash in the latest run, NULL: unknown or several */
	int same_as_prev;       /* same binary and program as the previous point: an A/A pair */
};
struct hist_series {
	char *key;
	long machine_id;
	struct hist_point *p;
	size_t n;
};
/*
 * The series of key on machine_id over the commits c[0..nc) (history_commits'
 * array): one point per commit with a track run of that machine, in depth
 * order.  A commit whose build failed is a point with built 0.
 */
int history_series(struct history *h, long machine_id, const char *key, const struct hist_commit *c, size_t nc,
		   struct hist_series *out, struct kerr *e);
void history_series_free(struct hist_series *s);
/* a deep copy of a (b free with history_series_free): what is changed in b never touches a */
void history_series_copy(const struct hist_series *a, struct hist_series *b);

#endif
