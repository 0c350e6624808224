/*
 * test_stats_robust.c - Huber's M-estimate of location (src/stats-robust.c),
 * which kiln bisect's sequential tests take as the centre of A/B rounds: a
 * sample whose answer is known in closed form, its efficiency at the
 * normal, the coverage of its t interval on clean and on contaminated
 * samples (the mean's, on the latter, is shown to be far wider).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats-robust.h"
#include "test-rng.h"

/*
 * {0, 1, 2, 3, 100}: median 2, MAD 1, clamp c = 1.5 * 1.4826; only 100 is
 * clamped, so m = (0 + 1 + 2 + 3 + m + c) / 5, i.e. m = (6 + c) / 4
 */
static void test_huber_closed_form(void **state)
{
	(void)state;
	static const double x[] = { 3, 100, 0, 2, 1 };
	double m, sd, df;
	assert_int_equal(robust_huber(x, 5, 1.5, &m, &sd, &df), 0);
	assert_true(fabs(m - (6 + 1.5 * 1.4826) / 4) < 1e-7);
	assert_true(df == 3); /* four values inside the clamp */
	assert_true(sd > 0 && sd < 5); /* the mean's sd is 44 */
	/* the input is left as it was */
	assert_true(x[0] == 3 && x[1] == 100 && x[4] == 1);
	/* k = infinity: the mean and the sample sd */
	robust_huber(x, 5, INFINITY, &m, &sd, &df);
	assert_true(fabs(m - 21.2) < 1e-9 && df == 4);
	/* MAD 0 or n < 3: the mean; n = 0: an error */
	static const double flat[] = { 1, 1, 1, 1, 7 };
	robust_huber(flat, 5, 1.5, &m, &sd, NULL);
	assert_true(fabs(m - 2.2) < 1e-12);
	robust_huber(x, 2, 1.5, &m, &sd, &df);
	assert_true(fabs(m - 51.5) < 1e-12 && df == 1);
	assert_int_equal(robust_huber(x, 0, 1.5, &m, &sd, &df), -1);
}

/* at the normal it loses little: its sd about 1.02 of the sample sd (95% efficiency at k = 1.5) */
static void test_huber_normal_efficiency(void **state)
{
	(void)state;
	test_seed = 99;
	static double x[4000];
	for (size_t i = 0; i < 4000; i++)
		x[i] = gauss();
	double m, sd, pm, psd;
	robust_huber(x, 4000, 1.5, &m, &sd, NULL);
	robust_huber(x, 4000, INFINITY, &pm, &psd, NULL);
	assert_true(fabs(m) < 0.06);
	assert_true(sd / psd > 1.0 && sd / psd < 1.06);
}

/*
 * 99% t intervals over 4000 samples of n rounds: clean normal rounds cover
 * at about 99%; with 15% of rounds +-50 sd away (a pexec in a slow mode)
 * the Huber interval still covers, and is several times narrower than the
 * mean's
 */
typedef int (*estimator_fn)(const double *, size_t, double, double *, double *, double *);

static void coverage_of(estimator_fn est, double k, size_t n, double wild, double *cov, double *width,
			double *mean_width)
{
	size_t hit = 0, trials = 4000;
	double w = 0, mw = 0;
	double x[40];
	for (size_t t = 0; t < trials; t++) {
		for (size_t i = 0; i < n; i++)
			x[i] = unif() < wild ? (unif() < 0.5 ? -50 : 50) : gauss();
		double m, sd, df;
		est(x, n, k, &m, &sd, &df);
		double h = gsl_cdf_tdist_Pinv(0.995, df) * sd / sqrt((double)n);
		hit += fabs(m) <= h;
		w += 2 * h;
		robust_huber(x, n, INFINITY, &m, &sd, &df);
		mw += 2 * gsl_cdf_tdist_Pinv(0.995, df) * sd / sqrt((double)n);
	}
	*cov = (double)hit / (double)trials;
	*width = w / (double)trials;
	*mean_width = mw / (double)trials;
	print_message("n %zu, %.0f%% wild: %s covers %.4f, width %.3f; the mean's width %.3f\n", n, 100 * wild,
		      est == robust_huber ? "Huber" : "biweight", *cov, *width, *mean_width);
}

static void coverage(size_t n, double wild, double *cov, double *width, double *mean_width)
{
	coverage_of(robust_huber, 1.5, n, wild, cov, width, mean_width);
}

static void test_huber_coverage(void **state)
{
	(void)state;
	test_seed = 4242;
	double cov, w, mw;
	/* 4000 trials: a binomial sd of 0.0016 at 99% */
	coverage(10, 0, &cov, &w, &mw);
	assert_true(cov >= 0.984);
	coverage(20, 0, &cov, &w, &mw);
	assert_true(cov >= 0.985);
	coverage(20, 0.15, &cov, &w, &mw);
	assert_true(cov >= 0.985);
	assert_true(w * 8 < mw);
}

/*
 * Tukey's biweight: a value beyond 4.685 scaled sd has no weight, so the
 * wild values leave the centre alone (Huber's still moves by 1.5 sd per
 * value); its t interval covers at 99% on clean and contaminated rounds
 */
static void test_biweight(void **state)
{
	(void)state;
	double x[21];
	for (int i = 0; i < 19; i++)
		x[i] = (i * 7) % 19; /* 0..18, shuffled */
	x[19] = 100;
	x[20] = -90;
	double m, sd, df;
	assert_int_equal(robust_biweight(x, 21, ROBUST_BIWEIGHT_C, &m, &sd, &df), 0);
	/* median 9, MAD 5: 100 and -90 are beyond 4.685 x 1.4826 x 5 and out; the biweight of 0..18 is 9 by symmetry */
	assert_true(fabs(m - 9) < 1e-6);
	assert_true(fabs(df - 14) < 1e-12); /* 0.7 x 20; nineteen values have weight */
	assert_true(sd > 0 && sd < 8);
	double hm, hsd;
	robust_huber(x, 21, 1.5, &hm, &hsd, NULL);
	assert_true(sd < hsd);
	/* fewer than ROBUST_BIWEIGHT_MIN_N: Huber's; k <= 0: the mean */
	double bm, bsd;
	robust_biweight(x, 6, ROBUST_BIWEIGHT_C, &bm, &bsd, NULL);
	robust_huber(x, 6, ROBUST_HUBER_K, &hm, &hsd, NULL);
	assert_true(bm == hm && bsd == hsd);
	robust_biweight(x, 21, 0, &m, &sd, &df);
	assert_true(fabs(m - (171.0 + 100 - 90) / 21) < 1e-12);

	test_seed = 4343;
	double cov, w, mw, hw, hmw;
	coverage_of(robust_biweight, ROBUST_BIWEIGHT_C, 10, 0, &cov, &w, &mw);
	assert_true(cov >= 0.984);
	coverage_of(robust_biweight, ROBUST_BIWEIGHT_C, 20, 0, &cov, &w, &mw);
	assert_true(cov >= 0.985);
	coverage_of(robust_biweight, ROBUST_BIWEIGHT_C, 20, 0.15, &cov, &w, &mw);
	assert_true(cov >= 0.985);
	/* contaminated, it is narrower than Huber's */
	test_seed = 4343;
	coverage_of(robust_huber, 1.5, 20, 0.15, &cov, &hw, &hmw);
	assert_true(w < hw);
	coverage_of(robust_biweight, ROBUST_BIWEIGHT_C, 40, 0.3, &cov, &w, &mw);
	assert_true(cov >= 0.985);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huber_closed_form),
		cmocka_unit_test(test_huber_normal_efficiency),
		cmocka_unit_test(test_huber_coverage),
		cmocka_unit_test(test_biweight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
