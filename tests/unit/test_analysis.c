/*
 * test_analysis.c - the statistics of src/analysis.c: percentiles and the
 * outlier rule on hand-checked cases, the fast log against libm, PELT
 * against plain optimal partitioning (and that against brute-force
 * enumeration of every partition) on many random series, the classifier on
 * constructed series of each class, the per-key rules, and the bootstrap on
 * cases whose answer is known by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis-cache.h"
#include "unit-self.h"

/* a small deterministic generator so that the series are the same every run */
static uint64_t rng_state = 88172645463325252ULL;
static double urand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double nrand(void)
{
	return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
}

static void test_percentile(void **state)
{
	(void)state;
	double a[] = { 1, 2, 3, 4 };
	/* positions (n-1)p/100: 1.5 -> 2.5, 0.3 -> 1.3, 2.7 -> 3.7 */
	assert_true(fabs(an_percentile_sorted(a, 4, 50) - 2.5) < 1e-12);
	assert_true(fabs(an_percentile_sorted(a, 4, 10) - 1.3) < 1e-12);
	assert_true(fabs(an_percentile_sorted(a, 4, 90) - 3.7) < 1e-12);
	assert_true(an_percentile_sorted(a, 4, 100) == 4);
	assert_true(an_percentile_sorted(a, 4, 0) == 1);
	double one = 7;
	assert_true(an_percentile_sorted(&one, 1, 95) == 7);
	double u[] = { 9, 1, 5, 3, 7 }; /* sorted 1 3 5 7 9: p25 at 1.0 -> 3, p5 at 0.2 -> 1.4 */
	assert_true(fabs(an_percentile(u, 5, 25) - 3) < 1e-12);
	assert_true(fabs(an_percentile(u, 5, 5) - 1.4) < 1e-12);
	assert_true(isnan(an_percentile(u, 0, 50)));
}

static void test_log(void **state)
{
	(void)state;
	for (int i = 0; i < 100000; i++) {
		double x = exp((urand() - 0.5) * 80); /* 1e-17 .. 1e17 */
		double a = an_log(x), b = log(x);
		assert_true(fabs(a - b) <= 4e-16 * fabs(b) + 1e-300);
	}
	assert_true(an_log(1.0) == 0.0);
	assert_true(fabs(an_log(1e-11) - log(1e-11)) < 1e-14);
}

static void test_outliers_hand(void **state)
{
	(void)state;
	/* w = 20: h = 10, the window of i is x[i-10 .. i+10) clamped to the series */
	double x[40];
	for (int i = 0; i < 40; i++)
		x[i] = 1.0 + 0.01 * (i % 3);
	x[2] = 5.0;  /* below w/2: never an outlier */
	x[25] = 5.0;
	x[32] = 0.5;
	size_t out[40];
	size_t n = an_outliers(x, 40, 20, 3.0, out);
	/*
	 * i = 25: window x[15..35) sorted = 0.5, 1.00 x6, 1.01 x6, 1.02 x6, 5.0.  P10 at
	 * 1.9 -> 1.00, P90 at 17.1 -> 1.02, median at 9.5 -> 1.01: band 0.06, 5.0 is out.
	 * i = 32: window x[22..40) (18 values): P10 at 1.7 -> 1.00, P90 at 15.3 -> 1.02:
	 * 0.5 < 1.01 - 0.06 is out.  Every 1.0x value stays within 1.01 +- 0.06.
	 */
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 25);
	assert_int_equal(out[1], 32);
	/* the threshold is a parameter: with k = 1000 nothing is out */
	assert_int_equal(an_outliers(x, 40, 20, 1000.0, out), 0);
	/* a window larger than the series: nothing is ever tested */
	assert_int_equal(an_outliers(x, 40, 200, 3.0, out), 0);
	/*
	 * a spike in a tiny window masks itself: w = 4, window of 8 = {2, 2, 2.0001, 2}:
	 * P90 at 2.7 -> 2.00007, P10 = 2, band 0.00021 > 0.0001
	 */
	double c[12] = { 2, 2, 2, 2, 2, 2, 2, 2, 2.0001, 2, 2, 2 };
	assert_int_equal(an_outliers(c, 12, 4, 3.0, out), 0);
}

/* every partition into segments of >= 2, by enumeration */
static double brute(const double *x, size_t n, double pen, size_t *ends, size_t *ns)
{
	double best = INFINITY;
	for (uint32_t mask = 0; mask < (1u << (n - 1)); mask++) {
		/* bit i set: a segment ends after x[i] */
		size_t e[32], k = 0, start = 0;
		int ok = 1;
		for (size_t i = 0; i + 1 < n; i++)
			if (mask & (1u << i)) {
				if (i + 1 - start < 2) {
					ok = 0;
					break;
				}
				e[k++] = i + 1;
				start = i + 1;
			}
		if (!ok || n - start < 2)
			continue;
		e[k++] = n;
		double mu = 0;
		for (size_t i = 0; i < n; i++)
			mu += x[i];
		mu /= n;
		double c = -pen;
		size_t b = 0;
		for (size_t s = 0; s < k; s++) {
			double s1 = 0, s2 = 0;
			int constant = 1;
			for (size_t i = b; i < e[s]; i++) {
				s1 += x[i] - mu;
				s2 += (x[i] - mu) * (x[i] - mu);
				constant &= x[i] == x[b];
			}
			c += an_seg_cost(s1, s2, e[s] - b, constant) + pen;
			b = e[s];
		}
		if (c < best - 1e-9) {
			best = c;
			memcpy(ends, e, k * sizeof(size_t));
			*ns = k;
		}
	}
	return best;
}

/* a random piecewise series: segments of random length, mean and spread */
static void random_series(double *x, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 2 + (size_t)(urand() * (urand() < 0.3 ? 8 : 120));
		double mu = 0.05 + urand(), sd = pow(10, -1 - 3 * urand());
		for (size_t j = 0; j < len && i < n; j++)
			x[i++] = mu + sd * nrand();
	}
}

static void test_pelt_vs_op(void **state)
{
	(void)state;
	double x[400];
	size_t e1[400], e2[400];
	int multi = 0;
	for (int rep = 0; rep < 300; rep++) {
		size_t n = 4 + (size_t)(urand() * 396);
		random_series(x, n);
		double pen = (rep % 3 == 0 ? 2.0 : 15.0) * log((double)n);
		double c1, c2;
		size_t n1 = an_pelt(x, n, pen, e1, &c1);
		size_t n2 = an_op(x, n, pen, e2, &c2);
		assert_int_equal(n1, n2);
		assert_memory_equal(e1, e2, n1 * sizeof(size_t));
		assert_true(c1 == c2); /* same arithmetic in both: the same bits */
		assert_int_equal(e1[n1 - 1], n);
		for (size_t s = 0; s < n1; s++)
			assert_true(e1[s] - (s ? e1[s - 1] : 0) >= 2);
		multi += n1 > 2;
	}
	assert_true(multi > 50); /* the series did have changepoints to find */
}

/* series made of ties: constant stretches (variance at the floor), repeated patterns */
static void test_pelt_vs_op_ties(void **state)
{
	(void)state;
	double x[600];
	size_t e1[600], e2[600];
	for (int rep = 0; rep < 24; rep++) {
		size_t n = 50 + (size_t)rep * 23;
		for (size_t i = 0; i < n; i++) {
			switch (rep % 4) {
			case 0: x[i] = 0.25; break;                                   /* constant */
			case 1: x[i] = i < n / 3 ? 0.5 : 0.25; break;                 /* two constants */
			case 2: x[i] = 0.1 + 1e-4 * (double)((i * 7919) % 10); break; /* sawtooth */
			case 3: x[i] = (i % 2) ? 1.0 : 1.0 + 1e-7; break;             /* tiny alternation */
			}
		}
		double c1, c2;
		size_t n1 = an_pelt(x, n, 15 * log((double)n), e1, &c1);
		size_t n2 = an_op(x, n, 15 * log((double)n), e2, &c2);
		assert_int_equal(n1, n2);
		assert_memory_equal(e1, e2, n1 * sizeof(size_t));
		assert_true(c1 == c2);
	}
}

/*
 * Harder series: pieces from 1 value long, spreads down to 1e-9 of the
 * level (a short quiet segment's variance is then a tiny difference of
 * large prefix sums: kiln refines it), and pieces where half the values
 * are exact ties (constant stretches: the floor, where pruning is unsafe).
 */
static void hard_series(double *x, size_t n, int ties)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 1 + (size_t)(urand() * (urand() < 0.3 ? 8 : 120));
		double mu = 0.05 + urand(), sd = pow(10, -1 - 8 * urand());
		for (size_t j = 0; j < len && i < n; j++)
			x[i++] = ties && urand() < 0.5 ? mu : mu + sd * nrand();
	}
}

static void test_pelt_vs_op_hard(void **state)
{
	(void)state;
	double x[600];
	size_t e1[600], e2[600];
	for (int rep = 0; rep < 300; rep++) {
		size_t n = 4 + (size_t)(urand() * 596);
		hard_series(x, n, rep % 2);
		double pen = (rep % 4 < 2 ? 2.0 : 15.0) * log((double)n);
		double c1, c2;
		size_t n1 = an_pelt(x, n, pen, e1, &c1);
		size_t n2 = an_op(x, n, pen, e2, &c2);
		assert_int_equal(n1, n2);
		assert_memory_equal(e1, e2, n1 * sizeof(size_t));
		assert_true(c1 == c2);
	}
}

/* the screening log of the AVX-512 kernel stays within its stated bound */
static void test_log_approx(void **state)
{
	(void)state;
	double worst = 0;
	for (int i = 0; i < 1000000; i++) {
		double x = exp((urand() - 0.5) * 120);
		double d = fabs(an_log_approx(x) - log(x));
		if (d > worst)
			worst = d;
	}
	assert_true(worst < 2e-6); /* the kernel assumes 1e-5 */
}

static void test_op_vs_brute(void **state)
{
	(void)state;
	double x[16];
	size_t e1[16], e2[16], nb = 0;
	for (int rep = 0; rep < 60; rep++) {
		size_t n = 4 + rep % 10;
		random_series(x, n);
		double pen = (rep % 2 ? 0.5 : 3.0) * log((double)n);
		double c1;
		size_t n1 = an_op(x, n, pen, e1, &c1);
		double cb = brute(x, n, pen, e2, &nb);
		assert_true(fabs(c1 - cb) <= 1e-7 * (1 + fabs(cb)));
		assert_int_equal(n1, nb);
		assert_memory_equal(e1, e2, n1 * sizeof(size_t));
	}
}

static void test_pelt_finds_step(void **state)
{
	(void)state;
	double x[1000];
	for (int i = 0; i < 1000; i++)
		x[i] = (i < 300 ? 0.2 : 0.1) + 1e-4 * nrand();
	size_t e[1000];
	double c;
	size_t n = an_pelt(x, 1000, 15 * log(1000.0), e, &c);
	assert_int_equal(n, 2);
	assert_int_equal(e[0], 300);
	/* a flat series: no changepoint at the default penalty */
	for (int i = 0; i < 1000; i++)
		x[i] = 0.1 + 1e-4 * nrand();
	assert_int_equal(an_pelt(x, 1000, 15 * log(1000.0), e, &c), 1);
}

/* ---- classification ---- */

enum shape { FLAT, WARM, SLOW, NSS, EQUIV };

static void fill(struct ds_key *k, enum shape sh, size_t n)
{
	struct ds_pexec *p = ds_add_pexec(k, (long)k->npexecs);
	p->n = n;
	p->wall = malloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		double base = 0.1;
		switch (sh) {
		case FLAT: break;
		case WARM: base = i < 100 ? 0.2 : 0.1; break;
		case SLOW: base = i < 300 ? 0.1 : 0.2; break;
		case NSS: base = i < 800 ? 0.1 : 0.2; break;
		case EQUIV: base = i < 500 ? 0.1 : 0.1005; break;
		}
		p->wall[i] = base + 1e-4 * nrand();
	}
}

static struct an_key one(enum shape sh, struct dataset *ds)
{
	struct ds_key *k = ds_add_key(ds, "b", "vm", "default-c");
	fill(k, sh, 1000);
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 2000;
	struct an_key ak;
	an_analyse_key(k, &o, &ak);
	return ak;
}

static void test_classes(void **state)
{
	(void)state;
	struct dataset ds = { 0 };
	struct an_key k = one(FLAT, &ds);
	assert_int_equal(k.p[0].cls, AN_FLAT);
	assert_int_equal(k.cls, AN_FLAT);
	/* no iteration before the steady state; a flat key has no steady iteration (warmup_stats: null) */
	assert_int_equal(k.p[0].steady_iter, 0);
	assert_true(k.p[0].time_to_steady == 0);
	assert_true(isnan(k.iter_med) && isnan(k.tts_med));
	assert_true(fabs(k.perf_med - 0.1) < 1e-4);
	an_key_free(&k);
	ds_free(&ds);

	k = one(WARM, &ds);
	assert_int_equal(k.p[0].cls, AN_WARMUP);
	/* 100 iterations before the steady state (0-based index of its first), their time */
	assert_int_equal(k.p[0].steady_iter, 100);
	assert_int_equal(k.p[0].steady_start, 100);
	double t = 0;
	for (int i = 0; i < 100; i++)
		t += ds.keys[0].pexecs[0].wall[i];
	assert_true(fabs(k.p[0].time_to_steady - t) < 1e-12);
	assert_true(fabs(k.tts_med - t) < 1e-12);
	assert_true(k.iter_med == 100);
	assert_true(k.perf_lo <= k.perf_med && k.perf_med <= k.perf_hi);
	assert_true(fabs(k.perf_med - 0.1) < 1e-4);
	an_key_free(&k);
	ds_free(&ds);

	k = one(SLOW, &ds);
	assert_int_equal(k.p[0].cls, AN_SLOWDOWN);
	assert_int_equal(k.p[0].steady_iter, 300);
	an_key_free(&k);
	ds_free(&ds);

	k = one(NSS, &ds);
	assert_int_equal(k.p[0].cls, AN_NO_STEADY);
	assert_int_equal(k.p[0].steady_iter, -1);
	assert_false(k.has_steady);
	assert_true(isnan(k.perf_med) && isnan(k.iter_med));
	an_key_free(&k);
	ds_free(&ds);

	/* a real changepoint, but within delta: equivalent, so flat */
	k = one(EQUIV, &ds);
	assert_true(k.p[0].nsegs >= 2);
	assert_int_equal(k.p[0].cls, AN_FLAT);
	an_key_free(&k);
	ds_free(&ds);
}

/* one pexec of the given series, analysed with o */
static struct an_key series_key(struct dataset *ds, const double *x, size_t n, const struct an_opts *o)
{
	struct ds_key *k = ds_add_key(ds, "b", "vm", "default-c");
	struct ds_pexec *p = ds_add_pexec(k, 0);
	p->n = n;
	p->wall = malloc(n * sizeof(double));
	memcpy(p->wall, x, n * sizeof(double));
	struct an_key ak;
	an_analyse_key(k, o, &ak);
	return ak;
}

static void small_opts(struct an_opts *o)
{
	an_opts_default(o);
	o->resamples = 1000;
}

/* warmup_stats walks on after a warmup segment: a faster one before it makes a slowdown */
static void test_ws_walk(void **state)
{
	(void)state;
	double x[60];
	for (int i = 0; i < 60; i++)
		x[i] = (i < 15 ? 0.07 : i < 30 ? 0.13 : 0.10) + 2e-4 * nrand();
	struct an_opts o;
	small_opts(&o);
	struct dataset ds = { 0 };
	struct an_key k = series_key(&ds, x, 60, &o);
	assert_int_equal(k.p[0].nsegs, 3);
	assert_int_equal(k.p[0].cls, AN_SLOWDOWN);
	assert_int_equal(k.p[0].steady_iter, 30);
	an_key_free(&k);
	ds_free(&ds);
}

/* a segment ending exactly at n - steady is not "within the last steady iterations" */
static void test_ws_nss_boundary(void **state)
{
	(void)state;
	static double x[1000];
	for (int i = 0; i < 1000; i++)
		x[i] = (i <= 750 ? 0.2 : 0.1) + 1e-4 * nrand();
	struct an_opts o;
	small_opts(&o); /* steady 25%: 250, n - steady = 750 */
	struct dataset ds = { 0 };
	struct an_key k = series_key(&ds, x, 1000, &o);
	assert_int_equal(k.p[0].nsegs, 2);
	assert_int_equal(k.p[0].segs[0].end - 1, 750);
	assert_int_equal(k.p[0].cls, AN_WARMUP);
	an_key_free(&k);
	ds_free(&ds);
	for (int i = 0; i < 1000; i++)
		x[i] = (i <= 751 ? 0.2 : 0.1) + 1e-4 * nrand();
	k = series_key(&ds, x, 1000, &o);
	assert_int_equal(k.p[0].cls, AN_NO_STEADY);
	an_key_free(&k);
	ds_free(&ds);
}

/* --delta P% is P% of the fastest segment's mean */
static void test_ws_delta_pct(void **state)
{
	(void)state;
	static double x[2000];
	for (int i = 0; i < 2000; i++)
		x[i] = (i < 300 ? 0.10 : i < 800 ? 0.138 : 0.15) + 1e-4 * nrand();
	struct an_opts o;
	small_opts(&o);
	o.delta = -1;
	o.delta_pct = 10; /* 0.01 of the fastest (0.10), not 0.015 of the last */
	struct dataset ds = { 0 };
	struct an_key k = series_key(&ds, x, 2000, &o);
	assert_int_equal(k.p[0].nsegs, 3);
	assert_true(fabs(k.p[0].delta - 0.1 * k.p[0].segs[0].mean) < 1e-15);
	assert_int_equal(k.p[0].cls, AN_SLOWDOWN);
	assert_int_equal(k.p[0].steady_iter, 800);
	an_key_free(&k);
	ds_free(&ds);
}

/* R floors only variances <= 0: a 3 us step in 0.5 us noise is a changepoint */
static void test_ws_low_noise(void **state)
{
	(void)state;
	double x[60];
	for (int i = 0; i < 60; i++)
		x[i] = (i < 30 ? 1.000e-3 : 1.003e-3) + 0.5e-6 * nrand();
	struct an_opts o;
	small_opts(&o);
	struct dataset ds = { 0 };
	struct an_key k = series_key(&ds, x, 60, &o);
	assert_int_equal(k.p[0].nsegs, 2);
	assert_int_equal(k.p[0].segs[0].end - 1, 29);
	an_key_free(&k);
	ds_free(&ds);
}

/*
 * A constant series: no changepoint, exactly.  R's cumulative sums make
 * 150 out of rounding noise, and --replicate-warmup-stats reproduces them
 * (the first of them as in the reference case ties/const).
 */
static void test_ws_constant(void **state)
{
	(void)state;
	static double x[2000];
	for (int i = 0; i < 2000; i++)
		x[i] = 0.001;
	struct an_opts o;
	small_opts(&o);
	o.window = 200;
	o.window_pct = 0;
	struct dataset ds = { 0 };
	struct an_key k = series_key(&ds, x, 2000, &o);
	assert_int_equal(k.p[0].nsegs, 1);
	assert_true(k.p[0].segs[0].var == 0);
	assert_int_equal(k.cls, AN_FLAT);
	an_key_free(&k);
	ds_free(&ds);
	o.replicate = 1;
	k = series_key(&ds, x, 2000, &o);
	assert_int_equal(k.p[0].nsegs, 151);
	const size_t first[] = { 10, 21, 25, 37, 47, 60 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(k.p[0].segs[i].end - 1, first[i]);
	assert_int_equal(k.cls, AN_FLAT);
	assert_int_equal(k.p[0].steady_iter, 1); /* warmup_stats' number for a flat pexec */
	an_key_free(&k);
	ds_free(&ds);
}

/*
 * A pexec's steady mean is the unweighted mean of its steady segments'
 * means; --replicate-warmup-stats' bootstrap takes the last segment from
 * one iteration early and its time to steady state one iteration short.
 */
static void test_ws_steady_parts(void **state)
{
	(void)state;
	static double x[2000];
	for (int i = 0; i < 2000; i++)
		x[i] = (i < 100 ? 0.3 : i < 300 ? 0.1000 : 0.1004) + 1e-5 * nrand();
	struct an_opts o;
	small_opts(&o);
	struct dataset ds = { 0 };
	struct an_key k = series_key(&ds, x, 2000, &o);
	const struct an_pexec *p = &k.p[0];
	assert_int_equal(p->nsegs, 3);
	assert_int_equal(p->cls, AN_WARMUP);
	assert_int_equal(p->first_steady, 1);
	/* warmup_stats' steady mean beside kiln's, which is the mean of every steady iteration */
	assert_true(fabs(p->steady_mean_clean - (p->segs[1].mean + p->segs[2].mean) / 2) < 1e-15);
	double all = 0;
	for (int i = 100; i < 2000; i++)
		all += x[i];
	assert_true(fabs(p->steady_mean - all / 1900) < 1e-15);
	double t = 0;
	for (int i = 0; i < 100; i++)
		t += x[i];
	assert_true(fabs(p->time_to_steady - t) < 1e-12);
	struct an_sample s1, s2;
	an_sample_of(&k, &o, &s1);
	o.replicate = 1;
	an_sample_of(&k, &o, &s2);
	assert_int_equal(s1.ngroups, 1);
	assert_int_equal(s1.nseg, 2);
	assert_int_equal(s1.len[0], 200);
	assert_int_equal(s1.len[1] + 1, s2.len[1]);
	assert_true(s2.seg[1][0] == x[299]);
	an_sample_free(&s1);
	an_sample_free(&s2);
	an_key_free(&k);
	ds_free(&ds);
	k = series_key(&ds, x, 2000, &o);
	assert_int_equal(k.p[0].steady_iter, 100);
	assert_true(fabs(k.p[0].time_to_steady - (t - x[99])) < 1e-12);
	an_key_free(&k);
	ds_free(&ds);
}

/*
 * The default delta does not hide warmup on short iterations: 10x slower
 * for the first 10 of 100 iterations at 50 us.  With warmup_stats' 1 ms it
 * is flat, and delta_ratio says how large delta was.
 */
static void test_delta_short_iterations(void **state)
{
	(void)state;
	double x[100];
	for (int i = 0; i < 100; i++)
		x[i] = (i < 10 ? 500e-6 : 50e-6) * (1 + 0.01 * nrand());
	struct an_opts o;
	small_opts(&o);
	struct dataset ds = { 0 };
	struct an_key k = series_key(&ds, x, 100, &o);
	assert_int_equal(k.cls, AN_WARMUP);
	assert_int_equal(k.p[0].steady_iter, 10);
	assert_true(k.delta_ratio <= 0.0101);
	an_key_free(&k);
	ds_free(&ds);
	o.delta = 0.001;
	o.delta_pct = 0;
	k = series_key(&ds, x, 100, &o);
	assert_int_equal(k.cls, AN_FLAT);
	assert_true(k.delta_ratio > 19 && k.delta_ratio < 21);
	an_key_free(&k);
	ds_free(&ds);
}

/*
 * One iteration per pexec (the command plugin): mean, sample sd, median,
 * range, user/sys means and the largest RSS over the pexecs, and a CI of
 * the mean across pexecs - not the runs' own spread.  The cache keeps it.
 */
static void test_whole_process(void **state)
{
	(void)state;
	struct dataset ds = { 0 };
	struct ds_key *k = ds_add_key(&ds, "gzip", "cmd", "default-command");
	double sum = 0;
	for (int i = 0; i < 20; i++) {
		struct ds_pexec *p = ds_add_pexec(k, i);
		p->n = 1;
		p->wall = malloc(sizeof(double));
		p->wall[0] = 0.12 + 0.01 * i; /* 0.12 .. 0.31 */
		sum += p->wall[0];
		ds_add_scalar(p, "user_time", "s", 0.05 + 0.001 * i);
		ds_add_scalar(p, "sys_time", "s", 0.002);
		ds_add_scalar(p, "max_rss", "KiB", 5000 + i);
	}
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 20000;
	struct an_key a;
	an_analyse_key(k, &o, &a);
	assert_true(a.whole);
	const struct an_whole *w = &a.wp;
	assert_true(fabs(w->mean - sum / 20) < 1e-12 && a.perf_med == w->mean);
	assert_true(fabs(w->sd - 0.01 * sqrt(35.0)) < 1e-12); /* sd of 0..19 is sqrt(35) */
	assert_true(fabs(w->median - 0.215) < 1e-12 && w->min == 0.12 && fabs(w->max - 0.31) < 1e-12);
	assert_true(fabs(w->user - 0.0595) < 1e-12 && fabs(w->sys - 0.002) < 1e-15);
	assert_true(w->rss_max == 5019 && fabs(w->rss_mean - 5009.5) < 1e-9);
	/*
	 * The mean's 99% interval: values spread evenly have no skew, so it is
	 * Student's t interval exactly, +- t(0.995, 19) sd / sqrt(20) = 0.03786
	 * (a percentile bootstrap gave about 2.576 sd / sqrt(20) = 0.0341, too
	 * narrow at this n), far inside 0.12-0.31.
	 */
	double half = (a.perf_hi - a.perf_lo) / 2;
	assert_true(a.perf_lo < w->mean && w->mean < a.perf_hi);
	assert_true(fabs(half - 2.86093460646497 * 0.01 * sqrt(35.0) / sqrt(20.0)) < 1e-9);
	assert_true(fabs((a.perf_hi - w->mean) - (w->mean - a.perf_lo)) < 1e-12);
	assert_true(isnan(a.iter_med) && a.delta_ratio == 0);
	struct strbuf sb = STRBUF_INIT;
	an_class_text(&a, &sb);
	assert_string_equal(sb.buf, "whole process");
	sb_release(&sb);
	char *t = an_key_serialize(&a);
	struct an_key b;
	struct kerr e = KERR_INIT;
	assert_int_equal(an_key_deserialize(t, k, &b, &e), 0);
	assert_true(b.whole && b.wp.sd == w->sd && b.wp.rss_max == w->rss_max && b.perf_lo == a.perf_lo);
	free(t);
	an_key_free(&a);
	an_key_free(&b);
	kerr_release(&e);
	ds_free(&ds);
}

static void test_key_rules(void **state)
{
	(void)state;
	struct dataset ds = { 0 };
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 1000;
	struct ds_key *k = ds_add_key(&ds, "b", "vm", "v");
	fill(k, FLAT, 1000);
	fill(k, WARM, 1000);
	fill(k, FLAT, 1000);
	struct ds_key *k2 = ds_add_key(&ds, "b2", "vm", "v");
	fill(k2, FLAT, 1000);
	fill(k2, SLOW, 1000);
	fill(k2, FLAT, 1000);
	struct ds_pexec *bad = ds_add_pexec(k2, 3);
	bad->status = DS_FAILED;
	struct ds_key *k3 = ds_add_key(&ds, "b3", "vm", "v");
	fill(k3, WARM, 1000);
	fill(k3, NSS, 1000);
	struct an_result r;
	struct kerr e = KERR_INIT;
	o.threads = 2;
	assert_int_equal(an_analyse(&ds, &o, &r, &e), 0);
	assert_int_equal(r.keys[0].cls, AN_GOOD_INCONSISTENT);
	assert_int_equal(r.keys[0].counts[AN_FLAT], 2);
	assert_int_equal(r.keys[0].counts[AN_WARMUP], 1);
	/*
	 * steady iterations 0, 0, 100: median 0; the 95th percentile is a
	 * pexec's own number, the ceil(0.95 * 3) = 3rd smallest, 100
	 * (warmup_stats interpolates: at 1.9, 0 + 0.9 * 100 = 90)
	 */
	assert_true(r.keys[0].iter_med == 0);
	assert_true(r.keys[0].iter_p95 == 100);
	assert_int_equal(r.keys[1].cls, AN_BAD_INCONSISTENT);
	assert_int_equal(r.keys[1].nskipped, 1);
	struct strbuf sb = STRBUF_INIT;
	an_class_text(&r.keys[1], &sb);
	assert_string_equal(sb.buf, "bad inconsistent (2 flat, 1 slowdown)");
	assert_int_equal(r.keys[2].cls, AN_BAD_INCONSISTENT);
	assert_false(r.keys[2].has_steady);
	/* the threaded driver and the one-key function agree */
	struct an_key single;
	an_analyse_key(&ds.keys[0], &o, &single);
	assert_true(single.perf_med == r.keys[0].perf_med && single.perf_lo == r.keys[0].perf_lo);
	an_key_free(&single);
	sb_release(&sb);
	an_result_free(&r);
	ds_free(&ds);
}

static void test_instr_summary(void **state)
{
	(void)state;
	struct dataset ds = { 0 };
	struct ds_key *k = ds_add_key(&ds, "b", "vm", "v");
	fill(k, WARM, 1000);
	struct ds_series *s = ds_add_series(&k->pexecs[0], "gc.time", "s", 1000);
	for (int i = 0; i < 1000; i++)
		s->v[i] = i < 100 ? 0.01 : 0.002;
	s->v[500] = NAN;
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 100;
	struct an_key ak;
	an_analyse_key(k, &o, &ak);
	assert_int_equal(ak.nseries, 1);
	assert_string_equal(ak.series[0].name, "gc.time");
	assert_true(fabs(ak.series[0].before - 0.01) < 1e-15);
	assert_true(fabs(ak.series[0].after - 0.002) < 1e-15);
	assert_int_equal(ak.series[0].nbefore, 100);
	assert_int_equal(ak.series[0].nafter, 899);
	an_key_free(&ak);
	ds_free(&ds);
}

static void test_cache_roundtrip(void **state)
{
	(void)state;
	struct dataset ds = { 0 };
	struct ds_key *k = ds_add_key(&ds, "b", "vm", "v");
	fill(k, WARM, 1000);
	fill(k, FLAT, 1000);
	ds_add_pexec(k, 2)->status = DS_FAILED;
	struct ds_series *s = ds_add_series(&k->pexecs[0], "gc.time", "s", 1000);
	for (int i = 0; i < 1000; i++)
		s->v[i] = i < 100 ? 0.01 : 0.002;
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 500;
	struct an_key a, b;
	an_analyse_key(k, &o, &a);
	char *t = an_key_serialize(&a);
	struct kerr e = KERR_INIT;
	assert_int_equal(an_key_deserialize(t, k, &b, &e), 0);
	/* everything comes back bit for bit: serialising again gives the same text */
	char *t2 = an_key_serialize(&b);
	assert_string_equal(t, t2);
	assert_int_equal(b.np, 2);
	assert_int_equal(b.counts[AN_WARMUP], 1);
	assert_true(b.perf_med == a.perf_med && b.perf_lo == a.perf_lo && b.iter_p95 == a.iter_p95);
	assert_true(b.p[0].segs[0].mean == a.p[0].segs[0].mean && b.p[0].nsegs == a.p[0].nsegs);
	assert_true(b.series[0].before == a.series[0].before);
	/* the data hash follows the data */
	char h1[65], h2[65];
	an_key_data_hash(k, h1);
	k->pexecs[1].wall[500] += 1e-9;
	an_key_data_hash(k, h2);
	assert_string_not_equal(h1, h2);
	/* a result that does not fit the data is refused */
	k->pexecs[0].n = 999;
	struct an_key c;
	assert_int_equal(an_key_deserialize(t, k, &c, &e), -1);
	k->pexecs[0].n = 1000;
	assert_int_equal(an_key_deserialize("{\"v\": 2}", k, &c, &e), -1);
	/* an entry of another method version is refused, even if it fits */
	char *vs = xasprintf("\"v\":%d", AN_METHOD_VERSION);
	char *old = strstr(t, vs);
	assert_non_null(old);
	old[4] = (char)(old[4] == '1' ? '2' : '1');
	assert_int_equal(an_key_deserialize(t, k, &c, &e), -1);
	old[4] = vs[4];
	free(vs);
	assert_int_equal(an_key_deserialize("nope", k, &c, &e), -1);
	/* segments and outliers must index the pexec's iterations (a crafted file can carry its own cache entry) */
	static const char *const damage[] = { "segs-end", "segs-order", "outlier-past", "outlier-order" };
	for (size_t d = 0; d < sizeof(damage) / sizeof(*damage); d++) {
		json_t *j = json_loads(t, 0, NULL), *p0 = json_array_get(json_object_get(j, "pexecs"), 0);
		json_t *segs = json_object_get(p0, "segs"), *ol = json_object_get(p0, "outliers");
		json_t *last = json_array_get(segs, json_array_size(segs) - 1);
		if (d == 0)
			json_array_set_new(last, 1, json_integer(1005));
		else if (d == 1)
			json_array_append(segs, json_array_get(segs, 0));
		else if (d == 2)
			json_array_append_new(ol, json_integer(1000));
		else
			json_array_append_new(ol, json_integer(0)), json_array_append_new(ol, json_integer(0));
		char *bad = json_dumps(j, 0);
		assert_int_equal(an_key_deserialize(bad, k, &c, &e), -1);
		assert_non_null(strstr(e.msg.buf, "out of the pexec's iterations"));
		free(bad);
		json_decref(j);
	}
	free(t);
	free(t2);
	an_key_free(&a);
	an_key_free(&b);
	kerr_release(&e);
	ds_free(&ds);
}

static void test_cached_analyse(void **state)
{
	(void)state;
	struct dataset ds = { 0 };
	fill(ds_add_key(&ds, "a", "vm", "v"), WARM, 1000);
	fill(ds_add_key(&ds, "b", "vm", "v"), FLAT, 1000);
	struct an_opts o;
	an_opts_default(&o);
	o.resamples = 1000;
	struct an_memcache m = AN_MEMCACHE_INIT;
	struct an_cache c = an_memcache(&m);
	struct an_result r1, r2, r3, plain;
	assert_int_equal(an_analyse_cached(&ds, &o, &c, &r1, NULL), 0);
	assert_int_equal(m.puts, 2);
	assert_int_equal(m.hits, 0);
	assert_int_equal(an_analyse_cached(&ds, &o, &c, &r2, NULL), 0);
	assert_int_equal(m.hits, 2); /* nothing recomputed */
	assert_int_equal(m.puts, 2);
	assert_int_equal(an_analyse(&ds, &o, &plain, NULL), 0);
	for (size_t i = 0; i < 2; i++) {
		char *a = an_key_serialize(&plain.keys[i]), *b = an_key_serialize(&r2.keys[i]);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	/* other options or other data: a miss */
	o.seed = 2;
	assert_int_equal(an_analyse_cached(&ds, &o, &c, &r3, NULL), 0);
	assert_int_equal(m.hits, 2);
	assert_int_equal(m.puts, 4);
	an_result_free(&r1);
	an_result_free(&r2);
	an_result_free(&r3);
	an_result_free(&plain);
	an_memcache_release(&m);
	ds_free(&ds);
}

/* ---- bootstrap ---- */

/* a bootstrap sample over caller-owned arrays: segment i in group gi[i] (ascending) */
struct tsample {
	struct an_sample s;
	double *seg[8];
	size_t len[8], end[8];
};

static struct an_sample *tsample(struct tsample *t, double *const *segs, const size_t *len, const int *gi, size_t n)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		t->seg[i] = segs[i];
		t->len[i] = len[i];
		if (i + 1 == n || gi[i + 1] != gi[i])
			t->end[t->s.ngroups++] = i + 1;
	}
	t->s.seg = t->seg;
	t->s.len = t->len;
	t->s.nseg = n;
	t->s.group_end = t->end;
	return &t->s;
}

static void boot1(double *a, size_t n, long N, uint64_t seed, double *med, double *lo, double *hi)
{
	struct tsample t;
	int g = 0;
	an_bootstrap(tsample(&t, &a, &n, &g, 1), N, seed, 0.99, med, lo, hi);
}

static void test_bootstrap_constant(void **state)
{
	(void)state;
	double a[50];
	for (int i = 0; i < 50; i++)
		a[i] = 0.5;
	double med, lo, hi;
	boot1(a, 50, 100000, 1, &med, &lo, &hi);
	assert_true(med == 0.5 && lo == 0.5 && hi == 0.5);
}

static void test_bootstrap_two_values(void **state)
{
	(void)state;
	/* {0, 1}, resampled in pairs: means 0, .5, 1 with p = 1/4, 1/2, 1/4 */
	double a[] = { 0, 1 };
	double med, lo, hi;
	boot1(a, 2, 100000, 7, &med, &lo, &hi);
	assert_true(med == 0.5 && lo == 0 && hi == 1);
	/* 50 zeros and 50 ones: the mean is Binomial(100, 1/2)/100, whose 0.5% and 99.5% quantiles are 37 and 63 */
	double b[100];
	for (int i = 0; i < 100; i++)
		b[i] = i % 2;
	boot1(b, 100, 100000, 7, &med, &lo, &hi);
	assert_true(med == 0.5);
	assert_true(lo >= 0.36 && lo <= 0.38);
	assert_true(hi >= 0.62 && hi <= 0.64);
	/* two pexecs, constant at 1 and at 2: half the resamples each */
	double c1[10], c2[10];
	for (int i = 0; i < 10; i++)
		c1[i] = 1, c2[i] = 2;
	double *two[] = { c1, c2 };
	size_t l2[] = { 10, 10 };
	int g2[] = { 0, 1 };
	struct tsample t;
	an_bootstrap(tsample(&t, two, l2, g2, 2), 100000, 3, 0.99, &med, &lo, &hi);
	assert_true(med == 1.5 && lo == 1 && hi == 2);
	/* warmup_stats' per-pexec resample draws 10 from the first segment and 30 from the second */
	double c3[30];
	for (int i = 0; i < 30; i++)
		c3[i] = 2;
	double *segs[] = { c1, c3 };
	size_t l3[] = { 10, 30 };
	int one[] = { 0, 0 };
	an_bootstrap(tsample(&t, segs, l3, one, 2), 100000, 3, 0.99, &med, &lo, &hi);
	assert_true(med == 1.75 && lo == 1.75 && hi == 1.75);
	/* floor(N / groups) + 1 resamples per group, as warmup_stats */
	assert_int_equal(an_bootstrap_count(tsample(&t, two, l2, g2, 2), 100000), 100002);
	assert_int_equal(an_bootstrap_count(tsample(&t, segs, l3, one, 2), 100000), 100001);
}

static void test_bootstrap_seeded(void **state)
{
	(void)state;
	double a[300];
	for (int i = 0; i < 300; i++)
		a[i] = 0.1 + 0.01 * nrand();
	double m1, l1, h1, m2, l2, h2;
	boot1(a, 300, 20000, 42, &m1, &l1, &h1);
	boot1(a, 300, 20000, 42, &m2, &l2, &h2);
	assert_true(m1 == m2 && l1 == l2 && h1 == h2);
	boot1(a, 300, 20000, 43, &m2, &l2, &h2);
	assert_true(m1 != m2 || l1 != l2 || h1 != h2);
	/*
	 * every seed its own resamples: GSL's mt19937 keeps a seed's low 32
	 * bits and takes 0 as 4357, and --seed 0 and 4357, 1 and 2^32 + 1,
	 * 2^32 and 2^32 + 4357 gave the same figures
	 */
	const uint64_t alias[][2] = { { 0, 4357 }, { 1, (1ULL << 32) + 1 }, { 1ULL << 32, (1ULL << 32) + 4357 },
				      { 0, 1ULL << 32 } };
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		struct tsample t;
		double v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, *segs[1] = { v }, ma[64], mb[64];
		size_t len[1] = { 8 };
		int gi[1] = { 0 };
		struct an_sample *s = tsample(&t, segs, len, gi, 1);
		size_t na = an_bootstrap_means(s, 63, alias[i][0], ma), nb = an_bootstrap_means(s, 63, alias[i][1], mb);
		assert_int_equal(na, nb);
		assert_true(memcmp(ma, mb, na * sizeof(double)) != 0);
	}
	/* the interval is about the mean +- 2.576 sd/sqrt(n) */
	double mu = 0, v = 0;
	for (int i = 0; i < 300; i++)
		mu += a[i];
	mu /= 300;
	for (int i = 0; i < 300; i++)
		v += (a[i] - mu) * (a[i] - mu);
	double se = sqrt(v / 300 / 300);
	assert_true(fabs(m1 - mu) < 0.2 * se);
	assert_true(fabs((h1 - l1) / 2 - 2.576 * se) < 0.15 * 2.576 * se);
}

static void test_opts(void **state)
{
	(void)state;
	struct an_opts o, d;
	an_opts_default(&o);
	an_opts_default(&d);
	char *argv[] = { "report", "--window", "10%", "--delta=5%", "--steady", "250", "--seed", "9", "--bogus", "--penalty", "x" };
	int argc = 11, i = 1;
	struct kerr e = KERR_INIT;
	assert_int_equal(an_opts_parse(&o, argc, argv, &i, &e), 1);
	assert_int_equal(i, 2);
	assert_true(o.window_pct == 10);
	i = 3;
	assert_int_equal(an_opts_parse(&o, argc, argv, &i, &e), 1);
	assert_true(o.delta_pct == 5);
	i = 4;
	assert_int_equal(an_opts_parse(&o, argc, argv, &i, &e), 1);
	assert_int_equal(o.steady, 250);
	i = 6;
	assert_int_equal(an_opts_parse(&o, argc, argv, &i, &e), 1);
	assert_true(o.seed == 9);
	i = 8;
	assert_int_equal(an_opts_parse(&o, argc, argv, &i, &e), 0);
	i = 9;
	assert_int_equal(an_opts_parse(&o, argc, argv, &i, &e), -1);
	assert_non_null(strstr(e.msg.buf, "--penalty"));
	char h1[65], h2[65];
	an_opts_hash(&o, h1);
	an_opts_hash(&d, h2);
	assert_string_not_equal(h1, h2);
	d.threads = 7; /* not part of the result */
	an_opts_hash(&d, h1);
	assert_string_equal(h1, h2);
	/* the default delta is the smaller of 1 ms and 1% of the fastest segment; auto restores it */
	assert_true(d.delta == 0.001 && d.delta_pct == 1);
	char *a2[] = { "report", "--delta", "0.002", "--delta", "auto", "--replicate-warmup-stats", "--delta", "2%" };
	struct an_opts r;
	an_opts_default(&r);
	i = 1;
	assert_int_equal(an_opts_parse(&r, 8, a2, &i, &e), 1);
	assert_true(r.delta == 0.002 && r.delta_pct == 0);
	i = 3;
	assert_int_equal(an_opts_parse(&r, 8, a2, &i, &e), 1);
	assert_true(r.delta == 0.001 && r.delta_pct == 1);
	i = 5;
	assert_int_equal(an_opts_parse(&r, 8, a2, &i, &e), 1);
	assert_true(r.replicate && r.delta == 0.001 && r.delta_pct == 1); /* --delta was given: kept */
	i = 6;
	assert_int_equal(an_opts_parse(&r, 8, a2, &i, &e), 1);
	assert_true(r.delta < 0 && r.delta_pct == 2);
	/* without --delta, replication takes warmup_stats' 1 ms */
	an_opts_default(&r);
	i = 5;
	assert_int_equal(an_opts_parse(&r, 8, a2, &i, &e), 1);
	assert_true(r.replicate && r.delta == 0.001 && r.delta_pct == 0);
	/* every option that changes a result changes the hash */
	an_opts_default(&d);
	an_opts_hash(&d, h1);
	d.replicate = 1;
	an_opts_hash(&d, h2);
	assert_string_not_equal(h1, h2);
	an_opts_default(&d);
	d.delta_pct = 0;
	an_opts_hash(&d, h2);
	assert_string_not_equal(h1, h2);
	kerr_release(&e);
}

/* results that depend on the SIMD path taken, printed exactly (hex floats) */
static void print_fingerprint(FILE *f)
{
	rng_state = 99;
	double x[1500];
	size_t ends[1500];
	for (int rep = 0; rep < 4; rep++) {
		random_series(x, 1500);
		double c;
		size_t n = an_pelt(x, 1500 - rep * 7, 15 * log(1500.0), ends, &c);
		fprintf(f, "pelt %zu %a\n", n, c);
		double *segs[] = { x, x + 700, x + 1480 };
		size_t len[] = { 700 - rep, 777 + rep, 20 };
		int groups[] = { 0, 1, 1 };
		double m, lo, hi;
		struct tsample t;
		an_bootstrap(tsample(&t, segs, len, groups, 3), 30001, 5 + rep, 0.99, &m, &lo, &hi);
		fprintf(f, "boot %a %a %a\n", m, lo, hi);
	}
}

/* the AVX-512, AVX2 and scalar paths give the same bits (where the CPU has them) */
static void test_simd_paths_agree(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	print_fingerprint(f);
	fclose(f);
	char *scalar = run_self("1", "--fingerprint"), *avx2 = run_self("512", "--fingerprint");
	assert_true(strlen(scalar) > 100);
	assert_string_equal(buf, scalar);
	assert_string_equal(buf, avx2);
	free(scalar);
	free(avx2);
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--fingerprint")) {
		print_fingerprint(stdout);
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_outliers_hand),
		cmocka_unit_test(test_pelt_vs_op),
		cmocka_unit_test(test_pelt_vs_op_ties),
		cmocka_unit_test(test_pelt_vs_op_hard),
		cmocka_unit_test(test_log_approx),
		cmocka_unit_test(test_op_vs_brute),
		cmocka_unit_test(test_pelt_finds_step),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_ws_walk),
		cmocka_unit_test(test_ws_nss_boundary),
		cmocka_unit_test(test_ws_delta_pct),
		cmocka_unit_test(test_ws_low_noise),
		cmocka_unit_test(test_ws_constant),
		cmocka_unit_test(test_ws_steady_parts),
		cmocka_unit_test(test_delta_short_iterations),
		cmocka_unit_test(test_whole_process),
		cmocka_unit_test(test_key_rules),
		cmocka_unit_test(test_instr_summary),
		cmocka_unit_test(test_cache_roundtrip),
		cmocka_unit_test(test_cached_analyse),
		cmocka_unit_test(test_bootstrap_constant),
		cmocka_unit_test(test_bootstrap_two_values),
		cmocka_unit_test(test_bootstrap_seeded),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_simd_paths_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
