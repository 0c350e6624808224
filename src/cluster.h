/*
 * cluster.h - one experiment over a Slurm cluster (docs/cluster.md).
 *
 *   kiln run CONFIG --slurm [--nodes N] [-- SBATCH-ARGS...]
 *     fixes the schedule in the results file as a local run does, merges
 *     what earlier rounds left, splits the pending pexecs into N shards and
 *     submits a job array (one task per shard, each on an exclusive node)
 *     and a job that merges the shards when the array ends;
 *   kiln task SCRIPT
 *     what Slurm runs: the job script is kiln's own (`#!KILN task`), read by
 *     kiln and never by a shell; an array task checks that its node runs the
 *     submitted kiln build and runs its shard with `kiln run`'s code, machine
 *     checks included; the merge job merges;
 *   kiln status RESULTS
 *     adds, for a cluster run, each task's node, state and progress
 *     (cluster_status).
 */
#ifndef KILN_CLUSTER_H
#define KILN_CLUSTER_H

#include <jansson.h>
#include <stdint.h>

#include "run.h"
#include "store.h"

struct cluster_opts {
	long nodes;                 /* tasks (nodes) to spread over; 0: the default partition's nodes */
	const struct strvec *sbatch; /* the user's sbatch arguments (after --) */
};

/* `kiln run CONFIG --slurm`: returns a KEXIT_* code, e set when not KEXIT_OK */
int cluster_submit(const char *config, const struct run_opts *o, const struct cluster_opts *co, struct kerr *e);
/*
 * Before kiln run stores a changed config in a results file of a cluster
 * run (grown, planned again, --force): refused (KEXIT_LOCKED) while a
 * round is in Slurm's queue, else the shards not merged yet merged, each
 * of the config it was made of.  0 or -1 (e set).
 */
int cluster_before_config_change(struct store *st, int quiet, struct kerr *e);
/* `kiln task SCRIPT`: returns a KEXIT_* code */
int cluster_task(const char *script, struct kerr *e);
/*
 * The cluster part of `kiln status` for the main results file: the last
 * round's tasks (node, Slurm state, progress, why a task did not run) and
 * the overall progress and ETA.  NULL when the file was never submitted.
 */
json_t *cluster_status(struct store *main);
/* that status as text */
void cluster_status_print(FILE *f, const json_t *cs);

/* one ended pexec of a task, for cluster_cancelled_count */
struct cluster_ended {
	int64_t end_ns; /* when it ended (wall clock) */
	int sigterm;    /* it failed "killed by signal 15" */
};
/* at most this apart, each SIGTERM-failed pexec from the moment after it */
#define CANCEL_LINK_NS 10000000000LL
/*
 * Of a task's ended pexecs, newest first, how many the cancel that stopped
 * it at stopped_ns ended (they go back to pending; cluster.c says why).
 */
size_t cluster_cancelled_count(const struct cluster_ended *p, size_t n, int64_t stopped_ns);

#endif
