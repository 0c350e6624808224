/*
 * cmd-import.c - `kiln import FILE -o RESULTS`: a Krun results file, a
 * warmup_stats CSV (import.c) or another tool's file (fmt.h) into a new kiln results file (store.c's
 * store_save_dataset), so existing data joins kiln's report, plot, diff and
 * export like any run.
 */
#include <string.h>

#include "cmd.h"
#include "import.h"
#include "store.h"

static int cmd_import(int argc, char **argv);

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "FILE -o RESULTS [--name NAME]",
	.summary = "turn a Krun, warmup_stats, pyperf, hyperfine or ReBench file into a kiln results file",
	.help = "FILE is a Krun results file (.json, .json.bz2), a warmup_stats CSV, a pyperf JSON file\n"
		"(.json, .json.gz), a hyperfine --export-json file or a ReBench .data file.\n"
		"  -o, --output RESULTS   the kiln results file to create (must not exist)\n"
		"  --name NAME            the experiment's name (default: FILE's base name)\n",
	.exec = cmd_import,
};

static int cmd_import(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_import_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	const char *in = NULL, *out = NULL, *name = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(a, "--name") && i + 1 < argc)
			name = argv[++i];
		else if (a[0] == '-' && a[1])
			return cmd_usage_error(c, "unknown option '%s' (or missing value)", a);
		else if (!in)
			in = a;
		else
			return cmd_usage_error(c, "one FILE only ('%s' is extra)", a);
	}
	if (!in)
		return cmd_usage_error(c, "FILE is missing");
	if (!out)
		return cmd_usage_error(c, "-o RESULTS is missing");
	struct kerr e = KERR_INIT;
	struct dataset ds = { 0 };
	int rc = 0;
	if (file_exists(in) && imp_detect(in) == IMP_KILN) {
		kiln_error("%s is already a kiln results file", in);
		return KEXIT_USAGE;
	}
	if (name)
		ds.name = xstrdup(name);
	if (imp_load(in, &ds, &e) < 0 || store_save_dataset(out, &ds, &e) < 0) {
		kerr_print(&e);
		rc = e.code ? e.code : KEXIT_FAIL;
	} else {
		size_t np = 0, ni = 0;
		for (size_t i = 0; i < ds.nkeys; i++)
			for (size_t p = 0; p < ds.keys[i].npexecs; p++) {
				np++;
				ni += ds.keys[i].pexecs[p].n;
			}
		printf("%s: %zu keys, %zu pexecs, %zu iterations imported into %s\n", in, ds.nkeys, np, ni, out);
	}
	kerr_release(&e);
	ds_free(&ds);
	return rc;
}
