/*
 * run.h - `kiln run`: drive an experiment from its config to a complete
 * results file, one pexec at a time, resumable after any crash.
 */
#ifndef KILN_RUN_H
#define KILN_RUN_H

#include "schedule.h"
#include "util.h"

struct run_opts {
	enum sched_order order;
	int dry_run;
	int quick;         /* 1 pexec x 3 iterations per key, into <stem>.quick.kiln.db */
	int force;         /* resume even though the config changed */
	int retry_failed;  /* failed and timed-out pexecs become pending again */
	int retry_tainted; /* tainted pexecs become pending again */
	int tune;          /* platform control (root) */
	int reboot;        /* reboot between pexecs */
	int quiet;         /* no progress, no notes or warnings */
	int no_progress;   /* no progress line, the rest said (kiln bench --style basic) */
	const char *results; /* override the results path */
	long max_pexecs;   /* stop after this many pexecs (0: all) — for tests and reboot mode */
	int prepare_only;  /* fix the schedule and prepare the keys, run nothing (kiln run --slurm) */
	long warmup;       /* runs of each key before its first pexec, not stored (kiln bench --warmup) */
	int strict;        /* a key whose build, preparation or probe fails stops the run (else it is skipped) */
	const char *experiment; /* a ReBench config's experiment to run (NULL: its default) */
	/*
	 * A schedule's duets (ORDER_DUET) run on these two CPUs ("2,3"), each
	 * pexec of a pair on one, swapped every round.  NULL: the first two
	 * of pin_cpus, or of the CPUs kiln may use.
	 */
	const char *duet_cpus;
	/*
	 * Results that are a scratch pad ("quick" for --quick, "bench" for kiln
	 * bench): a file marked so is replaced, any other refused.
	 */
	const char *scratch;
	const struct run_hooks *hooks; /* NULL: none */
	int *build_failed; /* set to 1 when a build step failed or did not make its VM (kiln track) */
	int build_only;    /* the builds and probes of a session, no pexec (kiln bisect builds a commit) */
	long *pending_left; /* set to the pexecs still pending when the session ends (kiln track --interleave) */
};

/* what a command driving the run path (kiln bench) adds to it */
struct store;
struct exec_opts;
struct run_hooks {
	void *ctx;
	/* a new results file, its schedule stored: what else belongs in it */
	int (*init)(void *ctx, struct store *st, struct kerr *e);
	/*
	 * No pexec is pending: how many more each key of sc gets (more[k], all
	 * 0: none, the run ends).  They are stored, then run like the others.
	 */
	void (*more)(void *ctx, const struct schedule *sc, long *more);
	/*
	 * A process of key `key` (a pexec or a warmup run) is about to start:
	 * where its stdin and output go (eo's std fds, no_capture).  NULL: as
	 * kiln run has them; -1 with e set: the run stops.
	 */
	int (*spawn)(void *ctx, const char *key, struct exec_opts *eo, struct kerr *e);
	/* the builds and probes are done: the pexecs start (the session as measured) */
	void (*loop)(void *ctx);
};

/* returns a KEXIT_* code; e is set when it is not KEXIT_OK */
int run_experiment(const char *config, const struct run_opts *o, struct kerr *e);
/*
 * The same for an experiment built in memory (kiln bench): `name` stands
 * for the config in messages; ex stays the caller's.  ex->path's folder is
 * where runners start.
 */
int run_experiment_ex(struct experiment *ex, const char *name, const struct run_opts *o, struct kerr *e);
/*
 * How many pexecs failed when a run ended KEXIT_FAIL for them alone (the
 * rest of its pexecs done, each failure kept for `kiln status --failures`);
 * 0 when code and e say anything else.  kiln bench, compare and track go on
 * to their summaries in that case, and say it in their own words.
 */
size_t run_failed_pexecs(int code, const struct kerr *e);
/*
 * The error of a run whose interrupt ended the pexec in flight (pexec
 * `label` of `key`), which stays pending; and whether e is that error (not
 * an interrupt between two pexecs).  kiln task says the same of a pexec it
 * puts back to pending after the fact (cluster.c).
 */
int run_discarded_error(struct kerr *e, const char *label, const char *key);
int run_is_discarded_error(const struct kerr *e);
/*
 * SIGINT, SIGTERM and SIGHUP counted in exec_interrupted (the work stops
 * where it can), SIGPIPE ignored, stops watched: what a run installs, and
 * any command that stops cleanly when asked (kiln publish)
 */
void run_catch_signals(void);

#endif
