/*
 * warmup.c - the warmup analysis against a corpus of exact truth (issue 26):
 * per shape (bench/warmup-corpus.h), KEYS keys of 10 pexecs x 200
 * iterations, analysed as `kiln report` analyses them (the default
 * options), and, as the baseline measured in the same run, with
 * --replicate-warmup-stats (warmup_stats' method).  Per shape it prints
 * what kiln answers: the keys' classes, the pexecs' classes, the steady
 * iteration against the true one, whether the key's steady interval
 * covers the true cost of a steady iteration (pauses included), the
 * warnings, and A/A: two sets of keys of the same shape compared as
 * `kiln diff` compares them (a class change, a steady verdict).  Then one
 * "ROW" line per target of the table, PASS or MISS.
 *
 *   warmup [KEYS] [SHAPE...]   (default 60 keys, every case)
 *
 * A SHAPE on the command line (synth.c's SHAPE:MEAN_US:K:F, and @N for N
 * iterations per pexec) runs that shape alone, printed but without
 * targets: for trying held-out cases.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "warmup-corpus.h"
#if __has_include("stats-warmup.h")
#include "stats-warmup.h"
#endif

#define PEXECS 10
#define ITERS 200

/* one case: a key's pexecs cycle through its shapes (mixed keys) */
struct kcase {
	const char *name;
	const char *shapes[3];
	size_t iters;
	enum an_class truth;   /* the key's class */
	unsigned warn;         /* warnings every key must carry (AN_WARN_*) */
	int also;              /* another class the target accepts (-1: none), where a pexec alone cannot always tell */
	double want_class;     /* target fraction of keys in their true class (0: none) */
	int check_cover;       /* target: the interval covers the true cost at its nominal rate */
	int check_aa;          /* target: A/A class change <= 5% */
};

static const struct kcase cases[] = {
	{ "flat", { "flat:10000:0:1" }, ITERS, AN_FLAT, 0, -1, 0.95, 1, 1 },
	{ "spikes 3% x2 (GC pauses)", { "spikes:10000:3:2" }, ITERS, AN_FLAT, 0, -1, 0.95, 1, 1 },
	{ "heavy tail (Pareto 2.5, 5%)", { "heavy:10000:25:0.05" }, ITERS, AN_FLAT, 0, -1, 0.95, 1, 1 },
	{ "AR(1) noise, phi 0.8", { "ar:10000:0:0.8" }, ITERS, AN_FLAT, 0, -1, 0.95, 1, 1 },
	{ "drift to x1.2", { "drift:10000:0:1.2" }, ITERS, AN_NO_STEADY, AN_WARN_DRIFT, -1, 0.95, 0, 1 },
	{ "warmup 30 its x2", { "warmup:10000:30:2" }, ITERS, AN_WARMUP, 0, -1, 0.95, 1, 1 },
	{ "warmup 40 its x1.05", { "warmup:10000:40:1.05" }, ITERS, AN_WARMUP, 0, -1, 0.95, 1, 1 },
	/* 1.5 sigma for 60 iterations: PELT's penalty sees it in about half the pexecs */
	{ "warmup 60 its x1.03", { "warmup:10000:60:1.03" }, ITERS, AN_WARMUP, 0, AN_GOOD_INCONSISTENT, 0.95, 1, 1 },
	{ "warmup 80 its x1.02", { "warmup:10000:80:1.02" }, ITERS, AN_WARMUP, 0, -1, 0, 0, 0 },
	{ "exponential warmup x2, 20 its", { "decay:10000:20:2" }, ITERS, AN_WARMUP, 0, -1, 0.95, 0, 1 },
	{ "slowdown at 60 x1.1", { "slowdown:10000:60:1.1" }, ITERS, AN_SLOWDOWN, 0, -1, 0.95, 1, 1 },
	{ "late change at 180 x1.1", { "slowdown:10000:180:1.1" }, ITERS, AN_NO_STEADY, 0, -1, 0.95, 0, 1 },
	{ "mixed flat + warmup", { "flat:10000:0:1", "warmup:10000:30:1.5" }, ITERS, AN_GOOD_INCONSISTENT, 0, -1,
	  0.95, 1, 1 },
	{ "mixed flat + slowdown", { "flat:10000:0:1", "slowdown:10000:100:1.5" }, ITERS, AN_BAD_INCONSISTENT, 0, -1,
	  0.95, 0, 1 },
	{ "Towers-like, 20 its", { "towers:600:250:1" }, 20, AN_WARMUP, AN_WARN_SHORT, -1, 0, 0, 0 },
	{ "Towers-like, 200 its", { "towers:600:250:1" }, ITERS, AN_WARMUP, 0, -1, 0.95, 0, 0 },
};

struct tally {
	size_t keys, key_right, key_cls[AN_NO_DATA + 1];
	size_t pexecs, pexec_right, pexec_cls[AN_NPCLASS];
	size_t iter_n, iter_exact;             /* pexecs of the true class with a true steady iteration */
	size_t cover_n, cover;                 /* keys with a steady interval and a true cost */
	double fig_sum;                        /* sum over those keys of perf_med / true cost */
	size_t warn[8];                        /* keys with each warning bit */
	size_t steady_no_drift;                /* keys printing a steady interval without a drift warning (drift) */
	size_t aa_n, aa_class, aa_verdict;     /* A/A: class change verdicts (kiln diff's), steady verdicts */
	size_t aa_class_raw;                   /* A/A: keys whose classes differ */
	size_t aa_wverdict;                    /* A/A: warmup verdicts (stats-warmup) */
};

static void make_key(struct dataset *ds, const struct kcase *c, uint64_t seed)
{
	char b[32];
	snprintf(b, sizeof(b), "k%llu", (unsigned long long)seed);
	struct ds_key *k = ds_add_key(ds, b, "vm", "default");
	size_t nsh = 0;
	while (nsh < 3 && c->shapes[nsh])
		nsh++;
	for (int p = 0; p < PEXECS; p++) {
		struct wc_shape sh;
		if (wc_parse(c->shapes[p % nsh], &sh)) {
			fprintf(stderr, "warmup: bad shape %s\n", c->shapes[p % nsh]);
			exit(2);
		}
		struct ds_pexec *px = ds_add_pexec(k, p);
		px->n = c->iters;
		px->wall = xmalloc(c->iters * sizeof(double));
		wc_series(&sh, seed * 1000 + (uint64_t)p, px->wall, c->iters);
	}
}

/* the true cost of a key's steady iteration: the mean over its pexecs' shapes */
static double true_cost(const struct kcase *c, size_t steady)
{
	size_t nsh = 0;
	while (nsh < 3 && c->shapes[nsh])
		nsh++;
	double s = 0;
	for (int p = 0; p < PEXECS; p++) {
		struct wc_shape sh;
		wc_parse(c->shapes[p % nsh], &sh);
		struct wc_truth t = wc_truth_of(&sh, c->iters, (long)steady);
		s += t.cost;
	}
	return s / PEXECS;
}

static void tally_key(const struct kcase *c, const struct an_key *k, const struct an_opts *o, struct tally *t)
{
	size_t nsh = 0;
	while (nsh < 3 && c->shapes[nsh])
		nsh++;
	size_t steady = o->steady_pct > 0 ? (size_t)floor((double)c->iters * o->steady_pct / 100) : (size_t)o->steady;
	t->keys++;
	t->key_cls[k->cls]++;
	/* the true class, with the warnings it must carry (drift: no steady state, and why) */
	t->key_right += (k->cls == c->truth || (int)k->cls == c->also) && (k->warn & c->warn) == c->warn;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		struct wc_shape sh;
		wc_parse(c->shapes[p->num % (long)nsh], &sh);
		struct wc_truth tr = wc_truth_of(&sh, c->iters, (long)steady);
		t->pexecs++;
		t->pexec_cls[p->cls]++;
		t->pexec_right += p->cls == tr.cls;
		if (p->cls == tr.cls && tr.steady_iter >= 0 && sh.kind != WC_TOWERS) {
			t->iter_n++;
			t->iter_exact += p->steady_iter == tr.steady_iter;
		}
	}
	double cost = true_cost(c, steady);
	if (k->has_steady && isfinite(cost)) {
		t->cover_n++;
		t->cover += k->perf_lo <= cost && cost <= k->perf_hi;
		t->fig_sum += k->perf_med / cost;
	}
	for (int b = 0; b < 8; b++)
		t->warn[b] += (k->warn >> b) & 1;
	if (c->warn & AN_WARN_DRIFT)
		t->steady_no_drift += k->has_steady && !(k->warn & AN_WARN_DRIFT);
}

static void tally_aa(const struct an_key *a, const struct an_key *b, const struct an_opts *o, struct tally *t)
{
	t->aa_n++;
	t->aa_class_raw += a->cls != b->cls;
#ifndef AN_WARMUP_VERDICTS
	t->aa_class += a->cls != b->cls; /* kiln diff's only class change: the column */
#endif
	struct an_ratio r = an_ratio_ci(a, b, o);
	int blocked = ((a->warn | b->warn) & AN_WARN_NO_VERDICT) != 0;
	t->aa_verdict += r.ok && !blocked && (r.hi < 1 || r.lo > 1);
#ifdef AN_WARMUP_VERDICTS
	struct sw_diff d;
	sw_diff_keys(a, b, o, &d);
	t->aa_wverdict += d.time.verdict == SW_MORE || d.time.verdict == SW_LESS || d.cost.verdict == SW_MORE ||
			  d.cost.verdict == SW_LESS;
	/* a class change as kiln diff gives it: a verdict of its own */
	t->aa_class += d.class_changed > 0;
#endif
}

static void run_case(const struct kcase *c, size_t nkeys, const struct an_opts *o, uint64_t salt, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	struct dataset da = { 0 }, db = { 0 };
	for (size_t i = 0; i < nkeys; i++) {
		make_key(&da, c, salt * 100003 + i);
		make_key(&db, c, salt * 100003 + 50000 + i);
	}
	for (size_t i = 0; i < nkeys; i++) {
		struct an_key a, b;
		an_analyse_key(&da.keys[i], o, &a);
		an_analyse_key(&db.keys[i], o, &b);
		tally_key(c, &a, o, t);
		tally_aa(&a, &b, o, t);
		an_key_free(&a);
		an_key_free(&b);
	}
	ds_free(&da);
	ds_free(&db);
}

/* the fewest covering keys of n that a 99% interval's coverage allows (one-sided binomial, 1%) */
static size_t cover_floor(size_t n, double nominal)
{
	double cum = 0;
	for (size_t c = 0; c <= n; c++) {
		double lp = lgamma((double)n + 1) - lgamma((double)c + 1) - lgamma((double)(n - c) + 1) +
			    (double)c * log(nominal) + (double)(n - c) * log1p(-nominal);
		cum += exp(lp);
		if (cum > 0.01)
			return c;
	}
	return n;
}

static void print_tally(const char *label, const struct tally *t)
{
	printf("  %-9s keys: %zu flat, %zu warmup, %zu slowdown, %zu no steady, %zu good inc, %zu bad inc",
	       label, t->key_cls[AN_FLAT], t->key_cls[AN_WARMUP], t->key_cls[AN_SLOWDOWN], t->key_cls[AN_NO_STEADY],
	       t->key_cls[AN_GOOD_INCONSISTENT], t->key_cls[AN_BAD_INCONSISTENT]);
	printf(" | pexecs right %zu/%zu (F %zu W %zu S %zu N %zu)\n", t->pexec_right, t->pexecs, t->pexec_cls[AN_FLAT],
	       t->pexec_cls[AN_WARMUP], t->pexec_cls[AN_SLOWDOWN], t->pexec_cls[AN_NO_STEADY]);
	printf("  %-9s steady iter exact %zu/%zu; interval covers true cost %zu/%zu, figure/true %.4f; "
	       "warn short %zu drift %zu; A/A of %zu: classes differ %zu, class change verdict %zu, steady verdict %zu, "
	       "warmup verdict %zu\n",
	       "", t->iter_exact, t->iter_n, t->cover, t->cover_n, t->cover_n ? t->fig_sum / (double)t->cover_n : NAN,
	       t->warn[0], t->warn[1], t->aa_n, t->aa_class_raw, t->aa_class, t->aa_verdict, t->aa_wverdict);
}

static void row(const char *what, double v, double base, const char *target, int pass)
{
	printf("ROW\t%s\t%.3f\twarmup_stats' method (--replicate-warmup-stats)\t%.3f\t%.3f\t%s\t%s\n", what, v, base,
	       base > 0 ? v / base : 0, target, pass ? "PASS" : "MISS");
}

static double frac(size_t a, size_t b)
{
	return b ? (double)a / (double)b : NAN;
}

static void rows(const struct kcase *c, const struct tally *t, const struct tally *ws, double nominal)
{
	char what[200];
	if (c->want_class > 0) {
		snprintf(what, sizeof(what), "%s: keys %s%s%s", c->name, an_class_name(c->truth), c->also >= 0 ? " or " : "",
			 c->also >= 0 ? an_class_name((enum an_class)c->also) : "");
		double v = frac(t->key_right, t->keys);
		char tg[32];
		snprintf(tg, sizeof(tg), ">= %.2f", c->want_class);
		row(what, v, frac(ws->key_right, ws->keys), tg, v >= c->want_class);
	}
	if (c->check_cover && t->cover_n) {
		snprintf(what, sizeof(what), "%s: %g%% interval covers the true cost", c->name, nominal * 100);
		size_t fl = cover_floor(t->cover_n, nominal);
		char tg[48];
		snprintf(tg, sizeof(tg), ">= %zu/%zu", fl, t->cover_n);
		row(what, frac(t->cover, t->cover_n), frac(ws->cover, ws->cover_n), tg, t->cover >= fl);
	}
	if (c->warn & AN_WARN_DRIFT) {
		snprintf(what, sizeof(what), "%s: keys with a steady interval and no drift warning", c->name);
		row(what, frac(t->steady_no_drift, t->keys), frac(ws->steady_no_drift, ws->keys), "0", !t->steady_no_drift);
	}
	if (c->warn & AN_WARN_SHORT) {
		snprintf(what, sizeof(what), "%s: keys warned too short", c->name);
		row(what, frac(t->warn[0], t->keys), frac(ws->warn[0], ws->keys), ">= 0.95",
		    frac(t->warn[0], t->keys) >= 0.95);
		snprintf(what, sizeof(what), "%s: A/A steady verdicts", c->name);
		row(what, frac(t->aa_verdict, t->aa_n), frac(ws->aa_verdict, ws->aa_n), "0", !t->aa_verdict);
	}
	if (c->check_aa) {
		snprintf(what, sizeof(what), "%s: A/A class change verdicts", c->name);
		row(what, frac(t->aa_class, t->aa_n), frac(ws->aa_class, ws->aa_n), "<= 0.05",
		    frac(t->aa_class, t->aa_n) <= 0.05);
	}
}

/* kiln diff of A keys against B keys of another shape: how often each warmup verdict fires */
struct dtally {
	size_t n, longer, costlier, class_changed, steady_verdict;
};

static void run_diff(const char *sa, const char *sb, size_t nkeys, const struct an_opts *o, struct dtally *t)
{
	memset(t, 0, sizeof(*t));
	struct kcase ca = { sa, { sa }, ITERS, AN_FLAT, 0, -1, 0, 0, 0 }, cb = { sb, { sb }, ITERS, AN_FLAT, 0, -1, 0, 0, 0 };
	struct dataset da = { 0 }, db = { 0 };
	for (size_t i = 0; i < nkeys; i++) {
		make_key(&da, &ca, 900001 + i);
		make_key(&db, &cb, 950001 + i);
	}
	for (size_t i = 0; i < nkeys; i++) {
		struct an_key a, b;
		an_analyse_key(&da.keys[i], o, &a);
		an_analyse_key(&db.keys[i], o, &b);
		t->n++;
		struct an_ratio r = an_ratio_ci(&a, &b, o);
		t->steady_verdict += r.ok && (r.hi < 1 || r.lo > 1);
#ifdef AN_WARMUP_VERDICTS
		struct sw_diff d;
		sw_diff_keys(&a, &b, o, &d);
		t->longer += d.time.verdict == SW_MORE;
		t->costlier += d.cost.verdict == SW_MORE;
		t->class_changed += d.class_changed > 0;
#else
		t->class_changed += a.cls != b.cls;
#endif
		an_key_free(&a);
		an_key_free(&b);
	}
	ds_free(&da);
	ds_free(&db);
}

int main(int argc, char **argv)
{
	size_t nkeys = argc > 1 ? (size_t)atol(argv[1]) : 60;
	struct an_opts o, ow;
	an_opts_default(&o);
	o.threads = 1;
	ow = o;
	ow.replicate = 1;
	ow.delta = 0.001;
	ow.delta_pct = 0;
	double t0 = (double)clock() / CLOCKS_PER_SEC;
	if (argc > 2) {
		for (int a = 2; a < argc; a++) {
			/* SHAPE or SHAPE@ITERATIONS */
			char *at = strchr(argv[a], '@');
			size_t iters = at ? (size_t)atol(at + 1) : ITERS;
			if (at)
				*at = '\0';
			struct kcase c = { argv[a], { argv[a] }, iters, AN_FLAT, 0, -1, 0, 0, 0 };
			struct wc_shape sh;
			if (wc_parse(argv[a], &sh) || iters < 2) {
				fprintf(stderr, "warmup: bad shape %s\n", argv[a]);
				return 2;
			}
			c.truth = wc_truth_of(&sh, iters, (long)iters / 4).cls;
			struct tally t, tw;
			run_case(&c, nkeys, &o, (uint64_t)a, &t);
			run_case(&c, nkeys, &ow, (uint64_t)a, &tw);
			printf("%s (truth: %s)\n", c.name, an_class_name(c.truth));
			print_tally("kiln", &t);
			print_tally("w_s", &tw);
		}
		return 0;
	}
	printf("warmup analysis corpus: %zu keys per shape, %d pexecs x %d iterations (Towers-like: 20), "
	       "default options and --replicate-warmup-stats\n", nkeys, PEXECS, ITERS);
	struct tally t[ARRAY_SIZE(cases)], tw[ARRAY_SIZE(cases)];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		run_case(&cases[i], nkeys, &o, i + 1, &t[i]);
		run_case(&cases[i], nkeys, &ow, i + 1, &tw[i]);
		printf("%s (truth: %s)\n", cases[i].name, an_class_name(cases[i].truth));
		print_tally("kiln", &t[i]);
		print_tally("w_s", &tw[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		rows(&cases[i], &t[i], &tw[i], o.confidence);
	/* kiln diff's warmup verdicts: none on A/A (two 99% intervals per key: <= 2%), and a new warmup seen */
	size_t aa = 0, alarms = 0, aaw = 0, alarmsw = 0;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		aa += t[i].aa_n;
		alarms += t[i].aa_wverdict;
		aaw += tw[i].aa_n;
		alarmsw += tw[i].aa_wverdict;
	}
	row("every shape: A/A warmup verdicts (time to steady or warmup cost)", frac(alarms, aa), frac(alarmsw, aaw),
	    "<= 0.02", frac(alarms, aa) <= 0.02);
	struct dtally dt, dw;
	run_diff("flat:10000:0:1", "warmup:10000:39:2", nkeys, &o, &dt);
	run_diff("flat:10000:0:1", "warmup:10000:39:2", nkeys, &ow, &dw);
	printf("diff flat -> warmup (+390 ms to steady): longer %zu/%zu, costs more %zu, class changed %zu, "
	       "steady verdict %zu (warmup_stats' method: %zu, %zu, %zu, %zu)\n",
	       dt.longer, dt.n, dt.costlier, dt.class_changed, dt.steady_verdict, dw.longer, dw.costlier,
	       dw.class_changed, dw.steady_verdict);
	row("diff flat -> warmup (+390 ms): 'warmup longer' verdicts", frac(dt.longer, dt.n), frac(dw.longer, dw.n),
	    ">= 0.95", frac(dt.longer, dt.n) >= 0.95);
	row("diff flat -> warmup (+390 ms): class change verdicts", frac(dt.class_changed, dt.n),
	    frac(dw.class_changed, dw.n), ">= 0.95", frac(dt.class_changed, dt.n) >= 0.95);
	printf("CPU time %.1f s\n", (double)clock() / CLOCKS_PER_SEC - t0);
	return 0;
}
