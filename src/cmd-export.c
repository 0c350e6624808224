/*
 * cmd-export.c - `kiln export RESULTS --format F [-o FILE]`: the
 * measurements in another tool's format (fmt.h's table: Krun's results with
 * the config, the audit and Krun-style instrumentation, a warmup_stats CSV,
 * pyperf's or hyperfine's JSON; compressed by the name's .bz2 or .gz), so
 * the tools people already use read kiln's results.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dataset.h"
#include "fmt.h"
#include "import.h"
#include "platform.h"
#include "secret.h"
#include "store.h"

/* JSON text of any shape with its credentials hidden (secret_mask_json) */
static void hide_in_json(char **text)
{
	if (!*text)
		return;
	json_t *v = json_loads(*text, JSON_DECODE_ANY, NULL);
	free(*text);
	*text = NULL; /* what cannot be read cannot be checked: left out */
	if (v) {
		secret_mask_json(v);
		*text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	}
	json_decref(v);
}

/*
 * An export is for sharing: the config's and the audit's credentials
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
	.usage = "RESULTS --format krun|csv|pyperf|hyperfine [-o FILE]",
	.summary = "write results as Krun, warmup_stats CSV, pyperf or hyperfine files",
	.help = "  --format krun       Krun's results JSON: wallclock_times {key: [[s per iteration] per pexec]},\n"
		"                      pexec_flags (C/E/T), eta_estimates, per-core counts, audit, config;\n"
		"                      instrumentation in Krun's X_instr_data/ folder beside X_results.json.bz2\n"
		"  --format csv        warmup_stats' CSV: pexec_idx,bench,0,1,... (\"crash\" for failed pexecs)\n"
		"  --format pyperf     pyperf's JSON (pyperf compare_to/show/stats read it): a benchmark per\n"
		"                      key, a run per completed pexec, its iterations as values\n"
		"  --format hyperfine  hyperfine's --export-json: a result per key of one iteration per pexec\n"
		"                      (mean, stddev, median, user, system, min, max, times, exit_codes)\n"
		"  -o FILE             output (default: RESULTS with the format's suffix); .bz2 or .gz compresses\n"
		"\nExit status: 0 written, 1 the data cannot be written in that format, 2 usage,\n"
		"5 RESULTS missing or unusable.\n",
	.exec = cmd_export,
};

/* what a results file holds beside the measurements, for the writers */
static void extras(const char *in, struct fmt_extra *x, char **own)
{
	struct store *st;
	struct kerr e = KERR_INIT;
	if (store_open(in, 0, &st, &e) == 0) {
		store_meta_get(st, "config_text", &own[0]);
		store_audit_get(st, "start", &own[1]);
		store_meta_get(st, "bench_commands", &own[2]);
		store_audit_get(st, "krun", &own[3]);
		store_meta_get(st, "krun_extra", &own[4]);
		store_meta_get(st, "pyperf_source", &own[5]);
		store_close(st);
	}
	kerr_release(&e);
	hide_credentials(&own[0], &own[1]);
	/* what an imported Krun file had, which kiln never wrote or checked */
	hide_in_json(&own[3]);
	hide_in_json(&own[4]);
	*x = (struct fmt_extra){ .config_text = own[0], .audit_json = own[1], .bench_json = own[2], .krun_audit = own[3],
				 .krun_extra = own[4], .pyperf_source = own[5] };
}

static int cmd_export(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_export_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' }, { NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *out = NULL;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:o:", opts, NULL)) != -1) {
		if (ch == 'f')
			format = optarg;
		else if (ch == 'o')
			out = optarg;
		else
			return cmd_usage_error(c, "unknown option");
	}
	if (optind != argc - 1)
		return cmd_usage_error(c, "one RESULTS file is needed");
	const struct kiln_format *f = format ? fmt_find(format) : NULL;
	if (!f || !f->write) {
		struct strbuf names = STRBUF_INIT;
		fmt_names(1, &names);
		int r = cmd_usage_error(c, "--format is one of %s", names.buf);
		sb_release(&names);
		return r;
	}
	const char *in = argv[optind];
	char *path = out ? xstrdup(out) : store_sibling(in, f->suffix);
	struct kerr e = KERR_INIT;
	struct dataset ds;
	int code = KEXIT_OK;
	if (store_load_dataset(in, &ds, &e) < 0) {
		kerr_print(&e);
		code = e.code;
	} else {
		struct fmt_extra x;
		char *own[6] = { NULL, NULL, NULL, NULL, NULL, NULL };
		extras(in, &x, own);
		if (fmt_write_file(f, &ds, &x, path, &e) < 0) {
			kerr_wrap(&e, "%s", path);
			kerr_print(&e);
			code = e.code ? e.code : KEXIT_FAIL;
		} else {
			printf("%s\n", esc(ESC_TERM, path));
		}
		for (size_t i = 0; i < ARRAY_SIZE(own); i++)
			free(own[i]);
		ds_free(&ds);
	}
	free(path);
	kerr_release(&e);
	return code;
}
