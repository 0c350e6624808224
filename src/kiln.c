/*
 * kiln.c - main: the table of subcommands and the dispatch.
 *
 * The flow of DESIGN.md is in the file names: config.c reads an experiment,
 * schedule.c plans its pexecs, store.c keeps results in SQLite, exec.c
 * spawns runners, stream.c checks their result streams, run.c drives a run,
 * analysis.c classifies warmup, report.c and plot.c present it.  Each
 * command is src/cmd-<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

static const struct cmd_entry *const cmd_table[] = {
	/* in the order of the flow: run, look, compare, exchange, profile, the machine, tools */
	&cmd_run_entry,
	&cmd_status_entry,
	&cmd_report_entry,
	&cmd_plot_entry,
	&cmd_diff_entry,
	&cmd_plan_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_profile_entry,
	&cmd_annotate_entry,
	&cmd_stat_entry,
	&cmd_doctor_entry,
	&cmd_audit_entry,
	&cmd_plugins_entry,
	&cmd_parse_entry,
	&cmd_demo_entry,
	NULL,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kiln [--version] [--help] COMMAND [ARGS]\n\n"
		   "kiln runs benchmarks of language implementations, instruments and profiles\n"
		   "them, and says with statistics whether and when they warm up.\n\ncommands:\n");
	for (size_t i = 0; cmd_table[i]; i++)
		fprintf(f, "  %-10s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	fprintf(f, "\n`kiln COMMAND --help` describes one command; docs/ has a page for each.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return KEXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version")) {
		printf("kiln %s\n", KILN_VERSION);
		return 0;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2) {
			for (size_t i = 0; cmd_table[i]; i++)
				if (!strcmp(cmd_table[i]->name, argv[2])) {
					cmd_usage(cmd_table[i], stdout);
					return 0;
				}
		}
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; cmd_table[i]; i++)
		if (!strcmp(cmd_table[i]->name, name))
			return cmd_table[i]->exec(argc - 1, argv + 1);
	kiln_error("'%s' is not a kiln command (see kiln --help)", name);
	return KEXIT_USAGE;
}
