/*
 * cmd.h - kiln's subcommands.  Each lives in its own src/cmd-<name>.c and
 * exports one `const struct cmd_entry`; kiln.c gathers them in one table
 * (the way tmux does) and dispatches.  Every command answers --help from its
 * usage and help text; docs/kiln-<name>.md is its page.
 */
#ifndef KILN_CMD_H
#define KILN_CMD_H

#include <stdio.h>

#include "paths.h"
#include "util.h"

struct cmd_entry {
	const char *name;
	const char *usage;   /* "CONFIG [--dry-run] ..." (after "kiln NAME ") */
	const char *summary; /* one line for `kiln --help` */
	const char *help;    /* option descriptions, printed by --help */
	int (*exec)(int argc, char **argv); /* argv[0] is the command name */
};

/* `kiln --completion bash|zsh`: the completion script for the commands of table (completion.c) */
int kiln_completion(const struct cmd_entry *const *table, const char *shell, FILE *f);

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_bench_entry;
extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_demo_entry;
extern const struct cmd_entry cmd_plugins_entry;
extern const struct cmd_entry cmd_parse_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_convert_entry;
extern const struct cmd_entry cmd_plot_entry;
extern const struct cmd_entry cmd_diff_entry;
extern const struct cmd_entry cmd_compare_entry;
extern const struct cmd_entry cmd_plan_entry;
extern const struct cmd_entry cmd_doctor_entry;
extern const struct cmd_entry cmd_audit_entry;
extern const struct cmd_entry cmd_profile_entry;
extern const struct cmd_entry cmd_annotate_entry;
extern const struct cmd_entry cmd_flame_entry;
extern const struct cmd_entry cmd_stat_entry;
extern const struct cmd_entry cmd_merge_entry;
extern const struct cmd_entry cmd_task_entry;
extern const struct cmd_entry cmd_track_entry;
extern const struct cmd_entry cmd_bisect_entry;
extern const struct cmd_entry cmd_publish_entry;

/* print "usage: kiln NAME USAGE" and the help text to f */
void cmd_usage(const struct cmd_entry *c, FILE *f);
/*
 * The shared option loop: returns 1 and prints help if argv has -h/--help
 * (the caller returns 0), so every command's --help works the same way.
 */
int cmd_wants_help(const struct cmd_entry *c, int argc, char **argv);
/* report a usage error for command c and return KEXIT_USAGE */
int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The command line shared by the commands that analyse results (report,
 * plot, plan, diff): the analysis options (an_opts_parse), --key/-k K
 * (repeatable: a key matching any of them is kept),
 * --json when `json_ok`, and `ninputs` (1 or 2) positional inputs, named
 * `what` in errors when there is one.  A command's own options go to
 * `own` (may be NULL): it returns 1 when it took argv[*i] (advancing *i
 * past any value), 0 when the option is not its, or KEXIT_USAGE after
 * cmd_usage_error().  Returns 0, or KEXIT_USAGE with the error reported
 * (and nothing to release); after 0, cmd_an_args_release frees the keys.
 */
struct an_opts;
struct cmd_an_args {
	const char *inputs[2];
	struct strvec keys; /* --key patterns (ds_key_matches); none: every key */
	int json;
	int pool;           /* --pool-machines: one key for the pexecs of every machine */
};
/* the line of help for the options every analysing command takes from cmd_an_args */
#define CMD_POOL_HELP \
	"  --pool-machines    pool the pexecs of different machines into one key (by\n" \
	"                     default a cluster run's keys are reported per machine)\n"
void cmd_an_args_release(struct cmd_an_args *a);
typedef int (*cmd_own_opt)(void *ctx, const struct cmd_entry *c, int argc, char **argv, int *i);
int cmd_an_args(const struct cmd_entry *c, int argc, char **argv, struct an_opts *o, int ninputs, const char *what,
		int json_ok, struct cmd_an_args *a, cmd_own_opt own, void *ctx);

/*
 * Load INPUT (a kiln, Krun or warmup_stats file) for an analysing command:
 * one key per machine unless a->pool (ds_split_machines), then only the
 * keys matching one of a->keys (none: all) so that nothing else is
 * analysed.  Returns 0, or an exit code with the error reported.
 * cmd_no_key_matches reports --key patterns that matched no key of input
 * and returns KEXIT_USAGE.
 */
struct dataset;
int cmd_load_input(const char *input, const struct cmd_an_args *a, struct dataset *ds);
int cmd_no_key_matches(const char *input, const struct strvec *keys);
/*
 * The same, then the analysis of the keys left (an_analyse_input: cached
 * in a kiln results file).  On an error nothing is left to free.
 */
struct an_result;
int cmd_load_analysed(const char *input, const struct cmd_an_args *a, const struct an_opts *o, struct dataset *ds,
		      struct an_result *r);
/* cmd_load_analysed, and a usage error (cmd_no_key_matches) when keys match no key of input */
int cmd_load_matched(const char *input, const struct cmd_an_args *a, const struct an_opts *o, struct dataset *ds,
		     struct an_result *r);


#endif
