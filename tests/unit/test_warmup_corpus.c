/*
 * test_warmup_corpus.c - the warmup analysis against series of exact truth
 * (bench/warmup-corpus.h, seeded), small enough for make test: per shape,
 * KEYS keys of 10 pexecs, and what kiln must answer - pauses and
 * autocorrelated noise are flat, a drift is no steady state with its
 * warning, true warmup (small ones too), slowdowns and late changes stay
 * found, a 20-iteration JIT warmup is too short, steady iterations are
 * integers, the steady figure counts the pauses, and kiln diff's warmup
 * verdicts fire on a new warmup and not on A/A.  bench/warmup runs the
 * same corpus at 60 keys against the targets.
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

#include "analysis-robust.h"
#include "stats-warmup.h"
#include "../../bench/warmup-corpus.h"

#define KEYS 20
#define PEXECS 10

/* a key of shape `shape` (SHAPE:MEAN_US:K:F) at n iterations, from seed */
static struct ds_key *make_key(struct dataset *ds, const char *shape, size_t n, uint64_t seed)
{
	struct wc_shape sh;
	assert_int_equal(wc_parse(shape, &sh), 0);
	char name[32];
	snprintf(name, sizeof(name), "k%llu", (unsigned long long)seed);
	struct ds_key *k = ds_add_key(ds, name, "vm", "default-c");
	for (int p = 0; p < PEXECS; p++) {
		struct ds_pexec *px = ds_add_pexec(k, p);
		px->n = n;
		px->wall = malloc(n * sizeof(double));
		wc_series(&sh, seed * 1000 + (uint64_t)p, px->wall, n);
	}
	return k;
}

static void opts(struct an_opts *o)
{
	an_opts_default(o);
	o->resamples = 2000;
	o->threads = 1;
}

/* how many of KEYS keys of shape come out in class c, with warnings `warn` among theirs */
static int keys_in(const char *shape, size_t n, enum an_class c, unsigned warn)
{
	struct an_opts o;
	opts(&o);
	int right = 0;
	for (int i = 0; i < KEYS; i++) {
		struct dataset ds = { 0 };
		struct an_key k;
		an_analyse_key(make_key(&ds, shape, n, 7000 + (uint64_t)i), &o, &k);
		right += k.cls == c && (k.warn & warn) == warn;
		an_key_free(&k);
		ds_free(&ds);
	}
	return right;
}

/* pauses, heavy tails and autocorrelated noise are stationary: flat */
static void test_stationary_is_flat(void **state)
{
	(void)state;
	assert_true(keys_in("flat:10000:0:1", 200, AN_FLAT, 0) >= KEYS - 1);
	assert_true(keys_in("spikes:10000:3:2", 200, AN_FLAT, 0) >= KEYS - 1);
	assert_true(keys_in("spikes:10000:1:5", 200, AN_FLAT, 0) >= KEYS - 1);
	assert_true(keys_in("heavy:10000:25:0.05", 200, AN_FLAT, 0) >= KEYS - 1);
	assert_true(keys_in("ar:10000:0:0.8", 200, AN_FLAT, 0) >= KEYS - 1);
}

/* warmup (small too), slowdowns and late changes stay found; a drift is no steady state */
static void test_changes_are_found(void **state)
{
	(void)state;
	assert_true(keys_in("warmup:10000:30:2", 200, AN_WARMUP, 0) == KEYS);
	assert_true(keys_in("warmup:10000:40:1.05", 200, AN_WARMUP, 0) >= KEYS - 1);
	/* an exponential warmup: a pexec whose steady part still falls by more than delta drifts (docs/analysis.md) */
	assert_true(keys_in("decay:10000:20:2", 200, AN_WARMUP, 0) >= KEYS - 2);
	assert_true(keys_in("slowdown:10000:60:1.1", 200, AN_SLOWDOWN, 0) == KEYS);
	assert_true(keys_in("slowdown:10000:180:1.1", 200, AN_NO_STEADY, 0) == KEYS);
	assert_true(keys_in("drift:10000:0:1.2", 200, AN_NO_STEADY, AN_WARN_DRIFT) >= KEYS - 1);
	assert_true(keys_in("drift:10000:0:0.9", 200, AN_NO_STEADY, AN_WARN_DRIFT) >= KEYS - 1);
	/* a JIT's warmup over 200 iterations is found; over 20, the series is too short to separate it */
	assert_true(keys_in("towers:600:250:1", 200, AN_WARMUP, 0) >= KEYS - 1);
	int shorts = 0;
	for (int c = 0; c < AN_NO_DATA; c++)
		shorts += keys_in("towers:600:250:1", 20, (enum an_class)c, AN_WARN_SHORT);
	assert_true(shorts >= KEYS - 1);
	assert_int_equal(keys_in("flat:10000:0:1", 20, AN_FLAT, 0), KEYS);
}

/* one key, analysed; the caller frees k and ds */
static void analyse(struct dataset *ds, const char *shape, size_t n, uint64_t seed, const struct an_opts *o,
		    struct an_key *k)
{
	an_analyse_key(make_key(ds, shape, n, seed), o, k);
}

/* the steady figure is what a steady iteration costs, pauses in; warmup_stats' without them beside it */
static void test_steady_figure_counts_pauses(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	struct dataset ds = { 0 };
	struct an_key k;
	analyse(&ds, "spikes:10000:3:2", 200, 11, &o, &k);
	assert_int_equal(k.cls, AN_FLAT);
	double all = 0, n = 0, clean = 0;
	for (size_t i = 0; i < k.np; i++) {
		const struct ds_pexec *dp = &ds.keys[0].pexecs[k.p[i].index];
		double s = 0;
		for (size_t j = 0; j < dp->n; j++)
			s += dp->wall[j];
		assert_true(fabs(k.p[i].steady_mean - s / (double)dp->n) < 1e-15);
		assert_true(k.p[i].steady_mean_clean < k.p[i].steady_mean);
		all += s;
		n += (double)dp->n;
		clean += k.p[i].steady_mean_clean;
	}
	/* true cost 10.3 ms; without pauses 10.0 */
	assert_true(fabs(all / n - 0.0103) < 0.0002);
	assert_true(fabs(k.perf_clean - clean / (double)k.np) < 1e-15);
	assert_true(fabs(k.perf_clean - 0.0100) < 0.0001);
	an_key_free(&k);
	ds_free(&ds);
}

/*
 * A pause at the first iteration of one pexec is a pause (the key's later
 * pauses are as large, and it does not come back at that iteration); a
 * slow first iteration in every pexec is warmup.
 */
static void test_early_pause_or_warmup(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	for (int warm = 0; warm < 2; warm++) {
		struct dataset ds = { 0 };
		struct ds_key *k = make_key(&ds, "spikes:10000:3:2", 200, 21);
		for (size_t p = 0; p < k->npexecs; p++)
			if (warm || p == 3)
				k->pexecs[p].wall[0] = 0.0201;
		struct an_key ak;
		an_analyse_key(k, &o, &ak);
		if (warm) {
			assert_int_equal(ak.cls, AN_WARMUP);
			assert_true(ak.iter_med >= 1);
		} else {
			assert_int_equal(ak.cls, AN_FLAT);
			assert_true(ak.p[3].noutliers > 0 && ak.p[3].outliers[0] == 0);
		}
		an_key_free(&ak);
		ds_free(&ds);
	}
}

/*
 * Four pauses in 13 iterations: P90 - P10 of the window about them is a
 * pause's height and none is an outlier (warmup_stats); P75 - P25 is the
 * noise's, and all four are.  Seven in 19 widen even P75 - P25: a second
 * look, without the pauses the first found, sees the rest.
 */
static void test_clumped_pauses(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	struct dataset ds = { 0 };
	struct ds_key *k = make_key(&ds, "flat:10000:0:1", 200, 91);
	for (size_t p = 0; p < k->npexecs; p++)
		for (size_t i = 100; i <= 112; i += 4)
			k->pexecs[p].wall[i] *= 2;
	struct an_key ak;
	an_analyse_key(k, &o, &ak);
	assert_int_equal(ak.cls, AN_FLAT);
	for (size_t p = 0; p < ak.np; p++) {
		int found = 0;
		for (size_t q = 0; q < ak.p[p].noutliers; q++)
			found += ak.p[p].outliers[q] >= 100 && ak.p[p].outliers[q] <= 112 && ak.p[p].outliers[q] % 4 == 0;
		assert_int_equal(found, 4);
	}
	an_key_free(&ak);
	o.replicate = 1;
	an_analyse_key(k, &o, &ak);
	assert_int_equal(ak.p[0].noutliers, 0);
	an_key_free(&ak);
	ds_free(&ds);
	/* seven in 19: no window about the middle of the clump sees them as pauses until the first ones are out */
	o.replicate = 0;
	k = make_key(&ds, "flat:10000:0:1", 200, 92);
	for (size_t p = 0; p < k->npexecs; p++)
		for (size_t i = 100; i <= 118; i += 3)
			k->pexecs[p].wall[i] *= 1.5;
	an_analyse_key(k, &o, &ak);
	assert_int_equal(ak.cls, AN_FLAT);
	for (size_t p = 0; p < ak.np; p++) {
		int found = 0;
		for (size_t q = 0; q < ak.p[p].noutliers; q++)
			found += ak.p[p].outliers[q] >= 100 && ak.p[p].outliers[q] <= 118 && ak.p[p].outliers[q] % 3 == 1;
		assert_int_equal(found, 7);
	}
	an_key_free(&ak);
	ds_free(&ds);
}

/*
 * Not every segment PELT cuts is another level: one whose mean is within
 * the steady state's noise of it (a change of variance alone, noise 20%
 * after 2%), and a short slow stretch between two steady ones (6
 * iterations at x1.3, too many in one window to be outliers), are flat.
 */
static void test_same_level(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	for (int which = 0; which < 2; which++) {
		struct dataset ds = { 0 };
		struct ds_key *k = make_key(&ds, "flat:10000:0:1", 200, 93);
		struct sd_rng r = { 5 };
		for (size_t p = 0; p < k->npexecs; p++)
			for (size_t i = 0; i < 200; i++) {
				if (which == 0 && i >= 100)
					k->pexecs[p].wall[i] *= exp(0.2 * wc_norm(&r) - 0.02);
				if (which == 1 && i >= 120 && i < 126)
					k->pexecs[p].wall[i] *= 1.3;
			}
		struct an_key ak;
		an_analyse_key(k, &o, &ak);
		size_t cut = 0;
		for (size_t p = 0; p < ak.np; p++)
			cut += ak.p[p].nsegs > 1;
		assert_true(cut >= 5); /* PELT did cut most of them */
		assert_int_equal(ak.cls, AN_FLAT);
		an_key_free(&ak);
		ds_free(&ds);
	}
}

/* autocorrelated noise inflates the penalty and the equivalence; independent noise does not */
static void test_autocorrelation(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	struct dataset ds = { 0 };
	struct an_key k;
	analyse(&ds, "ar:10000:0:0.8", 200, 31, &o, &k);
	assert_true(k.p[0].tau > 3);
	an_key_free(&k);
	ds_free(&ds);
	analyse(&ds, "warmup:10000:30:1.5", 200, 31, &o, &k);
	assert_true(k.p[0].tau == 1);
	an_key_free(&k);
	ds_free(&ds);
}

/* a drift has no steady figure and says so; an undetected small step is no drift */
static void test_drift(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	struct dataset ds = { 0 };
	struct an_key k;
	analyse(&ds, "drift:10000:0:1.2", 200, 41, &o, &k);
	assert_true(k.warn & AN_WARN_DRIFT);
	assert_false(k.has_steady);
	assert_true(isnan(k.perf_med) && isnan(k.perf_lo));
	assert_true(k.drift_lo > 0 && k.drift_rate > 0.0005 && k.drift_rate < 0.0015); /* 0.1% per iteration */
	an_key_free(&k);
	ds_free(&ds);
	assert_true(keys_in("warmup:10000:80:1.02", 200, AN_FLAT, 0) + keys_in("warmup:10000:80:1.02", 200,
										   AN_GOOD_INCONSISTENT, 0) >= KEYS - 1);
}

/* too short: the warning, and how many iterations would do */
static void test_short(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	struct dataset ds = { 0 };
	struct an_key k;
	analyse(&ds, "towers:600:250:1", 20, 51, &o, &k);
	assert_true(k.warn & AN_WARN_SHORT);
	assert_true(k.short_need > 20 && k.short_need <= ANR_SHORT_CAP);
	for (size_t i = 0; i < k.np; i++)
		assert_true(!(k.p[i].warn & AN_WARN_SHORT) || k.p[i].short_need != 0);
	an_key_free(&k);
	ds_free(&ds);
}

/* steady iterations are counted: the key's are pexecs' own numbers (nearest rank) */
static void test_integer_iterations(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	struct dataset ds = { 0 };
	struct ds_key *dk = ds_add_key(&ds, "b", "vm", "v");
	for (int p = 0; p < PEXECS; p++) {
		struct wc_shape sh;
		char shape[64];
		snprintf(shape, sizeof(shape), "warmup:10000:%d:2", 25 + p);
		wc_parse(shape, &sh);
		struct ds_pexec *px = ds_add_pexec(dk, p);
		px->n = 200;
		px->wall = malloc(200 * sizeof(double));
		wc_series(&sh, 61 + (uint64_t)p, px->wall, 200);
	}
	struct an_key k;
	an_analyse_key(dk, &o, &k);
	/* 25..34: the 5th smallest, the 1st, the 10th (warmup_stats: 29.5, 25.45, 33.55) */
	assert_true(k.iter_med == 29 && k.iter_p5 == 25 && k.iter_p95 == 34);
	an_key_free(&k);
	o.replicate = 1;
	an_analyse_key(dk, &o, &k);
	assert_true(fabs(k.iter_med - 29.5) < 1e-9);
	an_key_free(&k);
	ds_free(&ds);
}

/* kiln diff's verdicts on warmup: a new warmup is one, A/A is not, a short key gets none */
static void test_diff_warmup(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	struct dataset da = { 0 }, db = { 0 };
	struct an_key a, b;
	analyse(&da, "flat:10000:0:1", 200, 71, &o, &a);
	analyse(&db, "warmup:10000:30:2", 200, 72, &o, &b);
	struct sw_diff d;
	sw_diff_keys(&a, &b, &o, &d);
	/* 30 iterations at twice 10 ms: 0.6 s to steady, 0.3 s above the steady level */
	assert_int_equal(d.time.verdict, SW_MORE);
	assert_true(d.time.lo > 0.55 && d.time.hi < 0.65);
	assert_int_equal(d.cost.verdict, SW_MORE);
	assert_true(d.cost.lo > 0.27 && d.cost.hi < 0.33);
	assert_int_equal(d.class_changed, 1);
	sw_diff_keys(&b, &a, &o, &d);
	assert_int_equal(d.time.verdict, SW_LESS);
	an_key_free(&a);
	an_key_free(&b);
	ds_free(&da);
	ds_free(&db);
	/*
	 * B 10% slower at everything, its warm-up the same 30 iterations: 60 ms
	 * longer to steady in seconds, as long in its steady iterations: the
	 * steady state moved, the warm-up did not (bench/live.sh G: in seconds
	 * alone, two builds of one program got a warm-up verdict in 2.5% of
	 * comparisons, whenever their steady states differed by chance)
	 */
	analyse(&da, "warmup:10000:30:2", 200, 73, &o, &a);
	analyse(&db, "warmup:11000:30:2", 200, 74, &o, &b);
	sw_diff_keys(&a, &b, &o, &d);
	assert_true(d.time.lo > 0.05 && d.time.hi < 0.07);
	assert_true(d.time.rel_lo < 0 && d.time.rel_hi > 0);
	assert_int_equal(d.time.verdict, SW_NONE);
	assert_int_equal(d.time.speed_only, 1);
	assert_int_equal(d.cost.verdict, SW_NONE);
	struct strbuf vt = STRBUF_INIT;
	sw_verdict_text(&d, &vt);
	assert_string_equal(vt.buf, "no change (the steady state moved)");
	sb_reset(&vt);
	/* a side without a steady state in too many of its pexecs: no test ran, so no "no change" */
	a.has_steady = 0;
	sw_diff_keys(&a, &b, &o, &d);
	assert_int_equal(d.time.verdict, SW_CANNOT);
	assert_int_equal(d.cost.verdict, SW_CANNOT);
	sw_verdict_text(&d, &vt);
	assert_string_equal(vt.buf, "cannot tell: too few pexecs with a steady state");
	sb_release(&vt);
	an_key_free(&a);
	an_key_free(&b);
	ds_free(&da);
	ds_free(&db);
	/* A/A on keys that warm up in some pexecs and not others: no verdict in 20 pairs */
	int alarms = 0;
	for (int i = 0; i < KEYS; i++) {
		struct dataset d1 = { 0 }, d2 = { 0 };
		struct ds_key *k1 = ds_add_key(&d1, "b", "vm", "v"), *k2 = ds_add_key(&d2, "b", "vm", "v");
		for (int p = 0; p < PEXECS; p++) {
			struct wc_shape sh;
			wc_parse(p % 2 ? "warmup:10000:30:1.5" : "flat:10000:0:1", &sh);
			struct ds_pexec *x1 = ds_add_pexec(k1, p), *x2 = ds_add_pexec(k2, p);
			x1->n = x2->n = 200;
			x1->wall = malloc(200 * sizeof(double));
			x2->wall = malloc(200 * sizeof(double));
			wc_series(&sh, 8000 + (uint64_t)(i * PEXECS + p), x1->wall, 200);
			wc_series(&sh, 9000 + (uint64_t)(i * PEXECS + p), x2->wall, 200);
		}
		an_analyse_key(k1, &o, &a);
		an_analyse_key(k2, &o, &b);
		sw_diff_keys(&a, &b, &o, &d);
		alarms += d.time.verdict != SW_NONE || d.cost.verdict != SW_NONE || d.class_changed;
		an_key_free(&a);
		an_key_free(&b);
		ds_free(&d1);
		ds_free(&d2);
	}
	assert_int_equal(alarms, 0);
	/* 10 of 10 pexecs warm up against 9 of 10: the classes differ (warmup, good inconsistent), not beyond chance */
	struct dataset d1 = { 0 }, d2 = { 0 };
	struct ds_key *k1 = make_key(&d1, "warmup:10000:30:2", 200, 75), *k2 = make_key(&d2, "warmup:10000:30:2", 200, 76);
	for (size_t i = 0; i < 30; i++)
		k2->pexecs[4].wall[i] /= 2;
	an_analyse_key(k1, &o, &a);
	an_analyse_key(k2, &o, &b);
	assert_int_equal(a.cls, AN_WARMUP);
	assert_int_equal(b.cls, AN_GOOD_INCONSISTENT);
	sw_diff_keys(&a, &b, &o, &d);
	assert_int_equal(d.class_changed, 0);
	assert_true(d.class_p > 0.5);
	an_key_free(&a);
	an_key_free(&b);
	ds_free(&d1);
	ds_free(&d2);
	/* a key that now drifts: its class changed (no steady state), though no verdict on its warmup */
	analyse(&da, "flat:10000:0:1", 200, 77, &o, &a);
	analyse(&db, "drift:10000:0:1.2", 200, 78, &o, &b);
	sw_diff_keys(&a, &b, &o, &d);
	assert_int_equal(d.class_changed, 1);
	assert_int_equal(d.time.verdict, SW_CANNOT);
	an_key_free(&a);
	an_key_free(&b);
	ds_free(&da);
	ds_free(&db);
	/* too short: no verdict, no class change */
	analyse(&da, "towers:600:250:1", 20, 73, &o, &a);
	analyse(&db, "towers:600:250:1", 20, 74, &o, &b);
	sw_diff_keys(&a, &b, &o, &d);
	assert_true(d.warn & AN_WARN_SHORT);
	assert_int_equal(d.time.verdict, SW_CANNOT);
	assert_int_equal(d.class_changed, -1);
	an_key_free(&a);
	an_key_free(&b);
	ds_free(&da);
	ds_free(&db);
}

/* --replicate-warmup-stats keeps warmup_stats' method, its answers on pauses included */
static void test_replicate_is_warmup_stats(void **state)
{
	(void)state;
	struct an_opts o;
	opts(&o);
	o.replicate = 1;
	o.delta = 0.001;
	o.delta_pct = 0;
	struct dataset ds = { 0 };
	struct an_key k;
	analyse(&ds, "spikes:10000:3:2", 200, 81, &o, &k);
	for (size_t i = 0; i < k.np; i++) {
		assert_true(k.p[i].tau == 1 && !k.p[i].warn);
		assert_true(k.p[i].cls == AN_NO_STEADY || k.p[i].steady_mean == k.p[i].steady_mean_clean);
	}
	assert_int_equal(k.warn, 0);
	an_key_free(&k);
	ds_free(&ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stationary_is_flat),
		cmocka_unit_test(test_changes_are_found),
		cmocka_unit_test(test_steady_figure_counts_pauses),
		cmocka_unit_test(test_early_pause_or_warmup),
		cmocka_unit_test(test_clumped_pauses),
		cmocka_unit_test(test_same_level),
		cmocka_unit_test(test_autocorrelation),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_integer_iterations),
		cmocka_unit_test(test_diff_warmup),
		cmocka_unit_test(test_replicate_is_warmup_stats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
