/*
 * cmd-plot.c - `kiln plot INPUT [--key K] [--pexec N] [--format svg|pdf|png] -o DIR`:
 * a run-sequence plot per pexec (plot.c) of a kiln results file, a Krun
 * results file or a warmup_stats CSV, after the same analysis the report
 * does (so the outliers and segments drawn are the report's).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cmd.h"
#include "import.h"
#include "plot.h"

static int cmd_plot(int argc, char **argv);

const struct cmd_entry cmd_plot_entry = {
	.name = "plot",
	.usage = "INPUT [--key K] [--pexec N] [--format svg|pdf|png] -o DIR [analysis options]",
	.summary = "plot each pexec's run sequence with outliers, changepoints and instrumentation",
	.help = "INPUT is a kiln results file (*.db), a Krun results file (.json, .json.bz2)\n"
		"or a warmup_stats CSV.\n"
		"  --key K            only keys matching K (bench:vm:variant, '*' wildcards)\n"
		"  --pexec N          only pexec number N\n"
		"  --format F         svg (default), pdf or png\n"
		"  -o, --output DIR   where plots, their .gp scripts and .dat files go (required)\n" AN_OPTS_HELP,
	.exec = cmd_plot,
};

static int cmd_plot(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_plot_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	const char *input = NULL, *keypat = NULL, *outdir = NULL;
	long pexec = -1;
	enum plot_fmt fmt = PLOT_SVG;
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 1; /* plots do not show the bootstrap */
	struct kerr e = KERR_INIT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r = an_opts_arg(&o, argc, argv, &i);
		if (r < 0)
			return KEXIT_USAGE;
		if (r > 0)
			continue;
		if ((!strcmp(a, "--key") || !strcmp(a, "-k")) && i + 1 < argc)
			keypat = argv[++i];
		else if (!strcmp(a, "--pexec") && i + 1 < argc) {
			if (parse_long(argv[++i], &pexec) || pexec < 0)
				return cmd_usage_error(c, "--pexec: '%s' is not a pexec number", argv[i]);
		} else if (!strcmp(a, "--format") && i + 1 < argc) {
			if (plot_parse_format(argv[++i], &fmt) < 0)
				return cmd_usage_error(c, "--format: '%s' is not svg, pdf or png", argv[i]);
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
			outdir = argv[++i];
		else if (a[0] == '-' && a[1])
			return cmd_usage_error(c, "unknown option '%s' (or missing value)", a);
		else if (!input)
			input = a;
		else
			return cmd_usage_error(c, "one INPUT only ('%s' is extra)", a);
	}
	if (!input)
		return cmd_usage_error(c, "INPUT is missing");
	if (!outdir)
		return cmd_usage_error(c, "-o DIR is missing");
	struct dataset ds = { 0 };
	if (imp_load(input, &ds, &e) < 0) {
		kerr_print(&e);
		int code = e.code;
		kerr_release(&e);
		ds_free(&ds);
		return code;
	}
	int rc = 0, nplots = 0, nkeys = 0;
	for (size_t i = 0; i < ds.nkeys && rc == 0; i++) {
		const struct ds_key *k = &ds.keys[i];
		if (keypat && !star_match(keypat, k->key))
			continue;
		nkeys++;
		struct an_key ak;
		an_analyse_key(k, &o, &ak);
		for (size_t p = 0; p < ak.np; p++) {
			if (pexec >= 0 && k->pexecs[ak.p[p].index].num != pexec)
				continue;
			char *path = NULL;
			if (plot_pexec(&ak, p, outdir, fmt, &path, &e) < 0) {
				kerr_print(&e);
				rc = KEXIT_FAIL;
				break;
			}
			printf("%s\n", path);
			free(path);
			nplots++;
		}
		an_key_free(&ak);
	}
	if (rc == 0 && !nplots) {
		kiln_error("%s: nothing to plot%s%s%s", input, keypat ? " (no key matches '" : "",
			   keypat ? keypat : "", keypat ? "', or no completed pexec)" : " (no completed pexec)");
		rc = nkeys ? KEXIT_FAIL : KEXIT_USAGE;
	}
	kerr_release(&e);
	ds_free(&ds);
	return rc;
}
