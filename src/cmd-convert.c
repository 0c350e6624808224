/*
 * cmd-convert.c - `kiln convert FILE`: another tool's experiment config (a
 * ReBench rebench.conf, a Krun .krun file) as a kiln config, and what of it
 * kiln does not take over.  `kiln run FILE` runs the same reading.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "convert.h"

static int cmd_convert(int argc, char **argv);

const struct cmd_entry cmd_convert_entry = {
	.name = "convert",
	.usage = "FILE [-o OUT] [--experiment NAME] [--json]",
	.summary = "a ReBench rebench.conf or a Krun .krun config as a kiln config (kiln run reads them as they are)",
	.help = "FILE is a ReBench configuration (YAML with executors and benchmark_suites) or a\n"
		"Krun configuration (*.krun: Python, read as the subset Krun configs use, never\n"
		"run). The kiln config goes to stdout (or OUT); what has no kiln equivalent is\n"
		"listed on stderr, with the file's line, and as comments at the config's end.\n"
		"  -o, --output OUT     write the kiln config to OUT\n"
		"  --experiment NAME    ReBench: the experiment to convert (default: its\n"
		"                       default_experiment; all: every one)\n"
		"  --json               {\"config\": TEXT, \"not_taken_over\": [LINES]} on stdout\n"
		"`kiln run FILE` converts the same way and runs the result (docs/kiln-convert.md).\n"
		"\nExit status: 0 converted, 2 usage, 3 the file cannot be read or converted.\n",
	.exec = cmd_convert,
};

static int cmd_convert(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_convert_entry, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "experiment", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' }, { NULL, 0, NULL, 0 },
	};
	const char *outp = NULL, *experiment = NULL;
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outp = optarg; break;
		case 'x': experiment = optarg; break;
		case 'j': json = 1; break;
		default: return cmd_usage_error(&cmd_convert_entry, "unknown option");
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(&cmd_convert_entry, "one FILE is needed");
	const char *path = argv[optind];
	struct kerr e = KERR_INIT;
	struct strbuf text = STRBUF_INIT;
	struct convert_out out = CONVERT_OUT_INIT;
	int r = read_file(path, &text, &e);
	if (r == 0) {
		r = convert_any(path, text.buf, text.len, experiment, &out, &e);
		if (r == 1)
			r = kerr_setc(&e, KEXIT_CONFIG, "%s: neither a ReBench configuration (executors, benchmark_suites) nor "
				      "a Krun one (*.krun)", path);
	}
	if (r == 0 && outp)
		r = write_file(outp, out.yaml.buf, out.yaml.len, &e);
	if (r == 0 && json) {
		json_t *nt = json_array();
		for (size_t i = 0; i < out.unmapped.n; i++)
			json_array_append_new(nt, json_string(esc(ESC_JSON, out.unmapped.v[i])));
		json_t *o = json_pack("{s:s,s:o}", "config", out.yaml.buf, "not_taken_over", nt);
		char *s = json_dumps(o, JSON_INDENT(1));
		printf("%s\n", s);
		free(s);
		json_decref(o);
	} else if (r == 0) {
		for (size_t i = 0; i < out.unmapped.n; i++)
			kiln_note("not taken over: %s", esc(ESC_TERM, out.unmapped.v[i]));
		if (!outp)
			fwrite(out.yaml.buf, 1, out.yaml.len, stdout);
	}
	int code = r < 0 ? (e.code ? e.code : KEXIT_CONFIG) : KEXIT_OK;
	if (r < 0)
		kerr_print(&e);
	kerr_release(&e);
	sb_release(&text);
	convert_out_release(&out);
	return code;
}
