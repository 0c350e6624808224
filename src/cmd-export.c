/*
 * cmd-export.c - `kiln export RESULTS --format krun|csv [-o FILE]`: the
 * measurements in Krun's results format (with the config, the audit and
 * Krun-style instrumentation; bzip2 when the name ends .bz2) or as a
 * warmup_stats CSV, so the tools people already use read kiln's results.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dataset.h"
#include "import.h"
#include "platform.h"
#include "secret.h"
#include "store.h"

/*
 * A Krun file is for sharing: the config's and the audit's credentials
 * hidden, also in results an older kiln wrote (secret.h)
 */
static void hide_credentials(char **config, char **audit)
{
	if (*config) {
		struct strbuf sb = STRBUF_INIT;
		secret_mask(&sb, *config);
		free(*config);
		*config = sb_detach(&sb);
	}
	json_t *a = *audit ? json_loads(*audit, 0, NULL) : NULL;
	if (json_is_object(a)) {
		platform_audit_mask(a);
		free(*audit);
		*audit = json_dumps(a, JSON_COMPACT);
	}
	json_decref(a);
}

static int cmd_export(int argc, char **argv);

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "RESULTS --format krun|csv [-o FILE]",
	.summary = "write results as a Krun results file or a warmup_stats CSV",
	.help = "  --format krun  Krun's results JSON: wallclock_times {key: [[s per iteration] per pexec]},\n"
		"                 core_cycle_counts, pexec_flags (C/E/T), audit, config, instr_data\n"
		"  --format csv   warmup_stats' CSV: pexec_idx,bench,0,1,... (\"crash\" for failed pexecs)\n"
		"  -o FILE        output (default: RESULTS with .json.bz2 or .csv); .bz2 compresses\n",
	.exec = cmd_export,
};

static int cmd_export(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_export_entry, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' }, { NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *out = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:", opts, NULL)) != -1) {
		if (c == 'f')
			format = optarg;
		else if (c == 'o')
			out = optarg;
		else
			return cmd_usage_error(&cmd_export_entry, "unknown option");
	}
	if (optind != argc - 1)
		return cmd_usage_error(&cmd_export_entry, "one RESULTS file is needed");
	if (!format || (strcmp(format, "krun") && strcmp(format, "csv")))
		return cmd_usage_error(&cmd_export_entry, "--format krun or --format csv is needed");
	const char *in = argv[optind];
	int krun = !strcmp(format, "krun");
	char *path = NULL;
	if (out) {
		path = xstrdup(out);
	} else {
		path = store_sibling(in, krun ? ".json.bz2" : ".csv");
	}
	struct kerr e = KERR_INIT;
	struct dataset ds;
	int code = KEXIT_OK;
	if (store_load_dataset(in, &ds, &e) < 0) {
		kerr_print(&e);
		code = e.code;
		goto out;
	}
	int r;
	if (krun) {
		char *config = NULL, *audit = NULL;
		struct store *st;
		if (store_open(in, 0, &st, &e) == 0) {
			store_meta_get(st, "config_text", &config);
			store_audit_get(st, "start", &audit);
			store_close(st);
		}
		hide_credentials(&config, &audit);
		r = export_krun(&ds, path, config, audit, &e);
		free(config);
		free(audit);
	} else {
		r = export_csv(&ds, path, &e);
	}
	if (r < 0) {
		kerr_print(&e);
		code = e.code ? e.code : KEXIT_FAIL;
	} else {
		printf("%s\n", path);
	}
	ds_free(&ds);
out:
	free(path);
	kerr_release(&e);
	return code;
}
