/*
 * test_analysis_kernels.c - the analysis's fast kernels are exact.
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

static char *run_self(const char *simd)
{
	char *cmd = xasprintf("KILN_NO_SIMD=%s /proc/%d/exe --check", simd, (int)getpid());
	FILE *p = popen(cmd, "r");
	free(cmd);
	struct strbuf sb = STRBUF_INIT;
	char buf[512];
	while (p && fgets(buf, sizeof(buf), p))
		sb_adds(&sb, buf);
	if (p)
		pclose(p);
	return sb_detach(&sb);
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
	char *s = run_self("1"), *a = run_self("512");
	expect_ok("scalar", s);
	expect_ok("AVX2 (or scalar)", a);
	free(s);
	free(a);
}

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
		cmocka_unit_test(test_pelt_exact_this_path),
		cmocka_unit_test(test_pelt_exact_other_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
