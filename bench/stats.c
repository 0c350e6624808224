/*
 * bench/stats.c - what kiln's confidence is worth, on exact ground truth
 * (issue 25; docs/statistics.md quotes these tables).
 *
 * Seeded samples of known distributions (bench/stats-dist.h) go through
 * kiln's own code: keys built in memory and analysed by an_analyse_key()
 * (the interval `kiln report` and `kiln bench` print), compared by
 * an_key_compare() (what `kiln diff` decides) and ks_ratio_paired() (rounds
 * of `kiln bench` / `kiln compare`).  Each table is REPS cases a cell; the
 * baseline, measured in the same run, is the method kiln had before (the
 * percentile bootstrap of warmup_stats, which --replicate-warmup-stats
 * still gives, at 10,000 resamples here).  The targets are issue 25's and
 * each is printed as a PASS/MISS ROW line for bench/run.sh.
 *
 * Table 6: kiln diff across sessions, the session sd learned from recorded
 * sessions against the assumed 1% (bench/session-sim.h).
 *
 *   build/bench/stats [REPS [TABLES]]   (default 1000 cases a cell, tables 123456)
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "stats.h"
#include "stats-dist.h"
#include "session-sim.h"

static long REPS = 1000;
#define CONF 0.99
#define BASE_RESAMPLES 10000

/* binomial 95% upper bound of a rate seen k times in n (Wilson), for the reader */
static double wilson_hi(long k, long n)
{
	double z = 1.959963984540054, p = (double)k / (double)n, d = 1 + z * z / (double)n;
	return (p + z * z / (2.0 * (double)n) + z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * n * n))) / d;
}

/* ROW lines wait here while a table's line is being printed (flush_rows prints them) */
static char pending[8192];
static size_t npending;
static int hold; /* 1: rows wait for flush_rows */

static void rowf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rowf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(pending + npending, sizeof(pending) - npending, fmt, ap);
	va_end(ap);
	if (w > 0 && (size_t)w < sizeof(pending) - npending)
		npending += (size_t)w;
	if (!hold) {
		fputs(pending, stdout);
		npending = 0;
	}
}

static void flush_rows(void)
{
	fputs(pending, stdout);
	npending = 0;
	pending[0] = '\0';
}

static void row(const char *name, long v, const char *base, long bv, const char *target, int pass)
{
	rowf("ROW\t%s\t%ld/%ld\t%s\t%ld/%ld\t%.3f\t%s\t%s\n", name, v, REPS, base, bv, REPS,
	     bv > 0 ? (double)v / (double)bv : 0, target, pass ? "PASS" : "MISS");
}

/* ---- keys in memory ---- */

/* a key of one-iteration pexecs (a whole-process key, as kiln bench and hyperfine files make) */
static struct ds_key *whole_key(struct dataset *ds, const char *name, const double *x, size_t n)
{
	struct ds_key *k = ds_add_key(ds, name, "cmd", "default-command");
	for (size_t i = 0; i < n; i++) {
		struct ds_pexec *p = ds_add_pexec(k, (long)i);
		p->n = 1;
		p->wall = malloc(sizeof(double));
		p->wall[0] = x[i];
	}
	return k;
}

static void opts(struct an_opts *o, int baseline)
{
	an_opts_default(o);
	o->threads = 1;
	if (baseline) {
		o->replicate = 1;
		o->resamples = BASE_RESAMPLES;
	}
}

/* ---- 1. the interval of the mean (whole-process keys) ---- */

struct mean_cell {
	long cov, base_cov, flagged, cov_or_flag, seen, seen_cov, seen_flag;
	double width;
};

static void mean_cell(enum sd_dist d, size_t n, int baseline, struct mean_cell *c)
{
	memset(c, 0, sizeof(*c));
	struct sd_rng r = { 0x5eed0000u + (uint64_t)d * 1000 + n };
	double mu = sd_mean(d), *x = malloc(n * sizeof(double));
	for (long rep = 0; rep < REPS; rep++) {
		int slow = 0;
		for (size_t i = 0; i < n; i++) {
			x[i] = sd_draw(&r, d);
			slow |= x[i] > 0.005;
		}
		struct dataset ds = { 0 };
		struct ds_key *k = whole_key(&ds, "b", x, n);
		struct an_opts o;
		opts(&o, 0);
		struct an_key ak;
		an_analyse_key(k, &o, &ak);
		struct ks_mean m;
		an_key_mean(&ak, &o, &m);
		int cov = ak.perf_lo <= mu && mu <= ak.perf_hi;
		int flag = (m.shape & KS_WARN) != 0;
		c->cov += cov;
		c->flagged += flag;
		c->cov_or_flag += cov || flag;
		c->width += (ak.perf_hi - ak.perf_lo) / mu;
		/* for the slow modes: the cases where one showed */
		if (slow) {
			c->seen++;
			c->seen_cov += cov;
			c->seen_flag += flag;
		}
		an_key_free(&ak);
		if (baseline) {
			opts(&o, 1);
			an_analyse_key(k, &o, &ak);
			c->base_cov += ak.perf_lo <= mu && mu <= ak.perf_hi;
			an_key_free(&ak);
		}
		ds_free(&ds);
	}
	c->width /= (double)REPS;
	free(x);
}

static void table_mean(void)
{
	printf("\n1. 99%% interval of the mean, whole-process keys (an_analyse_key): cases of %ld whose interval "
	       "holds the true mean\n",
	       REPS);
	printf("   covered (before: percentile bootstrap), flagged (a shape warning), covered or flagged, mean width / "
	       "true mean\n");
	static const size_t ns[] = { 2, 3, 5, 10, 20, 30, 100 };
	hold = 1;
	for (int d = 0; d < SD_NDISTS; d++) {
		printf("   %-16s", sd_names[d]);
		for (size_t j = 0; j < ARRAY_SIZE(ns); j++) {
			size_t n = ns[j];
			int base = (n == 10 || n == 30) && d <= SD_BIMODAL;
			struct mean_cell c;
			mean_cell((enum sd_dist)d, n, base, &c);
			printf(" n=%zu %ld", n, c.cov);
			if (base)
				printf(" (%ld)", c.base_cov);
			printf(" f%ld c|f%ld w%.2f;", c.flagged, c.cov_or_flag, c.width);
			char name[160];
			if (d == SD_NORMAL && (n == 10 || n == 30)) {
				snprintf(name, sizeof(name), "99%% CI of the mean covers, normal, n = %zu", n);
				row(name, c.cov, "before (bootstrap)", c.base_cov, ">= 985", c.cov >= 985 * REPS / 1000);
			} else if (d == SD_EXP && n == 30) {
				row("99% CI of the mean covers, exponential, n = 30", c.cov, "before (bootstrap)", c.base_cov,
				    ">= 980", c.cov >= 980 * REPS / 1000);
			} else if ((d == SD_LOGNORM || d == SD_PARETO) && n == 30) {
				snprintf(name, sizeof(name), "99%% CI of the mean covers or is flagged, %s, n = 30", sd_names[d]);
				row(name, c.cov_or_flag, "before (bootstrap, covers)", c.base_cov, ">= 975",
				    c.cov_or_flag >= 975 * REPS / 1000);
			} else if (d == SD_BIMODAL && n == 10) {
				rowf("   bimodal n=10: the slow mode showed in %ld cases: %ld covered, %ld flagged; in the %ld "
				     "where it did not, no sample can tell (10 runs leave a mode of up to %.0f%% of runs "
				     "unseen at 99%%)\n",
				     c.seen, c.seen_cov, c.seen_flag, REPS - c.seen, 100 * (1 - pow(0.01, 0.1)));
				snprintf(name, sizeof(name), "bimodal 10%% slow mode, n = 10: shown mode flagged (of %ld)", c.seen);
				rowf("ROW\t%s\t%ld/%ld\tbefore\t0/%ld\t-\t>= 97.5%%\t%s\n", name, c.seen_flag, c.seen, c.seen,
				     c.seen_flag >= 0.975 * (double)c.seen ? "PASS" : "MISS");
				snprintf(name, sizeof(name), "bimodal 10%% slow mode, n = 10: shown mode covered (of %ld)", c.seen);
				rowf("ROW\t%s\t%ld/%ld\tbefore (bootstrap, all cases)\t%ld/%ld\t-\t>= 97.5%%\t%s\n", name,
				     c.seen_cov, c.seen, c.base_cov, REPS, c.seen_cov >= 0.975 * (double)c.seen ? "PASS" : "MISS");
			}
		}
		printf("\n");
		flush_rows();
		fflush(stdout);
	}
	hold = 0;
}

/* ---- 2. kiln diff: A/A false alarms, known directions, what it could see ---- */

struct diff_cell {
	long sig, base_sig, right, wrong, cov, drift;
	double mde;
};

/* REPS comparisons of na values of d against nb values of d scaled by 1 + shift; sessions: each side's own drift */
static void diff_cell(enum sd_dist d, size_t na, size_t nb, double shift, double drift_sd, double session_sd,
		      int baseline, struct diff_cell *c)
{
	memset(c, 0, sizeof(*c));
	struct sd_rng r = { 0xd1ff0000u + (uint64_t)d * 7919 + na * 31 + nb + (uint64_t)(shift * 1e4) };
	double *x = malloc(na * sizeof(double)), *y = malloc(nb * sizeof(double));
	double *mdes = malloc(REPS * sizeof(double));
	for (long rep = 0; rep < REPS; rep++) {
		double fa = drift_sd > 0 ? exp(drift_sd * sd_normal(&r)) : 1, fb = drift_sd > 0 ? exp(drift_sd * sd_normal(&r)) : 1;
		for (size_t i = 0; i < na; i++)
			x[i] = sd_draw(&r, d) * fa;
		for (size_t i = 0; i < nb; i++)
			y[i] = sd_draw(&r, d) * (1 + shift) * fb;
		struct dataset da = { 0 }, db = { 0 };
		struct ds_key *ka = whole_key(&da, "b", x, na), *kb = whole_key(&db, "b", y, nb);
		struct an_opts o;
		opts(&o, 0);
		struct an_key aa, ab;
		an_analyse_key(ka, &o, &aa);
		an_analyse_key(kb, &o, &ab);
		struct an_compare cmp;
		an_key_compare(&aa, &ab, &o, session_sd, &cmp);
		int v = cmp.verdict == AN_V_FASTER ? -1 : cmp.verdict == AN_V_SLOWER ? 1 : 0;
		c->sig += v != 0;
		c->drift += cmp.verdict == AN_V_DRIFT;
		if (shift != 0) {
			c->right += v == (shift > 0 ? 1 : -1);
			c->wrong += v == (shift > 0 ? -1 : 1);
		}
		c->cov += cmp.lo <= 1 + shift && 1 + shift <= cmp.hi;
		mdes[rep] = cmp.mde;
		an_key_free(&aa);
		an_key_free(&ab);
		if (baseline) {
			opts(&o, 1);
			an_analyse_key(ka, &o, &aa);
			an_analyse_key(kb, &o, &ab);
			struct an_ratio q = an_ratio_ci(&aa, &ab, &o);
			c->base_sig += q.ok && (q.hi < 1 || q.lo > 1);
			an_key_free(&aa);
			an_key_free(&ab);
		}
		ds_free(&da);
		ds_free(&db);
	}
	/* the median MDE printed */
	for (long i = 1; i < REPS; i++)
		for (long j = i; j > 0 && mdes[j] < mdes[j - 1]; j--) {
			double t = mdes[j];
			mdes[j] = mdes[j - 1];
			mdes[j - 1] = t;
		}
	c->mde = mdes[REPS / 2];
	free(mdes);
	free(x);
	free(y);
}

static void table_diff(void)
{
	printf("\n2. kiln diff (an_key_compare), A/A: the same distribution both sides; cases of %ld called "
	       "significant at 99%% (before: the bootstrap)\n",
	       REPS);
	static const size_t nas[] = { 10, 30, 10 }, nbs[] = { 10, 30, 30 };
	long worst = 0, worst_base = 0;
	for (int d = 0; d < SD_NDISTS; d++) {
		printf("   %-16s", sd_names[d]);
		for (size_t j = 0; j < ARRAY_SIZE(nas); j++) {
			int base = nas[j] == nbs[j] && d <= SD_BIMODAL && d != SD_PARETO;
			struct diff_cell c;
			diff_cell((enum sd_dist)d, nas[j], nbs[j], 0, 0, 0, base, &c);
			printf(" %zu/%zu: %ld", nas[j], nbs[j], c.sig);
			if (base)
				printf(" (%ld)", c.base_sig);
			printf(";");
			if (d <= SD_BIMODAL && c.sig > worst)
				worst = c.sig;
			if (base && c.base_sig > worst_base)
				worst_base = c.base_sig;
		}
		printf("\n");
		fflush(stdout);
	}
	row("diff A/A significant at 99%, worst of issue 25's distributions x n", worst, "before (bootstrap, worst)",
	    worst_base, "<= 10 (15 with binomial slack)", worst <= 15 * REPS / 1000);

	printf("\n   known direction: B = A x (1 + s); right and WRONG significant verdicts, the interval's coverage "
	       "of 1 + s, the median MDE printed\n");
	static const double shifts[] = { -0.05, -0.02, 0.01, 0.02, 0.05, 0.10 };
	static const int dists[] = { SD_NORMAL, SD_EXP, SD_LOGNORM, SD_PARETO, SD_BIMODAL };
	long wrong = 0, total = 0, cov_min = REPS;
	for (size_t q = 0; q < ARRAY_SIZE(dists); q++)
		for (int nn = 10; nn <= 30; nn += 20) {
			printf("   %-16s n=%d", sd_names[dists[q]], nn);
			for (size_t j = 0; j < ARRAY_SIZE(shifts); j++) {
				struct diff_cell c;
				diff_cell((enum sd_dist)dists[q], (size_t)nn, (size_t)nn, shifts[j], 0, 0, 0, &c);
				printf(" %+g%%: %ld/%ld/%ld;", shifts[j] * 100, c.right, c.wrong, c.cov);
				wrong += c.wrong;
				total += REPS;
				if (c.cov < cov_min)
					cov_min = c.cov;
			}
			printf("\n");
			fflush(stdout);
		}
	printf("ROW\tdiff: significant verdicts in the WRONG direction, known shifts 1-10%%\t%ld/%ld\t-\t-\t-\t<= 0.25%%\t%s\n",
	       wrong, total, (double)wrong <= 0.0025 * (double)total ? "PASS" : "MISS");
	row("diff: the ratio's 99% interval covers the true ratio, worst cell", cov_min, "-", 0, ">= 985 (binomial slack)",
	    cov_min >= 980 * REPS / 1000);

	/* what "no change" can mean: the printed MDE, then a true change of that size */
	struct diff_cell c0, c1;
	diff_cell(SD_NORMAL, 30, 30, 0, 0, 0, 0, &c0);
	diff_cell(SD_NORMAL, 30, 30, c0.mde, 0, 0, 0, &c1);
	printf("\n   MDE: normal, sd 10%%, 30 runs a side: kiln prints %.2f%% (median); a true change of that size is "
	       "found in %ld of %ld\n",
	       100 * c0.mde, c1.right, REPS);
	printf("ROW\tdiff: a true change of the printed MDE (%.2f%%) is found\t%ld/%ld\t-\t-\t-\t70-90%%\t%s\n",
	       100 * c0.mde, c1.right, REPS, c1.right >= 0.7 * REPS && c1.right <= 0.9 * REPS ? "PASS" : "MISS");

	printf("\n   two sessions: each side's mean moved by the machine (lognormal drift, sd 1%%, 2%%), normal runs, "
	       "30 a side, A/A\n");
	for (int k = 1; k <= 2; k++) {
		double sdr = k / 100.0;
		struct diff_cell none, with;
		diff_cell(SD_NORMAL, 30, 30, 0, sdr, 0, 0, &none);
		diff_cell(SD_NORMAL, 30, 30, 0, sdr, sdr, 0, &with);
		printf("   drift %d%%: without --session-sd %ld significant; with --session-sd %d%% %ld significant and %ld "
		       "\"drift?\"\n",
		       k, none.sig, k, with.sig, with.drift);
		char name[160];
		snprintf(name, sizeof(name), "diff A/A across sessions (drift sd %d%%), --session-sd %d%%: significant", k, k);
		row(name, with.sig, "without --session-sd", none.sig, "<= 10 (15 with binomial slack)",
		    with.sig <= 15 * REPS / 1000);
	}
}

/* ---- 3. rounds: the ratio paired by round (kiln bench, kiln compare) ---- */

/*
 * Rounds as a noisy machine makes them: each round's moment of the machine
 * slows both sides alike (lognormal, sd 5%), the runs' own noise is d, and
 * 1% of runs stall (x 20) on one side only.  B = A x (1 + s).
 */
static void table_paired(void)
{
	printf("\n3. the ratio paired by round (ks_ratio_paired): round effect sd 5%% on both sides, 1%% of runs x 20 "
	       "on one side; cases of %ld\n   significant (A/A) / coverage of 1 + s / wrong direction\n",
	       REPS);
	static const int dists[] = { SD_NORMAL, SD_EXP, SD_LOGNORM, SD_GAMMA4, SD_BIMODAL_N };
	static const size_t ns[] = { 10, 30, 100 };
	static const double shifts[] = { 0, 0.02, -0.05 };
	long worst_aa = 0, worst_cov = REPS, wrong = 0, total = 0;
	double *a = malloc(100 * sizeof(double)), *b = malloc(100 * sizeof(double));
	for (size_t q = 0; q < ARRAY_SIZE(dists); q++) {
		printf("   %-16s", sd_names[dists[q]]);
		for (size_t j = 0; j < ARRAY_SIZE(ns); j++)
			for (size_t k = 0; k < ARRAY_SIZE(shifts); k++) {
				struct sd_rng r = { 0x9a1d0000u + (uint64_t)dists[q] * 131 + ns[j] * 7 + k };
				long sig = 0, cov = 0, wr = 0;
				double s = shifts[k];
				for (long rep = 0; rep < REPS; rep++) {
					for (size_t i = 0; i < ns[j]; i++) {
						double f = exp(0.05 * sd_normal(&r) - 0.00125);
						a[i] = f * sd_draw(&r, dists[q]) * (sd_u01(&r) < 0.01 ? 20 : 1);
						b[i] = f * sd_draw(&r, dists[q]) * (1 + s) * (sd_u01(&r) < 0.01 ? 20 : 1);
					}
					struct ks_ratio rr;
					ks_ratio_paired(a, b, ns[j], CONF, &rr);
					int v = ks_ratio_verdict(&rr);
					sig += v != 0;
					cov += rr.lo <= 1 + s && 1 + s <= rr.hi;
					if (s != 0)
						wr += v == (s > 0 ? -1 : 1);
				}
				printf(" n=%zu %+g%%: %ld/%ld/%ld;", ns[j], s * 100, sig, cov, wr);
				if (s == 0 && sig > worst_aa)
					worst_aa = sig;
				if (cov < worst_cov)
					worst_cov = cov;
				if (s != 0) {
					wrong += wr;
					total += REPS;
				}
			}
		printf("\n");
		fflush(stdout);
	}
	free(a);
	free(b);
	row("rounds (paired ratio): A/A significant at 99%, worst cell", worst_aa, "-", 0, "<= 10 (15 with binomial slack)",
	    worst_aa <= 15 * REPS / 1000);
	row("rounds (paired ratio): 99% interval covers the true ratio, worst cell", worst_cov, "-", 0,
	    ">= 985 (binomial slack)", worst_cov >= 980 * REPS / 1000);
	printf("ROW\trounds (paired ratio): significant in the WRONG direction\t%ld/%ld\t-\t-\t-\t<= 0.25%%\t%s\n", wrong,
	       total, (double)wrong <= 0.0025 * (double)total ? "PASS" : "MISS");
}

/* ---- 4. in-process keys: pexecs of iterations ---- */

/*
 * A key of P pexecs of I iterations, flat: each pexec's level moves by a
 * lognormal sd `between` (the variation between processes), iterations by
 * AR(1) noise (phi, sd 2%) about it; the true steady mean is mu exactly.
 * One pexec: the interval is within-process (batch means) and its truth is
 * that pexec's own level.
 */
static long inproc_cell(size_t P, size_t I, double between, double phi, int baseline, long *base_cov)
{
	struct sd_rng r = { 0x1e7a0000u + P * 1009 + I + (uint64_t)(phi * 100) + (uint64_t)(between * 1e4) };
	const double mu = 0.01;
	long cov = 0;
	*base_cov = 0;
	for (long rep = 0; rep < REPS; rep++) {
		struct dataset ds = { 0 };
		struct ds_key *k = ds_add_key(&ds, "b", "vm", "default");
		double level = mu;
		for (size_t p = 0; p < P; p++) {
			struct ds_pexec *px = ds_add_pexec(k, (long)p);
			px->n = I;
			px->wall = malloc(I * sizeof(double));
			level = mu * exp(between * sd_normal(&r) - between * between / 2);
			double e = sd_normal(&r);
			for (size_t i = 0; i < I; i++) {
				e = phi * e + sqrt(1 - phi * phi) * sd_normal(&r);
				px->wall[i] = level * (1 + 0.02 * e);
			}
		}
		double truth = P == 1 ? level : mu;
		struct an_opts o;
		opts(&o, 0);
		struct an_key ak;
		an_analyse_key(k, &o, &ak);
		cov += ak.has_steady && ak.perf_lo <= truth && truth <= ak.perf_hi;
		an_key_free(&ak);
		if (baseline) {
			opts(&o, 1);
			an_analyse_key(k, &o, &ak);
			*base_cov += ak.has_steady && ak.perf_lo <= truth && truth <= ak.perf_hi;
			an_key_free(&ak);
		}
		ds_free(&ds);
	}
	return cov;
}

static void table_inproc(void)
{
	printf("\n4. in-process keys (an_analyse_key): 99%% interval of the steady mean covers the truth, cases of %ld "
	       "(before: warmup_stats' bootstrap of iterations)\n",
	       REPS);
	long base, c;
	c = inproc_cell(10, 200, 0.02, 0.5, 1, &base);
	printf("   10 pexecs x 200 iterations, between-process sd 2%%, AR(1) 0.5: %ld (%ld)\n", c, base);
	row("in-process key, 10 pexecs, between-process sd 2%: covers", c, "before (bootstrap of iterations)", base, ">= 985",
	    c >= 985 * REPS / 1000);
	c = inproc_cell(10, 200, 0, 0.5, 1, &base);
	printf("   10 pexecs x 200 iterations, no between-process variation, AR(1) 0.5: %ld (%ld)\n", c, base);
	row("in-process key, 10 pexecs, AR(1) 0.5 only: covers", c, "before (bootstrap of iterations)", base, ">= 985",
	    c >= 985 * REPS / 1000);
	static const double phis[] = { 0, 0.5, 0.9 };
	long worst = REPS, wbase = REPS;
	for (size_t j = 0; j < ARRAY_SIZE(phis); j++) {
		c = inproc_cell(1, 1000, 0, phis[j], 1, &base);
		printf("   1 pexec x 1000 iterations, AR(1) %g (within-process truth): %ld (%ld)%s\n", phis[j], c, base,
		       phis[j] > 0.8 ? "  [the warmup analysis takes the wandering for warmup in ~40% of these and keeps "
				       "a tail chosen by its level: see the series line below]"
				     : "");
		if (phis[j] < 0.8 && c < worst) {
			worst = c;
			wbase = base;
		}
	}
	row("one pexec (batch means), AR(1) 0 and 0.5: covers its own level, worst", worst,
	    "before (bootstrap of iterations)", wbase, ">= 975", worst >= 975 * REPS / 1000);
	/* the batch means themselves, on whole series */
	worst = REPS;
	for (size_t j = 0; j < ARRAY_SIZE(phis); j++) {
		struct sd_rng r = { 0xba7c0000u + j };
		double *x = malloc(1000 * sizeof(double));
		long cov = 0;
		for (long rep = 0; rep < REPS; rep++) {
			double e = sd_normal(&r);
			for (size_t i = 0; i < 1000; i++) {
				e = phis[j] * e + sqrt(1 - phis[j] * phis[j]) * sd_normal(&r);
				x[i] = 1 + 0.02 * e;
			}
			struct ks_mean m;
			ks_mean_series(x, 1000, CONF, &m);
			cov += m.lo <= 1 && 1 <= m.hi;
		}
		free(x);
		printf("   ks_mean_series on 1000 values of AR(1) %g: %ld\n", phis[j], cov);
		if (cov < worst)
			worst = cov;
	}
	row("batch means (ks_mean_series), AR(1) 0-0.9 series: covers, worst", worst, "-", 0, ">= 975",
	    worst >= 975 * REPS / 1000);
}

/* ---- 5. the median's interval (order statistics) ---- */

static void table_median(void)
{
	printf("\n5. the median's distribution-free interval (ks_median_ci) covers the true median, cases of %ld\n", REPS);
	static const int dists[] = { SD_NORMAL, SD_EXP, SD_LOGNORM, SD_UNIFORM };
	const double med[] = { 0.003, 0.002 + 0.001 * log(2.0), 0.0025, 0.003 };
	long worst = REPS;
	for (size_t q = 0; q < ARRAY_SIZE(dists); q++) {
		printf("   %-16s", sd_names[dists[q]]);
		for (size_t n = 10; n <= 100; n *= 10) {
			struct sd_rng r = { 0x3ed10000u + (uint64_t)q * 17 + n };
			long cov = 0;
			double *x = malloc(n * sizeof(double));
			for (long rep = 0; rep < REPS; rep++) {
				for (size_t i = 0; i < n; i++)
					x[i] = sd_draw(&r, dists[q]);
				struct ks_mean m;
				ks_mean(x, n, CONF, &m);
				cov += m.med_lo <= med[q] && med[q] <= m.med_hi;
			}
			free(x);
			printf(" n=%zu %ld;", n, cov);
			if (cov < worst)
				worst = cov;
		}
		printf("\n");
	}
	row("median's order-statistic 99% interval covers, worst cell", worst, "-", 0, ">= 985 (binomial slack)",
	    worst >= 985 * REPS / 1000);
}

/* ---- 6. kiln diff across sessions: the session sd learned from recorded sessions (stats-session.h) ---- */

static void table_sessions(void)
{
	printf("\n6. kiln diff A/A across sessions of a machine whose sessions move a program's mean by a known sd "
	       "(lognormal), runs normal with sd 10%%, 20 a session; H recorded sessions of the program first. Cases of "
	       "%ld called significant at 99%%, with the session sd learned (the %g%% upper bound, the assumed 1%% "
	       "below %d sessions) and with the assumed 1%% alone; 'drift?' (kiln cannot tell) in brackets\n",
	       REPS, 100 * SS_UPPER_CONF, SS_MIN_SESSIONS);
	static const double sds[] = { 0.005, 0.02, 0.05 };
	static const size_t hists[] = { 3, 8, 32 };
	for (size_t i = 0; i < ARRAY_SIZE(sds); i++) {
		long worst = 0, worst_assumed = 0;
		printf("   session sd %4.1f%%:", 100 * sds[i]);
		for (size_t h = 0; h < ARRAY_SIZE(hists); h++) {
			struct ssim_cell c;
			ssim_cell(0x5e550000u + i * 64 + h, REPS, sds[i], 0.10, 20, hists[h], 0, CONF, &c);
			printf(" H=%zu: learned %ld (%ld), assumed %ld (%ld), median learned sd %.2g%%;", hists[h],
			       c.sig_learned, c.drift_learned, c.sig_assumed, c.drift_assumed, 100 * c.sd_hi_med);
			worst = c.sig_learned > worst ? c.sig_learned : worst;
			worst_assumed = c.sig_assumed > worst_assumed ? c.sig_assumed : worst_assumed;
		}
		printf("\n");
		char name[160];
		snprintf(name, sizeof(name), "diff A/A across sessions (session sd %.1f%%), sd learned from 3-32 sessions: "
			 "significant, worst", 100 * sds[i]);
		row(name, worst, "assumed 1% (worst)", worst_assumed, "<= 10 (15 with binomial slack)",
		    worst <= 15 * REPS / 1000);
		fflush(stdout);
	}
	/* what the learned sd costs or gains: a true 5% change on a quiet machine (0.5%), 32 recorded sessions */
	struct ssim_cell c;
	ssim_cell(0x5e55f000u, REPS, 0.005, 0.10, 20, 32, 0.05, CONF, &c);
	printf("   a true 5%% change, session sd 0.5%%, H=32: found (significant) %ld with the learned sd, %ld with "
	       "the assumed 1%%\n",
	       c.sig_learned, c.sig_assumed);
	ssim_cell(0x5e55f100u, REPS, 0.02, 0.10, 20, 32, 0.05, CONF, &c);
	printf("   a true 5%% change, session sd 2%%, H=32: found %ld with the learned sd (drift? %ld), %ld with the "
	       "assumed 1%%\n",
	       c.sig_learned, c.drift_learned, c.sig_assumed);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		REPS = atol(argv[1]);
	if (REPS < 10)
		REPS = 10;
	clock_t t0 = clock();
	const char *which = argc > 2 ? argv[2] : "123456";
	if (strchr(which, '1'))
		table_mean();
	if (strchr(which, '2'))
		table_diff();
	if (strchr(which, '3'))
		table_paired();
	if (strchr(which, '4'))
		table_inproc();
	if (strchr(which, '5'))
		table_median();
	if (strchr(which, '6'))
		table_sessions();
	printf("\n%.1f s of CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
	(void)wilson_hi;
	return 0;
}
