/*
 * shard.h - the files of a cluster run (docs/cluster.md).
 *
 * `kiln run CONFIG --slurm` splits the pending pexecs of the experiment's
 * results file (the "main" file) into shards, one per array task, each a
 * results file of its own in <stem>.shards/ beside the main one, named
 * rR-tT (round R of submissions, task T of its job array).  A shard holds
 * the experiment's meta (config text and hash, seed, order), all of its
 * keys and only the pexecs given to that task, with their ids, numbers and
 * places in the schedule unchanged, so that `kiln run` resumes a shard like
 * any results file and `kiln merge` can fold it back.
 *
 * The main file remembers what it gave out, in tables of kiln's schema:
 *   cluster_rounds(round, tasks, job, merge_job, submitted, sbatch)
 *   cluster_shards(name, round, task)
 *   cluster_assign(shard, pexec_id, merged)  merged: 0 not yet, 1 merged,
 *                                            2 refused as a duplicate
 * and meta cluster_id (random): a shard's meta shard_of must be it.
 */
#ifndef KILN_SHARD_H
#define KILN_SHARD_H

#include "store.h"

/* <stem>.shards beside the results file */
char *shard_dir(const char *results);
/* <stem>.shards/NAME.kiln.db */
char *shard_path(const char *results, const char *name);
/* was the main file ever submitted (has it a cluster id)? */
int shard_is_cluster(struct store *main);
/* the cluster id, made when missing; *id is owned by the caller */
int shard_init_main(struct store *main, char **id, struct kerr *e);
/* a hash of the schedule: keys and every pexec's id, key, number and place */
void shard_schedule_hash(const struct schedule *sc, char out[65]);
/*
 * Make shard NAME at `path` from the main file: the meta, the keys, the
 * pexecs `ids` (n of them, pending), and shard/shard_of/schedule_hash/
 * kiln_build.  The shard keeps a rollback journal (store_set_rollback).
 */
int shard_create(struct store *main, const char *path, const char *name, const long *ids, size_t n,
		 const char *schedule_hash, const char *build, struct kerr *e);

/* what `kiln status` shows of a shard: its pexecs and what its task recorded */
struct shard_info {
	int readable;        /* 0: `why` says what is wrong */
	char *why;
	long n[6];           /* pexecs by enum pexec_status */
	long total;
	double seconds;      /* total duration of its finished pexecs */
	char *machine;       /* the node its task ran on (NULL: not started) */
	char *started, *ended, *error; /* the task's own record (meta task_*) */
	long exit;           /* the task's kiln exit code, -1 unknown */
};
void shard_read(const char *path, struct shard_info *si);
void shard_info_free(struct shard_info *si);

#endif
