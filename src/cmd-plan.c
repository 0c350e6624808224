/*
 * cmd-plan.c - `kiln plan PILOT [--ci-width PCT]`: from a pilot experiment,
 * how many pexecs and iterations a real one needs for its steady-state
 * confidence intervals to be PCT% of the mean wide.
 *
 * Kalibera and Jones' variance components ("Rigorous Benchmarking in
 * Reasonable Time", ISMM 2013), two levels: iterations within pexecs.  Per
 * key, over the pilot's steady-state iterations (outliers removed), with n
 * pexecs of m_i iterations (m the harmonic mean, for unbalanced data):
 *   S1^2 = within-pexec variance   = sum_i sum_j (x_ij - xbar_i)^2 / sum_i (m_i - 1)
 *   S2^2 = variance of pexec means = sum_i (xbar_i - xbar)^2 / (n - 1)
 *   T1^2 = S1^2,  T2^2 = max(0, S2^2 - S1^2 / m)   (the between-pexec component)
 * Costs: c1 = one steady iteration (the mean iteration time), c2 = what a
 * new pexec costs before its steady state (median time to steady state,
 * plus the first iteration as a stand-in for process start-up).  The
 * optimal number of steady iterations per pexec is
 *   r1 = ceil(sqrt(c2 T1^2 / (c1 T2^2)))
 * and, with the mean's variance (T2^2 + T1^2 / r1) / r2, the pexecs for a
 * half-width h = PCT/200 * mean at confidence level C (z its normal quantile):
 *   r2 = ceil(z^2 (T2^2 + T1^2 / r1) / h^2)
 * When T2^2 is 0 (pexecs agree), r2 is set to 3 and r1 = ceil(z^2 T1^2 / (r2 h^2)).
 * The iterations to run are the 95th percentile of the steady-state
 * iteration (the warmup) plus r1.  docs/kiln-plan.md has the details.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <jansson.h>

#include "analysis.h"
#include "cmd.h"
#include "import.h"

static int cmd_plan(int argc, char **argv);

const struct cmd_entry cmd_plan_entry = {
	.name = "plan",
	.usage = "PILOT [--ci-width PCT] [--json] [--key K] [--pool-machines] [analysis options]",
	.summary = "recommend pexecs and iterations for a target CI width (Kalibera & Jones)",
	.help = "PILOT is a pilot experiment's results (kiln, Krun or warmup_stats CSV).\n"
		"  --ci-width PCT     target width of the steady-state confidence interval,\n"
		"                     in % of the mean (1)\n"
		"  --json             machine-readable output\n"
		"  --key K            only keys matching K ('*' wildcards)\n" CMD_POOL_HELP AN_OPTS_HELP,
	.exec = cmd_plan,
};

struct plan {
	int ok;
	const char *why;
	double mean, t1, t2, c1, c2;
	long r1, r2, iterations;
};

static struct plan plan_key(const struct an_key *k, const struct an_opts *o, double width_pct, double conf)
{
	struct plan p = { 0 };
	if (!k->has_steady) {
		p.why = k->np ? "a pexec has no steady state" : "no completed pexec";
		return p;
	}
	if (k->whole) {
		p.why = "one iteration per pexec: no in-process iterations to plan";
		return p;
	}
	struct an_sample smp;
	an_sample_of(k, o, &smp);
	size_t usable = 0;
	double sum_w = 0, dof_w = 0, inv_m = 0, grand = 0, *means = xcalloc(smp.ngroups + 1, sizeof(double));
	for (size_t g = 0; g < smp.ngroups; g++) {
		/* one pexec's steady iterations: its steady segments together */
		size_t from = g ? smp.group_end[g - 1] : 0, to = smp.group_end[g], len = 0;
		double mu = 0;
		for (size_t q = from; q < to; q++)
			for (size_t j = 0; j < smp.len[q]; j++, len++)
				mu += smp.seg[q][j];
		if (len < 2)
			continue;
		mu /= (double)len;
		for (size_t q = from; q < to; q++)
			for (size_t j = 0; j < smp.len[q]; j++)
				sum_w += (smp.seg[q][j] - mu) * (smp.seg[q][j] - mu);
		dof_w += (double)len - 1;
		inv_m += 1.0 / (double)len;
		means[usable++] = mu;
		grand += mu;
	}
	an_sample_free(&smp);
	if (usable < 2) {
		free(means);
		p.why = "fewer than 2 pexecs with 2 or more steady iterations";
		return p;
	}
	grand /= (double)usable;
	double s2 = 0;
	for (size_t i = 0; i < usable; i++)
		s2 += (means[i] - grand) * (means[i] - grand);
	s2 /= (double)(usable - 1);
	free(means);
	double m = (double)usable / inv_m; /* harmonic mean of the pexecs' lengths */
	double t1 = sum_w / dof_w;
	double t2 = s2 - t1 / m;
	if (t2 < 0)
		t2 = 0;
	p.mean = grand;
	p.t1 = t1;
	p.t2 = t2;
	p.c1 = grand;
	double first = 0;
	for (size_t i = 0; i < k->np; i++)
		first += k->key->pexecs[k->p[i].index].wall[0];
	/* an all-flat key has no time to steady state (null): none to wait for */
	p.c2 = (isnan(k->tts_med) ? 0 : k->tts_med) + first / (double)k->np;
	if (!(p.c2 > 0))
		p.c2 = p.c1;
	double z = gsl_cdf_ugaussian_Pinv((1 + conf) / 2);
	double h = width_pct / 200.0 * grand;
	if (!(h > 0)) {
		p.why = "the steady-state mean is 0";
		return p;
	}
	if (t2 > 0) {
		double r1 = ceil(sqrt(p.c2 * t1 / (p.c1 * t2)));
		p.r1 = r1 < 1 ? 1 : r1 > 1e9 ? 1000000000L : (long)r1;
		double r2 = ceil(z * z * (t2 + t1 / (double)p.r1) / (h * h));
		p.r2 = r2 < 2 ? 2 : r2 > 1e9 ? 1000000000L : (long)r2;
	} else {
		p.r2 = 3;
		double r1 = ceil(z * z * t1 / (3 * h * h));
		p.r1 = r1 < 2 ? 2 : r1 > 1e9 ? 1000000000L : (long)r1;
	}
	/* the iterations before the steady state (kiln's steady iteration) and r1 steady ones */
	p.iterations = (isnan(k->iter_p95) ? 0 : (long)ceil(k->iter_p95)) + p.r1;
	p.ok = 1;
	return p;
}

/* --ci-width P[%]: the plan's own option */
static int plan_opt(void *ctx, const struct cmd_entry *c, int argc, char **argv, int *i)
{
	double *width = ctx;
	if (strcmp(argv[*i], "--ci-width") || *i + 1 >= argc)
		return 0;
	const char *v = argv[++*i];
	char *s = xstrdup(v);
	size_t l = strlen(s);
	if (l && s[l - 1] == '%')
		s[l - 1] = '\0';
	int bad = parse_double(s, width) || !(*width > 0) || *width > 1000;
	free(s);
	return bad ? cmd_usage_error(c, "--ci-width: '%s' is not a percentage", v) : 1;
}

static int cmd_plan(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_plan_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	double width = 1.0;
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 1000; /* the plan does not use the bootstrap interval */
	struct cmd_an_args args;
	int bad = cmd_an_args(c, argc, argv, &o, 1, "PILOT", 1, &args, plan_opt, &width);
	if (bad)
		return bad;
	const char *input = args.inputs[0];
	int json = args.json;
	struct dataset ds = { 0 };
	struct an_result r;
	int loaded = cmd_load_matched(input, &args, &o, &ds, &r);
	cmd_an_args_release(&args);
	if (loaded)
		return loaded;
	json_t *jk = json_array();
	long max_px = 0, max_it = 0;
	if (!json)
		printf("%-34s %8s %10s %12s %12s  %s\n", "key", "pexecs", "iterations", "within sd", "between sd",
		       "(steady iterations per pexec)");
	for (size_t i = 0; i < r.nkeys; i++) {
		const struct an_key *k = &r.keys[i];
		struct plan p = plan_key(k, &o, width, o.confidence);
		if (json) {
			json_t *j = json_pack("{s:s,s:b}", "key", esc(ESC_JSON, k->key->key), "ok", p.ok);
			if (p.ok) {
				json_object_set_new(j, "pexecs", json_integer(p.r2));
				json_object_set_new(j, "iterations", json_integer(p.iterations));
				json_object_set_new(j, "steady_iterations", json_integer(p.r1));
				json_object_set_new(j, "mean", json_real(p.mean));
				json_object_set_new(j, "within_var", json_real(p.t1));
				json_object_set_new(j, "between_var", json_real(p.t2));
				json_object_set_new(j, "iteration_cost_s", json_real(p.c1));
				json_object_set_new(j, "pexec_cost_s", json_real(p.c2));
			} else
				json_object_set_new(j, "reason", json_string(p.why));
			json_array_append_new(jk, j);
		} else if (p.ok) {
			printf("%-34s %8ld %10ld %12.3g %12.3g  (%ld)\n", esc(ESC_TERM, k->key->key), p.r2, p.iterations, sqrt(p.t1),
			       sqrt(p.t2), p.r1);
		} else {
			printf("%-34s %8s %10s  cannot plan: %s\n", esc(ESC_TERM, k->key->key), "-", "-", p.why);
		}
		if (p.ok) {
			if (p.r2 > max_px)
				max_px = p.r2;
			if (p.iterations > max_it)
				max_it = p.iterations;
		}
	}
	if (json) {
		json_t *root = json_pack("{s:s,s:f,s:f,s:o}", "pilot", input, "ci_width_pct", width, "confidence",
					 o.confidence, "keys", jk);
		if (max_px)
			json_object_set_new(root, "experiment", json_pack("{s:I,s:I}", "pexecs", (json_int_t)max_px,
									   "iterations", (json_int_t)max_it));
		char *t = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
		puts(t);
		free(t);
		json_decref(root);
	} else {
		json_decref(jk);
		if (max_px)
			printf("\nfor every key's %g%% interval to be %g%% of its mean wide: pexecs: %ld, iterations: %ld\n",
			       o.confidence * 100, width, max_px, max_it);
	}
	an_result_free(&r);
	ds_free(&ds);
	return 0;
}
