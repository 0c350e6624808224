/*
 * test_analysis_kernels.c - the analysis's fast kernels against their
 * references.
 *
 * The near-exact resample means of src/analysis-bootstrap.c agree with
 * resampling value by value: on seeded samples of the shapes steady
 * states have (normal noise, skewed noise, a coarse timer's ties, spikes,
 * one value of another level at the start as warmup_stats' segments have,
 * several segments per group, many groups), the median and the interval's
 * ends of the near-exact bootstrap are within the Monte Carlo noise of the
 * exact one's, seed for seed.
 *
 * The sliding-window outliers (an_outliers: a sorted window updated in
 * place) flag the same iterations as sorting every window afresh, on
 * seeded series with ties, constant runs, spikes and windows wider than
 * the series.
 *
 * The changepoint search of src/analysis-pelt.c is
 * exact: on many seeded series of the lengths and shapes benchmarks give
 * (flat, warmup, steps, spikes, runs of equal values, timer-quantised
 * values, tiny variances far from the mean, drifts, many changepoints at a
 * low penalty) an_pelt returns the same changepoints and the same optimum,
 * bit for bit, as plain optimal partitioning (an_op), on every vector path
 * the CPU has (scalar, AVX2, AVX-512: the test runs itself once per path);
 * and the bounds that skip candidates do skip them, so that the test
 * exercises them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis-int.h"
#include "unit-self.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}
static double nrand(void)
{
	return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
}

#define NKINDS 10
static const char *const kind_name[NKINDS] = { "flat", "warmup", "steps", "spikes", "runs", "quantised",
						"tiny variance", "drift", "bimodal", "constant" };

/* series of kind k, n values around a random level */
static void make_series(int kind, double *x, size_t n)
{
	double base = 0.001 + urand(), sd = base * pow(10, -1 - 3 * urand());
	size_t warm = 5 + (size_t)(urand() * 200);
	for (size_t i = 0; i < n; i++)
		x[i] = base + sd * nrand();
	switch (kind) {
	case 1: /* a slow start */
		for (size_t i = 0; i < warm && i < n; i++)
			x[i] += base * 0.8;
		break;
	case 2: /* 2-7 levels */
		for (size_t i = 0, lev = 0; i < n; lev++) {
			size_t len = 20 + (size_t)(urand() * (double)n / 3);
			double mu = base * (0.7 + 0.6 * urand());
			for (size_t j = 0; j < len && i < n; j++, i++)
				x[i] = mu + sd * nrand();
		}
		break;
	case 3: /* 1% spikes of 3x, heavy-tailed noise */
		for (size_t i = 0; i < n; i++) {
			if (urand() < 0.01)
				x[i] = base * 3;
			else
				x[i] += sd * nrand() / (0.2 + urand());
		}
		break;
	case 4: /* runs of equal values (a floored variance: nothing pruned) */
		for (size_t i = 0; i < n; i++)
			if (urand() < 0.05) {
				size_t len = 2 + (size_t)(urand() * 48);
				for (size_t j = 1; j < len && i + j < n; j++)
					x[i + j] = x[i];
				i += len;
			}
		break;
	case 5: /* a coarse timer: values on a grid of sd / 3 */
		for (size_t i = 0; i < n; i++)
			x[i] = round(x[i] / (sd / 3)) * (sd / 3);
		break;
	case 6: /* variance 1e-18 of the level, on two levels: w is a tiny difference of large sums */
		for (size_t i = 0; i < n; i++)
			x[i] = (i < n / 2 ? base : 2 * base) * (1 + 1e-9 * nrand());
		break;
	case 7: /* a drift of 3 sd over the series */
		for (size_t i = 0; i < n; i++)
			x[i] += 3 * sd * (double)i / (double)n;
		break;
	case 8: /* two modes */
		for (size_t i = 0; i < n; i++)
			x[i] += urand() < 0.3 ? 4 * sd : 0;
		break;
	case 9: /* constant, but for a few values */
		for (size_t i = 0; i < n; i++)
			x[i] = urand() < 0.02 ? base + sd * nrand() : base;
		break;
	}
}

/*
 * Every series against an_op on the path this process takes; prints one
 * line per mismatch and a last line "checked N skipped P%" (the share of
 * the quadratic search's candidate values not computed on the flat ones).
 */
static int check_all(FILE *out)
{
	rng = 0x9E3779B97F4A7C15ULL;
	size_t nmax = 2000, bad = 0, checked = 0;
	double *x = malloc(nmax * sizeof(double));
	size_t *e1 = malloc(nmax * sizeof(size_t)), *e2 = malloc(nmax * sizeof(size_t));
	double quad = 0, comp = 0;
	for (int rep = 0; rep < 40; rep++) {
		int kind = rep % NKINDS;
		size_t n = 200 + (size_t)(urand() * (double)(nmax - 200));
		make_series(kind, x, n);
		static const double pens[] = { 15, 15, 2, 0.5 };
		double pen = pens[(rep / NKINDS) % 4] * log((double)n), c1, c2;
		size_t computed;
		size_t n1 = an_pelt_counted(x, n, pen, e1, &c1, &computed);
		size_t n2 = an_op(x, n, pen, e2, &c2);
		checked++;
		if (n1 != n2 || memcmp(e1, e2, n1 * sizeof(size_t)) || c1 != c2) {
			fprintf(out, "mismatch: %s n=%zu pen=%g: %zu segments (cost %a) vs %zu (cost %a)\n",
				kind_name[kind], n, pen, n1, c1, n2, c2);
			bad++;
		}
		if (kind == 0 && pen > 10 * log((double)n)) {
			quad += (double)n * (double)n / 2;
			comp += (double)computed;
		}
	}
	fprintf(out, "checked %zu skipped %.1f%%\n", checked, 100 * (1 - comp / quad));
	free(x);
	free(e1);
	free(e2);
	return bad ? 1 : 0;
}

static void expect_ok(const char *what, const char *out)
{
	const char *last = strstr(out, "checked ");
	double skipped = 0;
	if (!last || strstr(out, "mismatch") || sscanf(last, "checked %*[0-9] skipped %lf", &skipped) != 1) {
		print_message("%s:\n%s", what, out);
		fail();
	}
	/* the bounds did their work: most of the flat series' candidates were never computed */
	if (skipped < 90) {
		print_message("%s: only %.1f%% skipped\n", what, skipped);
		fail();
	}
}

static void test_pelt_exact_this_path(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	check_all(f);
	fclose(f);
	expect_ok("default path", buf);
	free(buf);
}

static void test_pelt_exact_other_paths(void **state)
{
	(void)state;
	char *s = run_self("1", "--check"), *a = run_self("512", "--check");
	expect_ok("scalar", s);
	expect_ok("AVX2 (or scalar)", a);
	free(s);
	free(a);
}

/* ---- the bootstrap's near-exact resample means ---- */

#define NSHAPES 7
static const char *const shape_name[NSHAPES] = { "normal", "skewed", "coarse timer", "spikes", "one far value",
						   "two segments", "short" };

/* values of shape k: about 0.1 s with 0.2% noise */
static void fill(int k, double *x, size_t m)
{
	for (size_t i = 0; i < m; i++) {
		double e = nrand();
		switch (k) {
		case 1: e = -log(urand() * urand()) - 2; break;         /* gamma(2): skewness 1.41 */
		case 2: e = round(e * 2) / 2; break;                    /* few distinct values */
		case 3: e = urand() < 0.003 ? 40 : e; break;            /* rare spikes of 40 sd */
		}
		x[i] = 0.1 * (1 + 0.002 * e);
	}
	if (k == 4)
		x[0] = 0.18; /* warmup_stats' one value early, at 1.8 times the level */
}

#define RESAMPLES 40000

struct boot3 {
	double med, lo, hi;
};

static struct boot3 boot(const struct an_sample *s, uint64_t seed, int exact)
{
	size_t cap = an_bootstrap_count(s, RESAMPLES);
	double *m = malloc(cap * sizeof(double));
	size_t n = an_bootstrap_means_how(s, RESAMPLES, seed, m, exact);
	struct boot3 b;
	an_quantiles(m, n, 0.99, &b.med, &b.lo, &b.hi);
	free(m);
	return b;
}

static void test_near_exact_agrees(void **state)
{
	(void)state;
	rng = 0x243F6A8885A308D3ULL;
	enum { G = 6, M = 1500, K = 8 };
	for (int k = 0; k < NSHAPES; k++) {
		/*
		 * G groups (pexecs); shape 5 has two segments per group, shape 6
		 * segments of 210 values, shape 1 the same 300 values in every group
		 * (skewness 1.41 / sqrt(300) = 0.08: without the Cornish-Fisher
		 * terms, the interval's ends would move by some 3% of its half-width)
		 */
		size_t nseg = k == 5 ? 2 * G : G, len = k == 6 ? 210 : k == 1 ? 300 : M;
		double *seg[2 * G];
		size_t lens[2 * G], ends[2 * G];
		for (size_t q = 0; q < nseg; q++) {
			seg[q] = malloc(len * sizeof(double));
			if (k == 1 && q)
				memcpy(seg[q], seg[0], len * sizeof(double));
			else
				fill(k == 5 ? (int)(q % 5) : k, seg[q], len);
			lens[q] = len;
		}
		for (size_t g = 0; g < G; g++)
			ends[g] = k == 5 ? 2 * g + 2 : g + 1;
		struct an_sample s = { seg, lens, nseg, ends, G };
		/* K seeds each way: the near-exact mean of each end within the exact's noise */
		double e[3] = { 0 }, nx[3] = { 0 }, ve[3] = { 0 };
		struct boot3 eb[K];
		for (int q = 0; q < K; q++) {
			eb[q] = boot(&s, 11 + q, 1);
			struct boot3 nb = boot(&s, 11 + q, 0);
			e[0] += eb[q].lo / K, e[1] += eb[q].med / K, e[2] += eb[q].hi / K;
			nx[0] += nb.lo / K, nx[1] += nb.med / K, nx[2] += nb.hi / K;
		}
		for (int q = 0; q < K; q++) {
			double d[3] = { eb[q].lo - e[0], eb[q].med - e[1], eb[q].hi - e[2] };
			for (int j = 0; j < 3; j++)
				ve[j] += d[j] * d[j] / (K - 1);
		}
		double hw = (e[2] - e[0]) / 2;
		for (int j = 0; j < 3; j++) {
			/* 4.5 standard errors of the difference of two K-seed means, floored at 0.5% of the half-width */
			double tol = fmax(4.5 * sqrt(2 * ve[j] / K), 0.005 * hw);
			if (fabs(nx[j] - e[j]) > tol) {
				print_message("%s: %s %.9g near-exact vs %.9g exact (tolerance %.3g, half-width %.3g)\n",
					      shape_name[k], j == 0 ? "lo" : j == 1 ? "median" : "hi", nx[j], e[j], tol, hw);
				fail();
			}
		}
		for (size_t q = 0; q < nseg; q++)
			free(seg[q]);
	}
}

/* a constant segment's resamples are its value exactly; a segment of two values and of few ones stays exact */
static void test_near_exact_edges(void **state)
{
	(void)state;
	double c[500], *segs[] = { c };
	size_t len[] = { 500 }, end[] = { 1 };
	for (int i = 0; i < 500; i++)
		c[i] = 0.25;
	struct an_sample s = { segs, len, 1, end, 1 };
	struct boot3 b = boot(&s, 3, 0);
	assert_true(b.med == 0.25 && b.lo == 0.25 && b.hi == 0.25);
	/* 490 equal values and 10 far ones: only the far values' counts vary, drawn exactly */
	for (int i = 0; i < 10; i++)
		c[i * 50] = 1.25;
	b = boot(&s, 3, 0);
	struct boot3 x = boot(&s, 3, 1);
	/* the mean is 0.25 + k/500 for k ~ Binomial(500, 1/50): lattice values, the same quantiles both ways */
	double k_lo = (b.lo - 0.25) * 500, k_hi = (b.hi - 0.25) * 500;
	assert_true(fabs(k_lo - round(k_lo)) < 1e-6 && fabs(k_hi - round(k_hi)) < 1e-6);
	assert_true(fabs(b.lo - x.lo) < 1e-9 + 1.0 / 500 && fabs(b.hi - x.hi) < 1e-9 + 1.0 / 500);
	assert_true(b.med == x.med);
}

/* ---- outliers ---- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* the rule as written: each window [i - h, i + h) sorted afresh */
static size_t outliers_ref(const double *x, size_t n, long w, double k, size_t *out)
{
	size_t h = w > 1 ? (size_t)w / 2 : 0, nout = 0;
	if (h == 0 || n <= h)
		return 0;
	double *win = malloc(2 * h * sizeof(double));
	for (size_t i = h; i < n; i++) {
		size_t lo = i - h, hi = i + h < n ? i + h : n;
		memcpy(win, x + lo, (hi - lo) * sizeof(double));
		qsort(win, hi - lo, sizeof(double), cmp_dbl);
		double med = an_percentile_sorted(win, hi - lo, 50);
		double band = k * (an_percentile_sorted(win, hi - lo, 90) - an_percentile_sorted(win, hi - lo, 10));
		if (x[i] > med + band || x[i] < med - band)
			out[nout++] = i;
	}
	free(win);
	return nout;
}

static void test_outliers_exact(void **state)
{
	(void)state;
	enum { N = 1500 };
	double *x = malloc(N * sizeof(double));
	size_t *o1 = malloc(N * sizeof(size_t)), *o2 = malloc(N * sizeof(size_t)), flagged = 0;
	rng = 12345;
	for (int rep = 0; rep < 60; rep++) {
		size_t n = 5 + (size_t)(urand() * (N - 5));
		make_series(rep % NKINDS, x, n);
		if (rep % 7 == 0) /* spikes */
			for (size_t i = 0; i < n; i++)
				if (urand() < 0.02)
					x[i] *= 3;
		long w = rep % 5 == 0 ? 2 : rep % 5 == 1 ? (long)n * 2 : 4 + (long)(urand() * 300);
		size_t a = an_outliers(x, n, w, 3.0, o1), b = outliers_ref(x, n, w, 3.0, o2);
		if (a != b || memcmp(o1, o2, a * sizeof(size_t))) {
			print_message("%s, n=%zu, window %ld: %zu outliers vs %zu sorting afresh\n", kind_name[rep % NKINDS],
				      n, w, a, b);
			fail();
		}
		flagged += a;
	}
	assert_true(flagged > 100); /* the series did have outliers */
	free(x);
	free(o1);
	free(o2);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--check"))
		return check_all(stdout);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outliers_exact),
		cmocka_unit_test(test_near_exact_agrees),
		cmocka_unit_test(test_near_exact_edges),
		cmocka_unit_test(test_pelt_exact_this_path),
		cmocka_unit_test(test_pelt_exact_other_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
