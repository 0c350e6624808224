/*
 * cmd-run.c - `kiln run CONFIG`: parse options, hand over to run.c (or,
 * with --slurm, to cluster.c).
 */
#include <getopt.h>
#include <string.h>

#include "cluster.h"
#include "cmd.h"
#include "run.h"

static int cmd_run(int argc, char **argv);

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "CONFIG [--dry-run] [--quick] [--order random|interleaved|rounds] [--force] [-o RESULTS]\n"
		 "                [--retry-failed] [--retry-tainted] [--max-pexecs N] [--strict] [--tune] [--reboot] [-q]\n"
		 "                [--experiment NAME]\n"
		 "                [--slurm [--nodes N] [-- SBATCH-ARGS...]]",
	.summary = "run (or resume) an experiment, storing every iteration in its results file",
	.help = "CONFIG is a kiln config, or a ReBench rebench.conf or Krun .krun file, read as\n"
		"`kiln convert CONFIG` reads it (what it does not take over is said).\n"
		"  --dry-run           print the schedule and exit; nothing is written\n"
		"  --quick             1 pexec x 3 iterations per key, into <stem>.quick.kiln.db\n"
		"  --order ORDER       random (default: shuffled with the config's seed),\n"
		"                      interleaved (Krun's: pexec n of every key before n+1) or\n"
		"                      rounds (round n runs pexec n of every key in an order of its own,\n"
		"                      drawn from the seed; kiln compare pairs keys by round)\n"
		"  --force             resume even though the config or a key's program changed since the results\n"
		"                      began; a key's pexecs of a new program are kept apart (KEY#N) in reports\n"
		"  --retry-failed      run again the pexecs that failed or timed out (their rows are\n"
		"                      replaced; each pexec keeps its place in the schedule)\n"
		"  --retry-tainted     run again the pexecs the machine checks tainted\n"
		"  -o, --results FILE  results file (default: the config's `results`)\n"
		"  --max-pexecs N      stop after N pexecs (resume later)\n"
		"  --experiment NAME   a ReBench config's experiment (default: its default_experiment; all)\n"
		"  --strict            a key whose build, compilation or probe fails stops the run before any\n"
		"                      pexec (without it, that key is said and skipped, the others run, and\n"
		"                      kiln exits 1 with its pexecs pending)\n"
		"  --tune              (root) set governor/turbo/sample rate for the run, restore after\n"
		"  --reboot            reboot between pexecs, resuming at boot\n"
		"  -q, --quiet         no progress output\n"
		"  --slurm             run on a Slurm cluster: the pending pexecs are split over a job\n"
		"                      array, one task per node, each on an exclusive node; the\n"
		"                      shards are merged when the array ends (docs/cluster.md)\n"
		"  --nodes N           --slurm: tasks (nodes) to spread over (default: the default\n"
		"                      partition's nodes)\n"
		"  -- SBATCH-ARGS      --slurm: passed to sbatch (-p PARTITION, -t TIME, -A ACCOUNT...)\n"
		"\nExit status: 0 every pexec ran (ok, or tainted by a machine check: the report\n"
		"counts those apart), 1 some failed or timed out, or a key was skipped, 2 usage, 3 config, 4 results\n"
		"in use, 5 results file unusable, 130 interrupted (the pexec in flight stays pending).\n",
	.exec = cmd_run,
};

/* sbatch options kiln sets itself, which would break the array's shards or the status */
static int sbatch_arg_ours(const char *a)
{
	static const char *const longs[] = { "--array", "--output", "--error", "--wrap", "--dependency" };
	for (size_t i = 0; i < ARRAY_SIZE(longs); i++) {
		size_t n = strlen(longs[i]);
		if (!strncmp(a, longs[i], n) && (a[n] == '\0' || a[n] == '='))
			return 1;
	}
	return a[0] == '-' && a[1] && strchr("aoed", a[1]) && a[1] != '-';
}

/* --slurm: the checks of the command line, then cluster.c */
static int run_slurm(const char *config, const struct run_opts *o, long nodes, struct strvec *sbatch)
{
	if (o->dry_run || o->quick || o->reboot || o->max_pexecs)
		return cmd_usage_error(&cmd_run_entry, "--slurm runs the whole experiment: not with --dry-run, --quick, "
				       "--reboot or --max-pexecs");
	for (size_t i = 0; i < sbatch->n; i++)
		if (sbatch_arg_ours(sbatch->v[i]))
			return cmd_usage_error(&cmd_run_entry, "sbatch option '%s': kiln sets the array, the output "
					       "files and the dependency itself", sbatch->v[i]);
	struct cluster_opts co = { .nodes = nodes, .sbatch = sbatch };
	struct kerr e = KERR_INIT;
	int code = cluster_submit(config, o, &co, &e);
	if (code != KEXIT_OK)
		kerr_print(&e);
	kerr_release(&e);
	return code;
}

/* the options before `--` (argc counts only those) */
static int run_args(int argc, char **argv, struct strvec *sbatch, int had_dd)
{
	long nodes = 0;
	int slurm = 0;
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' }, { "quick", no_argument, NULL, 'Q' },
		{ "order", required_argument, NULL, 'O' }, { "force", no_argument, NULL, 'f' },
		{ "results", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },
		{ "max-pexecs", required_argument, NULL, 'm' }, { "tune", no_argument, NULL, 't' },
		{ "reboot", no_argument, NULL, 'r' }, { "retry-failed", no_argument, NULL, 'F' },
		{ "retry-tainted", no_argument, NULL, 'T' }, { "slurm", no_argument, NULL, 'S' },
		{ "nodes", required_argument, NULL, 'N' }, { "strict", no_argument, NULL, 's' },
		{ "experiment", required_argument, NULL, 'x' }, { NULL, 0, NULL, 0 },
	};
	struct run_opts o;
	memset(&o, 0, sizeof(o));
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:q", opts, NULL)) != -1) {
		switch (c) {
		case 'n': o.dry_run = 1; break;
		case 'Q': o.quick = 1; break;
		case 'f': o.force = 1; break;
		case 's': o.strict = 1; break;
		case 'x': o.experiment = optarg; break;
		case 'o': o.results = optarg; break;
		case 'q': o.quiet = 1; break;
		case 't': o.tune = 1; break;
		case 'r': o.reboot = 1; break;
		case 'F': o.retry_failed = 1; break;
		case 'T': o.retry_tainted = 1; break;
		case 'm':
			if (parse_long(optarg, &o.max_pexecs) < 0 || o.max_pexecs < 1)
				return cmd_usage_error(&cmd_run_entry, "--max-pexecs needs a positive number");
			break;
		case 'S': slurm = 1; break;
		case 'N':
			if (parse_long(optarg, &nodes) < 0 || nodes < 1 || nodes > 100000)
				return cmd_usage_error(&cmd_run_entry, "--nodes needs a positive number");
			break;
		case 'O':
			if (sched_order_parse(optarg, &o.order) < 0 || o.order == ORDER_DUET)
				return cmd_usage_error(&cmd_run_entry, "--order is random, interleaved or rounds, not '%s'",
						       optarg);
			break;
		default:
			return cmd_usage_error(&cmd_run_entry, "unknown option");
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(&cmd_run_entry, "one CONFIG file is needed");
	if (!slurm && (nodes || had_dd))
		return cmd_usage_error(&cmd_run_entry, "--nodes and sbatch arguments (after --) go with --slurm");
	if (slurm)
		return run_slurm(argv[optind], &o, nodes, sbatch);
	struct kerr e = KERR_INIT;
	int code = run_experiment(argv[optind], &o, &e);
	if (code != KEXIT_OK)
		kerr_print(&e);
	kerr_release(&e);
	return code;
}

static int cmd_run(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_run_entry, argc, argv))
		return 0;
	/* what follows `--` is sbatch's */
	struct strvec sbatch = STRVEC_INIT;
	int dd = 1;
	while (dd < argc && strcmp(argv[dd], "--"))
		dd++;
	for (int i = dd + 1; i < argc; i++)
		sv_push(&sbatch, argv[i]);
	int code = run_args(dd, argv, &sbatch, dd < argc);
	sv_clear(&sbatch);
	return code;
}
