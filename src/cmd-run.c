/*
 * cmd-run.c - `kiln run CONFIG`: parse options, hand over to run.c.
 */
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "run.h"

static int cmd_run(int argc, char **argv);

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "CONFIG [--dry-run] [--quick] [--order random|interleaved] [--force] [-o RESULTS]\n"
		 "                [--retry-failed] [--retry-tainted] [--max-pexecs N] [--tune] [--reboot] [-q]",
	.summary = "run (or resume) an experiment, storing every iteration in its results file",
	.help = "  --dry-run           print the schedule and exit; nothing is written\n"
		"  --quick             1 pexec x 3 iterations per key, into <stem>.quick.kiln.db\n"
		"  --order ORDER       random (default: shuffled with the config's seed) or\n"
		"                      interleaved (Krun's: pexec n of every key before n+1)\n"
		"  --force             resume even though the config changed since the results began\n"
		"  --retry-failed      run again the pexecs that failed or timed out (their rows are\n"
		"                      replaced; each pexec keeps its place in the schedule)\n"
		"  --retry-tainted     run again the pexecs the machine checks tainted\n"
		"  -o, --results FILE  results file (default: the config's `results`)\n"
		"  --max-pexecs N      stop after N pexecs (resume later)\n"
		"  --tune              (root) set governor/turbo/sample rate for the run, restore after\n"
		"  --reboot            reboot between pexecs, resuming at boot\n"
		"  -q, --quiet         no progress output\n"
		"\nExit status: 0 all pexecs ok, 1 some failed, 2 usage, 3 config, 4 results in use,\n"
		"5 results file unusable, 130 interrupted (the pexec in flight stays pending).\n",
	.exec = cmd_run,
};

static int cmd_run(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_run_entry, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' }, { "quick", no_argument, NULL, 'Q' },
		{ "order", required_argument, NULL, 'O' }, { "force", no_argument, NULL, 'f' },
		{ "results", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },
		{ "max-pexecs", required_argument, NULL, 'm' }, { "tune", no_argument, NULL, 't' },
		{ "reboot", no_argument, NULL, 'r' }, { "retry-failed", no_argument, NULL, 'F' },
		{ "retry-tainted", no_argument, NULL, 'T' }, { NULL, 0, NULL, 0 },
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
		case 'O':
			if (!strcmp(optarg, "random"))
				o.order = ORDER_RANDOM;
			else if (!strcmp(optarg, "interleaved"))
				o.order = ORDER_INTERLEAVED;
			else
				return cmd_usage_error(&cmd_run_entry, "--order is random or interleaved, not '%s'", optarg);
			break;
		default:
			return cmd_usage_error(&cmd_run_entry, "unknown option");
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(&cmd_run_entry, "one CONFIG file is needed");
	struct kerr e = KERR_INIT;
	int code = run_experiment(argv[optind], &o, &e);
	if (code != KEXIT_OK)
		kerr_print(&e);
	kerr_release(&e);
	return code;
}
