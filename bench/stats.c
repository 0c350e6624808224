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
 *   build/bench/stats [REPS]   (default 1000)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "stats.h"
#include "stats-dist.h"

static long REPS = 1000;
#define CONF 0.99
#define BASE_RESAMPLES 10000

/* binomial 95% upper bound of a rate seen k times in n (Wilson), for the reader */
static double wilson_hi(long k, long n)
{
	double z = 1.959963984540054, p = (double)k / (double)n, d = 1 + z * z / (double)n;
	return (p + z * z / (2.0 * (double)n) + z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * n * n))) / d;
}

static void row(const char *name, long v, const char *base, long bv, const char *target, int pass)
{
	printf("ROW\t%s\t%ld/%ld\t%s\t%ld/%ld\t%.3f\t%s\t%s\n", name, v, REPS, base, bv, REPS,
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
		int flag = (m.shape & (KS_SHAPE_WARN | KS_CONSTANT)) != 0;
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
				printf("\n   bimodal n=10: the slow mode showed in %ld cases: %ld covered, %ld flagged; in the %ld "
				       "where it did not, no sample can tell (10 runs leave a mode of up to %.0f%% of runs "
				       "unseen at 99%%)\n                   ",
				       c.seen, c.seen_cov, c.seen_flag, REPS - c.seen, 100 * (1 - pow(0.01, 0.1)));
				snprintf(name, sizeof(name), "bimodal 10%% slow mode, n = 10: shown mode flagged (of %ld)", c.seen);
				printf("ROW\t%s\t%ld/%ld\tbefore\t0/%ld\t-\t>= 97.5%%\t%s\n", name, c.seen_flag, c.seen, c.seen,
				       c.seen_flag >= 0.975 * (double)c.seen ? "PASS" : "MISS");
				snprintf(name, sizeof(name), "bimodal 10%% slow mode, n = 10: shown mode covered (of %ld)", c.seen);
				printf("ROW\t%s\t%ld/%ld\tbefore (bootstrap, all cases)\t%ld/%ld\t-\t>= 97.5%%\t%s\n", name,
				       c.seen_cov, c.seen, c.base_cov, REPS,
				       c.seen_cov >= 0.975 * (double)c.seen ? "PASS" : "MISS");
			}
		}
		printf("\n");
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		REPS = atol(argv[1]);
	if (REPS < 10)
		REPS = 10;
	clock_t t0 = clock();
	table_mean();
	printf("\n%.1f s of CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
	(void)wilson_hi;
	return 0;
}
