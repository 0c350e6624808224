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
	.usage = "INPUT [--key K] [--pexec N] [--format svg|pdf|png] [--pool-machines] -o DIR [analysis options]",
	.summary = "plot each pexec's run sequence with outliers, changepoints and instrumentation",
	.help = "INPUT is a kiln results file (*.db), a Krun results file (.json, .json.bz2)\n"
		"or a warmup_stats CSV.\n"
		"  --key K            only keys matching K (bench:vm:variant, '*' wildcards)\n" CMD_POOL_HELP
		"  --pexec N          only pexec number N\n"
		"  --format F         svg (default), pdf or png\n"
		"  -o, --output DIR   where plots, their .gp scripts and .dat files go (required)\n" AN_OPTS_HELP,
	.exec = cmd_plot,
};

/* the plot's own options: --pexec N, --format F, -o DIR */
struct plot_args {
	const char *outdir;
	long pexec;
	enum plot_fmt fmt;
};

static int plot_opt(void *ctx, const struct cmd_entry *c, int argc, char **argv, int *i)
{
	struct plot_args *pa = ctx;
	const char *a = argv[*i];
	if (*i + 1 >= argc)
		return 0;
	if (!strcmp(a, "--pexec")) {
		if (parse_long(argv[++*i], &pa->pexec) || pa->pexec < 0)
			return cmd_usage_error(c, "--pexec: '%s' is not a pexec number", argv[*i]);
	} else if (!strcmp(a, "--format")) {
		if (plot_parse_format(argv[++*i], &pa->fmt) < 0)
			return cmd_usage_error(c, "--format: '%s' is not svg, pdf or png", argv[*i]);
	} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		pa->outdir = argv[++*i];
	} else {
		return 0;
	}
	return 1;
}

static int cmd_plot(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_plot_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct plot_args pa = { NULL, -1, PLOT_SVG };
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 1; /* plots do not show the bootstrap */
	struct kerr e = KERR_INIT;
	struct cmd_an_args args;
	int bad = cmd_an_args(c, argc, argv, &o, 1, "INPUT", 0, &args, plot_opt, &pa);
	if (bad)
		return bad;
	const char *input = args.inputs[0], *keypat = args.keypat, *outdir = pa.outdir;
	long pexec = pa.pexec;
	enum plot_fmt fmt = pa.fmt;
	if (!outdir)
		return cmd_usage_error(c, "-o DIR is missing");
	struct dataset ds = { 0 };
	int rc = cmd_load_input(input, &args, &ds), nplots = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < ds.nkeys && rc == 0; i++) {
		const struct ds_key *k = &ds.keys[i];
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
		rc = ds.nkeys ? KEXIT_FAIL : KEXIT_USAGE;
	}
	kerr_release(&e);
	ds_free(&ds);
	return rc;
}
