/*
 * test_stats_core.c - kiln's verdict statistics (src/stats.h, stats-key.c):
 * each method against what it must be on values where the answer is
 * known exactly, and a small deterministic version of bench/stats's
 * exact-truth tables (seeded samples of known distributions through
 * an_analyse_key and an_key_compare, a few hundred cases: the full tables
 * with their targets are make bench's).
 *
 * (test_stats.c is the Pyston stats parser's test, another thing.)
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

#include "analysis.h"
#include "stats.h"
#include "../../bench/stats-dist.h"

#define CONF 0.99

/* a whole-process key of x[0..n) in ds, analysed into ak */
static void whole(struct dataset *ds, const double *x, size_t n, struct an_key *ak)
{
	struct ds_key *k = ds_add_key(ds, "b", "cmd", "default-command");
	for (size_t i = 0; i < n; i++) {
		struct ds_pexec *p = ds_add_pexec(k, (long)i);
		p->n = 1;
		p->wall = malloc(sizeof(double));
		p->wall[0] = x[i];
	}
	struct an_opts o;
	an_opts_default(&o);
	o.threads = 1;
	an_analyse_key(&ds->keys[ds->nkeys - 1], &o, ak);
}

/* values symmetric about 3 (no skew): the interval is Student's t exactly */
static void test_mean_symmetric_is_t(void **state)
{
	(void)state;
	double x[12];
	for (int i = 0; i < 6; i++) {
		x[2 * i] = 3 + 0.1 * (i + 1);
		x[2 * i + 1] = 3 - 0.1 * (i + 1);
	}
	struct ks_mean m;
	ks_mean(x, 12, CONF, &m);
	double sd = 0;
	for (int i = 0; i < 12; i++)
		sd += (x[i] - 3) * (x[i] - 3);
	sd = sqrt(sd / 11);
	double half = gsl_cdf_tdist_Pinv(0.995, 11) * sd / sqrt(12);
	assert_true(fabs(m.mean - 3) < 1e-12 && fabs(m.sd - sd) < 1e-12);
	assert_true(fabs(m.lo - (3 - half)) < 1e-9 && fabs(m.hi - (3 + half)) < 1e-9);
	assert_true(fabs(m.skew) < 1e-9);
	assert_int_equal(m.shape, 0);
}

/* right-skewed values: Hall's correction moves the upper end out; the lower stays t's (the union) */
static void test_mean_skewed_moves_up(void **state)
{
	(void)state;
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = 2 + (i < 16 ? 0.05 * i : 1.0 + 0.5 * (i - 16)); /* a long slow tail */
	struct ks_mean m;
	ks_mean(x, 20, CONF, &m);
	double q = gsl_cdf_tdist_Pinv(0.995, 19);
	assert_true(m.skew > 1);
	assert_true(m.hi > m.mean + q * m.se + 1e-6);         /* moved out */
	assert_true(fabs(m.lo - (m.mean - q * m.se)) < 1e-12); /* t's */
	/* Hall's g at the bound gives the quantile back: the inverse is right */
	double a = (m.skew * 18 / sqrt(20.0 * 19)) / sqrt(20.0), t = (m.mean - m.hi) / m.se;
	double g = t + a * t * t / 3 + a * a * t * t * t / 27 + a / 6;
	assert_true(fabs(g + q) < 1e-9);
}

/* below 8 values: t alone, and the shape cannot be tested (KS_FEW); never below 0 for times */
static void test_mean_few_and_clip(void **state)
{
	(void)state;
	double x[5] = { 1, 1.1, 1.3, 2.9, 1.2 };
	struct ks_mean m;
	ks_mean(x, 5, CONF, &m);
	double q = gsl_cdf_tdist_Pinv(0.995, 4);
	assert_true(fabs(m.hi - (m.mean + q * m.se)) < 1e-12);
	assert_true(m.shape & KS_FEW);
	assert_true(m.lo == 0); /* t's lower end would be below 0 */
	double one = 5;
	ks_mean(&one, 1, CONF, &m);
	assert_true(m.mean == 5 && isnan(m.lo) && isnan(m.hi));
	struct strbuf sb = STRBUF_INIT;
	ks_shape_text(&m, NULL, &sb);
	assert_string_equal(sb.buf, "1 value: no interval (one has no spread to measure)");
	sb_release(&sb);
	double same[9] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	ks_mean(same, 9, CONF, &m);
	assert_true(m.lo == 2 && m.hi == 2 && (m.shape & KS_CONSTANT));
}

/* the median's interval: the order statistics whose binomial coverage is >= 99% */
static void test_median_interval(void **state)
{
	(void)state;
	double s[30];
	for (int i = 0; i < 30; i++)
		s[i] = i;
	double lo, hi, cov;
	ks_median_ci(s, 30, CONF, &lo, &hi, &cov);
	assert_true(lo == 7 && hi == 22 && fabs(cov - 0.9947771206498146) < 1e-12);
	ks_median_ci(s, 10, CONF, &lo, &hi, &cov);
	assert_true(lo == 0 && hi == 9 && fabs(cov - (1 - 2.0 / 1024)) < 1e-15);
	/* 7 values cannot reach 99%: [min, max] and what it covers */
	ks_median_ci(s, 7, CONF, &lo, &hi, &cov);
	assert_true(lo == 0 && hi == 6 && fabs(cov - (1 - 2.0 / 128)) < 1e-15);
}

/* the shape tests on samples made to show one thing each */
static void test_shape_flags(void **state)
{
	(void)state;
	struct sd_rng r = { 7 };
	double x[30];
	struct ks_mean m;
	/* a stall: 29 runs of about 2 ms, one of 84 ms */
	for (int i = 0; i < 30; i++)
		x[i] = 0.002 * (1 + 0.01 * sd_normal(&r));
	x[17] = 0.084;
	ks_mean(x, 30, CONF, &m);
	assert_true(m.shape & KS_OUTLIERS);
	assert_int_equal(m.noutliers, 1);
	assert_true(m.median < 0.0021 && m.med_hi < 0.0021); /* the median is the runs' */
	struct strbuf sb = STRBUF_INIT;
	ks_shape_text(&m, NULL, &sb);
	assert_non_null(strstr(sb.buf, "1 outlier of 30"));
	assert_non_null(strstr(sb.buf, "median"));
	sb_release(&sb);
	/* a slow mode: 24 runs of 2 ms, 6 of 3 ms, 1% noise */
	for (int i = 0; i < 30; i++)
		x[i] = (i % 5 ? 0.002 : 0.003) * (1 + 0.01 * sd_normal(&r));
	ks_mean(x, 30, CONF, &m);
	assert_true(m.shape & KS_MODES);
	/* normal runs: nothing to say */
	for (int i = 0; i < 30; i++)
		x[i] = 0.003 + 0.0003 * sd_normal(&r);
	ks_mean(x, 30, CONF, &m);
	assert_int_equal(m.shape & KS_WARN, 0);
	assert_true(fabs(m.unseen - (1 - pow(0.01, 1 / 30.0))) < 1e-12);
}

/* one pexec: batch means, merged while correlated; flagged within-process */
static void test_series(void **state)
{
	(void)state;
	struct sd_rng r = { 11 };
	enum { N = 2000 };
	double *x = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
	double e = 0;
	for (int i = 0; i < N; i++) {
		e = 0.95 * e + sqrt(1 - 0.95 * 0.95) * sd_normal(&r);
		x[i] = 1 + 0.02 * e;
	}
	size_t nb = ks_batch_means(x, N, b);
	assert_true(nb >= 4 && nb <= 8); /* ten autocorrelation times (39) a batch: 5 */
	for (int i = 0; i < N; i++)
		x[i] = 1 + 0.02 * sd_normal(&r);
	assert_int_equal(ks_batch_means(x, N, b), 32); /* independent: as many as it starts with */
	struct ks_mean m;
	ks_mean_series(x, N, CONF, &m);
	double sum = 0;
	for (int i = 0; i < N; i++)
		sum += x[i];
	assert_true((m.shape & KS_WITHIN) && fabs(m.mean - sum / N) < 1e-12 && m.lo < 1 && 1 < m.hi);
	free(x);
	free(b);
}

/* Fieller's interval without skew: its ends solve (mB - R mA)^2 = q^2 (vB/nB + R^2 vA/nA) */
static void test_ratio_fieller(void **state)
{
	(void)state;
	double a[10], b[10];
	for (int i = 0; i < 5; i++) {
		a[2 * i] = 1 + 0.01 * (i + 1);
		a[2 * i + 1] = 1 - 0.01 * (i + 1);
		b[2 * i] = 1.05 + 0.02 * (i + 1);
		b[2 * i + 1] = 1.05 - 0.02 * (i + 1);
	}
	struct ks_ratio r;
	ks_ratio_unpaired(a, 10, b, 10, CONF, &r);
	assert_true(r.ok && fabs(r.ratio - 1.05) < 1e-12 && r.df == 9);
	double va = 0, vb = 0;
	for (int i = 0; i < 10; i++) {
		va += (a[i] - 1) * (a[i] - 1);
		vb += (b[i] - 1.05) * (b[i] - 1.05);
	}
	va /= 9;
	vb /= 9;
	double q = gsl_cdf_tdist_Pinv(0.995, 9);
	double ends[2] = { r.lo, r.hi };
	for (int j = 0; j < 2; j++) {
		double R = ends[j], d = 1.05 - R;
		assert_true(fabs(d * d - q * q * (vb / 10 + R * R * va / 10)) < 1e-9);
	}
	assert_true(r.lo < 1 && r.hi > 1.05 && ks_ratio_verdict(&r) == 0);
	/* the MDE: (t(0.995, 9) + t(0.8, 9)) se on the log scale */
	double se = sqrt(va / 10 + vb / (10 * 1.05 * 1.05));
	assert_true(fabs(r.se - se) < 1e-12);
	assert_true(fabs(r.mde - (exp((q + gsl_cdf_tdist_Pinv(0.8, 9)) * se) - 1)) < 1e-12);
	/* the session term widens it and the MDE */
	struct ks_ratio w = r;
	ks_ratio_add_sessions(&w, 0.02, CONF);
	assert_true(w.lo < r.lo && w.hi > r.hi && w.mde > r.mde);
}

/*
 * Samples without spread: ten equal runs against thirty equal runs of the
 * same time are no change (their means differ in the last bit only), and
 * ten equal runs that missed a slow mode against thirty that show it
 * borrow the other side's spread instead of making its noise a verdict
 */
static void test_ratio_constant(void **state)
{
	(void)state;
	double x[10], y[30];
	for (int i = 0; i < 10; i++)
		x[i] = 0.002;
	for (int i = 0; i < 30; i++)
		y[i] = 0.002;
	struct ks_ratio r;
	ks_ratio_unpaired(x, 10, y, 30, CONF, &r);
	assert_true(r.ok && r.lo <= 1 && 1 <= r.hi && ks_ratio_verdict(&r) == 0);
	for (int i = 0; i < 30; i++)
		y[i] = i % 10 == 3 ? 0.008 : 0.002; /* 3 slow runs of 30 */
	ks_ratio_unpaired(x, 10, y, 30, CONF, &r);
	assert_true(r.ok && ks_ratio_verdict(&r) == 0);
	/* different constant times are different */
	for (int i = 0; i < 30; i++)
		y[i] = 0.0021;
	ks_ratio_unpaired(x, 10, y, 30, CONF, &r);
	assert_int_equal(ks_ratio_verdict(&r), 1);
}

/* paired by round: what hits a round hits both sides and cancels */
static void test_ratio_paired(void **state)
{
	(void)state;
	struct sd_rng r = { 3 };
	double a[20], b[20];
	for (int i = 0; i < 20; i++) {
		double f = exp(0.3 * sd_normal(&r)); /* the machine's moment: 30% */
		a[i] = 0.01 * f * (1 + 0.001 * sd_normal(&r));
		b[i] = 0.0102 * f * (1 + 0.001 * sd_normal(&r));
	}
	struct ks_ratio p, u;
	ks_ratio_paired(a, b, 20, CONF, &p);
	ks_ratio_unpaired(a, 20, b, 20, CONF, &u);
	assert_true(p.ok && u.ok && p.df == 19);
	assert_true(p.lo > 1.01 && p.hi < 1.03 && ks_ratio_verdict(&p) == 1); /* 2% slower, seen */
	assert_true(ks_ratio_verdict(&u) == 0 && u.hi - u.lo > 20 * (p.hi - p.lo)); /* unpaired: lost in the noise */
	/* a value that is not finite or a mean <= 0: no ratio */
	b[3] = NAN;
	ks_ratio_paired(a, b, 20, CONF, &p);
	assert_false(p.ok);
}

/* printing: an interval off 1 never prints as touching it */
static void test_printing(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	ks_fmt_ratio(&sb, 1.0045, 1.0012, 1.0079, 3);
	assert_string_equal(sb.buf, "1.0045 ± 0.0033"); /* 1.0045 - 0.0033 > 1 */
	sb_reset(&sb);
	ks_fmt_ratio(&sb, 1.0100, 1.0010, 1.0300, 3); /* lopsided: r - half would be below 1 */
	assert_string_equal(sb.buf, "1.010 (1.001–1.030)");
	sb_reset(&sb);
	ks_fmt_ratio(&sb, 0.99999, 0.99998, 0.999995, 3); /* 0.001% faster, significant */
	assert_string_equal(sb.buf, "0.999990 (0.999980–0.999995)");
	sb_reset(&sb);
	/*
	 * r and the half-width rounded apart: 1.0006-1.0222 printed "1.011 ±
	 * 0.011", which reads 1.000-1.022 (kiln export of an imported hyperfine
	 * file gave "1.012 ± 0.012" for 1.0004-1.0236); the ends read from the
	 * print stay off 1
	 */
	ks_fmt_ratio(&sb, 1.0114, 1.0006, 1.0222, 3);
	assert_string_equal(sb.buf, "1.0114 ± 0.0108");
	sb_reset(&sb);
	ks_fmt_ratio(&sb, 0.9886, 0.9778, 0.9994, 3);
	assert_string_equal(sb.buf, "0.9886 ± 0.0108");
	sb_reset(&sb);
	/* an interval that includes 1 may print as touching it, never as off it */
	ks_fmt_ratio(&sb, 1.0114, 0.9994, 1.0234, 3);
	assert_string_equal(sb.buf, "1.011 ± 0.012");
	sb_reset(&sb);
	/* a sweep: whatever the rounding, "r ± h" reads on the sides of 1 that lo and hi are on */
	for (int i = 0; i < 20000; i++) {
		double r = 0.97 + 0.06 * i / 20000.0, h = 0.001 + 0.02 * ((i * 7919) % 1000) / 1000.0;
		double lo = r - h, hi = r + h;
		ks_fmt_ratio(&sb, r, lo, hi, 3);
		double pr, ph;
		if (sscanf(sb.buf, "%lf ± %lf", &pr, &ph) == 2) {
			char *pm = strstr(sb.buf, " ± ");
			int dec = (int)(pm - strchr(sb.buf, '.')) - 1;
			long long one = llround(pow(10, dec)), rp = llround(pr * one), hp = llround(ph * one);
			if ((lo > 1) != (rp - hp > one) || (hi < 1) != (rp + hp < one))
				fail_msg("%.6f (%.6f-%.6f) printed as '%s'", r, lo, hi, sb.buf);
		}
		sb_reset(&sb);
	}
	/* percentages: plain decimals, never %g's exponent ("could see ±1.3e+02%") */
	static const struct { double p; int sig; const char *want; } pct[] = {
		{ 2.31, 2, "2.3%" }, { 1, 2, "1%" }, { 130.4, 2, "130%" }, { 240.6, 2, "241%" }, { 2082.4, 2, "2082%" },
		{ 0.0041, 2, "0.0041%" }, { 9.96, 2, "10%" }, { 0, 2, "0%" }, { 12.5, 3, "12.5%" }, { 1.2e21, 2, ">10000%" },
	};
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		ks_fmt_pct(&sb, pct[i].p, pct[i].sig);
		assert_string_equal(sb.buf, pct[i].want);
		sb_reset(&sb);
	}
	sb_release(&sb);
	assert_int_equal(ks_decimals(2.31, NAN, NAN, NAN, 3), 2);
	assert_int_equal(ks_decimals(1.0045, 1.00451, 1.0079, 1.0, 3), 3);
}

/* diff's verdict: drift, and no verdict where the warmup analysis says the figures are unsafe */
static void test_compare(void **state)
{
	(void)state;
	struct sd_rng r = { 5 };
	double x[30], y[30];
	for (int i = 0; i < 30; i++) {
		x[i] = 0.010 * (1 + 0.005 * sd_normal(&r));
		y[i] = 0.0101 * (1 + 0.005 * sd_normal(&r));
	}
	struct dataset da = { 0 }, db = { 0 };
	struct an_key a, b;
	whole(&da, x, 30, &a);
	whole(&db, y, 30, &b);
	struct an_opts o;
	an_opts_default(&o);
	struct an_compare c;
	an_key_compare(&a, &b, &o, 0, &c);
	assert_int_equal(c.verdict, AN_V_SLOWER); /* 1% slower, within one session */
	an_key_compare(&a, &b, &o, 0.01, &c);
	assert_int_equal(c.verdict, AN_V_DRIFT); /* a 1% drift between sessions would do the same */
	assert_true(c.drift > 0 && c.drift < 0.01 && fabs(c.drift - (c.wlo - 1)) < 1e-15);
	assert_string_equal(an_verdict_name(c.verdict), "drift?");
	b.warn |= AN_WARN_DRIFT;
	an_key_compare(&a, &b, &o, 0, &c);
	assert_int_equal(c.verdict, AN_V_NO_VERDICT);
	an_key_free(&a);
	an_key_free(&b);
	ds_free(&da);
	ds_free(&db);
}

/*
 * The exact-truth tables, small: 300 cases a cell through an_analyse_key
 * and an_key_compare.  Seeded, so the counts are always the same; the
 * bounds are the targets with the slack 300 cases need (make bench's
 * tables have 1000 a cell and the targets themselves).
 */
static void test_exact_truth_small(void **state)
{
	(void)state;
	enum { REPS = 300 };
	static const struct { enum sd_dist d; size_t n; int min_cov; } cells[] = {
		{ SD_NORMAL, 10, 293 }, { SD_NORMAL, 30, 293 }, { SD_EXP, 30, 290 },
	};
	for (size_t c = 0; c < ARRAY_SIZE(cells); c++) {
		struct sd_rng r = { 100 + c };
		double x[30], mu = sd_mean(cells[c].d);
		int cov = 0;
		for (int rep = 0; rep < REPS; rep++) {
			for (size_t i = 0; i < cells[c].n; i++)
				x[i] = sd_draw(&r, cells[c].d);
			struct dataset ds = { 0 };
			struct an_key ak;
			whole(&ds, x, cells[c].n, &ak);
			cov += ak.perf_lo <= mu && mu <= ak.perf_hi;
			an_key_free(&ak);
			ds_free(&ds);
		}
		print_message("coverage %s n=%zu: %d/%d\n", sd_names[cells[c].d], cells[c].n, cov, REPS);
		assert_true(cov >= cells[c].min_cov);
	}
	/* A/A through diff's verdict: at most 8 of 300 (2.7%; 99% means 3 expected) */
	static const enum sd_dist aa[] = { SD_NORMAL, SD_EXP, SD_LOGNORM };
	for (size_t c = 0; c < ARRAY_SIZE(aa); c++) {
		struct sd_rng r = { 200 + c };
		double x[10], y[10];
		int sig = 0;
		for (int rep = 0; rep < REPS; rep++) {
			for (int i = 0; i < 10; i++) {
				x[i] = sd_draw(&r, aa[c]);
				y[i] = sd_draw(&r, aa[c]);
			}
			struct dataset da = { 0 }, db = { 0 };
			struct an_key a, b;
			whole(&da, x, 10, &a);
			whole(&db, y, 10, &b);
			struct an_opts o;
			an_opts_default(&o);
			struct an_compare cmp;
			an_key_compare(&a, &b, &o, 0, &cmp);
			sig += cmp.verdict == AN_V_FASTER || cmp.verdict == AN_V_SLOWER;
			an_key_free(&a);
			an_key_free(&b);
			ds_free(&da);
			ds_free(&db);
		}
		print_message("A/A %s n=10: %d/%d significant\n", sd_names[aa[c]], sig, REPS);
		assert_true(sig <= 8);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_symmetric_is_t),
		cmocka_unit_test(test_mean_skewed_moves_up),
		cmocka_unit_test(test_mean_few_and_clip),
		cmocka_unit_test(test_median_interval),
		cmocka_unit_test(test_shape_flags),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_ratio_fieller),
		cmocka_unit_test(test_ratio_constant),
		cmocka_unit_test(test_ratio_paired),
		cmocka_unit_test(test_printing),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_exact_truth_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
