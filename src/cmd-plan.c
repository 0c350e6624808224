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
 * new pexec costs before its steady state: its start-up and teardown (the
 * median of a pexec's whole duration, start to reap, less its iterations),
 * kiln's own work between two pexecs, and the median time to steady state.
 * A pilot without pexec durations (a warmup_stats CSV, a Krun file without
 * ETAs) has the first iteration stand in for start-up, and says so.  The
 * optimal number of steady iterations per pexec is
 *   r1 = ceil(sqrt(c2 T1^2 / (c1 T2^2)))
 * and, with the mean's variance (T2^2 + T1^2 / r1) / r2, the pexecs for a
 * half-width h = PCT/200 * mean at confidence level C (z its normal quantile):
 *   r2 = ceil(z^2 (T2^2 + T1^2 / r1) / h^2)
 * When T2^2 is 0 (pexecs agree), r2 is set to 3 and r1 = ceil(z^2 T1^2 / (r2 h^2)).
 * The iterations to run are the 95th percentile of the steady-state
 * iteration (the warmup) plus r1, and at least what the warmup analysis
 * says a key warned too short needs to separate its warmup (an_key's
 * short_need, docs/analysis.md).  A drifting key has no steady state to
 * plan for, and says so.  The machine time is what the pexecs
 * cost, start-up included, per key and for the experiment as configured
 * (every key with the largest pexecs and iterations); past a day it is a
 * warning.  docs/kiln-plan.md has the details.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <jansson.h>

#include "analysis.h"
#include "analysis-robust.h"
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
		"  --key K            only keys matching K ('*' wildcards)\n" CMD_POOL_HELP AN_OPTS_HELP
		"\nThe machine time of what it proposes counts each pexec whole (start-up and\n"
		"teardown as the pilot's pexec durations say, kiln's time between pexecs); past\n"
		"a day it is a warning.\n",
	.exec = cmd_plan,
};

struct plan {
	int ok;
	const char *why;
	double mean, t1, t2, c1, c2;
	long r1, r2, iterations;
	long short_need; /* the key is too short: iterations the warmup analysis needs (-1: more than it tried), else 0 */
	double fixed;    /* seconds a pexec costs beside its iterations: start-up, teardown, kiln between pexecs */
	int measured;    /* fixed is from the pexecs' stored durations (0: the first iteration stands in) */
	double pexec_s;  /* one planned pexec (iterations of them), start-up included */
	double machine_s; /* r2 of them */
};

/* past this much machine time the plan is a warning: a day */
#define PLAN_WARN_S 86400.0

struct px_at {
	const char *machine;
	double start, end;
};

static int cmp_px_at(const void *a, const void *b)
{
	const struct px_at *x = a, *y = b;
	int c = strcmp(x->machine, y->machine);
	return c ? c : cmp_double(&x->start, &y->start);
}

/*
 * kiln's own time per pexec (platform checks, settling, storing, the
 * next spawn): the median gap between one pexec's end and the next one's
 * start on the same machine.  Gaps across sessions are few and the median
 * ignores them.  0 when the file has no start times.
 */
static double kiln_gap(const struct dataset *ds)
{
	size_t n = 0, cap = 0;
	struct px_at *v = NULL;
	for (size_t k = 0; k < ds->nkeys; k++)
		for (size_t i = 0; i < ds->keys[k].npexecs; i++) {
			const struct ds_pexec *p = &ds->keys[k].pexecs[i];
			if (!isfinite(p->start) || !isfinite(p->duration))
				continue;
			if (n == cap)
				v = xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));
			v[n++] = (struct px_at){ p->machine ? p->machine : "", p->start, p->start + p->duration };
		}
	double *gap = xmalloc((n ? n : 1) * sizeof(double));
	size_t ng = 0;
	if (n)
		qsort(v, n, sizeof(*v), cmp_px_at);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(v[i].machine, v[i - 1].machine) && v[i].start >= v[i - 1].end)
			gap[ng++] = v[i].start - v[i - 1].end;
	double g = ng ? an_percentile(gap, ng, 50) : 0;
	free(gap);
	free(v);
	return g;
}

/* what a pexec of k costs beside its iterations (p->fixed, p->measured) */
static void fixed_cost(const struct an_key *k, double gap, struct plan *p)
{
	double *rest = xmalloc((k->np ? k->np : 1) * sizeof(double)), first = 0;
	size_t nr = 0;
	for (size_t i = 0; i < k->np; i++) {
		const struct ds_pexec *dp = &k->key->pexecs[k->p[i].index];
		double iters = 0;
		for (size_t j = 0; j < dp->n; j++)
			iters += dp->wall[j];
		first += dp->n ? dp->wall[0] : 0;
		if (isfinite(dp->duration))
			rest[nr++] = dp->duration > iters ? dp->duration - iters : 0;
	}
	p->measured = nr > 0;
	p->fixed = nr ? an_percentile(rest, nr, 50) + gap : first / (double)(k->np ? k->np : 1);
	free(rest);
}

/* one pexec of k that runs iters iterations: its fixed cost and the pilot's mean time of each iteration (c1 past them) */
static double pexec_time(const struct an_key *k, const struct plan *p, long iters)
{
	double t = p->fixed;
	size_t longest = 0;
	for (size_t i = 0; i < k->np; i++)
		if (k->key->pexecs[k->p[i].index].n > longest)
			longest = k->key->pexecs[k->p[i].index].n;
	size_t upto = (size_t)iters < longest ? (size_t)iters : longest;
	for (size_t j = 0; j < upto; j++) {
		double sum = 0;
		size_t cnt = 0;
		for (size_t i = 0; i < k->np; i++) {
			const struct ds_pexec *dp = &k->key->pexecs[k->p[i].index];
			if (j < dp->n) {
				sum += dp->wall[j];
				cnt++;
			}
		}
		t += sum / (double)cnt;
	}
	return t + (double)(iters - (long)upto) * p->c1;
}

static struct plan plan_key(const struct an_key *k, const struct an_opts *o, double width_pct, double conf, double gap)
{
	struct plan p = { 0 };
	if (k->warn & AN_WARN_DRIFT) {
		p.why = "drifting: no steady state to plan for (see kiln report)";
		return p;
	}
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
	fixed_cost(k, gap, &p);
	/* an all-flat key has no time to steady state (null): none to wait for */
	p.c2 = (isnan(k->tts_med) ? 0 : k->tts_med) + p.fixed;
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
	/* and enough for the warmup analysis to separate a warmup it could not (too short) */
	if (k->warn & AN_WARN_SHORT) {
		p.short_need = k->short_need;
		if (k->short_need > p.iterations)
			p.iterations = k->short_need;
	}
	p.pexec_s = pexec_time(k, &p, p.iterations);
	p.machine_s = p.pexec_s * (double)p.r2;
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

/* what the plans of all keys add up to: the experiment to configure and its machine time */
struct plan_total {
	long pexecs, iterations; /* the largest over the keys */
	double machine_s;        /* every planned key run with them */
	size_t unmeasured;       /* keys whose start-up the first iteration stands in for */
};

static void plan_sum(const struct an_result *r, const struct plan *pl, struct plan_total *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < r->nkeys; i++)
		if (pl[i].ok) {
			if (pl[i].r2 > t->pexecs)
				t->pexecs = pl[i].r2;
			if (pl[i].iterations > t->iterations)
				t->iterations = pl[i].iterations;
			t->unmeasured += !pl[i].measured;
		}
	for (size_t i = 0; i < r->nkeys; i++)
		if (pl[i].ok)
			t->machine_s += (double)t->pexecs * pexec_time(&r->keys[i], &pl[i], t->iterations);
}

/* "3.4 weeks of machine time ..." when the experiment takes more than PLAN_WARN_S (NULL otherwise) */
static char *plan_warning(const struct plan_total *t)
{
	if (!(t->machine_s > PLAN_WARN_S))
		return NULL;
	struct strbuf d = STRBUF_INIT;
	fmt_duration(&d, t->machine_s);
	char *w = xasprintf("the experiment planned takes %s of machine time (%ld pexecs of %ld iterations per key)%s",
			    d.buf, t->pexecs, t->iterations,
			    t->machine_s > 14 * 86400.0 ? ": weeks; a wider --ci-width or fewer keys cut it" : "");
	sb_release(&d);
	return w;
}

static json_t *plan_key_json(const struct an_key *k, const struct plan *p)
{
	json_t *j = json_pack("{s:s,s:b}", "key", esc(ESC_JSON, k->key->key), "ok", p->ok);
	if (!p->ok) {
		json_object_set_new(j, "reason", json_string(p->why));
		return j;
	}
	json_object_set_new(j, "pexecs", json_integer(p->r2));
	json_object_set_new(j, "iterations", json_integer(p->iterations));
	json_object_set_new(j, "steady_iterations", json_integer(p->r1));
	json_object_set_new(j, "too_short", json_boolean(p->short_need != 0));
	json_object_set_new(j, "short_iterations_needed", p->short_need ? json_integer(p->short_need) : json_null());
	json_object_set_new(j, "mean", json_real(p->mean));
	json_object_set_new(j, "within_var", json_real(p->t1));
	json_object_set_new(j, "between_var", json_real(p->t2));
	json_object_set_new(j, "iteration_cost_s", json_real(p->c1));
	json_object_set_new(j, "pexec_cost_s", json_real(p->c2));
	json_object_set_new(j, "startup_s", json_real(p->fixed));
	json_object_set_new(j, "startup_from", json_string(p->measured ? "duration" : "first iteration"));
	json_object_set_new(j, "pexec_s", json_real(p->pexec_s));
	json_object_set_new(j, "machine_time_s", json_real(p->machine_s));
	return j;
}

static void plan_print_json(const char *input, double width, const struct an_opts *o, const struct an_result *r,
			    const struct plan *pl, const struct plan_total *t, double gap)
{
	json_t *jk = json_array();
	for (size_t i = 0; i < r->nkeys; i++)
		json_array_append_new(jk, plan_key_json(&r->keys[i], &pl[i]));
	json_t *root = json_pack("{s:s,s:f,s:f,s:f,s:o}", "pilot", input, "ci_width_pct", width, "confidence",
				 o->confidence, "kiln_gap_s", gap, "keys", jk);
	if (t->pexecs) {
		struct strbuf d = STRBUF_INIT;
		fmt_duration(&d, t->machine_s);
		char *w = plan_warning(t);
		json_object_set_new(root, "experiment",
				    json_pack("{s:I,s:I,s:f,s:s,s:o}", "pexecs", (json_int_t)t->pexecs, "iterations",
					      (json_int_t)t->iterations, "machine_time_s", t->machine_s, "machine_time",
					      d.buf, "warning", w ? json_string(w) : json_null()));
		free(w);
		sb_release(&d);
	}
	char *txt = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
	puts(txt);
	free(txt);
	json_decref(root);
}

static void plan_print_text(const struct an_opts *o, double width, const struct an_result *r, const struct plan *pl,
			    const struct plan_total *t)
{
	struct strbuf d = STRBUF_INIT;
	printf("%-34s %8s %10s %12s %12s %10s %14s  %s\n", "key", "pexecs", "iterations", "within sd", "between sd",
	       "s/pexec", "machine time", "(steady iterations per pexec)");
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct plan *p = &pl[i];
		const char *key = esc(ESC_TERM, r->keys[i].key->key);
		if (!p->ok) {
			printf("%-34s %8s %10s  cannot plan: %s\n", key, "-", "-", p->why);
			continue;
		}
		sb_reset(&d);
		fmt_duration(&d, p->machine_s);
		printf("%-34s %8ld %10ld %12.3g %12.3g %10.3g %14s  (%ld)%s\n", key, p->r2, p->iterations, sqrt(p->t1),
		       sqrt(p->t2), p->pexec_s, d.buf, p->r1, p->short_need ? "  too short: see below" : "");
	}
	if (t->pexecs) {
		sb_reset(&d);
		fmt_duration(&d, t->machine_s);
		printf("\nfor every key's %g%% interval to be %g%% of its mean wide: pexecs: %ld, iterations: %ld"
		       " (%s of machine time, start-up included)\n",
		       o->confidence * 100, width, t->pexecs, t->iterations, d.buf);
	}
	sb_release(&d);
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
	double gap = kiln_gap(&ds);
	struct plan *pl = xcalloc(r.nkeys + 1, sizeof(*pl));
	for (size_t i = 0; i < r.nkeys; i++)
		pl[i] = plan_key(&r.keys[i], &o, width, o.confidence, gap);
	struct plan_total t;
	plan_sum(&r, pl, &t);
	if (json)
		plan_print_json(input, width, &o, &r, pl, &t, gap);
	else
		plan_print_text(&o, width, &r, pl, &t);
	for (size_t i = 0; i < r.nkeys; i++) {
		if (!pl[i].short_need)
			continue;
		if (pl[i].short_need > 0)
			kiln_note("%s: the pilot is too short for the warmup analysis to separate its warmup (the first "
				  "iterations lie far above its steady state): %ld iterations per pexec would do, and the "
				  "plan asks at least that", esc(ESC_TERM, r.keys[i].key->key), pl[i].short_need);
		else
			kiln_note("%s: the pilot is too short for the warmup analysis to separate its warmup, and even "
				  "%d iterations per pexec would not: look at its plots", esc(ESC_TERM, r.keys[i].key->key),
				  ANR_SHORT_CAP);
	}
	if (t.unmeasured)
		kiln_note("%s has no pexec durations for %zu key(s) (an older results file, a warmup_stats CSV or a "
			  "Krun file without ETAs): their start-up is estimated by the first iteration",
			  input, t.unmeasured);
	char *w = plan_warning(&t);
	if (w)
		kiln_warn("%s", w);
	free(w);
	free(pl);
	an_result_free(&r);
	ds_free(&ds);
	return 0;
}
