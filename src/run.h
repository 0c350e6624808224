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
	int quiet;         /* no progress */
	const char *results; /* override the results path */
	long max_pexecs;   /* stop after this many pexecs (0: all) — for tests and reboot mode */
	int prepare_only;  /* fix the schedule and prepare the keys, run nothing (kiln run --slurm) */
};

/* returns a KEXIT_* code; e is set when it is not KEXIT_OK */
int run_experiment(const char *config, const struct run_opts *o, struct kerr *e);

#endif
