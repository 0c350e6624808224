/*
 * cmd-report.c - `kiln report INPUT [--format F] [-o FILE] [analysis options]`:
 * load any input kiln accepts (import.c: kiln results, Krun, warmup_stats
 * CSV), analyse it (analysis.c) and write the table (report.c).  Without
 * --format the format follows -o's extension, else text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cmd.h"
#include "import.h"
#include "report.h"

static int cmd_report(int argc, char **argv);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "INPUT [--format text|markdown|latex|html|json|csv] [-o FILE] [analysis options]",
	.summary = "classify warmup and summarise steady-state performance, per key",
	.help = "INPUT is a kiln results file (*.db), a Krun results file (.json, .json.bz2)\n"
		"or a warmup_stats CSV.\n"
		"  --format F         text (default; coloured on a terminal), markdown, latex,\n"
		"                     html (one self-contained page with plots), json\n"
		"                     (warmup_stats summary layout, version 2), csv\n"
		"  -o, --output FILE  write there instead of stdout (the format follows its\n"
		"                     extension when --format is not given)\n"
		"  --key K            only keys matching K ('*' wildcards)\n"
		"  --plots N          html: pexecs plotted per key (3)\n"
		"  --title T          the report's title\n" AN_OPTS_HELP,
	.exec = cmd_report,
};

/* keep only the keys matching pat (moving the others out and freeing them) */
static void filter_keys(struct dataset *ds, const char *pat)
{
	size_t j = 0;
	for (size_t i = 0; i < ds->nkeys; i++) {
		if (star_match(pat, ds->keys[i].key)) {
			ds->keys[j++] = ds->keys[i];
		} else {
			struct dataset one = { 0 };
			one.keys = xmalloc(sizeof(struct ds_key));
			one.keys[0] = ds->keys[i];
			one.nkeys = 1;
			ds_free(&one);
		}
	}
	ds->nkeys = j;
}

static int cmd_report(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_report_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	const char *input = NULL, *out = NULL, *keypat = NULL;
	int fmt = -1;
	struct rep_opts ro = { 0 };
	ro.plots_per_key = 3;
	struct an_opts o;
	an_opts_default(&o);
	struct kerr e = KERR_INIT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r = an_opts_arg(&o, argc, argv, &i);
		if (r < 0)
			return KEXIT_USAGE;
		if (r > 0)
			continue;
		if ((!strcmp(a, "--format") || !strcmp(a, "-f")) && i + 1 < argc) {
			enum rep_format rf;
			if (rep_parse_format(argv[++i], &rf) < 0)
				return cmd_usage_error(c, "--format: '%s' is not text, markdown, latex, html, json or csv",
						       argv[i]);
			fmt = (int)rf;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
			out = argv[++i];
		else if ((!strcmp(a, "--key") || !strcmp(a, "-k")) && i + 1 < argc)
			keypat = argv[++i];
		else if (!strcmp(a, "--title") && i + 1 < argc)
			ro.title = argv[++i];
		else if (!strcmp(a, "--plots") && i + 1 < argc) {
			long n;
			if (parse_long(argv[++i], &n) || n < 0 || n > 1000)
				return cmd_usage_error(c, "--plots: '%s' is not a count", argv[i]);
			ro.plots_per_key = (int)n;
		} else if (a[0] == '-' && a[1])
			return cmd_usage_error(c, "unknown option '%s' (or missing value)", a);
		else if (!input)
			input = a;
		else
			return cmd_usage_error(c, "one INPUT only ('%s' is extra)", a);
	}
	if (!input)
		return cmd_usage_error(c, "INPUT is missing");
	if (fmt < 0)
		fmt = out && rep_format_for_path(out) >= 0 ? rep_format_for_path(out) : REP_TEXT;
	struct dataset ds = { 0 };
	if (imp_load(input, &ds, &e) < 0) {
		kerr_print(&e);
		int code = e.code;
		kerr_release(&e);
		ds_free(&ds);
		return code;
	}
	if (keypat) {
		filter_keys(&ds, keypat);
		if (!ds.nkeys) {
			kiln_error("%s: no key matches '%s'", input, keypat);
			ds_free(&ds);
			return KEXIT_USAGE;
		}
	}
	struct an_result r;
	if (an_analyse_input(input, &ds, &o, &r, &e) < 0) {
		kerr_print(&e);
		kerr_release(&e);
		ds_free(&ds);
		return KEXIT_FAIL;
	}
	FILE *f = stdout;
	char *tmp = NULL;
	if (out && strcmp(out, "-")) {
		tmp = xasprintf("%s.tmp.%d", out, (int)getpid());
		f = fopen(tmp, "w");
		if (!f) {
			kiln_error("%s: %s", out, strerror(errno));
			free(tmp);
			an_result_free(&r);
			ds_free(&ds);
			return KEXIT_FAIL;
		}
	}
	ro.color = fmt == REP_TEXT && f == stdout && kiln_color(stdout);
	int rc = rep_write(f, (enum rep_format)fmt, &ds, &r, &ro, &e);
	if (f != stdout) {
		if (fclose(f) != 0 && rc == 0)
			rc = kerr_set(&e, "%s: %s", out, strerror(errno));
		if (rc == 0 && rename(tmp, out) < 0)
			rc = kerr_set(&e, "%s: %s", out, strerror(errno));
		if (rc < 0)
			unlink(tmp);
		free(tmp);
	} else
		fflush(stdout);
	if (rc < 0)
		kerr_print(&e);
	kerr_release(&e);
	an_result_free(&r);
	ds_free(&ds);
	return rc < 0 ? KEXIT_FAIL : 0;
}
