/*
 * cmd-import.c - `kiln import FILE -o RESULTS`: a Krun results file (read
 * as a stream straight into the new results file: import-krun.c), a
 * warmup_stats CSV (import.c) or another tool's file (fmt.h), the last two
 * through store-write.c's store_save_dataset, into a new kiln results
 * file, so existing data joins kiln's report, plot, diff and export like
 * any run.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fmt.h"
#include "import.h"
#include "store.h"

static int cmd_import(int argc, char **argv);

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "FILE -o RESULTS [--name NAME] [--vm VM] [--variant VARIANT | --language LANGUAGE]",
	.summary = "turn a Krun, warmup_stats, pyperf, hyperfine or ReBench file into a kiln results file",
	.help = "FILE is a Krun results file (.json, .json.bz2), a warmup_stats CSV, a pyperf JSON file\n"
		"(.json, .json.gz), a hyperfine --export-json file or a ReBench .data file.\n"
		"  -o, --output RESULTS   the kiln results file to create (must not exist)\n"
		"  --name NAME            the experiment's name (default: FILE's base name)\n"
		"  --vm VM                a CSV's bare benchmark names become bench:VM:... (default: unknown)\n"
		"  --variant VARIANT      ... and bench:VM:VARIANT (default: default)\n"
		"  --language LANGUAGE    the variant default-LANGUAGE, as warmup_stats' csv_to_krun_json -l\n",
	.exec = cmd_import,
};

/* what was imported, counted in the new file */
static void summary(const char *in, const char *out)
{
	struct store *st;
	struct kerr e = KERR_INIT;
	long n[3] = { 0, 0, 0 };
	if (store_open(out, 0, &st, &e) == 0) {
		static const char *const q[] = { "SELECT COUNT(*) FROM keys", "SELECT COUNT(*) FROM pexecs",
						 "SELECT TOTAL(n) FROM iterations" };
		for (int i = 0; i < 3; i++) {
			sqlite3_stmt *s;
			if (sqlite3_prepare_v2(store_db(st), q[i], -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
				n[i] = (long)sqlite3_column_double(s, 0);
			sqlite3_finalize(s);
		}
		store_close(st);
	}
	kerr_release(&e);
	printf("%s: %ld keys, %ld pexecs, %ld iterations imported into %s\n", esc(ESC_TERM, in), n[0], n[1], n[2],
	       esc(ESC_TERM, out));
}

static char *stem_of(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	static const char *const sufs[] = { ".json.bz2", ".json", ".csv.bz2", ".csv", ".bz2" };
	for (size_t i = 0; i < ARRAY_SIZE(sufs); i++)
		if (str_ends_with(b, sufs[i]) && strlen(b) > strlen(sufs[i]))
			return xstrndup(b, strlen(b) - strlen(sufs[i]));
	return xstrdup(b);
}

static int do_import(const char *in, const char *out, const char *name, const struct imp_names *nm, struct kerr *e)
{
	enum imp_format f = imp_detect(in);
	/* a .json that pyperf or hyperfine wrote is theirs (fmt.h); a Krun file streams into the results file */
	if (f == IMP_KRUN && !fmt_sniff(in)) {
		if (nm->vm || nm->variant)
			return kerr_setc(e, KEXIT_USAGE, "--vm, --variant and --language name a CSV's bare benchmarks; "
						 "a Krun file's keys are whole");
		char *nmd = name ? xstrdup(name) : stem_of(in);
		int r = imp_krun_to_store(in, out, nmd, e);
		free(nmd);
		return r;
	}
	struct dataset ds = { 0 };
	ds.name = name ? xstrdup(name) : NULL;
	int r = f == IMP_CSV ? imp_csv_file_named(in, nm, &ds, e) : imp_load(in, &ds, e);
	if (r == 0) {
		if (!ds.name)
			ds.name = stem_of(in);
		if (!ds.source)
			ds.source = xstrdup(in);
		r = store_save_dataset(out, &ds, e);
	}
	ds_free(&ds);
	return r;
}

static int cmd_import(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_import_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	const char *in = NULL, *out = NULL, *name = NULL, *lang = NULL;
	struct imp_names nm = { NULL, NULL };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(a, "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(a, "--vm") && i + 1 < argc)
			nm.vm = argv[++i];
		else if (!strcmp(a, "--variant") && i + 1 < argc)
			nm.variant = argv[++i];
		else if (!strcmp(a, "--language") && i + 1 < argc)
			lang = argv[++i];
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
	if (lang && nm.variant)
		return cmd_usage_error(c, "--variant or --language, not both");
	const char *bad = NULL;
	const char *names[] = { nm.vm, nm.variant, lang };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i] && (!*names[i] || strchr(names[i], ':')))
			bad = names[i];
	if (bad)
		return cmd_usage_error(c, "'%s' cannot be part of a key (empty, or with ':')", bad);
	char *variant = lang ? xasprintf("default-%s", lang) : NULL;
	if (variant)
		nm.variant = variant;
	struct kerr e = KERR_INIT;
	int rc = 0;
	if (file_exists(in) && imp_detect(in) == IMP_KILN) {
		kiln_error("%s is already a kiln results file", in);
		rc = KEXIT_USAGE;
	} else if (!file_exists(in)) {
		kiln_error("%s: no such file", in);
		rc = KEXIT_CONFIG;
	} else if (do_import(in, out, name, &nm, &e) < 0) {
		kerr_print(&e);
		rc = e.code ? e.code : KEXIT_FAIL;
	} else {
		summary(in, out);
	}
	free(variant);
	kerr_release(&e);
	return rc;
}
