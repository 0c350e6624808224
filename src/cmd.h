/*
 * cmd.h - kiln's subcommands.  Each lives in its own src/cmd-<name>.c and
 * exports one `const struct cmd_entry`; kiln.c gathers them in one table
 * (the way tmux does) and dispatches.  Every command answers --help from its
 * usage and help text; docs/kiln-<name>.md is its page.
 */
#ifndef KILN_CMD_H
#define KILN_CMD_H

#include <stdio.h>

struct cmd_entry {
	const char *name;
	const char *usage;   /* "CONFIG [--dry-run] ..." (after "kiln NAME ") */
	const char *summary; /* one line for `kiln --help` */
	const char *help;    /* option descriptions, printed by --help */
	int (*exec)(int argc, char **argv); /* argv[0] is the command name */
};

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_demo_entry;
extern const struct cmd_entry cmd_plugins_entry;
extern const struct cmd_entry cmd_parse_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_plot_entry;
extern const struct cmd_entry cmd_diff_entry;
extern const struct cmd_entry cmd_plan_entry;
extern const struct cmd_entry cmd_doctor_entry;
extern const struct cmd_entry cmd_audit_entry;
extern const struct cmd_entry cmd_profile_entry;
extern const struct cmd_entry cmd_annotate_entry;
extern const struct cmd_entry cmd_stat_entry;

/* print "usage: kiln NAME USAGE" and the help text to f */
void cmd_usage(const struct cmd_entry *c, FILE *f);
/*
 * The shared option loop: returns 1 and prints help if argv has -h/--help
 * (the caller returns 0), so every command's --help works the same way.
 */
int cmd_wants_help(const struct cmd_entry *c, int argc, char **argv);
/* report a usage error for command c and return KEXIT_USAGE */
int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* where kiln's bundled plugins/benchmarks/examples are (share/kiln or the source tree) */
const char *kiln_datadir(void);
/* where compiled runners are (libexec/kiln or build/) */
const char *kiln_libexecdir(void);

#endif
