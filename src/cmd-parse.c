/*
 * cmd-parse.c - `kiln parse PLUGIN FILE...`: run one plugin's parser on
 * files outside any run and print the records as JSON Lines, exactly as
 * `kiln run` would store them.  For writing and debugging parsers, and for
 * tests.  PLUGIN "generic" reads *.kiln.jsonl records (and checks them).
 *
 * Records are printed as they are produced; at the first bad input the
 * error (FILE:LINE: ...) goes to stderr and kiln exits 3, so what was printed
 * before it is what a run would have kept up to that point.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "plugin.h"
#include "record.h"

static int cmd_parse_exec(int argc, char **argv);

const struct cmd_entry cmd_parse_entry = {
	.name = "parse",
	.usage = "PLUGIN FILE...",
	.summary = "run a plugin's instrumentation parser on files and print its records (JSON Lines)",
	.help =
		"PLUGIN is a built-in plugin with a parser (see `kiln plugins`), or\n"
		"'generic' for *.kiln.jsonl records written by any runner.\n"
		"Each FILE is parsed in turn; records go to stdout, one JSON object a line:\n"
		"  {\"i\":12,\"name\":\"gc.time\",\"value\":0.0031,\"unit\":\"s\"}   per iteration\n"
		"  {\"name\":\"us_compiling\",\"value\":18234,\"unit\":\"us\"}    per pexec\n"
		"  {\"name\":\"gc-minor\",\"start_ns\":1,\"end_ns\":2}          event\n"
		"Bad input stops at the first error (FILE:LINE: ...) with exit status 3.\n"
		"The pypy parser needs the runner's calibration.json beside the log.\n",
	.exec = cmd_parse_exec,
};

static void list_parsers(FILE *f)
{
	fprintf(f, "plugins with a parser: generic");
	for (size_t i = 0; kiln_plugins[i]; i++)
		if (kiln_plugins[i]->parse)
			fprintf(f, ", %s", kiln_plugins[i]->name);
	fprintf(f, "\n");
}

static int cmd_parse_exec(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_parse_entry, argc, argv))
		return 0;
	int first = 1;
	if (first < argc && !strcmp(argv[first], "--"))
		first++;
	if (argc - first < 2)
		return cmd_usage_error(&cmd_parse_entry, "a plugin and at least one file are needed");
	const char *name = argv[first];
	instr_parse_fn parse = NULL;
	if (!strcmp(name, "generic")) {
		parse = rec_parse_jsonl_file;
	} else {
		const struct kiln_plugin *pl = plugin_find(name);
		if (!pl || !pl->parse) {
			int r = cmd_usage_error(&cmd_parse_entry, pl ? "plugin '%s' has no parser"
								    : "no plugin named '%s'", name);
			list_parsers(stderr);
			return r;
		}
		parse = pl->parse;
	}
	struct rec_sink sink = rec_print_sink(stdout);
	struct kerr e = KERR_INIT;
	for (int i = first + 1; i < argc; i++) {
		if (instr_parse_path(parse, argv[i], &sink, &e) < 0) {
			fflush(stdout);
			kerr_print(&e);
			int code = e.code;
			kerr_release(&e);
			return code;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		kiln_error("writing the records: %s", "output error");
		return KEXIT_FAIL;
	}
	return KEXIT_OK;
}
