/*
 * cmd-task.c - `kiln task SCRIPT`: what Slurm runs for `kiln run --slurm`.
 * The job script names kiln as its interpreter (`#!/path/to/kiln task`),
 * so the kernel starts kiln with the script's path; kiln reads it (never a
 * shell) and runs its array task's shard, or merges the shards.
 */
#include "cluster.h"
#include "cmd.h"

static int cmd_task(int argc, char **argv);

const struct cmd_entry cmd_task_entry = {
	.name = "task",
	.usage = "SCRIPT",
	.summary = "run one task of a cluster run (Slurm starts it; see kiln run --slurm)",
	.help = "SCRIPT is a job script `kiln run CONFIG --slurm` wrote (<stem>.shards/rR.job or\n"
		"rR-merge.job).  In an array task (SLURM_ARRAY_TASK_ID set), kiln checks that this\n"
		"node runs the kiln build the experiment was submitted with, then runs the task's\n"
		"shard as `kiln run` does, machine checks included; the merge job merges the\n"
		"round's shards into the results file.  The task's start, end, exit status and\n"
		"error are kept in its shard, where `kiln status` reads them.\n"
		"\nExit status: as kiln run's (kiln merge's for the merge job).\n",
	.exec = cmd_task,
};

static int cmd_task(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_task_entry, argc, argv))
		return 0;
	if (argc != 2)
		return cmd_usage_error(&cmd_task_entry, "one SCRIPT is needed");
	struct kerr e = KERR_INIT;
	int code = cluster_task(argv[1], &e);
	if (code != KEXIT_OK)
		kerr_print(&e);
	kerr_release(&e);
	return code;
}
