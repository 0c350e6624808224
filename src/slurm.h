/*
 * slurm.h - what kiln asks of Slurm, through its commands (sbatch, squeue,
 * scontrol, sinfo; never a shell): submit a batch job, and the state of
 * each task of an array job.  sacct is not used: it needs accounting
 * storage, which many clusters (and the tests' one-machine cluster) lack.
 * Everything read back is bounded; it is Slurm's text, escaped where shown.
 */
#ifndef KILN_SLURM_H
#define KILN_SLURM_H

#include <stddef.h>
#include "util.h"

/* one task of an array job, as squeue (or scontrol) reports it */
struct slurm_task {
	long task;        /* array index */
	char state[24];   /* PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, NODE_FAIL, TIMEOUT... */
	char node[64];    /* where it runs or ran, "" while pending */
	char reason[96];  /* why it is pending or how it ended ("None" when nothing to say) */
	char exit[16];    /* exit code "rc:signal" when known (scontrol), else "" */
};

/* sbatch --parsable ARGS...: the job id in *job (owned by the caller) */
int slurm_sbatch(const struct strvec *args, char **job, struct kerr *e);
/*
 * The tasks of array job `job` (scontrol, then squeue when scontrol fails;
 * a job that is no array is its task 0).  Returns 0 with *n tasks (none
 * when the job has left Slurm's memory), or -1 when neither answers.
 */
int slurm_tasks(const char *job, struct slurm_task **tasks, size_t *n, struct kerr *e);
/* is a job in this state still going to run or running? */
int slurm_state_live(const char *state);
/* the nodes of the default partition (sinfo), 0 when unknown */
long slurm_default_nodes(void);

#endif
