/*
 * test_history.c - change points over commits (history-detect.c) on
 * synthetic series of known truth: a null series raises nothing, a 5% step
 * is found on its commit with an interval holding its size, a one-commit
 * noisy session is no change, a change the data put between two
 * same-binary commits is moved to where the binary changed, a doubled
 * warm-up and a class turn are found in their own series, a costlier
 * warm-up in as many iterations in the cost series (not the warmup one),
 * no warm-up series raises an alarm over null series' A/A pairs; the trimmed
 * mean; what a series could have shown (history-power.c); and the
 * bisection search (history-bisect.c) on simulated commits, with the cap
 * an undecided one names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "history-bisect.h"
#include "history-cmd.h"
#include "history.h"
#include "stats-robust.h"
#include "history-detect.h"
#include "history-power.h"
#include "history-track.h"
#include "test-rng.h"

/* how a synthetic series is made */
struct shape {
	size_t n, m;            /* commits, pexecs per commit */
	double sw, tau;         /* within-commit (per pexec) and session sd, relative */
	size_t step_at;         /* first commit of the new level (0: none) */
	double step;            /* factor */
	size_t warm_at;         /* first commit whose warm-up is doubled, or stretched warm_f times (0: none) */
	double warm_f;          /* > 0: the stretch at warm_at (default 2) */
	double wsd, wtau;       /* the warm-up's sd (log) a pexec (0: 0.1) and a session (0: none) */
	size_t nosteady_at;     /* first commit where half the pexecs have no steady state (0: none) */
	size_t outlier;         /* one commit measured in a noisy session, 10% slower (0: none) */
	double long_k;          /* > 0: this many iterations to steady, 2 steady iterations' worth of cost */
	size_t cost_at;         /* with long_k: first commit whose cost is 3x in as many iterations (0: none) */
	int aa_every;           /* > 0: every aa_every-th commit builds its predecessor's binary */
	size_t flat_until;      /* > 0: commits before it flat (an interpreter's: a warm-up of nearly nothing) */
	size_t flat_from;       /* > 0: commits from it on flat */
	double slow_p, slow_f;  /* a busy machine: each pexec slow_f times slower with probability slow_p */
};

static void make(struct hist_series *s, const struct shape *sh)
{
	memset(s, 0, sizeof(*s));
	s->key = strdup("b:vm:v");
	s->p = calloc(sh->n, sizeof(*s->p));
	s->n = sh->n;
	for (size_t i = 0; i < sh->n; i++) {
		struct hist_point *p = &s->p[i];
		p->commit = i;
		p->built = 1;
		p->n = sh->m;
		p->steady = calloc(sh->m, sizeof(double));
		p->tts = calloc(sh->m, sizeof(double));
		p->cost = calloc(sh->m, sizeof(double));
		p->cls = calloc(sh->m, 1);
		double level = 0.01 * (sh->step_at && i >= sh->step_at ? sh->step : 1.0);
		double sess = exp(sh->tau * gauss()) * (i == sh->outlier && i ? 1.10 : 1.0);
		double warm = 5 * (sh->warm_at && i >= sh->warm_at ? (sh->warm_f > 0 ? sh->warm_f : 2) : 1);
		if (sh->wtau > 0)
			warm *= exp(sh->wtau * gauss());
		for (size_t j = 0; j < sh->m; j++) {
			p->steady[j] = level * sess * exp(sh->sw * gauss());
			if (sh->slow_p > 0 && unif() < sh->slow_p)
				p->steady[j] *= sh->slow_f;
			p->tts[j] = p->steady[j] * warm * exp((sh->wsd > 0 ? sh->wsd : 0.1) * gauss());
			/* warm iterations twice a steady one: half the warm-up is its cost */
			p->cost[j] = p->tts[j] / 2;
			if (sh->long_k > 0) {
				/* tts / steady = iterations + cost / steady: the cost alone moves */
				p->cost[j] = p->tts[j] / warm * 2 * (sh->cost_at && i >= sh->cost_at ? 3 : 1);
				p->tts[j] = p->steady[j] * sh->long_k + p->cost[j];
			}
			p->cls[j] = AN_WARMUP;
			if (i < sh->flat_until || (sh->flat_from && i >= sh->flat_from)) {
				/* flat, but for a trace of warm-up in some pexecs (a slow first iteration) */
				int trace = j % 3 == 0;
				p->tts[j] = trace ? p->steady[j] * 0.02 * exp(0.1 * gauss()) : 0;
				p->cost[j] = p->tts[j] / 2;
				p->cls[j] = trace ? AN_WARMUP : AN_FLAT;
			}
			if (sh->nosteady_at && i >= sh->nosteady_at && j % 2) {
				p->cls[j] = AN_NO_STEADY;
				p->steady[j] = p->tts[j] = NAN;
			}
		}
		char b[32];
		p->same_as_prev = sh->aa_every > 0 && i > 0 && i % (size_t)sh->aa_every == 0;
		snprintf(b, sizeof(b), "bin%zu", p->same_as_prev ? i - 1 : i);
		p->binary = strdup(b);
	}
}

static size_t count_what(const struct hist_change *ch, size_t n, enum hist_what w)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ch[i].what == w;
	return k;
}

static const struct hist_change *first_what(const struct hist_change *ch, size_t n, enum hist_what w)
{
	for (size_t i = 0; i < n; i++)
		if (ch[i].what == w)
			return &ch[i];
	return NULL;
}

/* detection on s: its first change of series w, asserted to be on commit at; *ch, *n: all of them */
static const struct hist_change *detected_at(struct hist_series *s, enum hist_what w, size_t at,
					     struct hist_change **ch, size_t *n)
{
	history_detect(s, NULL, ch, n, NULL);
	const struct hist_change *c = first_what(*ch, *n, w);
	assert_non_null(c);
	assert_int_equal(c->at, at);
	return c;
}

static void test_null_quiet(void **state)
{
	(void)state;
	/*
	 * 20 null series of 200 commits: 4000 points, not one alarm (the method's rate is about 1 in 400 series);
	 * every 4th commit its predecessor's binary: 980 A/A pairs, at most 1 of them where a warm-up series
	 * (warmup, class, cost) put a split (issue 29's warm-up target).  Here the cost is half the time to
	 * steady, so that a split of one is a split of the other: one commit, counted once
	 */
	size_t alarms = 0, aa_pairs = 0, aa_warm = 0, aa_splits = 0;
	test_seed = 12345;
	for (int r = 0; r < 20; r++) {
		struct shape sh = { .n = 200, .m = 10, .sw = 0.01, .tau = 0.005, .aa_every = 4 };
		struct hist_series s;
		make(&s, &sh);
		struct hist_change *ch;
		size_t n;
		struct hist_detect_stats st;
		history_detect(&s, NULL, &ch, &n, &st);
		alarms += n;
		aa_pairs += st.aa_pairs[HIST_COST];
		aa_warm += st.aa_warm_commits;
		aa_splits += st.aa_alarms[HIST_WARMUP] + st.aa_alarms[HIST_CLASS] + st.aa_alarms[HIST_COST];
		free(ch);
		history_series_free(&s);
	}
	assert_int_equal(alarms, 0);
	assert_int_equal(aa_pairs, 20 * 49);
	assert_true(aa_warm <= 1);
	assert_true(aa_splits >= aa_warm && aa_splits <= 2 * aa_warm);
}

static void test_step_found(void **state)
{
	(void)state;
	test_seed = 777;
	struct shape sh = { .n = 200, .m = 10, .sw = 0.01, .tau = 0.003, .step_at = 120, .step = 1.05 };
	struct hist_series s;
	make(&s, &sh);
	struct hist_change *ch;
	size_t n;
	struct hist_detect_stats st;
	history_detect(&s, NULL, &ch, &n, &st);
	assert_int_equal(count_what(ch, n, HIST_STEADY), 1);
	const struct hist_change *c = first_what(ch, n, HIST_STEADY);
	assert_int_equal(c->at, 120);
	assert_true(c->lo <= 120 && c->hi >= 120);
	assert_true(c->ratio_lo < 1.05 && c->ratio_hi > 1.05);
	assert_true(fabs(c->after / c->before - c->ratio) < 1e-9);
	/* the session sd is estimated near what it was made with (the pexecs add 1%/sqrt(10) within) */
	assert_true(st.tau[HIST_STEADY] > 0.001 && st.tau[HIST_STEADY] < 0.006);
	free(ch);
	history_series_free(&s);
}

/*
 * The GOOD a change's bisection starts from is the last commit before its
 * range with a figure: here the two commits before the step failed to
 * build, and GOOD was the second of them (a GOOD that does not build)
 */
static void test_bisect_ends_skip_unbuilt(void **state)
{
	(void)state;
	test_seed = 4242;
	struct shape sh = { .n = 60, .m = 10, .sw = 0.01, .tau = 0.003, .step_at = 40, .step = 1.10 };
	struct hist_series s;
	make(&s, &sh);
	s.p[38].built = s.p[39].built = 0;
	struct hist_commit cs[60];
	memset(cs, 0, sizeof(cs));
	for (long i = 0; i < 60; i++)
		cs[i].depth = i;
	struct hist_change *ch;
	size_t n;
	const struct hist_change *c = detected_at(&s, HIST_STEADY, 40, &ch, &n);
	const struct hist_commit *good, *bad;
	assert_true(hist_bisect_pair(&s, c->lo, c->hi, HIST_STEADY, cs, &good, &bad));
	assert_true(good->depth < (long)c->lo && good->depth <= 37);
	assert_true(s.p[good->depth].built);
	assert_int_equal(bad->depth, (long)c->hi);
	assert_true(hist_bisect_ends(&s, c->lo, c->hi, HIST_STEADY, cs, &good, &bad));
	/* no figure before the range: no ends */
	for (size_t i = 0; i < c->lo; i++)
		s.p[i].built = 0;
	assert_false(hist_bisect_pair(&s, c->lo, c->hi, HIST_STEADY, cs, &good, &bad));
	free(ch);
	history_series_free(&s);
}

/* the steady changes detection finds on s, which it frees */
static size_t steady_changes(struct hist_series *s)
{
	struct hist_change *ch;
	size_t n;
	history_detect(s, NULL, &ch, &n, NULL);
	size_t k = count_what(ch, n, HIST_STEADY);
	free(ch);
	history_series_free(s);
	return k;
}

static void test_outlier_session(void **state)
{
	(void)state;
	test_seed = 4242;
	struct shape sh = { .n = 120, .m = 10, .sw = 0.01, .tau = 0.003, .outlier = 60 };
	struct hist_series s;
	make(&s, &sh);
	assert_int_equal(steady_changes(&s), 0);
}

/*
 * Three noisy sessions in a row and no change: one commit 8% slow, the two
 * after it 1.5%.  Their mean stands 3.7% above the rest, 8 of the points'
 * sds, enough for two changes; but the far one alone makes it so.  With
 * each point's chi-square capped at 3 robust sds from its neighbours'
 * median, no change is found (before the cap: two, at 100 and 103)
 */
static void test_noisy_run(void **state)
{
	(void)state;
	test_seed = 5150;
	struct shape sh = { .n = 200, .m = 10, .sw = 0.01, .tau = 0.003 };
	struct hist_series s;
	make(&s, &sh);
	static const double off[] = { 1.08, 1.015, 1.015 };
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < s.p[100 + i].n; j++)
			s.p[100 + i].steady[j] *= off[i];
	assert_int_equal(steady_changes(&s), 0);
}

/*
 * The size's interval where the two sides are not alike: a 5% step at 100
 * of 200, the commits before it measured in sessions of sd 0.2%, those
 * after it in sessions 1% off besides (a machine that got busy).  The
 * session variance is one for the series, so the model's variance of the
 * level after is too small; each side's sandwich variance is right
 * whatever its weights.  Of 393 intervals placed on 100, 369 held 1.05
 * with the model's variance alone (0.939) and 377 with the larger of the
 * two (0.959).  Most of the rest had a split under the 1% reported beside
 * the step, which cut the level's segment short to a few commits chosen
 * for being off; with such splits merged away (merge_small) 385 (0.980)
 */
static void test_size_unlike_sides(void **state)
{
	(void)state;
	test_seed = 6060;
	size_t placed = 0, covered = 0;
	for (int r = 0; r < 400; r++) {
		struct shape sh = { .n = 200, .m = 10, .sw = 0.01, .tau = 0.002, .step_at = 100, .step = 1.05 };
		struct hist_series s;
		make(&s, &sh);
		for (size_t i = 100; i < 200; i++) {
			double off = exp(0.01 * gauss());
			for (size_t j = 0; j < s.p[i].n; j++)
				s.p[i].steady[j] *= off;
		}
		struct hist_change *ch;
		size_t n;
		history_detect(&s, NULL, &ch, &n, NULL);
		const struct hist_change *c = first_what(ch, n, HIST_STEADY);
		if (c && c->at == 100) {
			placed++;
			covered += c->ratio_lo <= 1.05 && 1.05 <= c->ratio_hi;
		}
		free(ch);
		history_series_free(&s);
	}
	assert_true(placed >= 380);
	assert_true(covered >= 0.97 * (double)placed);
}

/*
 * A split too small to report is merged away, so that a reported change's
 * levels are those of the steps reported: a 0.5% step at 60 (under the 1%
 * reported) and a 5% one at 100, on a quiet machine where both are plain.
 * One change is reported, at 100, and its level before is that of commits
 * 0-99 (1.05 x 1.005 over 1.005^0.4: 1.0531), not of 60-99 alone (1.05)
 */
static void test_small_split_merged(void **state)
{
	(void)state;
	test_seed = 4242;
	struct shape sh = { .n = 200, .m = 10, .sw = 0.001, .tau = 0.0002, .step_at = 100, .step = 1.05 };
	struct hist_series s;
	make(&s, &sh);
	for (size_t i = 60; i < 200; i++)
		for (size_t j = 0; j < s.p[i].n; j++)
			s.p[i].steady[j] *= 1.005;
	struct hist_change *ch;
	size_t n;
	struct hist_detect_opts o;
	hist_detect_opts_default(&o);
	o.min_change[HIST_STEADY] = 0.01;
	history_detect(&s, &o, &ch, &n, NULL);
	assert_int_equal(count_what(ch, n, HIST_STEADY), 1);
	const struct hist_change *c = first_what(ch, n, HIST_STEADY);
	assert_int_equal(c->at, 100);
	assert_true(c->ratio > 1.052 && c->ratio < 1.0545);
	free(ch);
	/* reported at a threshold under it, the small step is a change of its own and the 5% one is 1.05 */
	o.min_change[HIST_STEADY] = 0.002;
	history_detect(&s, &o, &ch, &n, NULL);
	assert_int_equal(count_what(ch, n, HIST_STEADY), 2);
	assert_true(fabs(ch[1].ratio - 1.05) < 0.001 || fabs(ch[0].ratio - 1.05) < 0.001);
	free(ch);
	history_series_free(&s);
}

/* steady changes over 20 busy series (slow_p of the pexecs 30% slow), a step of size step at 120 (1: none) */
struct busy_count {
	size_t found, exact, other; /* within 2 commits of 120, on it, elsewhere */
};

static void busy_runs(uint64_t seed, double slow_p, double step, struct busy_count *b)
{
	memset(b, 0, sizeof(*b));
	test_seed = seed;
	for (int r = 0; r < 20; r++) {
		struct shape sh = { .n = 200, .m = 10, .sw = 0.01, .tau = 0.002, .slow_p = slow_p, .slow_f = 1.3,
				    .step_at = step != 1 ? 120 : 0, .step = step };
		struct hist_series s;
		make(&s, &sh);
		struct hist_change *ch;
		size_t n;
		history_detect(&s, NULL, &ch, &n, NULL);
		for (size_t i = 0; i < n; i++) {
			if (ch[i].what != HIST_STEADY)
				continue;
			int near = step != 1 && ch[i].at + 2 >= 120 && ch[i].at <= 122;
			b->found += near;
			b->exact += near && ch[i].at == 120;
			b->other += !near;
		}
		free(ch);
		history_series_free(&s);
	}
}

/*
 * A busy machine, no change: a pexec in four is 30% slow.  Most commits'
 * pexecs explain their neighbours' differences (the session sd comes out
 * near 0), but the few whose pexecs all missed (or mostly met) the slow
 * mode sit apart with small variances.  Before the series' dispersion
 * divided the weights and the steady trim was 30%, these 20 series had 15
 * steady alarms (106 at one pexec in three); either change alone ends them
 */
static void test_busy_slow_mode(void **state)
{
	(void)state;
	struct busy_count b;
	busy_runs(2029, 0.25, 1, &b);
	assert_true(b.other <= 2);
}

/*
 * The dispersion: a series whose points scatter more than their
 * variances say is found so, and its change's interval widens with it
 */
static void test_dispersion(void **state)
{
	(void)state;
	test_seed = 99;
	struct shape sh = { .n = 120, .m = 10, .sw = 0.01, .tau = 0.0, .step_at = 60, .step = 1.10 };
	struct hist_series s;
	make(&s, &sh);
	struct hist_change *ch;
	size_t n;
	struct hist_detect_stats st;
	history_detect(&s, NULL, &ch, &n, &st);
	assert_true(st.phi[HIST_STEADY] < 1.5);
	assert_int_equal(count_what(ch, n, HIST_STEADY), 1);
	double w1 = log(first_what(ch, n, HIST_STEADY)->ratio_hi / first_what(ch, n, HIST_STEADY)->ratio_lo);
	free(ch);
	history_series_free(&s);
	/*
	 * a commit in seven measured in a session off by a draw of sd 2%: the neighbours' median
	 * difference does not see them (session sd near 0), the series' scatter does
	 */
	test_seed = 99;
	make(&s, &sh);
	for (size_t i = 0; i < s.n; i++) {
		double off = unif() < 1.0 / 7 ? exp(0.02 * gauss()) : 1.0;
		for (size_t j = 0; j < s.p[i].n; j++)
			s.p[i].steady[j] *= off;
	}
	history_detect(&s, NULL, &ch, &n, &st);
	/* 1.16 without the offsets; 2.37 before the farthest points' chi-square was capped (cap_outliers) */
	assert_true(st.phi[HIST_STEADY] > 1.3);
	const struct hist_change *c = first_what(ch, n, HIST_STEADY);
	assert_non_null(c);
	assert_true(log(c->ratio_hi / c->ratio_lo) > 1.2 * w1);
	free(ch);
	history_series_free(&s);
}

/*
 * The same busy machine (a pexec in six slow), a 5% step at commit 120:
 * with the 10% trim 18 of 20 were found and 7 on their commit
 */
static void test_busy_step(void **state)
{
	(void)state;
	struct busy_count b;
	busy_runs(3031, 0.16, 1.05, &b);
	assert_int_equal(b.found, 20);
	assert_true(b.exact >= 16);
	assert_true(b.other <= 1);
}

static void test_same_binary_moves(void **state)
{
	(void)state;
	test_seed = 99;
	struct shape sh = { .n = 100, .m = 10, .sw = 0.005, .tau = 0.002, .step_at = 50, .step = 1.05 };
	struct hist_series s;
	make(&s, &sh);
	/* the data change at 50, but 50 and 51 ran the binary of 49: the binary changed at 52 */
	free(s.p[50].binary);
	free(s.p[51].binary);
	s.p[50].binary = strdup(s.p[49].binary);
	s.p[51].binary = strdup(s.p[49].binary);
	s.p[50].same_as_prev = s.p[51].same_as_prev = 1;
	struct hist_change *ch;
	size_t n;
	struct hist_detect_stats st;
	history_detect(&s, NULL, &ch, &n, &st);
	const struct hist_change *c = first_what(ch, n, HIST_STEADY);
	/* the split the data prefer is an A/A pair: counted, and the change is not put there */
	assert_int_equal(st.aa_alarms[HIST_STEADY], 1);
	assert_int_equal(st.aa_pairs[HIST_STEADY], 2);
	if (c)
		assert_true(c->at != 50 && c->at != 51);
	free(ch);
	history_series_free(&s);
}

static void test_warmup_and_class(void **state)
{
	(void)state;
	test_seed = 31337;
	struct shape sh = { .n = 120, .m = 10, .sw = 0.01, .tau = 0.003, .warm_at = 70 };
	struct hist_series s;
	make(&s, &sh);
	struct hist_change *ch;
	size_t n;
	const struct hist_change *c = detected_at(&s, HIST_WARMUP, 70, &ch, &n);
	assert_true(c->ratio > 1.9 && c->ratio < 2.1 && c->ratio_lo < 2 && c->ratio_hi > 2);
	assert_int_equal(count_what(ch, n, HIST_STEADY), 0);
	assert_int_equal(count_what(ch, n, HIST_CLASS), 0);
	/* twice the warm-up at the same speed: twice its cost too */
	c = first_what(ch, n, HIST_COST);
	assert_non_null(c);
	assert_int_equal(c->at, 70);
	assert_true(c->ratio > 1.9 && c->ratio < 2.1 && c->ratio_lo < 2 && c->ratio_hi > 2);
	free(ch);
	history_series_free(&s);

	struct shape sc = { .n = 120, .m = 10, .sw = 0.01, .tau = 0.003, .nosteady_at = 40 };
	make(&s, &sc);
	history_detect(&s, NULL, &ch, &n, NULL);
	c = first_what(ch, n, HIST_CLASS);
	assert_non_null(c);
	assert_int_equal(c->at, 40);
	assert_true(c->after > 0.45 && c->before < 0.05);
	free(ch);
	history_series_free(&s);
}

/* a warm-up of 40 iterations whose first ones get costlier: 2 -> 6 steady iterations' worth, tts 42 -> 46 */
static void test_warmup_cost(void **state)
{
	(void)state;
	test_seed = 2718;
	struct shape sh = { .n = 120, .m = 10, .sw = 0.01, .tau = 0.003, .long_k = 40, .cost_at = 70 };
	struct hist_series s;
	make(&s, &sh);
	struct hist_change *ch;
	size_t n;
	history_detect(&s, NULL, &ch, &n, NULL);
	const struct hist_change *c = first_what(ch, n, HIST_COST);
	assert_non_null(c);
	assert_int_equal(c->at, 70);
	assert_true(c->ratio > 2.8 && c->ratio < 3.2 && c->ratio_lo < 3 && c->ratio_hi > 3);
	assert_true(c->before > 1.8 && c->before < 2.2 && c->after > 5.5 && c->after < 6.5);
	/* the time to steady moved by under 10%: below what the warmup series reports */
	assert_int_equal(count_what(ch, n, HIST_WARMUP), 0);
	assert_int_equal(count_what(ch, n, HIST_STEADY), 0);
	free(ch);
	history_series_free(&s);
}

/*
 * A warm-up out of nothing (a flat interpreter's commits, then 5 iterations'
 * worth) has no ratio: before the fix, "11420522.18x the warm-up" on Lua,
 * from 1e-7 iterations of warm-up before.  It is a difference in
 * iterations with its interval; so is the way back to flat (it read
 * "x0.00 [0.00, 0.37]" on Lua until 2026-12-05, and -0.01x before a
 * warm-up's interval was floored at none)
 */
static void test_warmup_from_nothing(void **state)
{
	(void)state;
	test_seed = 4242;
	struct shape sh = { .n = 120, .m = 10, .sw = 0.01, .tau = 0.003, .flat_until = 70 };
	struct hist_series s;
	make(&s, &sh);
	struct hist_change *ch;
	size_t n;
	const struct hist_change *c = detected_at(&s, HIST_WARMUP, 70, &ch, &n);
	assert_true(c->before < HIST_RATIO_MIN && isnan(c->ratio) && isnan(c->ratio_lo) && isnan(c->ratio_hi));
	assert_true(c->after > 4 && c->after < 6 && c->after_lo <= c->after && c->after <= c->after_hi);
	c = first_what(ch, n, HIST_COST);
	assert_non_null(c);
	assert_true(isnan(c->ratio) && c->after_lo <= c->after && c->after <= c->after_hi);
	free(ch);
	history_series_free(&s);
	/* and back: 5 iterations' worth, then flat from commit 70 */
	struct shape back = { .n = 120, .m = 10, .sw = 0.01, .tau = 0.003, .flat_from = 70 };
	make(&s, &back);
	c = detected_at(&s, HIST_WARMUP, 70, &ch, &n);
	assert_true(c->before > 4 && c->after < HIST_RATIO_MIN && c->after_lo >= 0);
	assert_true(isnan(c->ratio) && isnan(c->ratio_lo) && isnan(c->ratio_hi));
	assert_true(c->after - c->before < -3 && c->after_hi - c->before < 0);
	free(ch);
	history_series_free(&s);
}

static void test_trimmed(void **state)
{
	(void)state;
	double v[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 };
	double mean, var;
	assert_int_equal(hist_trimmed(v, 10, 0.1, &mean, &var), 1);
	/* 1 and 100 trimmed: the mean of 2..9 */
	assert_true(fabs(mean - 5.5) < 1e-12);
	/* winsorised: 2,2,3,...,9,9: variance of that over (0.8^2 * 10) */
	double w[10] = { 2, 2, 3, 4, 5, 6, 7, 8, 9, 9 }, m = 5.5, ss = 0;
	for (int i = 0; i < 10; i++)
		ss += (w[i] - m) * (w[i] - m);
	assert_true(fabs(var - ss / 9 / (0.64 * 10)) < 1e-12);
	assert_int_equal(hist_trimmed(v, 1, 0.1, &mean, &var), 0);
}


/* ---- what a series could have shown (history-power.c) ---- */

/* the share of fresh series of shape sh with a step of f (either way) at a random commit that the detection finds */
static double found_share(struct shape sh, double f, size_t trials)
{
	size_t found = 0;
	for (size_t t = 0; t < trials; t++) {
		sh.step_at = 10 + (size_t)(unif() * (double)(sh.n - 20));
		sh.step = t % 2 ? 1 / f : f;
		struct hist_series s;
		make(&s, &sh);
		struct hist_change *ch;
		size_t n;
		history_detect(&s, NULL, &ch, &n, NULL);
		found += history_found_near(ch, n, sh.step_at, sh.step);
		free(ch);
		history_series_free(&s);
	}
	return (double)found / (double)trials;
}

/* the step s's series could show, as history_power names it */
static struct hist_power power_of(const struct shape *sh)
{
	struct hist_series s;
	make(&s, sh);
	struct hist_power pw;
	history_power(&s, NULL, NULL, 0, &pw);
	history_series_free(&s);
	return pw;
}

/*
 * A quiet series could show a small step, a noisy one only a large one;
 * and what it names holds on fresh series of the same noise: a step of
 * that size at a random commit is found in most of them
 */
static void test_could_see(void **state)
{
	(void)state;
	test_seed = 99;
	struct shape quiet = { .n = 80, .m = 10, .sw = 0.01, .tau = 0.002 };
	struct shape noisy = { .n = 80, .m = 10, .sw = 0.20, .tau = 0.02 };
	struct hist_power q = power_of(&quiet), z = power_of(&noisy);
	print_message("could see: quiet %.2f (%zu of %zu), noisy %.2f (%zu of %zu)\n", q.size, q.found, q.sites, z.size,
		      z.found, z.sites);
	assert_int_equal(q.sites, 20);
	assert_true(q.size <= 0.03);
	assert_true(z.size >= 0.10 && isfinite(z.size));
	double at = found_share(noisy, 1 + z.size, 200), below = found_share(noisy, 1 + z.size / 2, 200);
	print_message("fresh noisy series: a step of %.2f found in %.3f, of half that in %.3f\n", z.size, at, below);
	/* measured: 0.655 and 0.130 (bench/history --synthetic checks the size named over many series) */
	assert_true(at >= 0.6 && below <= 0.4);
	/* too short to say */
	struct shape tiny = { .n = 8, .m = 10, .sw = 0.01 };
	assert_int_equal(power_of(&tiny).sites, 0);
}

/* the share of fresh series of shape sh whose warm-up, stretched f times at a random commit, the detection finds */
static double warm_found_share(struct shape sh, double f, size_t trials)
{
	size_t found = 0;
	for (size_t t = 0; t < trials; t++) {
		sh.warm_at = 10 + (size_t)(unif() * (double)(sh.n - 20));
		sh.warm_f = f;
		struct hist_series s;
		make(&s, &sh);
		struct hist_change *ch;
		size_t n;
		history_detect(&s, NULL, &ch, &n, NULL);
		found += history_found_near_in(ch, n, sh.warm_at, f, (1u << HIST_WARMUP) | (1u << HIST_COST));
		free(ch);
		history_series_free(&s);
	}
	return (double)found / (double)trials;
}

/* the stretch s's warm-up could show, as history_power_warm names it, and its text */
static struct hist_power_warm power_warm_of(struct hist_series *s, struct strbuf *text)
{
	struct hist_power_warm pw;
	history_power_warm(s, NULL, NULL, 0, &pw);
	sb_reset(text);
	history_power_warm_text(&pw, text);
	history_series_free(s);
	return pw;
}

/*
 * A warm-up that varies from session to session could show only a long
 * stretch, a steady one a short one; what it names holds on fresh series
 * of the same noise (a stretch of the figures here: bench/history
 * --synthetic-warm checks it against stretches of the iterations); a
 * flat series, or one with few warming pexecs, names none and says why
 */
static void test_could_see_warmup(void **state)
{
	(void)state;
	test_seed = 77;
	struct strbuf t = STRBUF_INIT;
	struct shape quiet = { .n = 80, .m = 10, .sw = 0.01, .tau = 0.002 };
	struct shape noisy = { .n = 80, .m = 10, .sw = 0.01, .tau = 0.002, .wsd = 0.5, .wtau = 0.5 };
	struct hist_series s;
	make(&s, &quiet);
	struct hist_power_warm q = power_warm_of(&s, &t);
	assert_true(q.p.sites == 20 && q.p.size == 1.5 && q.warm == 800 && !history_power_warm_why(&q));
	assert_non_null(strstr(t.buf, "warm-ups 1.5x as long or longer ("));
	make(&s, &noisy);
	struct hist_power_warm z = power_warm_of(&s, &t);
	print_message("could see: quiet %gx (%zu of %zu), noisy %gx (%zu of %zu): %s\n", q.p.size, q.p.found, q.p.sites,
		      z.p.size, z.p.found, z.p.sites, t.buf);
	assert_true(z.p.sites == 20 && z.p.size >= 2 && isfinite(z.p.size));
	double at = warm_found_share(noisy, z.p.size, 200), below = warm_found_share(noisy, 1 + (z.p.size - 1) / 2, 200);
	print_message("fresh noisy series: a %gx stretch found in %.3f, half of it in %.3f\n", z.p.size, at, below);
	/*
	 * measured: 3x named, found in 0.965 of fresh series, 2x (half the
	 * stretch, the rung below) in 0.665: the 80% lies between the two
	 */
	assert_true(at >= 0.8 && below <= at - 0.2);
	/* an interpreter's: a third of the pexecs with a trace of warm-up, the rest flat */
	struct shape interp = { .n = 80, .m = 10, .sw = 0.01, .tau = 0.002, .flat_until = 80 };
	make(&s, &interp);
	struct hist_power_warm f = power_warm_of(&s, &t);
	assert_true(f.p.sites == 0 && !strcmp(history_power_warm_why(&f), "few-warm"));
	assert_string_equal(t.buf, "no warm-up stretch: 320 of its 800 pexecs warm up (480 flat), too few to stretch");
	/* all flat */
	make(&s, &interp);
	for (size_t i = 0; i < s.n; i++)
		for (size_t j = 0; j < s.p[i].n; j++) {
			s.p[i].cls[j] = AN_FLAT;
			s.p[i].tts[j] = s.p[i].cost[j] = 0;
		}
	f = power_warm_of(&s, &t);
	assert_true(f.p.sites == 0 && !strcmp(history_power_warm_why(&f), "flat"));
	assert_string_equal(t.buf, "no warm-up stretch: its pexecs are flat, no warm-up to stretch");
	sb_release(&t);
}

/* ---- bisection on simulated commits ---- */

struct simvm {
	size_t culprit;        /* first slow commit (0: none) */
	double step, noise;    /* the slowdown; per-round sd of log(b/a) */
	double wild;           /* the share of rounds 50% off either way (a pexec in a slow mode) */
	double mid_noise;      /* > 0: the sd of rounds against a commit strictly inside the range */
	size_t n;              /* the commits (with mid_noise) */
	unsigned char *broken; /* commits that do not build */
	const char *const *bin; /* what each commit built (NULL: not known) */
	const unsigned char *dead; /* commits that build but whose every pexec fails: their rounds never pair */
	size_t builds, measured;
	size_t most_run;       /* the most rounds one comparison ran, paired or not */
};

static int sim_build(void *ctx, size_t i, struct kerr *e)
{
	struct simvm *v = ctx;
	(void)e;
	return v->broken && v->broken[i] ? 1 : 0;
}

static double sim_level(const struct simvm *v, size_t i)
{
	return v->culprit && i >= v->culprit ? log(v->step) : 0;
}

static int sim_measure(void *ctx, size_t a, size_t b, bisect_more_fn more, void *mctx, struct kerr *e)
{
	struct simvm *v = ctx;
	(void)e;
	static double d[10000]; /* kiln bisect's most rounds a comparison */
	size_t n = 0, k, run = 0;
	int dead = v->dead && (v->dead[a] || v->dead[b]);
	double sd = v->mid_noise > 0 && b > 0 && b + 1 < v->n ? v->mid_noise : v->noise;
	/* (a guard of the test's own: a test that asks for rounds without end stops at 100000) */
	while ((k = more(mctx, d, n, run)) > 0 && n + k <= 10000 && run + k <= 100000)
		for (size_t i = 0; i < k; i++, run++)
			if (!dead)
				d[n++] = sim_level(v, b) - sim_level(v, a) +
					 (v->wild > 0 && unif() < v->wild ? (unif() < 0.5 ? -0.5 : 0.5) : sd * gauss());
	v->measured += n;
	v->most_run = run > v->most_run ? run : v->most_run;
	return 0;
}

static const char *sim_binary(void *ctx, size_t i);

/* bisect commits 0..n-1 of the simulated VM v (its binaries told when it has them) with options o */
static void sim_bisect_with(struct simvm *v, size_t n, const struct bisect_opts *o, struct bisect_result *r)
{
	struct bisect_ops ops = { v, sim_build, sim_measure, v->bin ? sim_binary : NULL, NULL };
	struct kerr e = KERR_INIT;
	assert_int_equal(bisect_run(n, o, &ops, r, &e), 0);
}

/* the same with the defaults */
static void sim_bisect(struct simvm *v, size_t n, struct bisect_result *r)
{
	struct bisect_opts o;
	bisect_opts_default(&o);
	sim_bisect_with(v, n, &o, r);
}

static void test_bisect_finds(void **state)
{
	(void)state;
	test_seed = 2024;
	size_t right = 0, trials = 40, worst = 0;
	for (size_t t = 0; t < trials; t++) {
		struct simvm v = { .culprit = 1 + (size_t)(unif() * 198), .step = 1.02, .noise = 0.01 };
		struct bisect_result r;
		sim_bisect(&v, 200, &r);
		right += r.outcome == BISECT_FOUND && r.culprit == v.culprit;
		if (r.builds > worst)
			worst = r.builds;
		bisect_result_free(&r);
	}
	/* 200 commits: ceil(log2 199) + 2 = 10 builds at most */
	assert_true(worst <= 10);
	assert_true(right >= trials - 1);
}

static void test_bisect_aa_names_none(void **state)
{
	(void)state;
	test_seed = 5150;
	for (size_t t = 0; t < 60; t++) {
		struct simvm v = { .culprit = 0, .noise = 0.015 };
		struct bisect_result r;
		sim_bisect(&v, 64, &r);
		assert_int_not_equal(r.outcome, BISECT_FOUND);
		assert_int_equal(r.builds, 2);
		bisect_result_free(&r);
	}
}

/*
 * Rounds as the Lua corpus's mandelbrot gave them: 1% noise, but 15% of
 * rounds 50% off (a pexec that fell into the slow mode). The rounds' mean
 * moves by their share and its sd is ~20%: with it, bisect found 0 of 20
 * such culprits; Huber's centre finds them, and names none in A/A ranges
 */
static void test_bisect_wild_rounds(void **state)
{
	(void)state;
	test_seed = 77;
	size_t right = 0, trials = 30;
	for (size_t t = 0; t < trials; t++) {
		struct simvm v = { .culprit = 1 + (size_t)(unif() * 198), .step = 1.02, .noise = 0.01, .wild = 0.15 };
		struct bisect_result r;
		sim_bisect(&v, 200, &r);
		right += r.outcome == BISECT_FOUND && r.culprit == v.culprit;
		bisect_result_free(&r);
	}
	print_message("wild rounds: %zu of %zu culprits right\n", right, trials);
	assert_true(right >= trials - 2);
	for (size_t t = 0; t < 30; t++) {
		struct simvm v = { .culprit = 0, .noise = 0.01, .wild = 0.15 };
		struct bisect_result r;
		sim_bisect(&v, 64, &r);
		assert_int_not_equal(r.outcome, BISECT_FOUND);
		bisect_result_free(&r);
	}
}

/*
 * Rounds as the busy host gave them (docs/history-measured.md, "All 200 commits in rounds"):
 * a central spread of 4%, and a quarter of the rounds 20-50% off either
 * way, a whole pexec in the slow mode.  Huber's centre still counts each
 * at 1.5 sd, so its sd stays near 10% and 200 rounds cannot place a 2%
 * step; the biweight gives them no weight.
 */
static size_t busy_bisections(int huber_only, size_t trials, size_t *aa_named)
{
	size_t right = 0;
	*aa_named = 0;
	for (size_t t = 0; t < 2 * trials; t++) {
		int aa = t >= trials;
		struct simvm v = { .culprit = aa ? 0 : 1 + (size_t)(unif() * 198), .step = 1.02, .noise = 0.04,
				   .wild = 0.25 };
		struct bisect_opts o;
		bisect_opts_default(&o);
		if (huber_only)
			o.biweight_c = 0;
		struct bisect_result r;
		sim_bisect_with(&v, 200, &o, &r);
		if (aa)
			*aa_named += r.outcome == BISECT_FOUND;
		else
			right += r.outcome == BISECT_FOUND && r.culprit == v.culprit;
		bisect_result_free(&r);
	}
	return right;
}

static void test_bisect_busy_rounds(void **state)
{
	(void)state;
	size_t aa, haa;
	test_seed = 606;
	size_t bw = busy_bisections(0, 30, &aa);
	test_seed = 606;
	size_t hub = busy_bisections(1, 30, &haa);
	print_message("busy rounds: kiln's default %zu of 30 right, %zu A/A named; Huber's centre %zu, %zu\n", bw, aa,
		      hub, haa);
	/* measured: 23 and 0 (17 before the SPRT's variance floor); Huber's 2 and 0 */
	assert_true(bw >= 12);
	assert_int_equal(aa, 0);
}

/*
 * A midpoint whose processes spread wider than the ends' (a commit in the
 * range that made the key's layout luck matter, as hashmap's last Lua
 * commits did): its SPRT must not test it against the ends' pooled
 * variance alone, or it is judged on the wrong side and a wrong culprit
 * named.  Ends' rounds 1%, midpoints' 5%, a 2% step.
 */
static void test_bisect_noisy_midpoints(void **state)
{
	(void)state;
	test_seed = 77;
	size_t right = 0, wrong = 0, named = 0, trials = 60;
	for (size_t t = 0; t < trials; t++) {
		struct simvm v = { .culprit = 1 + (size_t)(unif() * 198), .step = 1.02, .noise = 0.01, .mid_noise = 0.05,
				   .n = 200 };
		struct bisect_result r;
		sim_bisect(&v, 200, &r);
		named += r.outcome == BISECT_FOUND;
		right += r.outcome == BISECT_FOUND && r.culprit == v.culprit;
		wrong += r.outcome == BISECT_FOUND && r.culprit != v.culprit;
		bisect_result_free(&r);
	}
	print_message("noisy midpoints: %zu named, %zu right, %zu wrong of %zu\n", named, right, wrong, trials);
	/* measured: 42 named, 40 right, 2 wrong; tested against the pooled variance alone, 46 named, 16 wrong */
	assert_true(wrong <= 4);
	assert_true(right >= 30);
}

/*
 * Undecided at its cap, the search says at which cap it would decide
 * (bisect_rounds_needed).  GOOD and BAD told apart over n commits with
 * rounds of sd noise, a step of size at commit n/2 (1: none), the cap cap:
 * how many of trials searches end with GOOD against BAD (or a midpoint,
 * mid) undecided, and the largest cap they named.
 */
struct undecided {
	size_t ends, mids, need_ends, need_mids;
};

static struct undecided cap_trials(double step, double noise, size_t cap, size_t trials)
{
	struct undecided u = { 0 };
	for (size_t t = 0; t < trials; t++) {
		struct simvm v = { .culprit = step != 1 ? 1 + (size_t)(unif() * 62) : 0, .step = step, .noise = noise };
		struct bisect_opts o;
		bisect_opts_default(&o);
		o.max_rounds = cap;
		o.auto_cap = 0;
		struct bisect_result r;
		sim_bisect_with(&v, 64, &o, &r);
		size_t *need = r.outcome == BISECT_UNSURE ? &u.need_ends : &u.need_mids;
		u.ends += r.outcome == BISECT_UNSURE;
		for (size_t i = 1; i < r.nsteps; i++)
			u.mids += r.steps[i].verdict == BV_UNSURE;
		if (r.rounds_needed > *need)
			*need = r.rounds_needed;
		bisect_result_free(&r);
	}
	return u;
}

static void test_bisect_rounds_needed(void **state)
{
	(void)state;
	test_seed = 4711;
	/* GOOD and BAD 1% apart (the smallest change asked for) or alike, rounds of 1% */
	struct undecided a = cap_trials(1.01, 0.01, 20, 100), b = cap_trials(1, 0.01, 20, 100);
	size_t need = a.need_ends > b.need_ends ? a.need_ends : b.need_ends;
	print_message("cap 20: %zu and %zu of 100 undecided, the largest cap named %zu\n", a.ends, b.ends, need);
	assert_true(a.ends >= 50 && b.ends >= 50);
	/* measured: 67 and 89 undecided, 105 named; at 105 none, at 35 21 and 28; midpoints 12, 30 named, then none */
	assert_true(need > 20 && need <= 1000);
	struct undecided a2 = cap_trials(1.01, 0.01, need, 100), b2 = cap_trials(1, 0.01, need, 100);
	print_message("at %zu: %zu and %zu undecided\n", need, a2.ends, b2.ends);
	assert_true(a2.ends + b2.ends <= 2);
	struct undecided a3 = cap_trials(1.01, 0.01, need / 3, 100), b3 = cap_trials(1, 0.01, need / 3, 100);
	print_message("at %zu: %zu and %zu undecided\n", need / 3, a3.ends, b3.ends);
	assert_true(a3.ends + b3.ends >= 5);
	/* a 5% step in rounds of 3%: midpoints undecided at 15 rounds, decided at the cap named */
	struct undecided m = cap_trials(1.05, 0.03, 15, 100);
	print_message("cap 15: %zu midpoints undecided, the largest cap named %zu\n", m.mids, m.need_mids);
	assert_true(m.mids >= 3 && m.need_mids > 15);
	struct undecided m2 = cap_trials(1.05, 0.03, m.need_mids, 100);
	print_message("at %zu: %zu midpoints undecided\n", m.need_mids, m2.mids);
	assert_true(m2.mids <= 1);
}

/*
 * --max-rounds auto (the default): rounds that vary by 6% and a 2% step.
 * At the old fixed cap of 200 GOOD against BAD stays undecided or a
 * midpoint does; auto takes the rounds the tests need (about 1700 for the
 * ends, 400 a midpoint) and names the culprit.  The same rounds never name
 * one in an A/A range, and the caps it set are reported.
 */
static size_t capped_calls, capped_last;

static void count_capped(void *ctx, size_t cap, double sd)
{
	(void)ctx;
	(void)sd;
	capped_calls++;
	capped_last = cap;
}

static void test_bisect_auto_cap(void **state)
{
	(void)state;
	size_t right[2] = { 0 }, aa_named = 0, trials = 10, most = 0;
	for (int autocap = 0; autocap < 2; autocap++) {
		test_seed = 606;
		for (size_t t = 0; t < trials + (autocap ? 4 : 0); t++) {
			int aa = t >= trials;
			struct simvm v = { .culprit = aa ? 0 : 1 + (size_t)(unif() * 62), .step = 1.02, .noise = 0.06 };
			struct bisect_opts o;
			bisect_opts_default(&o);
			if (!autocap) {
				o.max_rounds = 200;
				o.auto_cap = 0;
			}
			struct bisect_ops ops = { &v, sim_build, sim_measure, NULL, count_capped };
			struct bisect_result r;
			struct kerr e = KERR_INIT;
			capped_calls = 0;
			assert_int_equal(bisect_run(64, &o, &ops, &r, &e), 0);
			if (aa)
				aa_named += r.outcome == BISECT_FOUND;
			else
				right[autocap] += r.outcome == BISECT_FOUND && r.culprit == v.culprit;
			/* fixed, the cap is never raised; auto, GOOD against BAD's is */
			assert_true(autocap ? capped_calls >= 1 && capped_last > 200 : capped_calls == 0);
			assert_true(r.steps[0].cap == (autocap ? r.steps[0].cap : 200) && r.steps[0].rounds <= r.steps[0].cap);
			most = v.most_run > most ? v.most_run : most;
			bisect_result_free(&r);
		}
	}
	print_message("rounds of 6%%, 2%% steps: right %zu of %zu at --max-rounds 200, %zu auto (most rounds a "
		      "comparison %zu); A/A named %zu of 4\n", right[0], trials, right[1], most, aa_named);
	/* measured: 4 of 10 at 200, 10 of 10 auto */
	assert_true(right[0] <= 6);
	assert_true(right[1] >= trials - 1);
	assert_int_equal(aa_named, 0);
	assert_true(most <= 10000);
}

static void test_bisect_skips_broken(void **state)
{
	(void)state;
	test_seed = 8;
	unsigned char broken[50] = { 0 };
	broken[25] = broken[24] = 1; /* the first midpoints tried */
	struct simvm v = { .culprit = 30, .step = 1.05, .noise = 0.01, .broken = broken };
	struct bisect_result r;
	sim_bisect(&v, 50, &r);
	assert_int_equal(r.outcome, BISECT_FOUND);
	assert_int_equal(r.culprit, 30);
	assert_int_equal(r.steps[1].verdict, BV_BROKEN);
	bisect_result_free(&r);
	/* every commit around the culprit broken: the range, not a guess */
	unsigned char all[50] = { 0 };
	for (int i = 20; i < 40; i++)
		all[i] = 1;
	struct simvm w = { .culprit = 30, .step = 1.05, .noise = 0.01, .broken = all };
	sim_bisect(&w, 50, &r);
	assert_int_equal(r.outcome, BISECT_RANGE);
	assert_true(r.lo < 30 && r.hi >= 30 && r.lo <= 19 && r.hi >= 40);
	bisect_result_free(&r);
}

/*
 * A commit that builds but whose pexecs all fail (or find no steady state)
 * gives rounds without a pair: its comparison ends at --max-rounds rounds
 * run, undecided, instead of asking for a batch more forever
 */
static void test_bisect_dead_commit(void **state)
{
	(void)state;
	test_seed = 9;
	struct bisect_opts o;
	bisect_opts_default(&o);
	o.max_rounds = 60;
	o.auto_cap = 0;
	unsigned char dead[50] = { 0 };
	dead[24] = dead[25] = 1; /* the first midpoints tried */
	struct simvm v = { .culprit = 30, .step = 1.05, .noise = 0.01, .dead = dead };
	struct bisect_result r;
	sim_bisect_with(&v, 50, &o, &r);
	assert_true(v.most_run <= 60);
	assert_int_equal(r.outcome, BISECT_RANGE);
	assert_true(r.lo < 30 && r.hi >= 30);
	bisect_result_free(&r);
	/* BAD itself dead: GOOD against BAD cannot decide, no culprit */
	unsigned char bad[50] = { 0 };
	bad[49] = 1;
	struct simvm w = { .culprit = 30, .step = 1.05, .noise = 0.01, .dead = bad };
	sim_bisect_with(&w, 50, &o, &r);
	assert_true(w.most_run <= 60);
	assert_int_equal(r.outcome, BISECT_UNSURE);
	bisect_result_free(&r);
}

static const char *sim_binary(void *ctx, size_t i)
{
	struct simvm *v = ctx;
	return v->bin ? v->bin[i] : NULL;
}

/* a midpoint of a binary already judged takes its verdict, unmeasured; GOOD and BAD of one binary: no culprit */
static void test_bisect_binaries(void **state)
{
	(void)state;
	test_seed = 77;
	const char *bin[64];
	for (int i = 0; i < 64; i++)
		bin[i] = i < 10 ? "A" : i < 40 ? "B" : "C"; /* the step is at 40: 10..39 built what 10 did */
	/* the noise is such that rounds alone would mislead now and then; binaries do not */
	struct simvm v = { .culprit = 40, .step = 1.03, .noise = 0.01, .bin = bin };
	struct bisect_result r;
	sim_bisect(&v, 64, &r);
	assert_int_equal(r.outcome, BISECT_FOUND);
	assert_int_equal(r.culprit, 40);
	size_t inherited = 0;
	for (size_t i = 0; i < r.nsteps; i++)
		inherited += r.steps[i].same_as != SIZE_MAX && r.steps[i].rounds == 0;
	assert_true(inherited >= 1);
	bisect_result_free(&r);
	/* GOOD and BAD built the same binary: no round at all, no culprit */
	const char *same[8] = { "X", "X", "Y", "Y", "X", "X", "X", "X" };
	struct simvm w = { .culprit = 2, .step = 1.5, .noise = 0.01, .bin = same };
	sim_bisect(&w, 8, &r);
	assert_int_equal(r.outcome, BISECT_NO_CHANGE);
	assert_int_equal(w.measured, 0);
	bisect_result_free(&r);
}

/* the spread order is a permutation of every commit, ends first, then coarse to fine */
static void test_spread_order(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 300; n++) {
		size_t *idx = calloc(n, sizeof(size_t));
		unsigned char *seen = calloc(n, 1);
		track_measure_order(n, TRACK_SPREAD, idx);
		for (size_t i = 0; i < n; i++) {
			assert_true(idx[i] < n);
			assert_int_equal(seen[idx[i]], 0);
			seen[idx[i]] = 1;
		}
		if (n >= 3) {
			assert_int_equal(idx[0], 0);
			assert_int_equal(idx[1], n - 1);
			assert_int_equal(idx[2], (n - 1) / 2);
		}
		free(idx);
		free(seen);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_quiet),
		cmocka_unit_test(test_step_found),
		cmocka_unit_test(test_outlier_session),
		cmocka_unit_test(test_noisy_run),
		cmocka_unit_test(test_size_unlike_sides),
		cmocka_unit_test(test_small_split_merged),
		cmocka_unit_test(test_busy_slow_mode),
		cmocka_unit_test(test_busy_step),
		cmocka_unit_test(test_dispersion),
		cmocka_unit_test(test_same_binary_moves),
		cmocka_unit_test(test_warmup_and_class),
		cmocka_unit_test(test_warmup_cost),
		cmocka_unit_test(test_warmup_from_nothing),
		cmocka_unit_test(test_trimmed),
		cmocka_unit_test(test_spread_order),
		cmocka_unit_test(test_could_see),
		cmocka_unit_test(test_could_see_warmup),
		cmocka_unit_test(test_bisect_finds),
		cmocka_unit_test(test_bisect_aa_names_none),
		cmocka_unit_test(test_bisect_busy_rounds),
		cmocka_unit_test(test_bisect_wild_rounds),
		cmocka_unit_test(test_bisect_noisy_midpoints),
		cmocka_unit_test(test_bisect_rounds_needed),
		cmocka_unit_test(test_bisect_auto_cap),
		cmocka_unit_test(test_bisect_skips_broken),
		cmocka_unit_test(test_bisect_dead_commit),
		cmocka_unit_test(test_bisect_ends_skip_unbuilt),
		cmocka_unit_test(test_bisect_binaries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
