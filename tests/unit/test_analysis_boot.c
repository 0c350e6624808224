/*
 * test_analysis_boot.c - the near-exact resample means of
 * src/analysis-bootstrap.c agree with resampling value by value: on
 * seeded samples of the shapes steady states have (normal noise, skewed
 * noise, a coarse timer's ties, spikes, one value of another level at the
 * start as warmup_stats' segments have, several segments per group, many
 * groups), the median and the interval's ends of the near-exact bootstrap
 * are within the Monte Carlo noise of the exact one's, seed for seed.
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

#include "analysis-int.h"

static uint64_t rng = 0x243F6A8885A308D3ULL;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_near_exact_agrees),
		cmocka_unit_test(test_near_exact_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
