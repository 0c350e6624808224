/*
 * cmd-plot.c - `kiln plot INPUT -o DIR [options]`: a run-sequence plot per
 * pexec (plot.c) of a kiln results file, a Krun results file or a
 * warmup_stats CSV, after the same analysis the report does (so the
 * outliers, segments and band drawn are the report's).  File names come
 * from plot_name(); two keys that would share one get a hash of the key
 * appended, with a note.
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
	.usage = "INPUT -o DIR [--key K]... [--pexec N] [--format svg|pdf|png] [--size WxH] [--xlim A:B]\n"
		 "          [--inset|--no-inset] [--wall-only] [--log] [--per-page N] [--pool-machines] [analysis options]",
	.summary = "plot each pexec's run sequence with outliers, changepoints and instrumentation",
	.help = "INPUT is a kiln results file (*.db), a Krun results file (.json, .json.bz2)\n"
		"or a warmup_stats CSV.\n"
		"  -o, --output DIR   where plots, their .gp scripts and .dat files go (required)\n"
		"  --key K            only keys matching K (bench:vm:variant, bench:vm or bench,\n"
		"                     '*' wildcards; repeat for several)\n" CMD_POOL_HELP
		"  --pexec N          only pexec number N\n"
		"  --format F         svg (default), pdf or png\n"
		"  --size WxH         the image's size: pixels (960x600), or 8x5in, 16x10cm, 600x400pt\n"
		"  --xlim A:B         only iterations A to B (A: or :B leave one end open)\n"
		"  --inset            always add an inset zooming on the steady state (default: only\n"
		"                     when slower iterations flatten it); --no-inset: never\n"
		"  --wall-only        the run sequence only, no instrumentation panels\n"
		"  --log              logarithmic wall-time axis\n"
		"  --per-page N       N pexecs of a key on one page, run sequences only (a PDF gets\n"
		"                     every page in one file: KEY-pages.pdf)\n" AN_OPTS_HELP,
	.exec = cmd_plot,
};

/* the plot's own options */
struct plot_args {
	const char *outdir;
	long pexec;
	struct plot_opts po;
};

static int plot_flag(struct plot_args *pa, const char *a)
{
	if (!strcmp(a, "--inset"))
		pa->po.inset = PLOT_INSET_ON;
	else if (!strcmp(a, "--no-inset"))
		pa->po.inset = PLOT_INSET_OFF;
	else if (!strcmp(a, "--wall-only"))
		pa->po.wall_only = 1;
	else if (!strcmp(a, "--log"))
		pa->po.log_y = 1;
	else
		return 0;
	return 1;
}

static int plot_opt(void *ctx, const struct cmd_entry *c, int argc, char **argv, int *i)
{
	struct plot_args *pa = ctx;
	const char *a = argv[*i];
	if (plot_flag(pa, a))
		return 1;
	if (*i + 1 >= argc)
		return 0;
	const char *v = argv[*i + 1];
	if (!strcmp(a, "--pexec")) {
		if (parse_long(v, &pa->pexec) || pa->pexec < 0)
			return cmd_usage_error(c, "--pexec: '%s' is not a pexec number", v);
	} else if (!strcmp(a, "--format")) {
		if (plot_parse_format(v, &pa->po.fmt) < 0)
			return cmd_usage_error(c, "--format: '%s' is not svg, pdf or png", v);
	} else if (!strcmp(a, "--size")) {
		if (plot_parse_size(v, &pa->po.width, &pa->po.height) < 0)
			return cmd_usage_error(c, "--size: '%s' is not WxH (pixels, or with in, cm or pt; at least "
						  "200x150 px)", v);
	} else if (!strcmp(a, "--xlim")) {
		if (plot_parse_xlim(v, &pa->po.xmin, &pa->po.xmax) < 0)
			return cmd_usage_error(c, "--xlim: '%s' is not A:B (iterations from 1, A < B)", v);
	} else if (!strcmp(a, "--per-page")) {
		long n;
		if (parse_long(v, &n) || n < 1 || n > 36)
			return cmd_usage_error(c, "--per-page: '%s' is not a count from 1 to 36", v);
		pa->po.per_page = (int)n;
	} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		pa->outdir = v;
	} else {
		return 0;
	}
	++*i;
	return 1;
}

/* the key's file-name stem, with a hash when another key of this run already has it */
static char *unique_stem(const struct ds_key *k, struct strvec *stems, struct strvec *owners)
{
	char *stem = plot_name(k);
	for (size_t i = 0; i < stems->n; i++)
		if (!strcmp(stems->v[i], stem) && strcmp(owners->v[i], k->key)) {
			char h[65];
			hash_hex(k->key, strlen(k->key), h);
			char *u = xasprintf("%s-%.8s", stem, h);
			kiln_note("keys '%s' and '%s' share the file name %s: the second is %s", owners->v[i], k->key, stem,
				  u);
			free(stem);
			stem = u;
			break;
		}
	sv_push(stems, stem);
	sv_push(owners, k->key);
	return stem;
}

/* --pexec N matched nothing: say what there is */
static int no_such_pexec(const char *input, const struct dataset *ds, long pexec)
{
	long lo = -1, hi = -1;
	const char *failed = NULL;
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < ds->keys[i].npexecs; p++) {
			const struct ds_pexec *px = &ds->keys[i].pexecs[p];
			lo = lo < 0 || px->num < lo ? px->num : lo;
			hi = px->num > hi ? px->num : hi;
			if (px->num == pexec)
				failed = ds->keys[i].key;
		}
	if (failed) {
		kiln_error("%s: pexec %ld of %s did not complete (see kiln status --failures): nothing to plot", input,
			   pexec, failed);
		return KEXIT_FAIL;
	}
	if (lo < 0)
		kiln_error("%s: no pexec %ld: the keys matched have no pexecs", input, pexec);
	else
		kiln_error("%s: no pexec %ld: the keys matched have pexecs %ld to %ld", input, pexec, lo, hi);
	return KEXIT_USAGE;
}

static int plot_key(const struct ds_key *k, const struct an_opts *o, const struct plot_args *pa, const char *stem,
		    int *nplots, struct kerr *e)
{
	struct an_key ak;
	an_analyse_key(k, o, &ak);
	size_t *idx = xmalloc((ak.np + 1) * sizeof(size_t)), n = 0;
	for (size_t p = 0; p < ak.np; p++)
		if (pa->pexec < 0 || k->pexecs[ak.p[p].index].num == pa->pexec)
			idx[n++] = p;
	struct strvec outs = STRVEC_INIT;
	int r = 0;
	if (pa->po.per_page > 1 && n) {
		r = plot_pages(&ak, idx, n, o, &pa->po, pa->outdir, stem, &outs, e);
	} else {
		for (size_t q = 0; q < n && r == 0; q++) {
			char *path = NULL;
			r = plot_pexec(&ak, idx[q], o, &pa->po, pa->outdir, stem, &path, e);
			if (r == 0)
				sv_push(&outs, path);
			free(path);
		}
	}
	for (size_t q = 0; q < outs.n; q++)
		printf("%s\n", outs.v[q]);
	*nplots += (int)n;
	sv_clear(&outs);
	free(idx);
	an_key_free(&ak);
	return r;
}

static int cmd_plot(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_plot_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct plot_args pa = { NULL, -1, { 0 } };
	plot_opts_default(&pa.po);
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 1; /* plots do not show the bootstrap */
	struct kerr e = KERR_INIT;
	struct cmd_an_args args;
	int bad = cmd_an_args(c, argc, argv, &o, 1, "INPUT", 0, &args, plot_opt, &pa);
	if (bad)
		return bad;
	const char *input = args.inputs[0];
	struct dataset ds = { 0 };
	int rc = !pa.outdir ? cmd_usage_error(c, "-o DIR is missing") : cmd_load_input(input, &args, &ds);
	if (!rc && args.keys.n && !ds.nkeys) {
		ds_free(&ds);
		rc = cmd_no_key_matches(input, &args.keys);
	}
	cmd_an_args_release(&args);
	int nplots = 0;
	if (rc)
		return rc;
	struct strvec stems = STRVEC_INIT, owners = STRVEC_INIT;
	for (size_t i = 0; i < ds.nkeys && rc == 0; i++) {
		char *stem = unique_stem(&ds.keys[i], &stems, &owners);
		if (plot_key(&ds.keys[i], &o, &pa, stem, &nplots, &e) < 0) {
			kerr_print(&e);
			rc = KEXIT_FAIL;
		}
		free(stem);
	}
	if (rc == 0 && !nplots) {
		if (pa.pexec >= 0) {
			rc = no_such_pexec(input, &ds, pa.pexec);
		} else {
			kiln_error("%s: nothing to plot (no completed pexec)", input);
			rc = KEXIT_FAIL;
		}
	}
	sv_clear(&stems);
	sv_clear(&owners);
	kerr_release(&e);
	ds_free(&ds);
	return rc;
}
