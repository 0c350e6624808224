/*
 * history-bisect.c - kiln bisect's search (history-bisect.h), the way git's
 * bisect.c keeps the search apart from the commands that drive it.
 *
 * 1. GOOD against BAD, rounds (history-ab.c), a sequential t-test: after each
 *    batch, "different" when the (1 - alpha/K) interval of the mean log
 *    ratio excludes 0, the estimate is at least half min_change and the
 *    interval's half-width at most half of it (or the cap is reached);
 *    "same" when it lies inside +-min_change; K is the number of looks the
 *    round cap allows (alpha spent evenly).  Same, or undecided at the cap:
 *    no culprit is named.
 *    Both tests take the rounds' centre and sd from Tukey's biweight
 *    (stats-robust.h; Huber's M-estimate below 20 rounds), not the mean: a
 *    round whose pexec fell into a slow mode, 4.685 sd or more off, has no
 *    weight (under Huber's, it moves the centre by 1.5 sd instead of its
 *    whole size).
 * 2. Each midpoint against GOOD, with a sequential probability ratio test
 *    of "like GOOD" (mean 0) against "like BAD" (mean delta, from step 1):
 *    log LR = n delta / s^2 * (m - delta / 2), m the rounds' centre, s^2
 *    pooled from every comparison so far but never below the midpoint's
 *    own rounds' variance, delta the centres of the
 *    commits found like BAD so far, weighted by their rounds; Wald's
 *    bounds for step_error both ways, tested from the first full batch
 *    on.  Undecided at the cap: the search stops with the range it has.
 * 3. A broken midpoint is skipped: the next untried commit nearest the
 *    middle of (lo, hi) is built instead; a range of broken commits only
 *    ends the search with that range.
 * 4. Undecided at the cap, the search says at which cap it would decide
 *    (bisect_rounds_needed), from the sd of the rounds it saw.
 * 5. Binaries decide before rounds do: a midpoint that built the binary of
 *    a commit already judged takes its verdict without a round (the
 *    machine's noise could otherwise judge one program twice, both ways),
 *    and GOOD and BAD of one binary have no culprit.
 * 6. The cap (auto_cap, kiln bisect's default since 2026-12-06): a fixed
 *    200 rounds left the keys whose processes land in modes undecided
 *    (nbody on the fifth Lua corpus: a round's ratio varies 8%, a 2% step
 *    needs ~3400 rounds).  Each comparison now takes as many rounds as its
 *    test needs at the spread its rounds show, up to max_rounds: GOOD
 *    against BAD in two stages of half alpha each (200 rounds, then what
 *    the first stage's spread needs), a midpoint's SPRT up to what it
 *    needs (Wald's bounds hold at any cap).  bench/history measures what
 *    that costs in rounds.
 */
#include "history-bisect.h"
#include "stats-robust.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Z99 2.5758293035489004

void bisect_opts_default(struct bisect_opts *o)
{
	o->min_change = 0.01;
	o->alpha = 0.001;
	o->step_error = 0.001;
	o->batch = 5;
	o->max_rounds = BISECT_MAX_ROUNDS;
	o->auto_cap = 1;
	o->huber_k = ROBUST_HUBER_K;
	o->biweight_c = ROBUST_BIWEIGHT_C;
}

/* the rounds' centre and the sd that makes sd / sqrt(n) its standard error */
static void centre(const struct bisect_opts *o, const double *d, size_t n, double *m, double *sd, double *df)
{
	if (o->biweight_c > 0 && n >= ROBUST_BIWEIGHT_MIN_N)
		robust_biweight(d, n, o->biweight_c, m, sd, df);
	else
		robust_huber(d, n, o->huber_k, m, sd, df);
}

const char *bisect_verdict_name(enum bisect_verdict v)
{
	static const char *const n[] = { "good", "bad", "broken", "unsure" };
	return (unsigned)v < 4 ? n[v] : "?";
}

/* ---- step 1: do GOOD and BAD differ? ---- */

struct diff_test {
	const struct bisect_opts *o;
	const struct bisect_ops *ops; /* ->capped */
	size_t cap;          /* the rounds it may take: the first stage's, then (auto_cap) the second's end */
	int verdict;         /* -1 undecided, 0 same, 1 different */
	size_t n, run;       /* rounds paired, and run (stored ones first), at the last look */
	double m, sd, lo, hi; /* the estimate, the rounds' sd and the interval at the last look */
};

/* more rounds, up to the cap on rounds run (a round without a pair counts: its pexec may fail every time) */
static size_t up_to_cap(size_t cap, size_t run, size_t want)
{
	return run >= cap ? 0 : run + want <= cap ? want : cap - run;
}

/* GOOD against BAD in two stages (auto_cap with room past the first): else one, at max_rounds */
static int staged(const struct bisect_opts *o)
{
	return o->auto_cap && o->max_rounds > BISECT_FIRST_ROUNDS;
}

/* a comparison's cap before its rounds are seen: the first stage's under auto_cap */
static size_t first_cap(const struct bisect_opts *o)
{
	return staged(o) ? BISECT_FIRST_ROUNDS : o->max_rounds;
}

/*
 * The quantile of a look's interval: alpha spent evenly over the looks the
 * cap allows.  Under auto_cap in two stages, half of alpha each: the
 * first's looks up to BISECT_FIRST_ROUNDS, the second's up to the cap its
 * end chose; so the second stage's cap may depend on the first's rounds
 * (their spread) without a look spending more than its share.
 */
static double diff_q(const struct diff_test *t, double df)
{
	const struct bisect_opts *o = t->o;
	double a = o->alpha;
	size_t looks = t->cap / o->batch;
	if (staged(o)) {
		a /= 2;
		looks = t->cap <= BISECT_FIRST_ROUNDS ? BISECT_FIRST_ROUNDS / o->batch
						      : (t->cap - BISECT_FIRST_ROUNDS) / o->batch;
	}
	return gsl_cdf_tdist_Pinv(1 - a / (2.0 * (double)(looks ? looks : 1)), df);
}

static double diff_needed(const struct bisect_opts *o, double alpha, double before, double sd);

/*
 * The first stage ended undecided (auto_cap): a second, as long as the
 * test needs to decide at the spread the first stage's rounds showed (at
 * least a quarter of the first, at most max_rounds in all).  0 when there
 * is no second stage.
 */
static int diff_extend(struct diff_test *t, double sd, size_t run)
{
	const struct bisect_opts *o = t->o;
	if (!staged(o) || t->cap != BISECT_FIRST_ROUNDS || !isfinite(sd))
		return 0;
	double more = fmax(diff_needed(o, o->alpha / 2, BISECT_FIRST_ROUNDS, sd), BISECT_FIRST_ROUNDS / 4);
	double cap = fmax((double)BISECT_FIRST_ROUNDS + more, (double)(run + o->batch));
	t->cap = cap < (double)o->max_rounds ? (size_t)cap : o->max_rounds;
	if (t->ops->capped)
		t->ops->capped(t->ops->ctx, t->cap, sd);
	return 1;
}

static size_t diff_more(void *ctx, const double *d, size_t n, size_t run)
{
	struct diff_test *t = ctx;
	const struct bisect_opts *o = t->o;
	t->n = n;
	t->run = run;
	if (n < o->batch)
		return up_to_cap(t->cap, run, o->batch - n);
	double m, sd, df;
	centre(o, d, n, &m, &sd, &df);
	double q = diff_q(t, df);
	double se = sd / sqrt((double)n);
	t->m = m;
	t->sd = sd;
	t->lo = m - q * se;
	t->hi = m + q * se;
	double floor = log1p(o->min_change);
	/*
	 * Different, and its size known to half of itself: the midpoints'
	 * test splits at half of it, so a size known worse than that (a few
	 * rounds on a noisy machine) would put that split on the wrong side
	 */
	if ((t->lo > 0 || t->hi < 0) && fabs(m) >= floor / 2 && (t->hi - t->lo) / 2 <= fabs(m) / 2)
		t->verdict = 1;
	else if (t->lo > -floor && t->hi < floor)
		t->verdict = 0;
	else if (run >= t->cap && !diff_extend(t, sd, run) && (t->lo > 0 || t->hi < 0) && fabs(m) >= floor / 2)
		t->verdict = 1; /* different, its size as known as the cap allows */
	return t->verdict >= 0 ? 0 : up_to_cap(t->cap, run, o->batch);
}

/*
 * The cap at which GOOD against BAD decides in 99% of comparisons, whether
 * they differ by nothing or by min_change: at the cap, "same" needs the
 * interval inside +-min_change and "different" one clear of 0 (with an
 * estimate of at least half of it).  With the interval's half-width h and
 * the estimate within z99 h / q of the truth (q the interval's quantile),
 * both hold once h (1 + z99 / q) <= min_change.
 */
static int diff_decides(const struct bisect_opts *o, double alpha, double looks, double sd, double n)
{
	double q = gsl_cdf_tdist_Pinv(1 - alpha / (2.0 * fmax(1, looks)), fmax(0.7 * (n - 1), 1));
	return (q + Z99) * sd / sqrt(n) <= log1p(o->min_change);
}

/*
 * The smallest such cap, in batches after `before` rounds (a stage's
 * looks are its own batches; its alpha, alpha): q falls with the rounds'
 * degrees of freedom and grows (slowly) with the looks, so the half-width
 * shrinks with n; doubling finds a cap that decides, halving the first.
 */
static double diff_needed(const struct bisect_opts *o, double alpha, double before, double sd)
{
	double b = (double)o->batch;
	size_t hi = 1;
	while (!diff_decides(o, alpha, (double)hi, sd, before + (double)hi * b))
		if ((hi *= 2) > ((size_t)1 << 40))
			return 1e12;
	size_t lo = hi / 2;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (diff_decides(o, alpha, (double)mid, sd, before + (double)mid * b))
			hi = mid;
		else
			lo = mid;
	}
	return (double)hi * b;
}

/*
 * The cap at which a midpoint's SPRT decides in 99% of searches: after n
 * rounds its log LR is about N(n mu, 2 n mu) on the commit's true side, mu
 * = delta^2 / (2 s^2), and has passed Wald's bound A with that chance once
 * n mu - z sqrt(2 n mu) >= A (z = 2.326, one-sided 99%): sqrt(n mu) is the
 * root of x^2 - z sqrt(2) x - A.  Crossing the wrong bound first is left out.
 */
static double sprt_needed(const struct bisect_opts *o, double sd, double delta)
{
	double A = log((1 - o->step_error) / o->step_error), z = 2.3263478740408408;
	double x = (z * sqrt(2.0) + sqrt(2 * z * z + 4 * A)) / 2;
	double b = (double)o->batch;
	return ceil(x * x * 2 * sd * sd / (delta * delta) / b) * b;
}

size_t bisect_rounds_needed(const struct bisect_opts *o, double sd, double delta)
{
	if (!(sd > 0))
		return 0; /* no spread seen (no rounds): nothing to say */
	double n = delta != 0 ? sprt_needed(o, sd, delta) : diff_needed(o, o->alpha, 0, sd);
	return n < 1e12 ? (size_t)n : SIZE_MAX;
}

/* ---- step 2: is a midpoint like GOOD or like BAD? ---- */

struct sprt {
	const struct bisect_opts *o;
	const struct bisect_ops *ops; /* ->capped */
	size_t cap;          /* the rounds it may take (auto_cap: grows to what the test needs, at the spread seen) */
	double delta;        /* BAD's mean log ratio over GOOD */
	double pool_ss;      /* squared deviations and their degrees of freedom from earlier comparisons */
	double pool_df;
	int verdict;         /* -1 undecided, 0 good, 1 bad */
	size_t n, run;       /* rounds paired, and run (stored ones first), at the last look */
	double m, sd;
	double s;            /* the pooled sd the last look tested with */
};

/*
 * Under auto_cap, the cap grows to the rounds the SPRT needs at the spread
 * it tests with (never shrinks, at most max_rounds).  Wald's bounds hold
 * at any cap: a cap only turns a long test into an undecided one.
 */
static void sprt_extend(struct sprt *t)
{
	const struct bisect_opts *o = t->o;
	if (!o->auto_cap || !(t->s > 0))
		return;
	double need = sprt_needed(o, t->s, t->delta);
	size_t cap = need < (double)o->max_rounds ? (size_t)need : o->max_rounds;
	if (cap <= t->cap)
		return;
	/* said when it first passes the first stage's, and when it grows by a quarter */
	int say = t->cap <= BISECT_FIRST_ROUNDS || cap >= t->cap + t->cap / 4;
	t->cap = cap;
	if (say && t->ops->capped)
		t->ops->capped(t->ops->ctx, t->cap, t->s);
}

static size_t sprt_more(void *ctx, const double *d, size_t n, size_t run)
{
	struct sprt *t = ctx;
	const struct bisect_opts *o = t->o;
	t->n = n;
	t->run = run;
	/* a batch before any verdict: two or three rounds can look decisive by chance when the variance is off */
	if (n < o->batch)
		return up_to_cap(t->cap, run, o->batch - n);
	double m, sd;
	centre(o, d, n, &m, &sd, NULL);
	t->m = m;
	t->sd = sd;
	double s2 = (t->pool_ss + sd * sd * (double)(n - 1)) / (t->pool_df + (double)(n - 1));
	/*
	 * Never less than the midpoint's own rounds show: the pool is mostly
	 * GOOD against BAD's, and a commit in between can spread its
	 * processes wider than either end (hashmap on the fifth Lua corpus:
	 * pexecs' sd 1.2-2.4% over 90 commits, 7.1% over the last 10), or
	 * its first few rounds can hold a slow mode the pool's biweight
	 * left out.  Tested against the pool alone, such a midpoint was
	 * judged on the wrong side often: in simulated bisections on that
	 * corpus (bench/history) 24 of 625 culprits named were wrong, 5 of
	 * 623 with this floor, for 5% more rounds.
	 */
	if (isfinite(sd) && sd * sd > s2)
		s2 = sd * sd;
	t->s = sqrt(s2);
	/* the normal log-likelihood ratio of BAD's level against GOOD's, n rounds at the robust centre m */
	double llr = (double)n * t->delta / s2 * (m - t->delta / 2);
	double A = log((1 - o->step_error) / o->step_error);
	if (llr >= A)
		t->verdict = 1;
	else if (llr <= -A)
		t->verdict = 0;
	else
		sprt_extend(t);
	return t->verdict >= 0 ? 0 : up_to_cap(t->cap, run, o->batch > 2 ? o->batch / 2 : 1);
}

/* ---- the search ---- */

static struct bisect_step *add_step(struct bisect_result *r, size_t commit)
{
	r->steps = xrealloc(r->steps, (r->nsteps + 1) * sizeof(*r->steps));
	struct bisect_step *s = &r->steps[r->nsteps++];
	memset(s, 0, sizeof(*s));
	s->commit = commit;
	s->same_as = SIZE_MAX;
	s->ratio = s->lo = s->hi = NAN;
	return s;
}

/* the verdict of a commit judged before whose binary i built, -1: none (0: GOOD's end, 1: BAD's) */
static int same_binary(const struct bisect_ops *ops, const struct bisect_result *r, size_t n, size_t i, size_t *from)
{
	const char *bi = ops->binary ? ops->binary(ops->ctx, i) : NULL;
	if (!bi)
		return -1;
	const char *bg = ops->binary(ops->ctx, 0), *bb = ops->binary(ops->ctx, n - 1);
	if (bg && !strcmp(bg, bi))
		return *from = 0, 0;
	if (bb && !strcmp(bb, bi))
		return *from = n - 1, 1;
	for (size_t k = 0; k < r->nsteps; k++) {
		const struct bisect_step *s = &r->steps[k];
		const char *bs = s->commit != i && (s->verdict == BV_GOOD || s->verdict == BV_BAD) ? ops->binary(ops->ctx, s->commit)
												       : NULL;
		if (bs && !strcmp(bs, bi))
			return *from = s->commit, s->verdict == BV_BAD;
	}
	return -1;
}

/* build commit i once: 0 built, 1 broken; counts builds */
static int build_once(const struct bisect_ops *ops, unsigned char *state, size_t i, struct bisect_result *r,
		      struct kerr *e)
{
	/* state: 0 untried, 1 built, 2 broken */
	if (state[i])
		return state[i] == 2;
	int b = ops->build(ops->ctx, i, e);
	if (b < 0)
		return -1;
	r->builds++;
	state[i] = b ? 2 : 1;
	return b;
}

/* the untried commit in (lo, hi) nearest its middle, n when none */
static size_t pick_mid(const unsigned char *state, size_t lo, size_t hi, size_t n)
{
	size_t mid = lo + (hi - lo) / 2;
	for (size_t off = 0; off < hi - lo; off++) {
		if (mid + off < hi && mid + off > lo && state[mid + off] != 2)
			return mid + off;
		if (off && mid >= off && mid - off > lo && state[mid - off] != 2)
			return mid - off;
	}
	return n;
}

/* what the comparisons so far say of the rounds: their pooled variance and BAD's level */
struct evidence {
	double pool_ss, pool_df; /* squared deviations and their degrees of freedom */
	double bad_sum, bad_n;   /* the rounds of commits found like BAD: their sum and count */
};

static void pool_add(struct evidence *ev, double sd, size_t n)
{
	if (n > 1 && isfinite(sd)) {
		ev->pool_ss += sd * sd * (double)(n - 1);
		ev->pool_df += (double)(n - 1);
	}
}

/* GOOD against BAD: the first step, its verdict the outcome so far; < 0 on an error */
static int compare_ends(size_t n, const struct bisect_opts *o, const struct bisect_ops *ops, struct bisect_result *r,
			struct evidence *ev, struct kerr *e)
{
	/* no estimate until a batch of rounds paired (every pexec of a side may fail): NAN, not a ratio of 1 */
	struct diff_test dt = { .o = o, .ops = ops, .cap = first_cap(o), .verdict = -1, .m = NAN, .sd = NAN,
				.lo = NAN, .hi = NAN };
	struct bisect_step *st = add_step(r, n - 1);
	if (ops->measure(ops->ctx, 0, n - 1, diff_more, &dt, e) < 0)
		return -1;
	r->rounds += dt.n;
	st->rounds = dt.n;
	st->cap = dt.cap > dt.run ? dt.cap : dt.run; /* stored rounds of an earlier bisect may pass the cap at one look */
	st->ratio = r->ratio = exp(dt.m);
	st->lo = r->ratio_lo = exp(dt.lo);
	st->hi = r->ratio_hi = exp(dt.hi);
	st->verdict = dt.verdict == 1 ? BV_BAD : dt.verdict == 0 ? BV_GOOD : BV_UNSURE;
	r->outcome = dt.verdict == 1 ? BISECT_FOUND : dt.verdict == 0 ? BISECT_NO_CHANGE : BISECT_UNSURE;
	if (dt.verdict < 0) {
		r->round_sd = dt.sd;
		r->rounds_needed = bisect_rounds_needed(o, dt.sd, 0);
	}
	if (dt.verdict == 1 && dt.n > 1) {
		/* the rounds' variance pooled over every comparison, from GOOD against BAD's on */
		pool_add(ev, dt.sd, dt.n);
		ev->bad_sum = dt.m * (double)dt.n;
		ev->bad_n = (double)dt.n;
	}
	return 0;
}

/* midpoint mid against GOOD, with the SPRT: moves r's ends, or ends the search with a range; < 0 on an error */
static int test_mid(size_t mid, const struct bisect_opts *o, const struct bisect_ops *ops, struct bisect_result *r,
		    struct bisect_step *st, struct evidence *ev, struct kerr *e)
{
	/* BAD's level: every round of a commit found like BAD so far */
	struct sprt sp = { .o = o, .ops = ops, .cap = first_cap(o), .delta = ev->bad_sum / ev->bad_n,
			   .pool_ss = ev->pool_ss, .pool_df = ev->pool_df, .verdict = -1, .m = NAN, .sd = NAN, .s = NAN };
	if (ops->measure(ops->ctx, 0, mid, sprt_more, &sp, e) < 0)
		return -1;
	r->rounds += sp.n;
	st->rounds = sp.n;
	st->cap = sp.cap > sp.run ? sp.cap : sp.run;
	st->ratio = exp(sp.m);
	double se = sp.sd / sqrt((double)(sp.n ? sp.n : 1));
	st->lo = exp(sp.m - Z99 * se);
	st->hi = exp(sp.m + Z99 * se);
	pool_add(ev, sp.sd, sp.n);
	if (sp.verdict == 1) {
		st->verdict = BV_BAD;
		r->hi = mid;
		ev->bad_sum += sp.m * (double)sp.n;
		ev->bad_n += (double)sp.n;
	} else if (sp.verdict == 0) {
		st->verdict = BV_GOOD;
		r->lo = mid;
	} else {
		st->verdict = BV_UNSURE;
		r->outcome = BISECT_RANGE;
		r->round_sd = sp.s;
		r->rounds_needed = bisect_rounds_needed(o, sp.s, sp.delta);
	}
	return 0;
}

/* the midpoints, halving [r->lo, r->hi] while the search has a culprit to find */
static int halve(size_t n, const struct bisect_opts *o, const struct bisect_ops *ops, unsigned char *state,
		 struct bisect_result *r, struct evidence *ev, struct kerr *e)
{
	size_t from;
	while (r->outcome == BISECT_FOUND && r->hi - r->lo > 1) {
		size_t mid = pick_mid(state, r->lo, r->hi, n);
		if (mid == n) {
			r->outcome = BISECT_RANGE; /* every commit between is broken */
			break;
		}
		int b = build_once(ops, state, mid, r, e);
		if (b < 0)
			return -1;
		struct bisect_step *st = add_step(r, mid);
		if (b == 1) {
			st->verdict = BV_BROKEN;
			continue;
		}
		int inherited = same_binary(ops, r, n, mid, &from);
		if (inherited >= 0) {
			/* a binary already judged: its verdict, without a round */
			st->verdict = inherited ? BV_BAD : BV_GOOD;
			st->same_as = from;
			if (inherited)
				r->hi = mid;
			else
				r->lo = mid;
			continue;
		}
		if (test_mid(mid, o, ops, r, st, ev, e) < 0)
			return -1;
	}
	return 0;
}

int bisect_run(size_t n, const struct bisect_opts *o, const struct bisect_ops *ops, struct bisect_result *r,
	       struct kerr *e)
{
	memset(r, 0, sizeof(*r));
	r->ratio = r->ratio_lo = r->ratio_hi = r->round_sd = NAN;
	if (n < 2)
		return kerr_setc(e, KEXIT_USAGE, "bisect needs two commits, GOOD before BAD"), KEXIT_USAGE;
	unsigned char *state = xcalloc(n, 1);
	int code = KEXIT_OK;
	r->lo = 0;
	r->hi = n - 1;
	/* GOOD and BAD must build: there is nothing to search otherwise */
	for (size_t end = 0; end < 2 && code == KEXIT_OK; end++) {
		size_t i = end ? n - 1 : 0;
		int b = build_once(ops, state, i, r, e);
		if (b)
			code = b < 0 ? (e->code ? e->code : KEXIT_FAIL)
				     : (kerr_setc(e, KEXIT_FAIL, "the %s commit does not build", end ? "BAD" : "GOOD"), KEXIT_FAIL);
	}
	size_t from;
	struct evidence ev = { 0 };
	if (code == KEXIT_OK && same_binary(ops, r, n, n - 1, &from) == 0) {
		/* GOOD and BAD built one binary: one program, no culprit, no round needed */
		struct bisect_step *st = add_step(r, n - 1);
		st->verdict = BV_GOOD;
		st->same_as = 0;
		r->outcome = BISECT_NO_CHANGE;
	} else if (code == KEXIT_OK && (compare_ends(n, o, ops, r, &ev, e) < 0 || halve(n, o, ops, state, r, &ev, e) < 0)) {
		code = e->code ? e->code : KEXIT_FAIL;
	}
	if (code == KEXIT_OK && r->outcome == BISECT_FOUND)
		r->culprit = r->hi;
	free(state);
	return code;
}

void bisect_result_free(struct bisect_result *r)
{
	free(r->steps);
	memset(r, 0, sizeof(*r));
}
