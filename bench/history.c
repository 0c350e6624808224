/*
 * bench/history.c - the accuracy of kiln's change-point detection on a
 * real VM's history (issue 29's targets), made the way Otava's authors
 * made theirs: known changes injected into real series.
 *
 *   build/bench/history CORPUS.history.db OUTDIR [TRIALS] [SEED]
 *
 * CORPUS is a history kiln track measured (bench/history/corpus.sh: 200
 * commits of PUC Lua x 12 benchmarks x 10 pexecs).  Per key:
 *  - raw: the series as measured; its alarms, and those the data put
 *    between two same-binary commits (known false: A/A);
 *  - null: the series with the level changes a sensitive segmentation
 *    finds taken out (each segment brought to the first's level; a
 *    segment of one or two commits too: a change and its revert), so
 *    that what is left is the real noise: sessions, drift, outliers;
 *  - steps: per trial, one multiplicative step (2%, 5%, 10% in turn, up
 *    or down) into each null series at a random commit at least 10 from
 *    either end whose binary changed (a commit that only changed tests
 *    cannot change the VM's speed), all later commits' pexecs scaled;
 *  - warmup: every pexec given a JIT-like warm-up (its first 6 iterations
 *    2.0x to 1.17x slower; Lua, an interpreter, has none), stretched to 12
 *    iterations from a random commit on (2x the time to steady state),
 *    and every pexec analysed again.
 * kiln's detections and the injected series (one value per commit: the
 * mean of its pexecs' steady means, with its 99% interval for asv's
 * weights) go to OUTDIR as CSV for bench/history/baselines.py, which runs
 * asv's and Otava's detectors and a Perfherder t-test on the same series
 * and scores all four.  This program prints kiln's own figures as ROW lines.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "dataset.h"
#include "history-ab.h"
#include "history-bisect.h"
#include "history-detect.h"
#include "history-int.h"
#include "history-power.h"
#include "history.h"
#include "stats-robust.h"
#include "store.h"

#define MAXK 64

/*
 * kiln's detection as every measurement here runs it: NULL (its defaults),
 * or with HISTORY_NO_CAP=1 the method before the cap on far points, so
 * that a before and an after are measured on the same null series
 */
static const struct hist_detect_opts *kopts;
static struct hist_detect_opts kopts_nocap;

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static double runif(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static void scale_from(struct hist_series *s, size_t k, double f)
{
	for (size_t i = k; i < s->n; i++)
		for (size_t j = 0; j < s->p[i].n; j++) {
			s->p[i].steady[j] *= f;
			s->p[i].tts[j] *= f;
		}
}

#define NULL_ALIGN_PASSES 10

/* the level changes a sensitive segmentation finds (short ones too), taken out: the real noise left */
static void null_align(struct hist_series *s)
{
	struct hist_detect_opts o;
	hist_detect_opts_default(&o);
	o.beta = 8;
	o.min_change[HIST_STEADY] = 0;
	o.keep_short = 1; /* a change and its revert a commit or two later is a level change too, not noise */
	/*
	 * the steady series only: a warm-up cost change's levels are asinh(cost), not log(time), and
	 * scaling the steady figures by them (as before 2026-12-04) grew a level each pass, 1,800x by the
	 * tenth, on a corpus whose noisy pexecs made its cost series split
	 */
	o.skip = ~(1u << HIST_STEADY);
	/*
	 * again until none is found: each pass's session sd is smaller for the changes taken out before it.
	 * First without the cap on far points (a short excursion is a level change here), then with it: a far
	 * point inflates the series' dispersion and can hide a level change from the uncapped segmentation
	 * (the busy 200's spectral_norm kept a 24% step at its two sessions' seam until 2026-12-05)
	 */
	for (int cap = 0; cap < 2; cap++) {
		o.no_cap = !cap;
		for (int pass = 0; pass < NULL_ALIGN_PASSES; pass++) {
			struct hist_change *ch;
			size_t n;
			history_detect(s, &o, &ch, &n, NULL);
			for (size_t c = 0; c < n; c++)
				scale_from(s, ch[c].at, exp(ch[c].level_before - ch[c].level_after));
			free(ch);
			if (!n)
				break;
		}
	}
}

/* the median 99% half-width of the commits' steady means, relative (what T1's condition reads) */
static double median_halfwidth(const struct hist_series *s)
{
	double *h = xmalloc((s->n + 1) * sizeof(double));
	size_t m = 0;
	for (size_t i = 0; i < s->n; i++) {
		double y, u;
		if (hist_point_value(&s->p[i], HIST_STEADY, &y, &u))
			h[m++] = expm1(2.5758 * sqrt(u));
	}
	double r = m ? an_percentile(h, m, 50) : NAN;
	free(h);
	return r;
}

/* p's per-pexec figures (p's arrays hold k's pexecs) from kiln's analysis of k */
static void point_from_key(struct hist_point *p, const struct ds_key *k, const struct an_opts *o)
{
	struct an_key ak;
	memset(&ak, 0, sizeof(ak));
	an_analyse_key(k, o, &ak);
	p->n = 0;
	memset(p->counts, 0, sizeof(p->counts));
	for (size_t j = 0; j < ak.np; j++) {
		p->steady[p->n] = ak.p[j].steady_mean;
		p->tts[p->n] = ak.p[j].time_to_steady;
		p->cost[p->n] = ak.p[j].warmup_cost;
		p->cls[p->n] = (unsigned char)ak.p[j].cls;
		p->n++;
	}
	an_key_free(&ak);
}

/*
 * A commit at least 10 from either end whose binary is not its
 * predecessor's: where a real change can be (a commit that changed only
 * tests builds the same VM); n when the series has none.
 */
static size_t pick_site(const struct hist_series *s)
{
	size_t cand[4096], m = 0;
	for (size_t i = 10; i + 10 < s->n && m < 4096; i++)
		if (s->p[i].built && !s->p[i].same_as_prev)
			cand[m++] = i;
	return m ? cand[rnd() % m] : s->n;
}

/* one commit's relative 99% half-width */
static double point_halfwidth(const struct hist_point *p)
{
	double y, u;
	return hist_point_value(p, HIST_STEADY, &y, &u) ? expm1(2.5758 * sqrt(u)) : NAN;
}

/* the series' values for the baselines: per commit the mean steady time and its 99% interval */
static void write_series(FILE *f, const char *kind, int trial, size_t key, const struct hist_series *s, size_t truth)
{
	for (size_t i = 0; i < s->n; i++) {
		double y, u;
		if (!hist_point_value(&s->p[i], HIST_STEADY, &y, &u))
			continue;
		double sd = sqrt(u);
		fprintf(f, "%s,%d,%zu,%zu,%.9g,%.9g,%.9g,%d\n", kind, trial, key, i, exp(y), exp(y - 2.5758 * sd),
			exp(y + 2.5758 * sd), i == truth);
	}
}

static void write_changes(FILE *f, const char *kind, int trial, size_t key, const struct hist_change *ch, size_t n,
			  enum hist_what w)
{
	for (size_t c = 0; c < n; c++)
		if (ch[c].what == w)
			fprintf(f, "%s,%d,%zu,%zu,%zu,%zu,%.6f\n", kind, trial, key, ch[c].at, ch[c].lo, ch[c].hi,
				ch[c].ratio);
}

struct score {
	long inj, found, exact, within2, alarms, false_alarms, points;
	long inj_tight, found_tight; /* injections where the commit's 99% half-width <= 1% */
	long ranged_tight;           /* of those missed, an alarm of the right sign whose range holds the injection */
	long far_tight;              /* of those missed, an alarm of the right sign within 10 commits, its range short */
};

/* score the changes of series w against one injection at k (k = SIZE_MAX: none) */
static void score(struct score *sc, const struct hist_change *ch, size_t n, enum hist_what w, size_t k, int tight,
		  double sign, size_t points)
{
	int hit = 0;
	sc->points += (long)points;
	for (size_t c = 0; c < n; c++) {
		if (ch[c].what != w)
			continue;
		sc->alarms++;
		long d = k == (size_t)-1 ? 1000 : (long)ch[c].at - (long)k;
		if (!hit && labs(d) <= 2) {
			hit = 1;
			sc->within2++;
			sc->exact += d == 0;
		} else {
			sc->false_alarms++;
		}
	}
	/* a miss by place: the step found, its range (where the data cannot tell the commits apart) holding it or not */
	int ranged = 0, far = 0;
	for (size_t c = 0; !hit && k != (size_t)-1 && c < n; c++)
		if (ch[c].what == w && (ch[c].ratio - 1) * sign > 0 && labs((long)ch[c].at - (long)k) <= 10) {
			ranged |= ch[c].lo <= k && k <= ch[c].hi;
			far = 1;
		}
	if (k != (size_t)-1) {
		sc->ranged_tight += tight && ranged;
		sc->far_tight += tight && far && !ranged;
		sc->inj++;
		sc->found += hit;
		sc->inj_tight += tight;
		sc->found_tight += hit && tight;
	}
}

/* ---- warm-up injection: raw iterations re-analysed ---- */

struct raw {
	struct dataset *ds;   /* per point of the series: its run's dataset (NULL: none) */
	size_t n;
};

static void load_raw(struct history *h, const struct hist_series *s, struct raw *r)
{
	r->n = s->n;
	r->ds = xcalloc(s->n + 1, sizeof(*r->ds));
	for (size_t i = 0; i < s->n; i++) {
		struct kerr e = KERR_INIT;
		if (s->p[i].built && history_load_run(h, s->p[i].run_id, &r->ds[i], &e) < 0)
			fprintf(stderr, "history: run %ld: %s\n", s->p[i].run_id, sb_str(&e.msg));
		kerr_release(&e);
	}
}

/*
 * Point i of s made again from the raw iterations of key: each pexec given
 * a warm-up of `len` iterations (factor 2.0 falling linearly to 1 + 1/len),
 * then analysed.
 */
static void rewarm_point(struct hist_point *p, const struct dataset *ds, const char *key, size_t len,
			 const struct an_opts *o, int cpu)
{
	const struct ds_key *kr = ds_find_key(ds, key);
	if (!kr)
		return;
	/* on the history's clock */
	struct ds_key kc;
	history_clock_key(kr, cpu, &kc);
	const struct ds_key *k0 = &kc;
	struct ds_key k = *k0;
	k.pexecs = xcalloc(k0->npexecs + 1, sizeof(*k.pexecs));
	for (size_t j = 0; j < k0->npexecs; j++) {
		k.pexecs[j] = k0->pexecs[j];
		k.pexecs[j].wall = xmalloc((k0->pexecs[j].n + 1) * sizeof(double));
		for (size_t i = 0; i < k0->pexecs[j].n; i++) {
			double f = i < len ? 1.0 + (double)(len - i) / (double)len : 1.0;
			k.pexecs[j].wall[i] = k0->pexecs[j].wall[i] * f;
		}
	}
	point_from_key(p, &k, o);
	for (size_t j = 0; j < k0->npexecs; j++)
		free(k.pexecs[j].wall);
	free(k.pexecs);
	history_clock_release(&kc, cpu);
}


/* ---- bisection, simulated over the stored pexecs ---- */

/*
 * An interleaved A/B round cancels what the machine did between the two
 * sessions: a round's log ratio is the level difference plus the
 * difference of two pexecs' own deviations from their commit's mean,
 * drawn from the key's real deviations (every pexec of the corpus).
 */
struct simbis {
	const double *res;    /* deviations of log steady means from their commit's trimmed mean */
	size_t nres;
	const double *pair;   /* real interleaved rounds' log ratios less their session's mean (NULL: none) */
	size_t npair;
	size_t culprit;       /* first commit of the new level (0: none) */
	double step;          /* its log size */
	double smooth;        /* > 0: a normal kernel of this sd added to each drawn round (smoothed bootstrap) */
	const struct local_noise *local; /* non-NULL: each compared commit's own pexecs' noise (local model) */
	size_t ncommits;      /* the simulated commits, mapped onto the series' points by the local model */
	size_t builds;
};

/*
 * The local model: the noise of each commit's own pexecs.  A key's
 * per-process spread is not one figure over a history: a commit can put
 * a benchmark's objects where every process lands in one of a few modes
 * (hashmap on the fifth Lua corpus: pexecs' sd 1.2-2.4% over its first 90
 * commits, 7.1% over its last 10, where the A/A rounds were measured).
 * Per series point, the deviations of the log steady means of it and its
 * built neighbours within +-2 from their own commits' trimmed means,
 * scaled by sqrt(m / (m - 1)) (a deviation from m values' own centre is
 * that much narrower than the pexec's noise).  A round is then the
 * difference of one drawn deviation of each side: unpaired, so what the
 * machine did between two pexecs is not cancelled (on the quiet corpus a
 * real round's sd was sqrt(2) times its pexecs' within 0.1 points:
 * interleaving cancelled next to nothing there).
 */
struct local_noise {
	double **dev;
	size_t *ndev, npoints;
};

static void local_noise_make(const struct hist_series *s, struct local_noise *ln)
{
	ln->npoints = s->n;
	ln->dev = xcalloc(s->n + 1, sizeof(double *));
	ln->ndev = xcalloc(s->n + 1, sizeof(size_t));
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = i >= 2 ? i - 2 : 0; j <= i + 2 && j < s->n; j++) {
			double y, u;
			const struct hist_point *p = &s->p[j];
			if (!hist_point_value(p, HIST_STEADY, &y, &u) || p->n < 3)
				continue;
			double f = sqrt((double)p->n / (double)(p->n - 1));
			for (size_t q = 0; q < p->n; q++)
				if (p->steady[q] > 0) {
					ln->dev[i] = xrealloc(ln->dev[i], (ln->ndev[i] + 1) * sizeof(double));
					ln->dev[i][ln->ndev[i]++] = f * (log(p->steady[q]) - y);
				}
		}
	}
}

static void local_noise_free(struct local_noise *ln)
{
	for (size_t i = 0; i < ln->npoints; i++)
		free(ln->dev[i]);
	free(ln->dev);
	free(ln->ndev);
}

/* one drawn deviation of simulated commit i (of n), from the series point it maps to (0 without any) */
static double local_draw(const struct local_noise *ln, size_t i, size_t n)
{
	size_t at = n > 0 ? (size_t)((double)i * (double)ln->npoints / (double)n) : 0;
	if (at >= ln->npoints)
		at = ln->npoints - 1;
	/* a point without pexecs (a failed build) takes the nearest that has them */
	for (size_t d = 0; d < ln->npoints; d++) {
		if (at >= d && ln->ndev[at - d])
			return ln->dev[at - d][rnd() % ln->ndev[at - d]];
		if (at + d < ln->npoints && ln->ndev[at + d])
			return ln->dev[at + d][rnd() % ln->ndev[at + d]];
	}
	return 0;
}

static double gauss(void);

static int sb_build(void *ctx, size_t i, struct kerr *e)
{
	(void)e;
	(void)i;
	((struct simbis *)ctx)->builds++;
	return 0;
}

static int sb_measure(void *ctx, size_t a, size_t b, bisect_more_fn more, void *mctx, struct kerr *e)
{
	struct simbis *s = ctx;
	(void)e;
	double *d = NULL;
	size_t n = 0, k;
	while ((k = more(mctx, d, n, n)) > 0 && n < 10000) {
		d = xrealloc(d, (n + k) * sizeof(double));
		for (size_t i = 0; i < k; i++) {
			double la = s->culprit && a >= s->culprit ? s->step : 0, lb = s->culprit && b >= s->culprit ? s->step : 0;
			/* a round of two like pexecs is symmetric about its centre: either sign is as likely */
			double noise = s->local ? local_draw(s->local, b, s->ncommits) - local_draw(s->local, a, s->ncommits)
				       : s->npair ? (rnd() & 1 ? 1 : -1) * s->pair[rnd() % s->npair]
						  : s->res[rnd() % s->nres] - s->res[rnd() % s->nres];
			if (s->smooth > 0)
				noise += s->smooth * gauss();
			d[n++] = lb - la + noise;
		}
	}
	free(d);
	return 0;
}

/*
 * The noise of a real interleaved round: every stored A/B session of the
 * key (kiln bisect's, kiln track --compare's, an A/A compare's), each
 * round's log ratio less its session's mean.  Rounds of one session ran
 * side by side, so what the machine did cancels in them as it does in a
 * bisection; two track pexecs drawn apart would not.
 */
static size_t paired_residuals(struct history *h, long machine, const char *key, double **out)
{
	*out = NULL;
	size_t n = 0;
	sqlite3_stmt *st = history_prepare(h, "SELECT x.session, px.num, fx.steady_mean, fy.steady_mean FROM runs x"
					      " JOIN runs y ON y.session = x.session AND y.id > x.id"
					      " JOIN pexecs px ON px.run_id = x.id JOIN pexecs py ON py.run_id = y.id AND"
					      " py.num = px.num AND py.key_id = px.key_id JOIN keys k ON k.id = px.key_id"
					      " JOIN figures fx ON fx.pexec_id = px.id JOIN figures fy ON fy.pexec_id = py.id"
					      " WHERE x.kind = 'ab' AND x.machine_id = ? AND"
					      " k.bench || ':' || k.vm || ':' || k.variant = ? ORDER BY x.session", NULL);
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, machine);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	char *cur = NULL;
	size_t from = 0;
	for (int more = 1; more;) {
		more = sqlite3_step(st) == SQLITE_ROW;
		const char *sess = more ? (const char *)sqlite3_column_text(st, 0) : NULL;
		if (cur && (!more || !sess || strcmp(sess, cur))) {
			/*
			 * a session ends: its rounds less their centre (Huber's, as
			 * bisect's tests take it: a mean pulled by one slow round
			 * would leave the others off centre by its share)
			 */
			double c, sd;
			robust_huber(*out + from, n - from, ROBUST_HUBER_K, &c, &sd, NULL);
			for (size_t i = from; i < n; i++)
				(*out)[i] -= c;
			from = n;
			free(cur);
			cur = NULL;
		}
		if (!more)
			break;
		double a = history_col_double(st, 2), b = history_col_double(st, 3);
		if (!(a > 0 && b > 0) || !sess)
			continue;
		if (!cur)
			cur = xstrdup(sess);
		*out = xrealloc(*out, (n + 1) * sizeof(double));
		(*out)[n++] = log(b / a);
	}
	free(cur);
	sqlite3_finalize(st);
	return n;
}

/* the sd of n logs */
static double log_sd(const double *x, size_t n)
{
	double sum = 0, ss = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (x[i] > 0) {
			sum += log(x[i]);
			ss += log(x[i]) * log(x[i]);
			m++;
		}
	return m > 1 ? sqrt(fmax(0, (ss - sum * sum / (double)m) / (double)(m - 1))) : NAN;
}

/* the median over a series' points of the sd of their pexecs' log steady means */
static double series_pexec_sd(const struct hist_series *s)
{
	double *v = xmalloc((s->n + 1) * sizeof(double));
	size_t m = 0;
	for (size_t i = 0; i < s->n; i++) {
		double sd = s->p[i].built && s->p[i].n > 2 ? log_sd(s->p[i].steady, s->p[i].n) : NAN;
		if (isfinite(sd))
			v[m++] = sd;
	}
	double r = m ? an_percentile(v, m, 50) : NAN;
	free(v);
	return r;
}

/* the same over the A/B sessions' runs (each side of each session its own group), their mean */
static double ab_pexec_sd(struct history *h, long machine, const char *key)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT p.run_id, f.steady_mean FROM runs r JOIN pexecs p ON p.run_id = r.id"
					      " JOIN keys k ON k.id = p.key_id JOIN figures f ON f.pexec_id = p.id"
					      " WHERE r.kind = 'ab' AND r.machine_id = ? AND"
					      " k.bench || ':' || k.vm || ':' || k.variant = ? ORDER BY p.run_id", NULL);
	if (!st)
		return NAN;
	sqlite3_bind_int64(st, 1, machine);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	double *x = NULL, sum = 0;
	size_t n = 0, groups = 0;
	long cur = -1;
	for (int more = 1; more;) {
		more = sqlite3_step(st) == SQLITE_ROW;
		long run = more ? sqlite3_column_int64(st, 0) : -2;
		if (run != cur && n) {
			double sd = log_sd(x, n);
			if (isfinite(sd)) {
				sum += sd;
				groups++;
			}
			n = 0;
		}
		cur = run;
		if (more) {
			x = xrealloc(x, (n + 1) * sizeof(double));
			x[n++] = history_col_double(st, 1);
		}
	}
	free(x);
	sqlite3_finalize(st);
	return groups ? sum / (double)groups : NAN;
}

/* every pexec's log steady mean less its commit's trimmed mean, of one series */
static size_t residuals(const struct hist_series *s, double **out)
{
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < s->n; i++) {
		double y, u;
		if (!hist_point_value(&s->p[i], HIST_STEADY, &y, &u))
			continue;
		for (size_t j = 0; j < s->p[i].n; j++)
			if (s->p[i].steady[j] > 0) {
				*out = xrealloc(*out, (n + 1) * sizeof(double));
				(*out)[n++] = log(s->p[i].steady[j]) - y;
			}
	}
	return n;
}

struct bis_tally {
	long right, found, over, inj, aa, aa_named, rounds;
	long kright[MAXK], kinj[MAXK], kwrong[MAXK]; /* kwrong: a culprit named, not the injected one */
	long off1;                                    /* of those, the named commit next to the injected one */
	size_t worst;
	size_t *kneed[MAXK], knneed[MAXK]; /* the caps undecided searches named (bisect_rounds_needed), per key */
	long krounds[MAXK], kn[MAXK];      /* rounds of the key's bisections, and their count */
	size_t *each, neach;               /* every bisection's rounds */
};

/* trials x keys bisections over the stored noise: a 2% step at a random commit, or (every third) none */
static void bisect_trials(const struct bisect_opts *o, double **pair, const size_t *npair, const double *smooth,
			  const struct local_noise *local, const struct hist_series *base, size_t nk, size_t ncommits,
			  int trials, size_t lg, struct bis_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (int tr = 0; tr < trials; tr++) {
		for (size_t k = 0; k < nk && k < MAXK; k++) {
			struct simbis sb = { 0 };
			sb.nres = residuals(&base[k], (double **)&sb.res);
			sb.pair = pair[k];
			sb.npair = npair[k];
			sb.smooth = smooth[k];
			sb.local = local ? &local[k] : NULL;
			sb.ncommits = ncommits;
			if (sb.nres < 20) {
				free((void *)sb.res);
				continue;
			}
			int is_aa = tr % 3 == 2;
			sb.culprit = is_aa ? 0 : 1 + (size_t)(runif() * (double)(ncommits - 1));
			sb.step = log(rnd() & 1 ? 1.02 : 1 / 1.02);
			struct bisect_ops ops = { &sb, sb_build, sb_measure, NULL, NULL };
			struct bisect_result r;
			struct kerr e = KERR_INIT;
			bisect_run(ncommits, o, &ops, &r, &e);
			t->rounds += (long)r.rounds;
			t->krounds[k] += (long)r.rounds;
			t->kn[k]++;
			t->each = xrealloc(t->each, (t->neach + 1) * sizeof(size_t));
			t->each[t->neach++] = r.rounds;
			if (r.rounds_needed) {
				t->kneed[k] = xrealloc(t->kneed[k], (t->knneed[k] + 1) * sizeof(size_t));
				t->kneed[k][t->knneed[k]++] = r.rounds_needed;
			}
			if (is_aa) {
				t->aa++;
				t->aa_named += r.outcome == BISECT_FOUND;
			} else {
				int ok = r.outcome == BISECT_FOUND && r.culprit == sb.culprit;
				t->inj++;
				t->found += r.outcome == BISECT_FOUND;
				t->right += ok;
				t->kinj[k]++;
				t->kright[k] += ok;
				if (r.outcome == BISECT_FOUND && !ok) {
					t->kwrong[k]++;
					t->off1 += r.culprit + 1 == sb.culprit || r.culprit == sb.culprit + 1;
				}
				t->over += r.builds > lg + 2;
				t->worst = r.builds > t->worst ? r.builds : t->worst;
			}
			bisect_result_free(&r);
			free((void *)sb.res);
		}
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* the median cap key k's undecided searches named, and how many named one */
static void print_needed(struct bis_tally *t, size_t k)
{
	if (!t->knneed[k])
		return;
	qsort(t->kneed[k], t->knneed[k], sizeof(size_t), cmp_size);
	size_t m = t->kneed[k][t->knneed[k] / 2];
	if (m == SIZE_MAX)
		printf(" [%zu undecided, median cap named: beyond any]", t->knneed[k]);
	else
		printf(" [%zu undecided, median cap named %zu]", t->knneed[k], m);
}

static void tally_free(struct bis_tally *t)
{
	for (size_t k = 0; k < MAXK; k++)
		free(t->kneed[k]);
	free(t->each);
}

/* the q quantile of a bisection's rounds (the lower order statistic) */
static size_t rounds_quantile(struct bis_tally *t, double q)
{
	if (!t->neach)
		return 0;
	qsort(t->each, t->neach, sizeof(size_t), cmp_size);
	return t->each[(size_t)(q * (double)(t->neach - 1))];
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void bisect_bench(struct history *h, long machine, const struct strvec *keys, const struct hist_series *base,
			 size_t nk, size_t ncommits, int trials)
{
	size_t paired_keys = 0;
	double **pair = xcalloc(nk + 1, sizeof(double *));
	size_t *npair = xcalloc(nk + 1, sizeof(size_t));
	for (size_t k = 0; k < nk; k++) {
		npair[k] = paired_residuals(h, machine, keys->v[k], &pair[k]);
		if (npair[k] < 10)
			npair[k] = 0; /* too few: the independent pexecs' noise, which interleaving would cancel in part */
		paired_keys += npair[k] > 0;
	}
	/*
	 * HISTORY_BISECT_SMOOTH=1: a smoothed bootstrap (Silverman's bandwidth
	 * 0.9 min(sd, IQR / 1.349) m^-1/5 over the m signed stored rounds).
	 * About 21 stored rounds a key give draws with ties that real rounds
	 * do not have, and a small look's MAD can collapse on them
	 */
	double *smooth = xcalloc(nk + 1, sizeof(double));
	int smoothed = getenv("HISTORY_BISECT_SMOOTH") && atoi(getenv("HISTORY_BISECT_SMOOTH")) > 0;
	for (size_t k = 0; smoothed && k < nk; k++) {
		if (!npair[k])
			continue;
		double ss = 0, *a = xmalloc(npair[k] * sizeof(double));
		for (size_t i = 0; i < npair[k]; i++) {
			ss += pair[k][i] * pair[k][i];
			a[i] = fabs(pair[k][i]);
		}
		qsort(a, npair[k], sizeof(double), cmp_dbl);
		/* the signed rounds are symmetric about 0: their IQR is twice the median of |x| */
		double iqr = 2 * a[npair[k] / 2], sd = sqrt(ss / (double)npair[k]);
		smooth[k] = 0.9 * fmin(sd, iqr / 1.349) * pow(2.0 * (double)npair[k], -0.2);
		free(a);
	}
	struct bisect_opts o;
	bisect_opts_default(&o);
	size_t lg = 0;
	while (((size_t)1 << lg) < ncommits - 1)
		lg++;
	/* the same trials (same seed) with the rounds' mean, Huber's centre, then kiln's default (the biweight) */
	uint64_t seed = rng_state;
	struct bis_tally mean_t, hub_t, t, fix_t;
	const char *cap = getenv("HISTORY_BISECT_ROUNDS"); /* kiln bisect --max-rounds N; unset: auto, its default */
	if (cap && atoi(cap) >= 5) {
		o.max_rounds = (size_t)atoi(cap);
		o.auto_cap = 0;
	}
	/* the same trials at the fixed cap of 200 rounds, kiln bisect's default before 2026-12-06: a before and an after */
	struct bisect_opts of = o;
	of.max_rounds = BISECT_FIRST_ROUNDS;
	of.auto_cap = 0;
	rng_state = seed;
	bisect_trials(&of, pair, npair, smooth, NULL, base, nk, ncommits, trials, lg, &fix_t);
	struct bisect_opts om = o, oh = o;
	om.biweight_c = oh.biweight_c = 0;
	om.huber_k = 0;
	rng_state = seed;
	bisect_trials(&om, pair, npair, smooth, NULL, base, nk, ncommits, trials, lg, &mean_t);
	rng_state = seed;
	bisect_trials(&oh, pair, npair, smooth, NULL, base, nk, ncommits, trials, lg, &hub_t);
	rng_state = seed;
	bisect_trials(&o, pair, npair, smooth, NULL, base, nk, ncommits, trials, lg, &t);
	/* the same trials (same seed) with each compared commit's own pexecs' noise */
	struct local_noise *local = xcalloc(nk + 1, sizeof(*local));
	for (size_t k = 0; k < nk; k++)
		local_noise_make(&base[k], &local[k]);
	struct bis_tally loc_t;
	rng_state = seed;
	bisect_trials(&o, pair, npair, smooth, local, base, nk, ncommits, trials, lg, &loc_t);
	for (size_t k = 0; k < nk; k++)
		local_noise_free(&local[k]);
	free(local);
	printf("\nbisection per key (2%% steps right; sd of a round's log ratio; rounds a bisection):");
	for (size_t k = 0; k < nk; k++) {
		double ss = 0;
		for (size_t i = 0; i < npair[k]; i++)
			ss += pair[k][i] * pair[k][i];
		printf("%s %s %ld/%ld", k ? "," : "", keys->v[k], t.kright[k], t.kinj[k]);
		if (t.kn[k])
			printf(" <%.0f rounds>", (double)t.krounds[k] / (double)t.kn[k]);
		if (t.kwrong[k])
			printf(" {%ld wrong}", t.kwrong[k]);
		if (npair[k])
			printf(" (%.2f%%)", 100 * sqrt(ss / (double)npair[k]));
		else
			printf(" (no stored rounds)");
		print_needed(&t, k);
	}
	printf("\npexecs' spread per key (sd of log steady means within a commit): the series' median, and in the A/B "
	       "sessions the rounds came from:");
	for (size_t k = 0; k < nk; k++) {
		double ab = ab_pexec_sd(h, machine, keys->v[k]);
		printf("%s %s %.2f%% / %.2f%%", k ? "," : "", keys->v[k], 100 * series_pexec_sd(&base[k]), 100 * ab);
	}
	printf("\nbisection per key, each compared commit's own pexecs' noise (2%% steps right):");
	for (size_t k = 0; k < nk; k++) {
		printf("%s %s %ld/%ld", k ? "," : "", keys->v[k], loc_t.kright[k], loc_t.kinj[k]);
		if (loc_t.kwrong[k])
			printf(" {%ld wrong}", loc_t.kwrong[k]);
		print_needed(&loc_t, k);
	}
	for (size_t k = 0; k < nk; k++)
		free(pair[k]);
	free(pair);
	free(npair);
	free(smooth);
	printf("\nbisection: rounds' noise from the real interleaved rounds stored for %zu of %zu keys (the others: two "
	       "track pexecs' deviations, apart in time: pessimistic)%s", paired_keys, nk,
	       smoothed ? ", smoothed (HISTORY_BISECT_SMOOTH)" : "");
	printf("\nbisection over %zu commits, simulated from the stored pexecs (%ld 2%% steps, %ld A/A ranges): "
	       "culprit right %ld, named %ld, builds at most %zu (%ld over ceil(log2 N) + 2 = %zu), %.1f rounds a bisection\n",
	       ncommits, t.inj, t.aa, t.right, t.found, t.worst, t.over, lg + 2,
	       (double)t.rounds / (double)(t.inj + t.aa ? t.inj + t.aa : 1));
	printf("ROW\tbisection: culprit right among %zu commits, injected 2%% steps (--max-rounds %s)\t%.3f (%ld of "
	       "%ld)\t>= 0.95\t%s\n", ncommits, o.auto_cap ? "auto, the default" : cap,
	       t.inj ? (double)t.right / (double)t.inj : NAN, t.right, t.inj,
	       t.inj && t.right >= 0.95 * (double)t.inj ? "PASS" : "MISS");
	printf("ROW\tbisection: rounds a bisection, mean, median, 90th percentile, most (--max-rounds %s)\t%.1f, %zu, %zu, "
	       "%zu\t-\t-\n", o.auto_cap ? "auto" : cap, (double)t.rounds / (double)(t.neach ? t.neach : 1),
	       rounds_quantile(&t, 0.5), rounds_quantile(&t, 0.9), rounds_quantile(&t, 1));
	printf("ROW\tbisection at a fixed --max-rounds 200 (the default before 2026-12-06; the same trials): culprit "
	       "right; wrong named; A/A named; rounds a bisection, mean, median, 90th percentile\t%.3f (%ld of %ld); %ld "
	       "of %ld; %ld of %ld; %.1f, %zu, %zu\t-\t-\n", fix_t.inj ? (double)fix_t.right / (double)fix_t.inj : NAN,
	       fix_t.right, fix_t.inj, fix_t.found - fix_t.right, fix_t.found, fix_t.aa_named, fix_t.aa,
	       (double)fix_t.rounds / (double)(fix_t.neach ? fix_t.neach : 1), rounds_quantile(&fix_t, 0.5),
	       rounds_quantile(&fix_t, 0.9));
	printf("ROW\tbisection, each compared commit's own pexecs' noise (the same trials, unpaired rounds): culprit right "
	       "among %zu commits, injected 2%% steps\t%.3f (%ld of %ld); %ld A/A ranges named; %ld wrong culprits of %ld "
	       "named\t-\t-\n", ncommits, loc_t.inj ? (double)loc_t.right / (double)loc_t.inj : NAN, loc_t.right, loc_t.inj,
	       loc_t.aa_named, loc_t.found - loc_t.right, loc_t.found);
	printf("ROW\tbisection with Huber's centre instead of the biweight (the same trials): culprit right\t%.3f (%ld of "
	       "%ld); %ld A/A ranges named\t-\t-\n",
	       hub_t.inj ? (double)hub_t.right / (double)hub_t.inj : NAN, hub_t.right, hub_t.inj, hub_t.aa_named);
	printf("ROW\tbisection with the rounds' mean (the same trials): culprit right\t%.3f (%ld of "
	       "%ld); %ld A/A ranges named\t-\t-\n",
	       mean_t.inj ? (double)mean_t.right / (double)mean_t.inj : NAN, mean_t.right, mean_t.inj, mean_t.aa_named);
	printf("ROW\tbisection: a wrong culprit named, of the culprits named for injected 2%% steps (next to the injected "
	       "commit)\t%ld of %ld (%ld)\t-\t-\n", t.found - t.right, t.found, t.off1);
	printf("ROW\tbisection: builds, most of any trial\t%zu\t<= %zu\t%s\n", t.worst, lg + 2,
	       t.worst <= lg + 2 ? "PASS" : "MISS");
	printf("ROW\tbisection: A/A ranges with a culprit named\t%ld of %ld\t0 of >= 50\t%s\n", t.aa_named, t.aa,
	       t.aa >= 50 && !t.aa_named ? "PASS" : "MISS");
	tally_free(&fix_t);
	tally_free(&mean_t);
	tally_free(&hub_t);
	tally_free(&t);
	tally_free(&loc_t);
}

/*
 * The session sd of neighbouring commits (hist_pairs_var, as kiln's
 * detection takes it), same-binary pairs apart from the others: the first
 * is the machine's moment alone, the second adds real changes and code
 * layout.  sd[0] same-binary, sd[1] the others; n[] their pairs.
 */
static void pair_session_sd(const struct hist_series *s, double sd[2], size_t n[2])
{
	double *d2[2], *uu[2];
	for (int g = 0; g < 2; g++) {
		d2[g] = xmalloc((s->n + 1) * sizeof(double));
		uu[g] = xmalloc((s->n + 1) * sizeof(double));
		n[g] = 0;
	}
	for (size_t i = 1; i < s->n; i++) {
		double y0, u0, y1, u1;
		if (!hist_point_value(&s->p[i - 1], HIST_STEADY, &y0, &u0) || !hist_point_value(&s->p[i], HIST_STEADY, &y1, &u1))
			continue;
		int g = s->p[i].same_as_prev ? 0 : 1;
		d2[g][n[g]] = (y1 - y0) * (y1 - y0);
		uu[g][n[g]++] = u0 + u1;
	}
	for (int g = 0; g < 2; g++) {
		double v = hist_pairs_var(d2[g], uu[g], n[g]);
		sd[g] = n[g] ? sqrt(v > 0 ? v : 0) : NAN;
		free(d2[g]);
		free(uu[g]);
	}
}

/*
 * A synthetic corpus's series drawn again for each trial (NULL for the real
 * corpus, whose noise is what it is): with the same 12 draws in every trial
 * the coverage of an interval is that of 12 noise realisations, not of the
 * method (before 2026-12-04 a single draw's 27 misses made a 10% step's
 * coverage 0.925 under normal noise)
 */
struct redraw {
	void (*fn)(struct hist_series *null, size_t nk, void *ctx);
	void *ctx;
};

/* null series' false alarms, then steps injected into them: kiln's figures as ROW lines, the series for the baselines */
static void steps_bench(struct hist_series *null, size_t nk, int trials, FILE *fs, FILE *fk, double hw_mean,
			size_t aa_alarms, size_t aa_pairs, const struct redraw *redraw)
{
	/* null series: false alarms */
	struct score nul = { 0 };
	for (size_t k = 0; k < nk; k++) {
		struct hist_change *ch;
		size_t n;
		struct hist_detect_stats st;
		history_detect(&null[k], kopts, &ch, &n, &st);
		score(&nul, ch, n, HIST_STEADY, (size_t)-1, 0, 0, st.points[HIST_STEADY]);
		write_changes(fk, "null", 0, k, ch, n, HIST_STEADY);
		write_series(fs, "null", 0, k, &null[k], (size_t)-1);
		free(ch);
	}

	/* steps */
	static const double sizes[] = { 0.02, 0.05, 0.10 };
	struct score st3[3] = { { 0 } };
	long placed[3] = { 0 }, covered[3] = { 0 };
	size_t nwidth = 0, cwidth = 1024;
	double *width = xmalloc(cwidth * sizeof(double)); /* the exactly placed changes' log(hi / lo) */
	for (int t = 0; t < trials; t++) {
		if (redraw && t > 0)
			redraw->fn(null, nk, redraw->ctx);
		for (size_t k = 0; k < nk; k++) {
			size_t at = pick_site(&null[k]);
			if (at >= null[k].n)
				continue;
			/*
			 * every key every size in turn: (t * nk + k) % 3, as before 2026-12-04, gave a key
			 * one size for good when nk is a multiple of 3 (Lua's 12: the 2% recall was 4 keys')
			 */
			int si = (int)((t + k) % 3);
			double f = rnd() & 1 ? 1 + sizes[si] : 1 / (1 + sizes[si]);
			struct hist_series s;
			history_series_copy(&null[k], &s);
			scale_from(&s, at, f);
			struct hist_change *ch;
			size_t n;
			struct hist_detect_stats st;
			history_detect(&s, kopts, &ch, &n, &st);
			int tight = point_halfwidth(&s.p[at]) <= 0.01 && point_halfwidth(&s.p[at - 1]) <= 0.01;
			score(&st3[si], ch, n, HIST_STEADY, at, tight, f > 1 ? 1 : -1, st.points[HIST_STEADY]);
			/* the size's 99% interval, where the change is placed on the injected commit: does it hold f? */
			for (size_t c = 0; c < n; c++)
				if (ch[c].what == HIST_STEADY && ch[c].at == at) {
					placed[si]++;
					covered[si] += ch[c].ratio_lo <= f && f <= ch[c].ratio_hi;
					if (nwidth == cwidth)
						width = xrealloc(width, (cwidth *= 2) * sizeof(double));
					width[nwidth++] = log(ch[c].ratio_hi / ch[c].ratio_lo);
				}
			char kind[16];
			snprintf(kind, sizeof(kind), "step%d", (int)(sizes[si] * 100 + 0.5));
			write_changes(fk, kind, t, k, ch, n, HIST_STEADY);
			write_series(fs, kind, t, k, &s, at);
			free(ch);
			history_series_free(&s);
		}
	}
	printf("\nkiln on injected steps (%d trials x %zu keys):\n", trials, nk);
	printf("%-6s %6s %7s %12s %8s %8s %10s %10s\n", "step", "inj", "recall", "recall(hw<=1%)", "exact", "<=2",
	       "false", "FA/1000pt");
	for (int si = 0; si < 3; si++) {
		struct score *s = &st3[si];
		printf("%-5.0f%% %6ld %7.3f %8.3f (%ld) %8.3f %8.3f %10ld %10.2f\n", sizes[si] * 100, s->inj,
		       s->inj ? (double)s->found / (double)s->inj : NAN,
		       s->inj_tight ? (double)s->found_tight / (double)s->inj_tight : NAN, s->inj_tight,
		       s->found ? (double)s->exact / (double)s->found : NAN,
		       s->found ? (double)s->within2 / (double)s->found : NAN, s->false_alarms,
		       1000.0 * (double)s->false_alarms / (double)s->points);
	}
	double fa_null = 1000.0 * (double)nul.alarms / (double)(nul.points ? nul.points : 1);
	printf("null series: %ld alarms over %ld points: %.2f per 1000\n", nul.alarms, nul.points, fa_null);
	printf("ROW\tdetection: recall of 2%% steps where a commit's 99%% half-width <= 1%%\t%.3f (%ld of %ld)\t>= 0.90\t%s\n",
	       st3[0].inj_tight ? (double)st3[0].found_tight / (double)st3[0].inj_tight : NAN, st3[0].found_tight,
	       st3[0].inj_tight, st3[0].inj_tight && st3[0].found_tight >= 0.9 * (double)st3[0].inj_tight ? "PASS" : "MISS");
	long miss = st3[0].inj_tight - st3[0].found_tight;
	printf("ROW\tdetection: the 2%% steps at half-width <= 1%% missed, found instead more than 2 commits off (within 10, "
	       "the right sign), and of those with a range that holds the injected commit\t%ld of %ld; %ld\t-\t-\n",
	       st3[0].ranged_tight + st3[0].far_tight, miss, st3[0].ranged_tight);
	printf("ROW\tdetection: recall of 2%% steps, all commits (median half-width %.2f%%)\t%.3f\t-\t-\n",
	       100 * hw_mean, st3[0].inj ? (double)st3[0].found / (double)st3[0].inj : NAN);
	printf("ROW\tdetection: false alarms per 1000 benchmark x commit points (null series)\t%.2f\t<= 1\t%s\n", fa_null,
	       fa_null <= 1 ? "PASS" : "MISS");
	long f3 = st3[0].found + st3[1].found + st3[2].found;
	long ex3 = st3[0].exact + st3[1].exact + st3[2].exact, w3 = st3[0].within2 + st3[1].within2 + st3[2].within2;
	printf("ROW\tdetection: placed on the exact commit\t%.3f\t>= 0.80\t%s\n", f3 ? (double)ex3 / (double)f3 : NAN,
	       f3 && ex3 >= 0.8 * (double)f3 ? "PASS" : "MISS");
	printf("ROW\tdetection: placed within +-2 commits\t%.3f\t>= 0.95\t%s\n", f3 ? (double)w3 / (double)f3 : NAN,
	       f3 && w3 >= 0.95 * (double)f3 ? "PASS" : "MISS");
	printf("ROW\tdetection: A/A alarms (same-binary neighbours)\t%zu on %zu pairs\t-\t-\n", aa_alarms, aa_pairs);
	long pl = placed[0] + placed[1] + placed[2], cv = covered[0] + covered[1] + covered[2];
	printf("ROW\tdetection: a change's 99%% size interval holds the injected factor (changes on the exact commit; "
	       "2%%, 5%%, 10%%: %ld/%ld, %ld/%ld, %ld/%ld)\t%.3f (%ld of %ld)\t0.99 nominal\t-\n", covered[0], placed[0],
	       covered[1], placed[1], covered[2], placed[2], pl ? (double)cv / (double)pl : NAN, cv, pl);
	printf("ROW\tdetection: the median width of those intervals, hi / lo - 1\t%.4f%%\t-\t-\n",
	       nwidth ? 100 * expm1(an_percentile(width, nwidth, 50)) : NAN);
	free(width);

}

/* ---- a synthetic corpus: the methods where the noise lets them work ---- */

static double gauss(void)
{
	return sqrt(-2 * log(runif() + 1e-300)) * cos(6.283185307179586 * runif());
}

/* Student's t with 3 degrees of freedom scaled to sd 1: heavier tails than a quiet machine's */
static double t3(void)
{
	double c = 0;
	for (int i = 0; i < 3; i++) {
		double g = gauss();
		c += g * g;
	}
	return gauss() / sqrt(c / 3) / sqrt(3.0);
}

/* n commits x m pexecs, each commit's session offset sd tau, each pexec sd sw, t3 noise; every binary different */
static void synth_series(struct hist_series *s, size_t n, size_t m, double sw, double tau)
{
	memset(s, 0, sizeof(*s));
	s->key = xstrdup("synthetic");
	s->p = xcalloc(n, sizeof(*s->p));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		struct hist_point *p = &s->p[i];
		p->commit = i;
		p->built = 1;
		p->n = m;
		p->steady = xcalloc(m, sizeof(double));
		p->tts = xcalloc(m, sizeof(double));
		p->cost = xcalloc(m, sizeof(double));
		p->cls = xcalloc(m, 1);
		double sess = exp(tau * t3());
		for (size_t j = 0; j < m; j++)
			p->steady[j] = 0.01 * sess * exp(sw * t3());
		p->binary = xasprintf("b%zu", i);
	}
}

struct synth_params {
	double sw, tau;
};

/* every synthetic series drawn again (steps_bench's redraw) */
static void synth_redraw(struct hist_series *null, size_t nk, void *ctx)
{
	const struct synth_params *sp = ctx;
	for (size_t k = 0; k < nk; k++) {
		size_t n = null[k].n, m = n ? null[k].p[0].n : 0;
		history_series_free(&null[k]);
		synth_series(&null[k], n, m, sp->sw, sp->tau);
	}
}

/*
 * The warm-up series where nothing changed, and where the warm-up doubles:
 * n commits x m pexecs x SW_ITER iterations of made-up times (a session
 * offset sd tau, a pexec offset sd sw, each iteration 1%, all t3 or
 * normal), each pexec given the JIT-like warm-up of `len` iterations the
 * corpus bench gives Lua's (2.0x falling to 1 + 1/len), every commit
 * analysed by kiln; every fourth commit builds its predecessor's binary
 * (an A/A pair).  The iterations are drawn once, so that a stretched
 * series differs from its null only in its warm-up.
 */
#define SW_ITER 30
/* how the made-up pexecs of a warm-up series vary */
struct warm_noise {
	double sw, tau;   /* the steady level's pexec and session sds (relative, t3) */
	double isd;       /* each iteration's sd (relative, normal) */
	double lsd, ltau; /* the warm-up's length: its pexec and session sds (log, t3; 0: every pexec 6 iterations) */
	size_t iters;     /* iterations a pexec */
};
struct synth_warm {
	size_t n, m, iters;
	double *wall; /* n x m x iters, no warm-up */
	double *len;  /* n x m: each pexec's warm-up in iterations, before a stretch */
};

static void synth_warm_make_with(struct synth_warm *w, size_t n, size_t m, const struct warm_noise *wn)
{
	w->n = n;
	w->m = m;
	w->iters = wn->iters;
	w->wall = xmalloc(n * m * wn->iters * sizeof(double));
	w->len = xmalloc(n * m * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		double sess = exp(wn->tau * t3()), lsess = wn->ltau > 0 ? wn->ltau * t3() : 0;
		for (size_t j = 0; j < m; j++) {
			double px = 0.01 * sess * exp(wn->sw * t3());
			w->len[i * m + j] = 6 * exp(lsess + (wn->lsd > 0 ? wn->lsd * t3() : 0));
			for (size_t t = 0; t < wn->iters; t++)
				w->wall[(i * m + j) * wn->iters + t] = px * exp(wn->isd * gauss());
		}
	}
}

static void synth_warm_make(struct synth_warm *w, size_t n, size_t m, double sw, double tau)
{
	struct warm_noise wn = { sw, tau, 0.01, 0, 0, SW_ITER };
	synth_warm_make_with(w, n, m, &wn);
}

static void synth_warm_free(struct synth_warm *w)
{
	free(w->wall);
	free(w->len);
}

/* commit i of w, each pexec's warm-up stretched f times (1: as made), analysed into p (whose arrays hold m) */
static void synth_warm_point(const struct synth_warm *w, size_t i, double f, const struct an_opts *o,
			     struct hist_point *p)
{
	struct ds_key k = { .bench = "synthetic", .vm = "vm", .variant = "default", .key = "synthetic:vm:default",
			    .npexecs = w->m, .planned_pexecs = (long)w->m, .iterations = (long)w->iters };
	k.pexecs = xcalloc(w->m, sizeof(*k.pexecs));
	for (size_t j = 0; j < w->m; j++) {
		struct ds_pexec *x = &k.pexecs[j];
		double len = w->len[i * w->m + j] * f;
		x->num = (long)j;
		x->status = DS_OK;
		x->n = w->iters;
		x->duration = x->start = NAN;
		x->wall = xmalloc(w->iters * sizeof(double));
		for (size_t t = 0; t < w->iters; t++)
			x->wall[t] = w->wall[(i * w->m + j) * w->iters + t] * (t < len ? 1.0 + (len - (double)t) / len : 1.0);
	}
	point_from_key(p, &k, o);
	for (size_t j = 0; j < w->m; j++)
		free(k.pexecs[j].wall);
	free(k.pexecs);
}

static void synth_warm_series(const struct synth_warm *w, double f, const struct an_opts *o, struct hist_series *s)
{
	memset(s, 0, sizeof(*s));
	s->key = xstrdup("synthetic");
	s->p = xcalloc(w->n, sizeof(*s->p));
	s->n = w->n;
	for (size_t i = 0; i < w->n; i++) {
		struct hist_point *p = &s->p[i];
		p->commit = i;
		p->built = 1;
		p->steady = xcalloc(w->m, sizeof(double));
		p->tts = xcalloc(w->m, sizeof(double));
		p->cost = xcalloc(w->m, sizeof(double));
		p->cls = xcalloc(w->m, 1);
		p->same_as_prev = i % 4 == 3;
		p->binary = xasprintf("b%zu", p->same_as_prev ? i - 1 : i);
		synth_warm_point(w, i, f, o, p);
	}
}

static void synth_warm_bench(size_t nk, double sw, double tau, int trials)
{
	struct an_opts ao;
	an_opts_default(&ao);
	ao.resamples = 100;
	ao.threads = 1;
	struct score wnull = { 0 }, cnull = { 0 }, knull = { 0 }, ws = { 0 }, cs = { 0 };
	size_t aa_pairs = 0, aa_alarms[HIST_NWHAT] = { 0 }, aa_commits = 0;
	int wtrials = trials / 10 > 2 ? trials / 10 : 2;
	for (size_t k = 0; k < nk; k++) {
		struct synth_warm w;
		synth_warm_make(&w, 200, 10, sw, tau);
		struct hist_series s;
		synth_warm_series(&w, 1, &ao, &s);
		struct hist_change *ch;
		size_t n;
		struct hist_detect_stats st;
		history_detect(&s, kopts, &ch, &n, &st);
		score(&wnull, ch, n, HIST_WARMUP, (size_t)-1, 0, 0, st.points[HIST_WARMUP]);
		score(&cnull, ch, n, HIST_COST, (size_t)-1, 0, 0, st.points[HIST_COST]);
		score(&knull, ch, n, HIST_CLASS, (size_t)-1, 0, 0, st.points[HIST_CLASS]);
		aa_pairs += st.aa_pairs[HIST_WARMUP];
		for (int x = 0; x < HIST_NWHAT; x++)
			aa_alarms[x] += st.aa_alarms[x];
		aa_commits += st.aa_warm_commits;
		free(ch);
		for (int t = 0; t < wtrials; t++) {
			size_t at = pick_site(&s);
			if (at >= s.n)
				continue;
			struct hist_series z;
			history_series_copy(&s, &z);
			for (size_t i = at; i < z.n; i++)
				synth_warm_point(&w, i, 2, &ao, &z.p[i]);
			history_detect(&z, kopts, &ch, &n, &st);
			score(&ws, ch, n, HIST_WARMUP, at, 1, 1, st.points[HIST_WARMUP]);
			score(&cs, ch, n, HIST_COST, at, 1, 1, st.points[HIST_COST]);
			free(ch);
			history_series_free(&z);
		}
		history_series_free(&s);
		synth_warm_free(&w);
	}
	printf("synthetic warm-up (every pexec a 6-iteration warm-up, every 4th commit its predecessor's binary): "
	       "without a change %ld warmup, %ld class, %ld cost alarms over %ld points a series; on %zu A/A pairs %zu "
	       "warmup, %zu class, %zu cost splits, on %zu commits; 2x stretches (%ld): recall warmup %.3f, cost %.3f\n",
	       wnull.alarms, knull.alarms, cnull.alarms, wnull.points, aa_pairs, aa_alarms[HIST_WARMUP],
	       aa_alarms[HIST_CLASS], aa_alarms[HIST_COST], aa_commits, ws.inj, ws.inj ? (double)ws.found / (double)ws.inj : NAN,
	       cs.inj ? (double)cs.found / (double)cs.inj : NAN);
	printf("ROW\tsynthetic warm-up: false warm-up alarms (A/A commits a warmup, class or cost split fell on)\t%zu (of "
	       "%zu pairs)\t<= 1\t%s\n", aa_commits, aa_pairs, aa_commits <= 1 ? "PASS" : "MISS");
	printf("ROW\tsynthetic warm-up: cost alarms without a change\t%ld over %ld points\t-\t-\n", cnull.alarms,
	       cnull.points);
	printf("ROW\tsynthetic warm-up: recall of 2x warm-up stretches (warmup; cost)\t%.3f; %.3f (of %ld)\t>= 0.90\t%s\n",
	       ws.inj ? (double)ws.found / (double)ws.inj : NAN, cs.inj ? (double)cs.found / (double)cs.inj : NAN, ws.inj,
	       ws.inj && ws.found >= 0.9 * (double)ws.inj ? "PASS" : "MISS");
}

/*
 * What kiln track --changes says a series could have shown (history-power.c),
 * checked: for series of this noise, the step it names, injected at a
 * random commit of 30 fresh series of the same noise, is found (within 2
 * commits, the right sign) in about 80% of them; half of it far less often.
 */
static double fresh_found(size_t n, size_t m, double sw, double tau, double f, int reps)
{
	int found = 0;
	for (int r = 0; r < reps; r++) {
		struct hist_series s;
		synth_series(&s, n, m, sw, tau);
		size_t at = pick_site(&s);
		double g = r % 2 ? 1 / (1 + f) : 1 + f;
		scale_from(&s, at, g);
		struct hist_change *ch;
		size_t nc;
		history_detect(&s, kopts, &ch, &nc, NULL);
		found += history_found_near(ch, nc, at, g);
		free(ch);
		history_series_free(&s);
	}
	return (double)found / reps;
}

static void power_bench(size_t commits, double sw, double tau, int trials)
{
	int series = trials / 3 > 10 ? trials / 3 : 10, named = 0;
	double sum = 0, lo = 1, hi = 0, sum_half = 0, sum_size = 0;
	for (int t = 0; t < series; t++) {
		struct hist_series s;
		synth_series(&s, commits, 10, sw, tau);
		struct hist_power pw;
		history_power(&s, kopts, NULL, 0, &pw);
		history_series_free(&s);
		if (!pw.sites || !isfinite(pw.size))
			continue;
		double at = fresh_found(commits, 10, sw, tau, pw.size, 30),
		       half = fresh_found(commits, 10, sw, tau, pw.size / 2, 30);
		named++;
		sum += at;
		sum_half += half;
		sum_size += pw.size;
		lo = fmin(lo, at);
		hi = fmax(hi, at);
	}
	printf("\ncould see (history_power) on %d series of %zu commits of this noise: mean step named %.1f%%\n", named,
	       commits, named ? 100 * sum_size / named : NAN);
	printf("ROW\tcould see, %zu commits: a step of the size named, at a random commit of 30 fresh series of the same "
	       "noise, found in (mean over %d series; series from .. to; half the size)\t%.3f (%.2f .. %.2f; %.3f)\t~0.80\t%s\n",
	       commits, named,
	       named ? sum / named : NAN, lo, hi, named ? sum_half / named : NAN,
	       named && sum / named >= 0.8 ? "PASS" : "MISS");
}

/*
 * What kiln track --changes says a warm-up series could have shown
 * (history_power_warm, history-power.c), checked against stretches of the
 * iterations themselves: history_power_warm stretches the per-pexec figures
 * (time to steady, cost) of series made from iterations with a known
 * warm-up; here the stretch it names is made in the iterations of fresh
 * series of the same noise (every pexec's warm-up f times as many
 * iterations from a random commit on), which kiln analyses again, so the
 * per-pexec analysis's own error in finding the steady point is in it.
 * Found (a warmup or cost change of its sign within 2 commits, as
 * history_power_warm counts) in about 80% of them at the size named, far
 * less at half of it (1 + (f - 1) / 2: half the stretch).
 */
#define WARM_FRESH 30
#define WARM_SIZES 8 /* distinct stretches a run of warm_power_bench measures fresh series for */

struct warm_fresh {
	double size;      /* a stretch named */
	int found, half;  /* of WARM_FRESH fresh series, found at it and at half of it */
};

/* one fresh series of noise wn with a stretch of f and of half f at one random commit: found at each? */
static void warm_fresh_one(const struct warm_noise *wn, double f, const struct an_opts *ao, int *found, int *half)
{
	struct synth_warm w;
	synth_warm_make_with(&w, 200, 10, wn);
	struct hist_series s;
	synth_warm_series(&w, 1, ao, &s);
	size_t at = pick_site(&s);
	double g[2] = { f, 1 + (f - 1) / 2 };
	int *hit[2] = { found, half };
	for (int h = 0; h < 2 && at < s.n; h++) {
		for (size_t i = at; i < s.n; i++)
			synth_warm_point(&w, i, g[h], ao, &s.p[i]);
		struct hist_change *ch;
		size_t nc;
		history_detect(&s, kopts, &ch, &nc, NULL);
		*hit[h] += history_found_near_in(ch, nc, at, g[h], (1u << HIST_WARMUP) | (1u << HIST_COST));
		free(ch);
	}
	history_series_free(&s);
	synth_warm_free(&w);
}

/* the fresh series' finds of size f, from cache[0..*nc) or measured into it */
static const struct warm_fresh *warm_fresh_of(const struct warm_noise *wn, double f, const struct an_opts *ao,
					      struct warm_fresh *cache, size_t *nc)
{
	for (size_t c = 0; c < *nc; c++)
		if (cache[c].size == f)
			return &cache[c];
	/* the sizes are the ladder's rungs (history-power.c: five), so WARM_SIZES holds them; past it, the last is reused */
	struct warm_fresh *r = &cache[*nc < WARM_SIZES ? (*nc)++ : WARM_SIZES - 1];
	r->size = f;
	r->found = r->half = 0;
	for (int t = 0; t < WARM_FRESH; t++)
		warm_fresh_one(wn, f, ao, &r->found, &r->half);
	return r;
}

static double seconds_now(void)
{
	return 1e-9 * (double)mono_ns();
}

static void warm_power_bench(const struct warm_noise *wn, int trials)
{
	struct an_opts ao;
	an_opts_default(&ao);
	ao.resamples = 100;
	ao.threads = 1;
	int series = trials / 3 > 10 ? trials / 3 : 10, named = 0, none = 0;
	struct warm_fresh cache[WARM_SIZES];
	size_t nc = 0;
	double sum = 0, lo = 1, hi = 0, sum_half = 0, sum_size = 0, t_warm = 0, t_steady = 0;
	size_t pexecs = 0, warm = 0;
	for (int t = 0; t < series; t++) {
		struct synth_warm w;
		synth_warm_make_with(&w, 200, 10, wn);
		struct hist_series s;
		synth_warm_series(&w, 1, &ao, &s);
		synth_warm_free(&w);
		struct hist_power_warm pw;
		struct hist_power ps;
		/* its cost a key, beside the steady one's on the same series (this machine's load varies) */
		double t0 = seconds_now();
		history_power_warm(&s, kopts, NULL, 0, &pw);
		double t1 = seconds_now();
		history_power(&s, kopts, NULL, 0, &ps);
		t_warm += t1 - t0;
		t_steady += seconds_now() - t1;
		history_series_free(&s);
		pexecs += pw.pexecs;
		warm += pw.warm;
		if (!pw.p.sites || !isfinite(pw.p.size)) {
			none++;
			continue;
		}
		const struct warm_fresh *r = warm_fresh_of(wn, pw.p.size, &ao, cache, &nc);
		double at = (double)r->found / WARM_FRESH, half = (double)r->half / WARM_FRESH;
		named++;
		sum += at;
		sum_half += half;
		sum_size += pw.p.size;
		lo = fmin(lo, at);
		hi = fmax(hi, at);
	}
	printf("warm-up could see (history_power_warm), iteration sd %.0f%%, warm-up length sd %.2f a pexec, %.2f a "
	       "session: pexecs found warming up %.3f; %d of %d series named a stretch (mean %.2fx), %d none; per size:",
	       100 * wn->isd, wn->lsd, wn->ltau, pexecs ? (double)warm / (double)pexecs : NAN, named, series,
	       named ? sum_size / named : NAN, none);
	for (size_t c = 0; c < nc; c++)
		printf(" %gx found %d/%d, half %d/%d;", cache[c].size, cache[c].found, WARM_FRESH, cache[c].half, WARM_FRESH);
	printf("\nROW\twarm-up could see (iteration sd %.0f%%, warm-up length sd %.2f/%.2f): a stretch of the size named, "
	       "made in the iterations of %d fresh series at a random commit and analysed again, found in (mean over %d "
	       "series; series from .. to; half the stretch)\t%.3f (%.2f .. %.2f; %.3f)\t~0.80 (>= 0.75); half <= 0.65\t%s\n",
	       100 * wn->isd, wn->lsd, wn->ltau, WARM_FRESH, named, named ? sum / named : NAN, lo, hi,
	       named ? sum_half / named : NAN, named && sum / named >= 0.75 && sum_half / named <= 0.65 ? "PASS" : "MISS");
	printf("ROW\twarm-up could see: its cost a key at 200 commits x 10 pexecs (the steady could-see on the same "
	       "series)\t%.3f s (%.3f s)\t<= 0.3 s\t%s\n", t_warm / series, t_steady / series,
	       t_warm / series <= 0.3 ? "PASS" : "MISS");
}

/*
 * kiln bisect --series warmup, simulated with known ground truth: a line
 * of 200 commits whose warm-up is stretched f times from a random commit
 * on (or, every third trial, nowhere: an A/A range), each comparison's
 * rounds made as kiln bisect makes them, one pexec of each commit a round,
 * from iterations of this noise analysed by kiln, the round's evidence
 * the difference of the two pexecs' log(1 + time to steady / steady mean)
 * (hist_pexec_figure), the search kiln bisect's (bisect_run) at its
 * defaults for the warmup series.  Both pexecs of a batch share its
 * session's draw (one machine, interleaved).
 */
struct warmbis {
	const struct warm_noise *wn;
	const struct an_opts *ao;
	size_t culprit;  /* the first stretched commit (0: none) */
	double f;        /* the stretch */
};

#define WB_CAP 200 /* rounds a comparison: kiln bisect --max-rounds 200 (its default before 2026-12-06) */

/* pexecs [from, from + n) of w (one commit), stretched f times, analysed as one key into p (arrays of n) */
static void wb_key(const struct synth_warm *w, size_t from, size_t n, double f, const struct an_opts *ao,
		   struct hist_point *p)
{
	struct synth_warm v = { 1, n, w->iters, w->wall + from * w->iters, xmalloc(n * sizeof(double)) };
	for (size_t j = 0; j < n; j++)
		v.len[j] = w->len[from + j] * f;
	memset(p, 0, sizeof(*p));
	p->steady = xcalloc(n, sizeof(double));
	p->tts = xcalloc(n, sizeof(double));
	p->cost = xcalloc(n, sizeof(double));
	p->cls = xcalloc(n, 1);
	synth_warm_point(&v, 0, 1, ao, p);
	free(v.len);
}

static void wb_key_free(struct hist_point *p)
{
	free(p->steady);
	free(p->tts);
	free(p->cost);
	free(p->cls);
}

static int wb_build(void *ctx, size_t i, struct kerr *e)
{
	(void)ctx;
	(void)i;
	(void)e;
	return 0;
}

/*
 * Commits a and b compared as kiln bisect does (history-ab.c): one session,
 * round r a pexec of each; at each look every pexec of a so far analysed
 * as one key, b's as another (a pexec's figures depend on its key's
 * others), the rounds' d the differences of their warm-up figures.
 */
static int wb_measure(void *ctx, size_t a, size_t b, bisect_more_fn more, void *mctx, struct kerr *e)
{
	const struct warmbis *wb = ctx;
	(void)e;
	struct synth_warm w;
	synth_warm_make_with(&w, 1, 2 * WB_CAP, wb->wn); /* pexecs of a, then of b; a session's draws shared */
	double fa = wb->culprit && a >= wb->culprit ? wb->f : 1, fb = wb->culprit && b >= wb->culprit ? wb->f : 1;
	double *d = NULL;
	size_t n = 0, m = 0, k;
	while ((k = more(mctx, d, m, n)) > 0 && n + k <= WB_CAP) {
		n += k;
		struct hist_point pa, pb;
		wb_key(&w, 0, n, fa, wb->ao, &pa);
		wb_key(&w, WB_CAP, n, fb, wb->ao, &pb);
		d = xrealloc(d, n * sizeof(double));
		m = 0;
		for (size_t j = 0; j < n && pa.n == n && pb.n == n; j++) {
			double xa = hist_pexec_figure(HIST_WARMUP, pa.steady[j], pa.tts[j], pa.cost[j]),
			       xb = hist_pexec_figure(HIST_WARMUP, pb.steady[j], pb.tts[j], pb.cost[j]);
			if (isfinite(xa) && isfinite(xb))
				d[m++] = xb - xa;
		}
		wb_key_free(&pa);
		wb_key_free(&pb);
	}
	free(d);
	synth_warm_free(&w);
	return 0;
}

static void warm_bisect_bench(const struct warm_noise *wn, int trials)
{
	struct an_opts ao;
	an_opts_default(&ao);
	ao.resamples = 100;
	ao.threads = 1;
	struct hist_detect_opts dop;
	hist_detect_opts_default(&dop);
	struct bisect_opts o;
	bisect_opts_default(&o);
	o.min_change = expm1(dop.min_change[HIST_WARMUP]); /* kiln bisect --series warmup's default */
	/*
	 * at --max-rounds 200 (WB_CAP): each look analyses every pexec so far
	 * again, so auto's ceiling of 10000 rounds would take hours here
	 */
	o.max_rounds = WB_CAP;
	o.auto_cap = 0;
	const size_t ncommits = 200, lg = 8; /* ceil(log2 199) */
	long inj = 0, right = 0, named = 0, aa = 0, aa_named = 0, rounds = 0, unsure = 0;
	size_t worst = 0;
	for (int tr = 0; tr < trials; tr++) {
		struct warmbis wb = { wn, &ao, 0, 2 };
		int is_aa = tr % 3 == 2;
		wb.culprit = is_aa ? 0 : 1 + (size_t)(runif() * (double)(ncommits - 1));
		struct bisect_ops ops = { &wb, wb_build, wb_measure, NULL, NULL };
		struct bisect_result r;
		struct kerr e = KERR_INIT;
		bisect_run(ncommits, &o, &ops, &r, &e);
		rounds += (long)r.rounds;
		unsure += r.outcome == BISECT_UNSURE || r.outcome == BISECT_RANGE;
		if (is_aa) {
			aa++;
			aa_named += r.outcome == BISECT_FOUND;
		} else {
			inj++;
			named += r.outcome == BISECT_FOUND;
			right += r.outcome == BISECT_FOUND && r.culprit == wb.culprit;
			worst = r.builds > worst ? r.builds : worst;
		}
		bisect_result_free(&r);
		kerr_release(&e);
	}
	printf("warm-up bisection (kiln bisect --series warmup, --min-change %.0f%%), iteration sd %.0f%%, warm-up length "
	       "sd %.2f a pexec, %.2f a session, over %zu commits: %ld 2x stretches, %ld named, %ld right; %ld A/A "
	       "ranges, %ld named; %ld undecided; %.1f rounds a bisection; builds at most %zu\n", 100 * o.min_change,
	       100 * wn->isd, wn->lsd, wn->ltau, ncommits, inj, named, right, aa, aa_named, unsure,
	       (double)rounds / (trials ? trials : 1), worst);
	printf("ROW\twarm-up bisection (iteration sd %.0f%%, warm-up length sd %.2f/%.2f): culprit right among %zu commits, "
	       "injected 2x stretches\t%.3f (%ld of %ld)\t>= 0.95\t%s\n", 100 * wn->isd, wn->lsd, wn->ltau, ncommits,
	       inj ? (double)right / (double)inj : NAN, right, inj, inj && right >= 0.95 * (double)inj ? "PASS" : "MISS");
	printf("ROW\twarm-up bisection (iteration sd %.0f%%, warm-up length sd %.2f/%.2f): A/A ranges with a culprit named"
	       "\t%ld of %ld\t0 of >= 50 (all trials)\t%s\n", 100 * wn->isd, wn->lsd, wn->ltau, aa_named, aa,
	       aa_named == 0 ? "PASS" : "MISS");
	printf("ROW\twarm-up bisection: builds, most of any trial\t%zu\t<= %zu\t%s\n", worst, lg + 2,
	       worst <= lg + 2 ? "PASS" : "MISS");
}

/*
 * kiln track --compare's warm-up verdict (ab_judge_warm), with known ground
 * truth: BASE and HEAD, R rounds of one pexec each in one session (each
 * side's pexecs analysed by kiln as one key, as history-ab.c does), HEAD's
 * warm-up the same (A/A: the interval should hold 1 and no verdict be
 * named) or stretched 2x (named "longer" at the default 35%).
 */
static void warm_compare_one(const struct warm_noise *wn, const struct an_opts *ao, size_t rounds, double f,
			     struct ab_warm *out)
{
	struct synth_warm w;
	synth_warm_make_with(&w, 1, 2 * rounds, wn);
	struct hist_point p[2];
	wb_key(&w, 0, rounds, 1, ao, &p[0]);
	wb_key(&w, rounds, rounds, f, ao, &p[1]);
	struct ab_fig *fa = xcalloc(rounds, sizeof(*fa)), *fb = xcalloc(rounds, sizeof(*fb));
	size_t m = p[0].n < p[1].n ? p[0].n : p[1].n;
	for (size_t j = 0; j < m; j++) {
		fa[j] = (struct ab_fig){ p[0].steady[j], p[0].tts[j], p[0].cost[j] };
		fb[j] = (struct ab_fig){ p[1].steady[j], p[1].tts[j], p[1].cost[j] };
	}
	*out = ab_judge_warm(fa, fb, m, 0.35);
	free(fa);
	free(fb);
	wb_key_free(&p[0]);
	wb_key_free(&p[1]);
	synth_warm_free(&w);
}

static void warm_compare_bench(const struct warm_noise *wn, int trials)
{
	struct an_opts ao;
	an_opts_default(&ao);
	ao.resamples = 100;
	ao.threads = 1;
	static const size_t R[] = { 10, 30 };
	for (size_t r = 0; r < 2; r++) {
		long aa_named = 0, aa_cover = 0, aa_n = 0, found = 0, st_n = 0;
		for (int t = 0; t < trials; t++) {
			struct ab_warm v;
			warm_compare_one(wn, &ao, R[r], 1, &v);
			if (isfinite(v.ratio)) {
				aa_n++;
				aa_named += v.longer || v.shorter;
				aa_cover += v.lo <= 1 && v.hi >= 1;
			}
			warm_compare_one(wn, &ao, R[r], 2, &v);
			st_n++;
			found += v.longer;
		}
		printf("ROW\ttrack --compare warm-up (iteration sd %.0f%%, warm-up length sd %.2f/%.2f), %zu rounds: A/A named "
		       "longer or shorter; its 99%% interval holds 1\t%ld of %ld (%.4f); %.4f\t<= 0.01; ~0.99\t%s\n",
		       100 * wn->isd, wn->lsd, wn->ltau, R[r], aa_named, aa_n, aa_n ? (double)aa_named / (double)aa_n : NAN,
		       aa_n ? (double)aa_cover / (double)aa_n : NAN,
		       aa_n && aa_named <= 0.01 * (double)aa_n ? "PASS" : "MISS");
		printf("ROW\ttrack --compare warm-up (iteration sd %.0f%%, warm-up length sd %.2f/%.2f), %zu rounds: a 2x "
		       "stretch named longer\t%.3f (%ld of %ld)\t(power: no target)\t-\n", 100 * wn->isd, wn->lsd, wn->ltau,
		       R[r], st_n ? (double)found / (double)st_n : NAN, found, st_n);
	}
}

/* --synthetic-warm=ISD,LSD,LTAU: the warm-up could-see's check alone */
static int synthetic_warm_main(const char *spec, int trials)
{
	struct warm_noise wn = { 0.01, 0.005, 0.01, 0, 0, 100 };
	if (sscanf(spec, "--synthetic-warm=%lf,%lf,%lf", &wn.isd, &wn.lsd, &wn.ltau) < 1) {
		fprintf(stderr, "history: --synthetic-warm=ISD,LSD,LTAU (the sds of an iteration, relative, and of a "
				"warm-up's length, log, a pexec and a session)\n");
		return 2;
	}
	if (!getenv("HISTORY_NO_WARM_POWER"))
		warm_power_bench(&wn, trials);
	if (getenv("HISTORY_WARM_BISECT_TRIALS"))
		warm_bisect_bench(&wn, atoi(getenv("HISTORY_WARM_BISECT_TRIALS")));
	if (getenv("HISTORY_WARM_COMPARE_TRIALS"))
		warm_compare_bench(&wn, atoi(getenv("HISTORY_WARM_COMPARE_TRIALS")));
	return 0;
}

static int synthetic_main(const char *spec, const char *outdir, int trials)
{
	double sw = 0.01, tau = 0.005;
	if (sscanf(spec, "--synthetic=%lf,%lf", &sw, &tau) < 1) {
		fprintf(stderr, "history: --synthetic=SW,TAU (relative sds of a pexec and of a session)\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/series.csv", outdir);
	FILE *fs = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/kiln.csv", outdir);
	FILE *fk = fopen(path, "w");
	if (!fs || !fk) {
		perror(outdir);
		return 1;
	}
	fprintf(fs, "kind,trial,key,idx,value,lo,hi,truth\n");
	fprintf(fk, "kind,trial,key,at,lo,hi,ratio\n");
	enum { NK = 12 };
	struct hist_series null[NK];
	double hw = 0;
	for (size_t k = 0; k < NK; k++) {
		synth_series(&null[k], 200, 10, sw, tau);
		hw += median_halfwidth(&null[k]);
	}
	printf("synthetic corpus: 12 series x 200 commits x 10 pexecs, t3 noise: pexec sd %.2f%%, session sd %.2f%%\n",
	       100 * sw, 100 * tau);
	struct synth_params sp = { sw, tau };
	struct redraw rd = { synth_redraw, &sp };
	steps_bench(null, NK, trials, fs, fk, hw / NK, 0, 0, &rd);
	synth_warm_bench(NK, sw, tau, trials);
	power_bench(200, sw, tau, trials);
	power_bench(1000, sw, tau, trials); /* each injection judged on a window of it (history-power.c) */
	for (size_t k = 0; k < NK; k++)
		history_series_free(&null[k]);
	fclose(fs);
	fclose(fk);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: history CORPUS.history.db|--synthetic=SW,TAU|--synthetic-warm=ISD,LSD,LTAU OUTDIR "
				"[TRIALS] [SEED]\n");
		return 2;
	}
	store_library_init();
	int trials = argc > 3 ? atoi(argv[3]) : 30;
	if (argc > 4)
		rng_state ^= strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15ULL;
	if (getenv("HISTORY_NO_CAP") && atoi(getenv("HISTORY_NO_CAP")) > 0) {
		hist_detect_opts_default(&kopts_nocap);
		kopts_nocap.no_cap = 1;
		kopts = &kopts_nocap;
		printf("kiln's detection without the cap on far points (HISTORY_NO_CAP)\n");
	}
	if (!strncmp(argv[1], "--synthetic-warm", 16))
		return synthetic_warm_main(argv[1], trials);
	if (!strncmp(argv[1], "--synthetic", 11))
		return synthetic_main(argv[1], argv[2], trials);
	struct history *h;
	struct kerr e = KERR_INIT;
	if (history_open(argv[1], 0, &h, &e) < 0) {
		kerr_print(&e);
		return 1;
	}
	struct hist_commit *c;
	size_t nc;
	struct hist_machine *m;
	size_t nm;
	struct strvec keys = STRVEC_INIT;
	history_commits(h, &c, &nc, &e);
	history_machines(h, &m, &nm, &e);
	history_keys(h, m[0].id, &keys, &e);
	size_t nk = keys.n < MAXK ? keys.n : MAXK;
	struct hist_series base[MAXK], null[MAXK];
	char path[4096];
	snprintf(path, sizeof(path), "%s/series.csv", argv[2]);
	FILE *fs = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/kiln.csv", argv[2]);
	FILE *fk = fopen(path, "w");
	if (!fs || !fk) {
		perror(argv[2]);
		return 1;
	}
	fprintf(fs, "kind,trial,key,idx,value,lo,hi,truth\n");
	fprintf(fk, "kind,trial,key,at,lo,hi,ratio\n");

	/* raw series: alarms, A/A */
	struct score raw = { 0 };
	size_t aa_pairs = 0, aa_alarms = 0, aa_pairs_w = 0, aa_alarms_w = 0, aa_commits_w = 0, raw_warm = 0;
	double hw_sum = 0;
	printf("corpus: %s, %zu commits, %zu keys, machine %s, %s clock\n", argv[1], nc, nk, m[0].name,
	       history_clock_cpu(h) ? "CPU-time" : "wall");
	for (size_t k = 0; k < nk; k++) {
		history_series(h, m[0].id, keys.v[k], c, nc, &base[k], &e);
		struct hist_change *ch;
		size_t n;
		struct hist_detect_stats st;
		history_detect(&base[k], kopts, &ch, &n, &st);
		score(&raw, ch, n, HIST_STEADY, (size_t)-1, 0, 0, st.points[HIST_STEADY]);
		for (size_t i = 0; i < n; i++)
			raw_warm += ch[i].what != HIST_STEADY;
		aa_pairs += st.aa_pairs[HIST_STEADY];
		aa_alarms += st.aa_alarms[HIST_STEADY];
		aa_pairs_w += st.aa_pairs[HIST_WARMUP];
		aa_alarms_w += st.aa_alarms[HIST_WARMUP] + st.aa_alarms[HIST_CLASS] + st.aa_alarms[HIST_COST];
		aa_commits_w += st.aa_warm_commits;
		double hw = median_halfwidth(&base[k]);
		hw_sum += hw;
		double psd[2];
		size_t pn[2];
		pair_session_sd(&base[k], psd, pn);
		printf("  %-32s %3zu commits, median 99%% half-width %.2f%%, session sd %.2f%% (same-binary neighbours "
		       "%.2f%%, %zu pairs; others %.2f%%, %zu), steady changes:",
		       keys.v[k], st.points[HIST_STEADY], 100 * hw, 100 * st.tau[HIST_STEADY], 100 * psd[0], pn[0],
		       100 * psd[1], pn[1]);
		for (size_t i = 0; i < n; i++)
			if (ch[i].what == HIST_STEADY)
				printf(" %.8s %+.1f%%", c[base[k].p[ch[i].at].commit].hash, 100 * (ch[i].ratio - 1));
		struct hist_power pw;
		history_power(&base[k], kopts, ch, n, &pw);
		if (pw.sites)
			printf("; could see %.0f%% (%zu of %zu)", 100 * pw.size, pw.found, pw.sites);
		printf("\n");
		write_changes(fk, "raw", 0, k, ch, n, HIST_STEADY);
		write_series(fs, "raw", 0, k, &base[k], (size_t)-1);
		free(ch);
		history_series_copy(&base[k], &null[k]);
		null_align(&null[k]);
	}
	printf("raw series: %ld steady alarms over %ld points; %zu warm-up/class/cost alarms; A/A (same-binary neighbours): "
	       "%zu steady alarms on %zu pairs, %zu warm-up/class/cost splits on %zu commits of %zu pairs\n", raw.alarms,
	       raw.points, raw_warm, aa_alarms, aa_pairs, aa_alarms_w, aa_commits_w, aa_pairs_w);

	steps_bench(null, nk, trials, fs, fk, hw_sum / (double)nk, aa_alarms, aa_pairs, NULL);

	/* warm-up: every pexec warmed, then stretched */
	struct an_opts ao;
	an_opts_default(&ao);
	ao.resamples = 100;
	ao.threads = 1;
	struct score ws = { 0 }, wnull = { 0 }, cs = { 0 }, cnull = { 0 };
	int cpu = history_clock_cpu(h);
	int wtrials = trials / 3 > 3 ? trials / 3 : 3;
	for (size_t k = 0; k < nk; k++) {
		struct raw r;
		load_raw(h, &base[k], &r);
		struct hist_series wb;
		history_series_copy(&base[k], &wb);
		for (size_t i = 0; i < wb.n; i++)
			if (wb.p[i].built)
				rewarm_point(&wb.p[i], &r.ds[i], keys.v[k], 6, &ao, cpu);
		struct hist_change *ch;
		size_t n;
		struct hist_detect_stats st;
		history_detect(&wb, kopts, &ch, &n, &st);
		score(&wnull, ch, n, HIST_WARMUP, (size_t)-1, 0, 0, st.points[HIST_WARMUP]);
		score(&cnull, ch, n, HIST_COST, (size_t)-1, 0, 0, st.points[HIST_COST]);
		free(ch);
		for (int t = 0; t < wtrials; t++) {
			size_t at = pick_site(&wb);
			if (at >= wb.n)
				continue;
			struct hist_series s;
			history_series_copy(&wb, &s);
			for (size_t i = at; i < s.n; i++)
				if (s.p[i].built)
					rewarm_point(&s.p[i], &r.ds[i], keys.v[k], 12, &ao, cpu);
			history_detect(&s, kopts, &ch, &n, &st);
			score(&ws, ch, n, HIST_WARMUP, at, 1, 1, st.points[HIST_WARMUP]);
			score(&cs, ch, n, HIST_COST, at, 1, 1, st.points[HIST_COST]);
			write_changes(fk, "warm2x", t, k, ch, n, HIST_WARMUP);
			free(ch);
			history_series_free(&s);
		}
		history_series_free(&wb);
		for (size_t i = 0; i < r.n; i++)
			ds_free(&r.ds[i]);
		free(r.ds);
	}
	printf("\nwarm-up stretches 2x (%ld injected): recall %.3f, exact %.3f, within 2 %.3f, false alarms %ld; "
	       "warmed series without a stretch: %ld alarms over %ld points\n", ws.inj,
	       ws.inj ? (double)ws.found / (double)ws.inj : NAN, ws.found ? (double)ws.exact / (double)ws.found : NAN,
	       ws.found ? (double)ws.within2 / (double)ws.found : NAN, ws.false_alarms, wnull.alarms, wnull.points);
	printf("warm-up cost, the same stretches (3.5 -> 6.5 steady iterations' worth): recall %.3f, exact %.3f, false "
	       "alarms %ld; warmed series without a stretch: %ld alarms over %ld points\n",
	       cs.inj ? (double)cs.found / (double)cs.inj : NAN, cs.found ? (double)cs.exact / (double)cs.found : NAN,
	       cs.false_alarms, cnull.alarms, cnull.points);
	printf("ROW\twarm-up: recall of 2x warm-up stretches\t%.3f (%ld of %ld)\t>= 0.90\t%s\n",
	       ws.inj ? (double)ws.found / (double)ws.inj : NAN, ws.found, ws.inj,
	       ws.inj && ws.found >= 0.9 * (double)ws.inj ? "PASS" : "MISS");
	printf("ROW\twarm-up cost: recall of the same stretches\t%.3f (%ld of %ld)\t-\t-\n",
	       cs.inj ? (double)cs.found / (double)cs.inj : NAN, cs.found, cs.inj);
	printf("ROW\twarm-up: false warm-up alarms (A/A commits a warmup, class or cost split fell on) on the corpus\t%zu "
	       "(of %zu pairs; %zu series splits)\t<= 1\t%s\n", aa_commits_w, aa_pairs_w, aa_alarms_w,
	       aa_commits_w <= 1 ? "PASS" : "MISS");
	bisect_bench(h, m[0].id, &keys, base, nk, 200, trials);
	fclose(fs);
	fclose(fk);
	for (size_t k = 0; k < nk; k++) {
		history_series_free(&base[k]);
		history_series_free(&null[k]);
	}
	history_commits_free(c, nc);
	history_machines_free(m, nm);
	sv_clear(&keys);
	history_close(h);
	return 0;
}
