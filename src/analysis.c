/*
 * analysis.c - the statistics of DESIGN.md "Statistics", fast enough for a
 * Barrett-scale experiment (millions of iterations) in seconds.
 *
 * Parts, in the order they run:
 *   options        an_opts defaults, parsing of the shared command-line
 *                  options, and a hash of them for result caches;
 *   percentiles    linear interpolation at (n-1)p/100 (numpy's default);
 *   outliers       a sorted sliding window updated by one insert and one
 *                  delete per step, so each step costs O(w) memmove instead
 *                  of a sort;
 *   PELT           changepoints in mean and variance with the normal cost
 *                  from prefix sums.  With few changepoints PELT prunes
 *                  little and is quadratic, so the candidate loop is a
 *                  vector kernel: AVX2 computes every value exactly with
 *                  the same operations as the scalar code (no FMA, the same
 *                  fdlibm-style log, bit-identical results); AVX-512 screens
 *                  with a cheap log and computes exactly only the
 *                  candidates the screen cannot decide - the same results
 *                  again, checked by the tests;
 *   classification per pexec, then per key;
 *   bootstrap      GSL's mt19937 (seeded by --seed) seeds eight
 *                  xoshiro256++ lanes per pexec, which draw the resample
 *                  indices (AVX-512, AVX2 or scalar: the same numbers);
 *                  order statistics by selection, not sorting;
 *   drivers        an_analyse_key (one key, pure) and an_analyse_keys
 *                  (threads over pexecs, then over keys).  Caches of
 *                  results live above this file (analysis-cache.c) and
 *                  call an_analyse_keys for what they do not hold.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AN_HAVE_AVX2 1
#endif

#include "analysis.h"
#include "analysis-robust.h"

/* ---- options ---- */

void an_opts_default(struct an_opts *o)
{
	memset(o, 0, sizeof(*o));
	/*
	 * warmup_stats' front end: the outlier window is 10% and the steady
	 * window 25% of each pexec's iterations (200 and 500 for Barrett et al.'s
	 * 2000 iterations), so short pilot runs are judged on the same scale.
	 */
	o->window = 200;
	o->window_pct = 10;
	/* warmup_stats' 1 ms, but never more than 1% of a pexec's fastest segment (docs/analysis.md) */
	o->delta = 0.001;
	o->delta_pct = 1;
	o->steady = 500;
	o->steady_pct = 25;
	o->penalty = 15.0;
	o->resamples = 100000;
	o->seed = 1;
	o->confidence = 0.99;
	o->outlier_k = 3.0;
}

/* "200" or "10%": a count or a percentage */
static int parse_count_pct(const char *v, long *n, double *pct)
{
	size_t l = strlen(v);
	if (l > 1 && v[l - 1] == '%') {
		char *s = xstrndup(v, l - 1);
		double d;
		int r = parse_double(s, &d);
		free(s);
		if (r || !(d > 0) || d > 100)
			return -1;
		*pct = d;
		return 0;
	}
	long x;
	if (parse_long(v, &x) || x < 0)
		return -1;
	*n = x;
	*pct = 0;
	return 0;
}

int an_opts_parse(struct an_opts *o, int argc, char **argv, int *i, struct kerr *e)
{
	static const char *const names[] = { "--window", "--delta", "--steady", "--penalty", "--resamples",
					     "--seed", "--confidence", "--threads", "--replicate-warmup-stats", NULL };
	const char *a = argv[*i];
	const char *val = NULL;
	int which = -1;
	for (int k = 0; names[k]; k++) {
		size_t l = strlen(names[k]);
		if (!strncmp(a, names[k], l) && (a[l] == '\0' || a[l] == '=')) {
			which = k;
			if (a[l] == '=')
				val = a + l + 1;
			break;
		}
	}
	if (which < 0)
		return 0;
	if (which == 8) {
		if (val)
			return kerr_setc(e, KEXIT_USAGE, "%s takes no value", names[which]);
		o->replicate = 1;
		if (!o->delta_set) { /* warmup_stats' own default */
			o->delta = 0.001;
			o->delta_pct = 0;
		}
		return 1;
	}
	if (!val) {
		if (*i + 1 >= argc)
			return kerr_setc(e, KEXIT_USAGE, "%s needs a value", names[which]);
		val = argv[++*i];
	}
	double d;
	long l;
	switch (which) {
	case 0:
		if (parse_count_pct(val, &o->window, &o->window_pct))
			goto bad;
		/* a window of 0 or 1 iteration has no half: it would find no outliers at all */
		if (!o->window_pct && o->window < 2)
			return kerr_setc(e, KEXIT_USAGE, "--window: %s is too small: the outlier window needs at least "
					 "2 iterations (or a percentage, e.g. 10%%)", val);
		break;
	case 1: {
		size_t n = strlen(val);
		o->delta_set = 1;
		if (!strcmp(val, "auto")) {
			o->delta = 0.001;
			o->delta_pct = 1;
		} else if (n > 1 && val[n - 1] == '%') {
			char *s = xstrndup(val, n - 1);
			int r = parse_double(s, &d);
			free(s);
			if (r || !(d > 0))
				goto bad;
			o->delta = -1;
			o->delta_pct = d;
		} else {
			if (parse_double(val, &d) || !(d >= 0))
				goto bad;
			o->delta = d;
			o->delta_pct = 0;
		}
		break;
	}
	case 2:
		if (parse_count_pct(val, &o->steady, &o->steady_pct))
			goto bad;
		break;
	case 3:
		if (parse_double(val, &d) || !(d >= 0))
			goto bad;
		o->penalty = d;
		break;
	case 4:
		if (parse_long(val, &l) || l < 1)
			goto bad;
		o->resamples = l;
		break;
	case 5:
		if (parse_long(val, &l) || l < 0)
			goto bad;
		o->seed = (uint64_t)l;
		break;
	case 6:
		if (parse_double(val, &d) || !(d > 0 && d < 1))
			goto bad;
		o->confidence = d;
		break;
	case 7:
		if (parse_long(val, &l) || l < 0 || l > 1024)
			goto bad;
		o->threads = (int)l;
		break;
	}
	return 1;
bad:
	return kerr_setc(e, KEXIT_USAGE, "%s: bad value '%s'", names[which], val);
}

void an_opts_describe(const struct an_opts *o, struct strbuf *out)
{
	if (o->window_pct > 0)
		sb_addf(out, "window=%g%%", o->window_pct);
	else
		sb_addf(out, "window=%ld", o->window);
	if (o->delta_pct > 0 && o->delta >= 0)
		sb_addf(out, " delta=min(%gs,%g%%)", o->delta, o->delta_pct);
	else if (o->delta_pct > 0)
		sb_addf(out, " delta=%g%%", o->delta_pct);
	else
		sb_addf(out, " delta=%gs", o->delta);
	if (o->steady_pct > 0)
		sb_addf(out, " steady=%g%%", o->steady_pct);
	else
		sb_addf(out, " steady=%ld", o->steady);
	sb_addf(out, " penalty=%g*log(n) outlier=%g*(P90-P10) resamples=%ld seed=%llu confidence=%g",
		o->penalty, o->outlier_k, o->resamples, (unsigned long long)o->seed, o->confidence);
	if (o->replicate)
		sb_adds(out, " replicate=warmup_stats");
}

void an_opts_hash(const struct an_opts *o, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	/*
	 * Bump the "v" when the method changes so that caches are invalidated
	 * (v2: warmup_stats' walk, variance floor, steady iteration, bootstrap;
	 * auto delta; whole-process keys.  v3: the default's pauses,
	 * autocorrelation, equivalence within the noise, drift, short series,
	 * steady mean with pauses, integer steady iterations: issue 26).
	 */
	sb_addf(&sb, "kiln-analysis v%d %ld %.17g %.17g %.17g %ld %.17g %.17g %ld %llu %.17g %.17g %d", AN_METHOD_VERSION,
		o->window, o->window_pct, o->delta, o->delta_pct, o->steady, o->steady_pct, o->penalty, o->resamples,
		(unsigned long long)o->seed, o->confidence, o->outlier_k, o->replicate);
	hash_hex(sb.buf, sb.len, out);
	sb_release(&sb);
}

const char *an_class_name(enum an_class c)
{
	switch (c) {
	case AN_FLAT: return "flat";
	case AN_WARMUP: return "warmup";
	case AN_SLOWDOWN: return "slowdown";
	case AN_NO_STEADY: return "no steady state";
	case AN_GOOD_INCONSISTENT: return "good inconsistent";
	case AN_BAD_INCONSISTENT: return "bad inconsistent";
	case AN_NO_DATA: return "no data";
	}
	return "?";
}

void an_class_order(const struct an_key *k, int order[AN_NPCLASS])
{
	for (int i = 0; i < AN_NPCLASS; i++)
		order[i] = i;
	for (int i = 1; i < AN_NPCLASS; i++)
		for (int j = i; j > 0 && k->counts[order[j]] > k->counts[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

void an_class_text_as(const struct an_key *k, const char *const names[AN_NPCLASS], const char *sep, struct strbuf *out)
{
	if (k->whole) { /* one iteration per pexec: there is no warmup to classify */
		sb_adds(out, "whole process");
		return;
	}
	sb_adds(out, an_class_name(k->cls));
	if (k->cls != AN_GOOD_INCONSISTENT && k->cls != AN_BAD_INCONSISTENT)
		return;
	/* counts, most frequent first, as warmup_stats' tables do */
	int order[AN_NPCLASS];
	an_class_order(k, order);
	sb_adds(out, " (");
	for (int i = 0, first = 1; i < AN_NPCLASS; i++) {
		if (!k->counts[order[i]])
			continue;
		sb_addf(out, "%s%zu", first ? "" : sep, k->counts[order[i]]);
		if (names)
			sb_adds(out, names[order[i]]);
		else
			sb_addf(out, " %s", an_class_name(order[i]));
		first = 0;
	}
	sb_addc(out, ')');
}

void an_class_text(const struct an_key *k, struct strbuf *out)
{
	an_class_text_as(k, NULL, ", ", out);
}

int an_delta_warning(const struct an_key *k, struct strbuf *out)
{
	if (!(k->delta_ratio >= AN_DELTA_WARN))
		return 0;
	if (k->delta_ratio >= 1)
		sb_addf(out, "delta is %.3g times the steady mean", k->delta_ratio);
	else
		sb_addf(out, "delta is %.2g%% of the steady mean", k->delta_ratio * 100);
	sb_adds(out, ": changes smaller than that count as equivalent, so warmup may be hidden (see --delta)");
	return 1;
}

/* ---- percentiles ---- */

double an_percentile_sorted(const double *a, size_t n, double p)
{
	if (!n)
		return NAN;
	double pos = (double)(n - 1) * p / 100.0;
	size_t lo = (size_t)floor(pos);
	if (lo >= n - 1)
		return a[n - 1];
	double f = pos - (double)lo;
	return a[lo] + (a[lo + 1] - a[lo]) * f;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double an_percentile(const double *x, size_t n, double p)
{
	if (!n)
		return NAN;
	double *c = xmalloc(n * sizeof(double));
	memcpy(c, x, n * sizeof(double));
	qsort(c, n, sizeof(double), cmp_double);
	double r = an_percentile_sorted(c, n, p);
	free(c);
	return r;
}

/* ---- outliers ---- */

/* index of the first element >= v in sorted a[0..n) */
static size_t lower_bound(const double *a, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* outliers outside median +- k (P[phi] - P[plo]) of the sliding window (an_outliers: P90 - P10) */
static size_t outliers_band(const double *x, size_t n, long w, double k, double plo, double phi, size_t *out)
{
	size_t h = w > 1 ? (size_t)w / 2 : 0;
	if (h == 0 || n <= h)
		return 0;
	size_t cap = 2 * h;
	double *win = xmalloc(cap * sizeof(double));
	size_t wn = n < cap ? n : cap;
	memcpy(win, x, wn * sizeof(double));
	qsort(win, wn, sizeof(double), cmp_double);
	size_t nout = 0;
	for (size_t i = h; i < n; i++) {
		if (i > h) {
			/* window [i-h, i+h): x[i-1-h] leaves, x[i+h-1] enters */
			double gone = x[i - 1 - h];
			size_t at = lower_bound(win, wn, gone);
			memmove(win + at, win + at + 1, (wn - at - 1) * sizeof(double));
			wn--;
			if (i + h - 1 < n) {
				double v = x[i + h - 1];
				at = lower_bound(win, wn, v);
				memmove(win + at + 1, win + at, (wn - at) * sizeof(double));
				win[at] = v;
				wn++;
			}
		}
		double med = an_percentile_sorted(win, wn, 50);
		double band = k * (an_percentile_sorted(win, wn, phi) - an_percentile_sorted(win, wn, plo));
		if (x[i] > med + band || x[i] < med - band)
			out[nout++] = i;
	}
	free(win);
	return nout;
}

size_t an_outliers(const double *x, size_t n, long w, double k, size_t *out)
{
	return outliers_band(x, n, w, k, 10, 90, out);
}


/* ---- the cost and its logarithm ---- */

/*
 * R's changepoint floors a segment's variance at 1e-11 when it is <= 0, and
 * only then.  kiln does the same, with the variance computed so that a
 * segment whose values are all equal has variance exactly 0 (R's cumulative
 * sums give it rounding noise instead, and the log of that noise makes
 * changepoints out of nothing).
 */
#define AN_VAR_FLOOR 1e-11
#define AN_LOG2PI_1 2.8378770664093454836 /* log(2*pi) + 1 */

/* fdlibm's log polynomial (the classic minimax coefficients for log(1+f)) */
#define LG1 6.666666666666735130e-01
#define LG2 3.999999999940941908e-01
#define LG3 2.857142874366239149e-01
#define LG4 2.222219843214978396e-01
#define LG5 1.818357216161805012e-01
#define LG6 1.531383769920937332e-01
#define LG7 1.479819860511658591e-01
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10
#define SQRT2 1.41421356237309504880

/*
 * log(x) for positive normal x.  Written as plain mul/add/div (the build is
 * -std=c11, so no FMA contraction) so that the AVX2 kernel below, doing the
 * same operations lane by lane, gives the same bits: PELT and the
 * exhaustive search in the tests then agree exactly.
 */
static inline __attribute__((always_inline)) double log_core(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof(b));
	double kd = (double)((long)((b >> 52) & 0x7ff) - 1023);
	b = (b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	double m;
	memcpy(&m, &b, sizeof(m));
	if (m > SQRT2) {
		m = m * 0.5;
		kd = kd + 1.0;
	}
	double f = m - 1.0;
	double hfsq = 0.5 * f * f;
	double s = f / (2.0 + f);
	double z = s * s;
	double w = z * z;
	double t1 = w * (LG2 + w * (LG4 + w * LG6));
	double t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
	double R = t2 + t1;
	return kd * LN2_HI - ((hfsq - (s * (hfsq + R) + kd * LN2_LO)) - f);
}

double an_log(double x)
{
	return log_core(x);
}

/* 2 L log L: the part of L log(w / L^2) that depends on L alone (a table in PELT) */
static inline double two_llogl(size_t len)
{
	double L = (double)len;
	return 2.0 * L * an_log(L);
}

/*
 * The cost of a segment of len values with centred sums s1, s2:
 * len * (log 2pi + 1 + log var) with var = (s2 - s1^2/len)/len, floored
 * when it is not positive or the segment is constant.  Written without a
 * division as L (log 2pi + 1 + log w) - 2 L log L with w = L s2 - s1^2 =
 * L^2 var, floored at 1e-11 L^2.
 */
double an_seg_cost(double s1, double s2, size_t len, int constant)
{
	double L = (double)len;
	double w = L * s2 - s1 * s1;
	if (constant || !(w > 0))
		w = L * L * AN_VAR_FLOOR;
	return L * (AN_LOG2PI_1 + an_log(w)) - two_llogl(len);
}

/* what the candidate loop found: min (first argmin) and max of the values */
struct cand_out {
	double min, max;
	size_t argmin;
};

/*
 * The PELT inner loop: out[i] = F(tau_i) + cost(tau_i, t) + pen for every
 * candidate, with the candidates' tau, F and prefix sums in parallel arrays.
 * What is the same for every candidate at time t is in struct cand_at:
 * S1t, S2t the prefix sums at t, rs where the run of equal values ending at
 * x[t-1] starts (the segment [tau, t) is constant when tau >= rs), the
 * penalty and T[L] = 2 L log L.
 */
struct cand_at {
	int32_t t, rs;
	double S1t, S2t, pen;
	const double *T;
	const struct sums *sm;
	double a1, k1;          /* the screen's constants at t (see w_unsafe) */
};

/*
 * The prefix sums of d = x - mean and of d^2 (exact squares), accumulated
 * in double-double: S = h + l.  The fast path takes w = L m2 - m1^2 from
 * the h parts alone; each h is within AN_U |h| (+ eps1 or eps2, the
 * double-double sums' own error) of its exact sum, and w_unsafe() turns
 * that into a bound of w's error.  Where the bound is not below w /
 * AN_SAFE - a short or very quiet segment far from the series' mean, whose
 * w is a small difference of large sums - w is computed again with the l
 * parts (refined_w), to some 1e-16 of the sums.  So the variance used is
 * always within 1e-8 of its true value, the floor applies to exactly the
 * segments whose true variance is 0, and no rounding noise becomes a
 * changepoint (R's sums are neither centred nor checked).
 */
struct sums {
	double *h1, *l1, *h2, *l2;
	double eps1, eps2;
};
#define AN_U 1.1102230246251565e-16 /* 2^-53 */
#define AN_SAFE 1e8

static inline void two_sum(double a, double b, double *s, double *e)
{
	*s = a + b;
	double bb = *s - a;
	*e = (a - (*s - bb)) + (b - bb);
}

/* a * b = *p + *e exactly (Dekker's split: no FMA needed) */
static inline void two_prod(double a, double b, double *p, double *e)
{
	double ca = 134217729.0 * a, cb = 134217729.0 * b;
	double ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
	*p = a * b;
	*e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* (h, l) += (bh, bl), renormalised */
static inline void dd_add(double *h, double *l, double bh, double bl)
{
	double s, e;
	two_sum(*h, bh, &s, &e);
	e += *l + bl;
	*h = s + e;
	*l = e - (*h - s);
}

/* L m2 - m1^2 for [tau, t) from the double-double sums */
static __attribute__((noinline)) double refined_w(const struct sums *sm, int32_t tau, int32_t t)
{
	double m1h = sm->h1[t], m1l = sm->l1[t], m2h = sm->h2[t], m2l = sm->l2[t];
	dd_add(&m1h, &m1l, -sm->h1[tau], -sm->l1[tau]);
	dd_add(&m2h, &m2l, -sm->h2[tau], -sm->l2[tau]);
	double L = (double)(t - tau), ph, pl, qh, ql;
	two_prod(L, m2h, &ph, &pl);
	pl += L * m2l;
	two_prod(m1h, m1h, &qh, &ql);
	ql += 2.0 * m1h * m1l;
	dd_add(&ph, &pl, -qh, -ql);
	return ph + pl;
}

/*
 * Whether the fast w of [tau, t) might be off by more than w / AN_SAFE.
 * With A = |S1(t)| + |S1(tau)| + eps1 >= |m1| and S2(tau) <= S2(t): m2's
 * error is at most 3u (S2(t) + eps2), L m2's rounding u L S2(t), m1's
 * error 2u A, so m1^2's 2|m1| 2u A + 4u^2 A^2 + u |m1| A, and the last
 * subtraction's u (L S2(t) + |m1| A): in all u (5 L S2' + 6 |m1| A) +
 * 4 u^2 A^2, doubled here for the roundings of the bound itself.  The
 * per-t parts are cand_at's a1 = |S1(t)| + eps1 and k1 = AN_SAFE 10 u
 * (S2(t) + eps2); the same operations in every path.
 */
#define AN_K2 (AN_SAFE * 12 * AN_U)
#define AN_K3 (AN_SAFE * 8 * AN_U * AN_U)
static inline __attribute__((always_inline)) int w_unsafe(double w, double L, double m1, double c1,
							  const struct cand_at *a)
{
	double A = a->a1 + fabs(c1);
	double B = L * a->k1 + (fabs(m1) * A) * AN_K2 + (A * A) * AN_K3;
	return !(w > B);
}

static inline void cand_at_screen(struct cand_at *a)
{
	a->a1 = fabs(a->S1t) + a->sm->eps1;
	a->k1 = AN_SAFE * 10 * AN_U * (a->S2t + a->sm->eps2);
}

/* one candidate's value, exactly as every path computes it */
static inline __attribute__((always_inline)) double cand_value(int32_t tau, double F, double c1, double c2,
								const struct cand_at *a)
{
	int32_t li = a->t - tau;
	double L = (double)li;
	double m1 = a->S1t - c1;
	double m2 = a->S2t - c2;
	double w = L * m2 - m1 * m1;
	if (tau >= a->rs)
		w = L * L * AN_VAR_FLOOR;
	else {
		if (w_unsafe(w, L, m1, c1, a))
			w = refined_w(a->sm, tau, a->t);
		if (!(w > 0))
			w = L * L * AN_VAR_FLOOR;
	}
	double cost = L * (AN_LOG2PI_1 + log_core(w)) - a->T[li];
	return F + cost + a->pen;
}

static void cand_scalar(size_t k, const int32_t *tau, const double *F, const double *c1, const double *c2,
			const struct cand_at *a, double *out, struct cand_out *co)
{
	for (size_t i = 0; i < k; i++) {
		double v = cand_value(tau[i], F[i], c1[i], c2[i], a);
		out[i] = v;
		if (v < co->min) {
			co->min = v;
			co->argmin = i;
		}
		if (v > co->max)
			co->max = v;
	}
}

#ifdef AN_HAVE_AVX2
__attribute__((target("avx2"))) static void cand_avx2(size_t k, const int32_t *tau, const double *F,
						       const double *c1, const double *c2, const struct cand_at *a,
						       double *out, struct cand_out *co)
{
	const int32_t t = a->t;
	const double *T = a->T;
	/* T[t - tau] picked by plain loads: gathers are slow on CPUs with the GDS fix */
	double *Tv = out;
	for (size_t q = 0; q < k; q++)
		Tv[q] = T[t - tau[q]];
	const __m128i vt = _mm_set1_epi32(t), vrs1 = _mm_set1_epi32(a->rs - 1);
	const __m256d vs1 = _mm256_set1_pd(a->S1t), vs2 = _mm256_set1_pd(a->S2t), zero = _mm256_setzero_pd();
	const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0), half = _mm256_set1_pd(0.5);
	const __m256d floor_ = _mm256_set1_pd(AN_VAR_FLOOR), c = _mm256_set1_pd(AN_LOG2PI_1);
	const __m256d vpen = _mm256_set1_pd(a->pen), sqrt2 = _mm256_set1_pd(SQRT2);
	const __m256d va1 = _mm256_set1_pd(a->a1), vk1 = _mm256_set1_pd(a->k1);
	const __m256d vk2 = _mm256_set1_pd(AN_K2), vk3 = _mm256_set1_pd(AN_K3), sign = _mm256_set1_pd(-0.0);
	const __m256i mant = _mm256_set1_epi64x(0x000fffffffffffffLL);
	const __m256i onebits = _mm256_set1_epi64x(0x3ff0000000000000LL);
	const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
	const __m256d magic_bias = _mm256_set1_pd(4503599627370496.0 + 1023.0); /* 2^52 + 1023 */
	__m256d vmin = _mm256_set1_pd(INFINITY), vmax = _mm256_set1_pd(-INFINITY);
	__m256d vidx = _mm256_setr_pd(0, 1, 2, 3), vbest = _mm256_setzero_pd(), four = _mm256_set1_pd(4);
	size_t i = 0;
	for (; i + 4 <= k; i += 4) {
		__m128i vtau = _mm_loadu_si128((const __m128i *)(tau + i));
		__m128i li = _mm_sub_epi32(vt, vtau);
		__m256d L = _mm256_cvtepi32_pd(li);
		__m256d vc1 = _mm256_loadu_pd(c1 + i);
		__m256d m1 = _mm256_sub_pd(vs1, vc1);
		__m256d m2 = _mm256_sub_pd(vs2, _mm256_loadu_pd(c2 + i));
		__m256d w = _mm256_sub_pd(_mm256_mul_pd(L, m2), _mm256_mul_pd(m1, m1));
		__m256d fl = _mm256_mul_pd(_mm256_mul_pd(L, L), floor_);
		/* w_unsafe(), and the lanes it does not clear (not constant): cand_value redoes them */
		__m256d A = _mm256_add_pd(va1, _mm256_andnot_pd(sign, vc1));
		__m256d bound = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(L, vk1),
					_mm256_mul_pd(_mm256_mul_pd(_mm256_andnot_pd(sign, m1), A), vk2)),
					_mm256_mul_pd(_mm256_mul_pd(A, A), vk3));
		/* w > 0 and not constant (tau < rs) ? w : fl, NaN giving fl as in the scalar */
		__m256d cst = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(vtau, vrs1)));
		int unsafe = _mm256_movemask_pd(_mm256_andnot_pd(cst, _mm256_cmp_pd(w, bound, _CMP_NGT_UQ)));
		w = _mm256_blendv_pd(fl, w, _mm256_andnot_pd(cst, _mm256_cmp_pd(w, zero, _CMP_GT_OQ)));
		/* an_log, lane by lane */
		__m256i b = _mm256_castpd_si256(w);
		__m256i ex = _mm256_srli_epi64(b, 52);
		__m256d kd = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(ex, magic)), magic_bias);
		__m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(b, mant), onebits));
		__m256d big = _mm256_cmp_pd(m, sqrt2, _CMP_GT_OQ);
		m = _mm256_blendv_pd(m, _mm256_mul_pd(m, half), big);
		kd = _mm256_blendv_pd(kd, _mm256_add_pd(kd, one), big);
		__m256d f = _mm256_sub_pd(m, one);
		__m256d hfsq = _mm256_mul_pd(_mm256_mul_pd(half, f), f);
		__m256d s = _mm256_div_pd(f, _mm256_add_pd(two, f));
		__m256d z = _mm256_mul_pd(s, s);
		__m256d w2 = _mm256_mul_pd(z, z);
		__m256d t1 = _mm256_mul_pd(w2, _mm256_add_pd(_mm256_set1_pd(LG2),
			_mm256_mul_pd(w2, _mm256_add_pd(_mm256_set1_pd(LG4), _mm256_mul_pd(w2, _mm256_set1_pd(LG6))))));
		__m256d t2 = _mm256_mul_pd(z, _mm256_add_pd(_mm256_set1_pd(LG1),
			_mm256_mul_pd(w2, _mm256_add_pd(_mm256_set1_pd(LG3),
			_mm256_mul_pd(w2, _mm256_add_pd(_mm256_set1_pd(LG5), _mm256_mul_pd(w2, _mm256_set1_pd(LG7))))))));
		__m256d R = _mm256_add_pd(t2, t1);
		__m256d inner = _mm256_add_pd(_mm256_mul_pd(s, _mm256_add_pd(hfsq, R)),
					      _mm256_mul_pd(kd, _mm256_set1_pd(LN2_LO)));
		__m256d lg = _mm256_sub_pd(_mm256_mul_pd(kd, _mm256_set1_pd(LN2_HI)),
					   _mm256_sub_pd(_mm256_sub_pd(hfsq, inner), f));
		__m256d cost = _mm256_sub_pd(_mm256_mul_pd(L, _mm256_add_pd(c, lg)), _mm256_loadu_pd(Tv + i));
		__m256d v = _mm256_add_pd(_mm256_add_pd(_mm256_loadu_pd(F + i), cost), vpen);
		_mm256_storeu_pd(out + i, v);
		if (unsafe) {
			for (int l = 0; l < 4; l++)
				if (unsafe & (1 << l))
					out[i + l] = cand_value(tau[i + l], F[i + l], c1[i + l], c2[i + l], a);
			v = _mm256_loadu_pd(out + i);
		}
		/* per lane: the first minimum (strictly less replaces) and the maximum */
		__m256d lt = _mm256_cmp_pd(v, vmin, _CMP_LT_OQ);
		vmin = _mm256_blendv_pd(vmin, v, lt);
		vbest = _mm256_blendv_pd(vbest, vidx, lt);
		vmax = _mm256_max_pd(vmax, v);
		vidx = _mm256_add_pd(vidx, four);
	}
	if (i) {
		double mn[4], bi[4], mx[4];
		_mm256_storeu_pd(mn, vmin);
		_mm256_storeu_pd(bi, vbest);
		_mm256_storeu_pd(mx, vmax);
		for (int l = 0; l < 4; l++) {
			if (mn[l] < co->min || (mn[l] == co->min && (size_t)bi[l] < co->argmin)) {
				co->min = mn[l];
				co->argmin = (size_t)bi[l];
			}
			if (mx[l] > co->max)
				co->max = mx[l];
		}
	}
	for (; i < k; i++) { /* the tail, after the vector lanes: later indices, so strictly less */
		double v = cand_value(tau[i], F[i], c1[i], c2[i], a);
		out[i] = v;
		if (v < co->min) {
			co->min = v;
			co->argmin = i;
		}
		if (v > co->max)
			co->max = v;
	}
}
/*
 * The AVX-512 kernel screens instead of computing every value exactly.  A
 * cheap logarithm (getexp/getmant and a degree-6 polynomial, error below
 * 1.7e-6, bounded here by AN_SCR_EPS) gives each candidate's value to within
 * E = L * AN_SCR_EPS + AN_SCR_ABS.  Only the candidates that could be the
 * minimum (approx - E <= the smallest approx + E) and those whose pruning
 * cannot be decided from the approximation (|approx - threshold| < E) are
 * computed exactly, with cand_value; with few changepoints that is a
 * handful of the thousands of candidates.  F(t), the argmin and every
 * pruning decision are therefore exactly those of the other paths.
 */
#define AN_SCR_EPS 1e-5
#define AN_SCR_ABS 1e-6
/* log(1 + x) on [-0.25, 0.5): Chebyshev-node interpolation, max error 1.7e-6 */
#define SP0 -9.147988727492851e-07
#define SP1 0.9999818425874724
#define SP2 -0.4997954587783354
#define SP3 0.3341795501342141
#define SP4 -0.2576759145635993
#define SP5 0.2000127217856634
#define SP6 -0.09568351848194218

double an_log_approx(double w)
{
	int e;
	double m = frexp(w, &e) * 2.0; /* [1, 2) */
	double k = (double)(e - 1);
	if (m >= 1.5) {
		m *= 0.5;
		k += 1.0;
	}
	double x = m - 1.0;
	double p = ((((((SP6 * x + SP5) * x + SP4) * x + SP3) * x + SP2) * x + SP1) * x + SP0);
	return k * 0.69314718055994530942 + p;
}

__attribute__((target("avx512f"))) static void cand_avx512(size_t k, const int32_t *tau, const double *F,
							   const double *c1, const double *c2, const struct cand_at *a,
							   double *out, struct cand_out *co)
{
	const double pen = a->pen, *T = a->T;
	const __m256i vt = _mm256_set1_epi32(a->t);
	const __m512i vrs1 = _mm512_set1_epi32(a->rs - 1);
	const __m512d vs1 = _mm512_set1_pd(a->S1t), vs2 = _mm512_set1_pd(a->S2t), one = _mm512_set1_pd(1.0);
	const __m512d zero = _mm512_setzero_pd();
	const __m512d va1 = _mm512_set1_pd(a->a1), vk1 = _mm512_set1_pd(a->k1);
	const __m512d vk2 = _mm512_set1_pd(AN_K2), vk3 = _mm512_set1_pd(AN_K3);
	const __m512d floor_ = _mm512_set1_pd(AN_VAR_FLOOR), c = _mm512_set1_pd(AN_LOG2PI_1);
	const __m512d vpen = _mm512_set1_pd(pen), ln2 = _mm512_set1_pd(0.69314718055994530942);
	const __m512d eps = _mm512_set1_pd(AN_SCR_EPS), eabs = _mm512_set1_pd(AN_SCR_ABS);
	__m512d vU = _mm512_set1_pd(INFINITY), vUmax = _mm512_set1_pd(-INFINITY);
	size_t kv = k & ~(size_t)7, i;
	/* pass 1: approximate values, and the smallest and largest upper bounds */
	for (i = 0; i < kv; i += 8) {
		__m256i vtau = _mm256_loadu_si256((const __m256i *)(tau + i));
		__m256i li = _mm256_sub_epi32(vt, vtau);
		__m512d L = _mm512_cvtepi32_pd(li);
		__m512d vc1 = _mm512_loadu_pd(c1 + i);
		__m512d m1 = _mm512_sub_pd(vs1, vc1);
		__m512d m2 = _mm512_sub_pd(vs2, _mm512_loadu_pd(c2 + i));
		__m512d w = _mm512_sub_pd(_mm512_mul_pd(L, m2), _mm512_mul_pd(m1, m1));
		__m512d fl = _mm512_mul_pd(_mm512_mul_pd(L, L), floor_);
		__mmask8 cst = (__mmask8)_mm512_cmpgt_epi32_mask(_mm512_castsi256_si512(vtau), vrs1);
		/* w_unsafe(): the lanes it does not clear get cand_value's exact value below */
		__m512d A = _mm512_add_pd(va1, _mm512_abs_pd(vc1));
		__m512d bound = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(L, vk1),
					_mm512_mul_pd(_mm512_mul_pd(_mm512_abs_pd(m1), A), vk2)),
					_mm512_mul_pd(_mm512_mul_pd(A, A), vk3));
		__mmask8 unsafe = _mm512_cmp_pd_mask(w, bound, _CMP_NGT_UQ) & (__mmask8)~cst;
		w = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(w, zero, _CMP_GT_OQ) & (__mmask8)~cst, fl, w);
		__m512d ex = _mm512_getexp_pd(w);
		__m512d m = _mm512_getmant_pd(w, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_src);
		ex = _mm512_mask_add_pd(ex, _mm512_cmp_pd_mask(m, one, _CMP_LT_OQ), ex, one);
		__m512d x = _mm512_sub_pd(m, one);
		__m512d p = _mm512_fmadd_pd(_mm512_set1_pd(SP6), x, _mm512_set1_pd(SP5));
		p = _mm512_fmadd_pd(p, x, _mm512_set1_pd(SP4));
		p = _mm512_fmadd_pd(p, x, _mm512_set1_pd(SP3));
		p = _mm512_fmadd_pd(p, x, _mm512_set1_pd(SP2));
		p = _mm512_fmadd_pd(p, x, _mm512_set1_pd(SP1));
		p = _mm512_fmadd_pd(p, x, _mm512_set1_pd(SP0));
		__m512d lg = _mm512_fmadd_pd(ex, ln2, p);
		__m512d cost = _mm512_fmsub_pd(L, _mm512_add_pd(c, lg), _mm512_i32gather_pd(li, T, 8));
		__m512d av = _mm512_add_pd(_mm512_add_pd(_mm512_loadu_pd(F + i), cost), vpen);
		_mm512_storeu_pd(out + i, av);
		if (unsafe) {
			for (int l = 0; l < 8; l++)
				if (unsafe & (1u << l))
					out[i + l] = cand_value(tau[i + l], F[i + l], c1[i + l], c2[i + l], a);
			av = _mm512_loadu_pd(out + i);
		}
		__m512d up = _mm512_add_pd(av, _mm512_fmadd_pd(L, eps, eabs));
		vU = _mm512_min_pd(vU, up);
		vUmax = _mm512_max_pd(vUmax, up);
	}
	double U = _mm512_reduce_min_pd(vU), Umax = _mm512_reduce_max_pd(vUmax);
	for (i = kv; i < k; i++) {
		out[i] = cand_value(tau[i], F[i], c1[i], c2[i], a);
		if (out[i] < U)
			U = out[i];
		if (out[i] > Umax)
			Umax = out[i];
	}
	/* pass 2: the exact minimum among those that could be it (ascending: the first on ties) */
	double best = INFINITY;
	size_t bi = 0;
	for (i = 0; i < kv; i += 8) {
		__m256i li = _mm256_sub_epi32(vt, _mm256_loadu_si256((const __m256i *)(tau + i)));
		__m512d E = _mm512_fmadd_pd(_mm512_cvtepi32_pd(li), eps, eabs);
		__mmask8 mk = _mm512_cmp_pd_mask(_mm512_sub_pd(_mm512_loadu_pd(out + i), E), _mm512_set1_pd(U), _CMP_LE_OQ);
		while (mk) {
			int l = __builtin_ctz(mk);
			mk &= (__mmask8)(mk - 1);
			size_t q = i + (size_t)l;
			double v = cand_value(tau[q], F[q], c1[q], c2[q], a);
			out[q] = v;
			if (v < best) {
				best = v;
				bi = q;
			}
		}
	}
	for (i = kv; i < k; i++)
		if (out[i] < best) {
			best = out[i];
			bi = i;
		}
	co->min = best;
	co->argmin = bi;
	/* pass 3: settle the pruning decisions the approximation cannot */
	double thr = best + pen;
	if (Umax <= thr) {
		co->max = thr; /* everything is kept */
		return;
	}
	const __m512d vthr = _mm512_set1_pd(thr);
	__m512d vmax = _mm512_set1_pd(-INFINITY);
	for (i = 0; i < kv; i += 8) {
		__m256i li = _mm256_sub_epi32(vt, _mm256_loadu_si256((const __m256i *)(tau + i)));
		__m512d E = _mm512_fmadd_pd(_mm512_cvtepi32_pd(li), eps, eabs);
		__m512d av = _mm512_loadu_pd(out + i);
		__mmask8 mk = _mm512_cmp_pd_mask(_mm512_add_pd(av, E), vthr, _CMP_GT_OQ) &
			      _mm512_cmp_pd_mask(_mm512_sub_pd(av, E), vthr, _CMP_LE_OQ);
		while (mk) {
			int l = __builtin_ctz(mk);
			mk &= (__mmask8)(mk - 1);
			size_t q = i + (size_t)l;
			out[q] = cand_value(tau[q], F[q], c1[q], c2[q], a);
		}
		vmax = _mm512_max_pd(vmax, _mm512_loadu_pd(out + i));
	}
	/* above thr: something to prune (the caller compacts with out[i] <= thr) */
	co->max = _mm512_reduce_max_pd(vmax);
	for (i = kv; i < k; i++)
		if (out[i] > co->max)
			co->max = out[i];
}
#endif

typedef void (*cand_fn)(size_t, const int32_t *, const double *, const double *, const double *,
			const struct cand_at *, double *, struct cand_out *);

/*
 * The widest vector unit to use: 2 AVX-512, 1 AVX2, 0 scalar.
 * KILN_NO_SIMD=512 stops at AVX2, any other value at scalar (tests compare them).
 */
static __attribute__((unused)) int simd_level(void)
{
#ifdef AN_HAVE_AVX2
	const char *no = getenv("KILN_NO_SIMD");
	if (!no && __builtin_cpu_supports("avx512f"))
		return 2;
	if ((!no || !strcmp(no, "512")) && __builtin_cpu_supports("avx2"))
		return 1;
#endif
	return 0;
}

static cand_fn pick_kernel(void)
{
#ifdef AN_HAVE_AVX2
	switch (simd_level()) {
	case 2: return cand_avx512;
	case 1: return cand_avx2;
	}
#endif
	return cand_scalar;
}

/* the double-double prefix sums of x - mean and its squares (struct sums) */
static void sums_make(const double *x, size_t n, struct sums *sm)
{
	double mu = 0;
	for (size_t i = 0; i < n; i++)
		mu += x[i];
	mu /= (double)(n ? n : 1);
	double *a = xmalloc(4 * (n + 1) * sizeof(double));
	sm->h1 = a;
	sm->l1 = a + (n + 1);
	sm->h2 = a + 2 * (n + 1);
	sm->l2 = a + 3 * (n + 1);
	sm->h1[0] = sm->l1[0] = sm->h2[0] = sm->l2[0] = 0;
	double sabs = 0;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mu, qh, ql;
		sabs += fabs(d);
		sm->h1[i + 1] = sm->h1[i];
		sm->l1[i + 1] = sm->l1[i];
		dd_add(&sm->h1[i + 1], &sm->l1[i + 1], d, 0);
		two_prod(d, d, &qh, &ql);
		sm->h2[i + 1] = sm->h2[i];
		sm->l2[i + 1] = sm->l2[i];
		dd_add(&sm->h2[i + 1], &sm->l2[i + 1], qh, ql);
	}
	/* the double-double sums' own error, generously: n u of the sums of |d| and d^2 (in units of u) */
	sm->eps1 = (double)n * AN_U * sabs;
	sm->eps2 = (double)n * AN_U * sm->h2[n];
}

static void sums_free(struct sums *sm)
{
	free(sm->h1);
}

/*
 * rs[i]: the first index of the run of equal values that ends at x[i], so
 * that [tau, t) is constant exactly when tau >= rs[t - 1].  Returns 1 when
 * some run is longer than one value (a constant segment can exist).
 */
static int run_starts(const double *x, size_t n, int32_t *rs)
{
	int ties = 0;
	for (size_t i = 0; i < n; i++) {
		rs[i] = i && x[i] == x[i - 1] ? rs[i - 1] : (int32_t)i;
		ties |= rs[i] != (int32_t)i;
	}
	return ties;
}

static size_t backtrack(const size_t *last, size_t n, size_t *ends)
{
	size_t ns = 0;
	for (size_t t = n; t > 0; t = last[t])
		ends[ns++] = t;
	for (size_t i = 0; i < ns / 2; i++) {
		size_t tmp = ends[i];
		ends[i] = ends[ns - 1 - i];
		ends[ns - 1 - i] = tmp;
	}
	return ns;
}

#define AN_MINSEG 2
_Static_assert(AN_MINSEG == 2, "an_pelt defers a pruning decision by AN_MINSEG - 1 = one step");

/*
 * PELT prunes tau at t when F(tau) + C(tau, t) > F(t) (K = 0): for any
 * later s, C(tau, s) >= C(tau, t) + C(t, s), so t beats tau.  Two things
 * make that argument incomplete, and kiln (unlike R) minds both:
 *  - t only becomes a candidate AN_MINSEG - 1 steps later, so until then
 *    tau must stay: a pruning decision takes effect one step late;
 *  - splitting a segment never raises its cost for the normal likelihood
 *    at its maximum, but does for a floored variance (a constant part
 *    costs more than its likelihood says).  So when the series has a run
 *    of equal values, nothing is pruned: plain optimal partitioning.
 * The result is the exact optimum either way (the tests compare it with
 * optimal partitioning and with enumeration).  With few changepoints PELT
 * prunes little anyway.
 */
size_t an_pelt(const double *x, size_t n, double pen, size_t *ends, double *cost)
{
	if (n < 2 * AN_MINSEG) {
		double s1 = 0, s2 = 0, mu = 0;
		int constant = 1;
		for (size_t i = 0; i < n; i++) {
			mu += x[i];
			constant &= x[i] == x[0];
		}
		mu /= (double)(n ? n : 1);
		for (size_t i = 0; i < n; i++) {
			s1 += x[i] - mu;
			s2 += (x[i] - mu) * (x[i] - mu);
		}
		*cost = n ? an_seg_cost(s1, s2, n, constant) : 0;
		ends[0] = n;
		return 1;
	}
	static cand_fn kernel;
	if (!kernel)
		kernel = pick_kernel();
	struct sums sm;
	sums_make(x, n, &sm);
	const double *S1 = sm.h1, *S2 = sm.h2;
	double *F = xmalloc((n + 1) * sizeof(double)), *T = xmalloc((n + 1) * sizeof(double));
	size_t *last = xcalloc(n + 1, sizeof(size_t));
	int32_t *ctau = xmalloc(n * sizeof(int32_t));
	double *cF = xmalloc(n * sizeof(double));
	double *c1 = xmalloc(n * sizeof(double)), *c2 = xmalloc(n * sizeof(double));
	double *tmp = xmalloc(n * sizeof(double));
	int32_t *rs = xmalloc(n * sizeof(int32_t));
	char *doomed = xcalloc(n, 1); /* pruned at the last step, kept for this one */
	size_t ndoomed = 0;
	int prune = !run_starts(x, n, rs);
	T[0] = 0;
	for (size_t L = 1; L <= n; L++)
		T[L] = two_llogl(L);
	F[0] = -pen;
	for (size_t t = AN_MINSEG; t < 2 * AN_MINSEG; t++) {
		struct cand_at at = { (int32_t)t, rs[t - 1], S1[t], S2[t], pen, T, &sm, 0, 0 };
		cand_at_screen(&at);
		F[t] = cand_value(0, F[0], S1[0], S2[0], &at);
		last[t] = 0;
	}
	size_t k = 0;
#define PUSH(tt) do { ctau[k] = (int32_t)(tt); cF[k] = F[tt]; c1[k] = S1[tt]; c2[k] = S2[tt]; doomed[k] = 0; k++; } while (0)
	PUSH(0);
	PUSH(AN_MINSEG);
	for (size_t t = 2 * AN_MINSEG; t <= n; t++) {
		struct cand_out co = { INFINITY, -INFINITY, 0 };
		struct cand_at at = { (int32_t)t, rs[t - 1], S1[t], S2[t], pen, T, &sm, 0, 0 };
		cand_at_screen(&at);
		kernel(k, ctau, cF, c1, c2, &at, tmp, &co);
		F[t] = co.min;
		last[t] = (size_t)ctau[co.argmin];
		/* drop what the last step pruned; doom what can never be optimal after the next (K = 0) */
		double thr = co.min + pen;
		if (prune && (ndoomed || co.max > thr)) {
			size_t j = 0;
			ndoomed = 0;
			for (size_t i = 0; i < k; i++) {
				if (doomed[i])
					continue;
				ctau[j] = ctau[i];
				cF[j] = cF[i];
				c1[j] = c1[i];
				c2[j] = c2[i];
				doomed[j] = tmp[i] > thr;
				ndoomed += doomed[j];
				j++;
			}
			k = j;
		}
		PUSH(t - AN_MINSEG + 1);
	}
#undef PUSH
	*cost = F[n];
	size_t ns = backtrack(last, n, ends);
	sums_free(&sm);
	free(F);
	free(T);
	free(last);
	free(ctau);
	free(cF);
	free(c1);
	free(c2);
	free(tmp);
	free(rs);
	free(doomed);
	return ns;
}

size_t an_op(const double *x, size_t n, double pen, size_t *ends, double *cost)
{
	if (n < 2 * AN_MINSEG)
		return an_pelt(x, n, pen, ends, cost);
	struct sums sm;
	sums_make(x, n, &sm);
	double *F = xmalloc((n + 1) * sizeof(double)), *T = xmalloc((n + 1) * sizeof(double));
	size_t *last = xcalloc(n + 1, sizeof(size_t));
	int32_t *rs = xmalloc(n * sizeof(int32_t));
	run_starts(x, n, rs);
	T[0] = 0;
	for (size_t L = 1; L <= n; L++)
		T[L] = two_llogl(L);
	F[0] = -pen;
	for (size_t t = AN_MINSEG; t <= n; t++) {
		double best = INFINITY;
		size_t bi = 0;
		struct cand_at at = { (int32_t)t, rs[t - 1], sm.h1[t], sm.h2[t], pen, T, &sm, 0, 0 };
		cand_at_screen(&at);
		for (size_t tau = 0; tau + AN_MINSEG <= t; tau = tau ? tau + 1 : AN_MINSEG) {
			double v = cand_value((int32_t)tau, F[tau], sm.h1[tau], sm.h2[tau], &at);
			if (v < best) {
				best = v;
				bi = tau;
			}
		}
		F[t] = best;
		last[t] = bi;
	}
	*cost = F[n];
	size_t ns = backtrack(last, n, ends);
	sums_free(&sm);
	free(F);
	free(T);
	free(last);
	free(rs);
	return ns;
}

/* ---- bootstrap ---- */

/*
 * xoshiro256++ (Blackman and Vigna) in eight lanes: the fast streams each
 * pexec resamples with.  Each step gives eight 64-bit outputs whose sixteen
 * 32-bit halves become sixteen indices by multiply-shift (bias below
 * m/2^32): lane l's low half goes to sum a[l], its high half to sum b[l].
 * The AVX-512 and AVX2 versions do exactly this with vectors (one or two
 * registers per state word), so every path gives the same bits.
 */
#define XL 8
struct xo8 {
	uint64_t s[4][XL]; /* s[word][lane] */
};

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline void xo8_next(struct xo8 *x, uint64_t r[XL])
{
	for (int l = 0; l < XL; l++) {
		uint64_t *s0 = &x->s[0][l], *s1 = &x->s[1][l], *s2 = &x->s[2][l], *s3 = &x->s[3][l];
		r[l] = rotl64(*s0 + *s3, 23) + *s0;
		uint64_t t = *s1 << 17;
		*s2 ^= *s0;
		*s3 ^= *s1;
		*s1 ^= *s2;
		*s0 ^= *s3;
		*s2 ^= t;
		*s3 = rotl64(*s3, 45);
	}
}

static uint64_t splitmix64(uint64_t *z)
{
	uint64_t r = (*z += 0x9e3779b97f4a7c15ULL);
	r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ULL;
	r = (r ^ (r >> 27)) * 0x94d049bb133111ebULL;
	return r ^ (r >> 31);
}

static void xo8_seed(struct xo8 *x, gsl_rng *g)
{
	uint64_t z = ((uint64_t)gsl_rng_get(g) << 32) ^ (uint64_t)gsl_rng_get(g);
	for (int w = 0; w < 4; w++)
		for (int l = 0; l < XL; l++)
			x->s[w][l] = splitmix64(&z);
}

/* the last partial step (fewer than 16 draws) and the final sum, shared */
static inline __attribute__((always_inline)) double resample_finish(const double *x, size_t m, size_t rem, struct xo8 *st, double a[XL], double b[XL])
{
	if (rem) {
		uint64_t r[XL];
		xo8_next(st, r);
		for (size_t q = 0; q < rem; q++) {
			uint64_t h = q < XL ? (r[q] & 0xffffffffULL) : (r[q - XL] >> 32);
			double v = x[(h * m) >> 32];
			if (q < XL)
				a[q] += v;
			else
				b[q - XL] += v;
		}
	}
	double sa = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
	double sb = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
	return (sa + sb) / (double)m;
}

/* the mean of one resample (with replacement, same size) of x[0..m) */
static double resample_scalar(const double *x, size_t m, struct xo8 *st)
{
	double a[XL] = { 0 }, b[XL] = { 0 };
	uint64_t r[XL];
	size_t j = 0;
	for (; j + 2 * XL <= m; j += 2 * XL) {
		xo8_next(st, r);
		for (int l = 0; l < XL; l++) {
			a[l] += x[((r[l] & 0xffffffffULL) * m) >> 32];
			b[l] += x[((r[l] >> 32) * m) >> 32];
		}
	}
	return resample_finish(x, m, m - j, st, a, b);
}

#ifdef AN_HAVE_AVX2
__attribute__((target("avx2"))) static inline __m256i rotl_v(__m256i x, int k)
{
	return _mm256_or_si256(_mm256_slli_epi64(x, k), _mm256_srli_epi64(x, 64 - k));
}

/* one xoshiro step on four lanes, and its two index vectors */
#define XO_STEP_256(s0, s1, s2, s3, lo, hi)                                                          \
	do {                                                                                         \
		__m256i r_ = _mm256_add_epi64(rotl_v(_mm256_add_epi64(s0, s3), 23), s0);             \
		__m256i t_ = _mm256_slli_epi64(s1, 17);                                              \
		s2 = _mm256_xor_si256(s2, s0);                                                       \
		s3 = _mm256_xor_si256(s3, s1);                                                       \
		s1 = _mm256_xor_si256(s1, s2);                                                       \
		s0 = _mm256_xor_si256(s0, s3);                                                       \
		s2 = _mm256_xor_si256(s2, t_);                                                       \
		s3 = rotl_v(s3, 45);                                                                 \
		lo = _mm256_srli_epi64(_mm256_mul_epu32(r_, mm), 32);                                \
		hi = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(r_, 32), mm), 32);        \
	} while (0)

__attribute__((target("avx2"))) static double resample_avx2(const double *x, size_t m, struct xo8 *st)
{
	__m256i s[4][2];
	for (int w = 0; w < 4; w++)
		for (int h = 0; h < 2; h++)
			s[w][h] = _mm256_loadu_si256((const __m256i *)&st->s[w][4 * h]);
	const __m256i mm = _mm256_set1_epi64x((long long)m);
	__m256d a0 = _mm256_setzero_pd(), a1 = a0, b0 = a0, b1 = a0;
	size_t j = 0;
	for (; j + 2 * XL <= m; j += 2 * XL) {
		__m256i lo, hi;
		XO_STEP_256(s[0][0], s[1][0], s[2][0], s[3][0], lo, hi);
		a0 = _mm256_add_pd(a0, _mm256_i64gather_pd(x, lo, 8));
		b0 = _mm256_add_pd(b0, _mm256_i64gather_pd(x, hi, 8));
		XO_STEP_256(s[0][1], s[1][1], s[2][1], s[3][1], lo, hi);
		a1 = _mm256_add_pd(a1, _mm256_i64gather_pd(x, lo, 8));
		b1 = _mm256_add_pd(b1, _mm256_i64gather_pd(x, hi, 8));
	}
	for (int w = 0; w < 4; w++)
		for (int h = 0; h < 2; h++)
			_mm256_storeu_si256((__m256i *)&st->s[w][4 * h], s[w][h]);
	double av[XL], bv[XL];
	_mm256_storeu_pd(av, a0);
	_mm256_storeu_pd(av + 4, a1);
	_mm256_storeu_pd(bv, b0);
	_mm256_storeu_pd(bv + 4, b1);
	return resample_finish(x, m, m - j, st, av, bv);
}

__attribute__((target("avx512f"))) static double resample_avx512(const double *x, size_t m, struct xo8 *st)
{
	__m512i s0 = _mm512_loadu_si512(st->s[0]), s1 = _mm512_loadu_si512(st->s[1]);
	__m512i s2 = _mm512_loadu_si512(st->s[2]), s3 = _mm512_loadu_si512(st->s[3]);
	const __m512i mm = _mm512_set1_epi64((long long)m);
	__m512d a = _mm512_setzero_pd(), b = _mm512_setzero_pd();
	size_t j = 0;
	for (; j + 2 * XL <= m; j += 2 * XL) {
		__m512i r = _mm512_add_epi64(_mm512_rol_epi64(_mm512_add_epi64(s0, s3), 23), s0);
		__m512i t = _mm512_slli_epi64(s1, 17);
		s2 = _mm512_xor_si512(s2, s0);
		s3 = _mm512_xor_si512(s3, s1);
		s1 = _mm512_xor_si512(s1, s2);
		s0 = _mm512_xor_si512(s0, s3);
		s2 = _mm512_xor_si512(s2, t);
		s3 = _mm512_rol_epi64(s3, 45);
		__m512i lo = _mm512_srli_epi64(_mm512_mul_epu32(r, mm), 32);
		__m512i hi = _mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(r, 32), mm), 32);
		a = _mm512_add_pd(a, _mm512_i64gather_pd(lo, x, 8));
		b = _mm512_add_pd(b, _mm512_i64gather_pd(hi, x, 8));
	}
	_mm512_storeu_si512(st->s[0], s0);
	_mm512_storeu_si512(st->s[1], s1);
	_mm512_storeu_si512(st->s[2], s2);
	_mm512_storeu_si512(st->s[3], s3);
	double av[XL], bv[XL];
	_mm512_storeu_pd(av, a);
	_mm512_storeu_pd(bv, b);
	return resample_finish(x, m, m - j, st, av, bv);
}
#endif

typedef double (*resample_fn)(const double *, size_t, struct xo8 *);

static resample_fn pick_resample(void)
{
#ifdef AN_HAVE_AVX2
	switch (simd_level()) {
	case 2: return resample_avx512;
	case 1: return resample_avx2;
	}
#endif
	return resample_scalar;
}

/* put the k-th smallest of a[0..n) at a[k], smaller before, larger after */
static void select_kth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2;
		/* median of three as pivot */
		double x = a[lo], y = a[mid], z = a[hi];
		double p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		size_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

size_t an_bootstrap_count(const struct an_sample *s, long resamples)
{
	if (!s->ngroups || resamples < 1)
		return 0;
	return s->ngroups * ((size_t)resamples / s->ngroups + 1);
}

/*
 * warmup_stats' bootstrap: floor(N / groups) + 1 resamples per group (so
 * at least N in all), each the mean of its segments resampled one by one
 * (each as many draws, with replacement, as it has values) and put
 * together.  Every group has its own streams, seeded from --seed.
 */
size_t an_bootstrap_means(const struct an_sample *s, long resamples, uint64_t seed, double *means)
{
	static resample_fn resample;
	if (!resample)
		resample = pick_resample();
	size_t N = an_bootstrap_count(s, resamples);
	if (!N)
		return 0;
	size_t per = N / s->ngroups, at = 0;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, (unsigned long)seed);
	for (size_t gi = 0; gi < s->ngroups; gi++) {
		size_t from = gi ? s->group_end[gi - 1] : 0, to = s->group_end[gi], total = 0;
		for (size_t q = from; q < to; q++)
			total += s->len[q];
		struct xo8 st;
		xo8_seed(&st, g);
		if (!total)
			continue;
		for (size_t r = 0; r < per; r++) {
			double sum = 0;
			for (size_t q = from; q < to; q++)
				if (s->len[q])
					sum += resample(s->seg[q], s->len[q], &st) * (double)s->len[q];
			means[at++] = sum / (double)total;
		}
	}
	gsl_rng_free(g);
	return at;
}

void an_quantiles(double *v, size_t N, double conf, double *med, double *lo, double *hi)
{
	if (!N) {
		*med = *lo = *hi = NAN;
		return;
	}
	/*
	 * libkalibera's indices as warmup_stats has them: excl N and (1 - excl) N
	 * quantized to one decimal (down and up) and truncated; the upper is
	 * exclusive.  (Rounded to 1e-6 first: the binary noise of excl * N.)
	 */
	double excl = (1.0 - conf) / 2.0;
	size_t li = (size_t)floor(round(excl * (double)N * 1e6) / 1e6);
	size_t ui = (size_t)trunc(ceil(round((1.0 - excl) * (double)N * 1e6) / 1e5) / 10.0);
	if (ui < 1)
		ui = 1;
	if (ui > N)
		ui = N;
	if (li >= N)
		li = N - 1;
	ui -= 1;
	/* selections in increasing order, each on what lies right of the last */
	size_t m1 = N % 2 ? N / 2 : N / 2 - 1, m2 = N / 2;
	size_t ks[4] = { li, m1, m2, ui };
	double vals[4];
	size_t from = 0;
	for (int q = 0; q < 4; q++) {
		size_t kk = ks[q];
		if (kk < from) { /* below an earlier one (tiny N): already in place */
			vals[q] = v[kk];
			continue;
		}
		select_kth(v + from, N - from, kk - from);
		vals[q] = v[kk];
		from = kk;
	}
	*lo = vals[0];
	*med = (vals[1] + vals[2]) / 2.0;
	*hi = vals[3];
}

void an_bootstrap(const struct an_sample *s, long resamples, uint64_t seed, double conf, double *med, double *lo,
		  double *hi)
{
	size_t cap = an_bootstrap_count(s, resamples);
	double *means = xmalloc((cap ? cap : 1) * sizeof(double));
	size_t N = an_bootstrap_means(s, resamples, seed, means);
	an_quantiles(means, N, conf, med, lo, hi);
	free(means);
}

/* ---- per pexec ---- */

static size_t opt_count(long n, double pct, size_t iters)
{
	if (pct > 0)
		return (size_t)floor((double)iters * pct / 100.0);
	return (size_t)n;
}

/*
 * --replicate-warmup-stats: what R's changepoint 2.2.2 computes, operation
 * for operation.  Its cumulative sums (R's cumsum: a long double
 * accumulator stored as double) of x and x^2, not centred; sigma^2 =
 * (x2 - x^2/n)/n floored at 1e-11 when <= 0; cost n (log(2 pi) + log
 * sigma^2 + 1) with libm's log; PELT taking the first minimum and pruning
 * at once.  Rounding noise included: that is the point.
 */
static double r_cost(double s1, double s2, int len)
{
	double sigsq = (s2 - ((s1 * s1) / len)) / len;
	if (sigsq <= 0)
		sigsq = 0.00000000001;
	return len * (log(2 * M_PI) + log(sigsq) + 1);
}

static size_t r_pelt(const double *x, size_t n, double pen, size_t *ends)
{
	if (n < 2 * AN_MINSEG) {
		ends[0] = n;
		return 1;
	}
	double *S1 = xmalloc((n + 1) * sizeof(double)), *S2 = xmalloc((n + 1) * sizeof(double));
	double *F = xcalloc(n + 1, sizeof(double)), *tmp = xmalloc(n * sizeof(double));
	size_t *last = xcalloc(n + 1, sizeof(size_t)), *cl = xmalloc((n + 1) * sizeof(size_t)), ncl = 0;
	long double a1 = 0, a2 = 0;
	S1[0] = S2[0] = 0;
	for (size_t i = 0; i < n; i++) {
		a1 += x[i];
		a2 += x[i] * x[i];
		S1[i + 1] = (double)a1;
		S2[i + 1] = (double)a2;
	}
	F[0] = -pen;
	for (size_t j = AN_MINSEG; j < 2 * AN_MINSEG; j++)
		F[j] = r_cost(S1[j], S2[j], (int)j);
	cl[ncl++] = 0;
	cl[ncl++] = AN_MINSEG;
	for (size_t t = 2 * AN_MINSEG; t <= n; t++) {
		size_t best = 0;
		for (size_t i = 0; i < ncl; i++) {
			tmp[i] = F[cl[i]] + r_cost(S1[t] - S1[cl[i]], S2[t] - S2[cl[i]], (int)(t - cl[i])) + pen;
			if (tmp[i] < tmp[best])
				best = i;
		}
		F[t] = tmp[best];
		last[t] = cl[best];
		size_t k = 0;
		for (size_t i = 0; i < ncl; i++)
			if (tmp[i] <= F[t] + pen)
				cl[k++] = cl[i];
		ncl = k;
		cl[ncl++] = t - (AN_MINSEG - 1);
	}
	size_t ns = backtrack(last, n, ends);
	free(S1);
	free(S2);
	free(F);
	free(tmp);
	free(last);
	free(cl);
	return ns;
}

/* R's mean(): a long double sum, then a correction pass */
static double r_mean(const double *x, size_t n)
{
	long double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	s /= (long double)n;
	if (isfinite((double)s)) {
		long double t = 0;
		for (size_t i = 0; i < n; i++)
			t += (x[i] - s);
		s += t / (long double)n;
	}
	return (double)s;
}

/* R's var() (its cov.c, long double sums of double products), made the MLE as changepoint does */
static double r_var_mle(const double *x, size_t n)
{
	if (n < 2)
		return NAN;
	double xm = r_mean(x, n);
	long double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - xm) * (x[i] - xm);
	double v = (double)(s / (long double)(n - 1));
	return v * (double)(n - 1) / (double)n;
}

/* the segments' mean and MLE variance, of their non-outlier values y[b, e) */
static void segment_stats(const double *y, size_t b, size_t e, int replicate, struct an_segment *sg)
{
	if (replicate) {
		sg->mean = r_mean(y + b, e - b);
		sg->var = r_var_mle(y + b, e - b);
		return;
	}
	/* shifted by the first value: a constant segment has exactly its value as mean and 0 as variance */
	double d = 0, v = 0;
	for (size_t i = b; i < e; i++)
		d += y[i] - y[b];
	double mu = y[b] + d / (double)(e - b);
	for (size_t i = b; i < e; i++)
		v += (y[i] - mu) * (y[i] - mu);
	sg->mean = mu;
	sg->var = v / (double)(e - b);
}

/*
 * Changepoints of the series without outliers (y, with idx[i] the original
 * index of y[i]), as segments in indices of the original series of n.
 */
static void find_segments(const double *y, const size_t *idx, size_t m, size_t n, const struct an_opts *o,
			  struct an_pexec *p, struct anr_ac *ac)
{
	size_t *ends = xmalloc((m ? m : 1) * sizeof(size_t));
	double cost;
	double pen = o->penalty * log((double)(m > 1 ? m : 1));
	/*
	 * The default method: autocorrelated noise wanders, and PELT, which
	 * takes the values as independent, would cut the wanders into
	 * segments; the penalty is scaled by the variance inflation p->tau its
	 * key's noise shows (anr_ac_tau: 1 for independent noise), which the
	 * residuals of this cut at the plain penalty tell (ac).
	 */
	size_t ns = o->replicate ? r_pelt(y, m, pen, ends) : an_pelt(y, m, pen * p->tau, ends, &cost);
	if (ac)
		anr_ac_add(y, m, ends, ns, ac);
	p->segs = xcalloc(ns, sizeof(*p->segs));
	p->nsegs = ns;
	size_t b = 0;
	for (size_t s = 0; s < ns; s++) {
		size_t e = ends[s];
		struct an_segment *sg = &p->segs[s];
		sg->start = s == 0 ? 0 : idx[b - 1] + 1;
		sg->end = s == ns - 1 ? n : idx[e - 1] + 1;
		segment_stats(y, b, e, o->replicate, sg);
		b = e;
	}
	free(ends);
}

static double pexec_delta(const struct an_opts *o, const struct an_pexec *p)
{
	double d = o->delta >= 0 ? o->delta : INFINITY;
	if (o->delta_pct > 0) {
		double fastest = INFINITY;
		for (size_t s = 0; s < p->nsegs; s++)
			if (p->segs[s].mean < fastest)
				fastest = p->segs[s].mean;
		double pd = fabs(fastest) * o->delta_pct / 100.0;
		if (pd < d)
			d = pd;
	}
	return isfinite(d) ? d : 0;
}

static int overlaps(const struct an_segment *sg, double lo, double hi)
{
	return sg->mean + sg->var >= lo && sg->mean - sg->var <= hi;
}

/*
 * The class, as warmup_stats walks it: the last segment is the reference,
 * its band mean +- max(var, delta); earlier segments are visited from the
 * second last backwards.  One overlapping the band is equivalent; one whose
 * last iteration lies after n - steady means no steady state; one faster
 * than the band, slowdown (the walk stops there); a slower one makes it
 * warmup so far, and the walk goes on (an earlier segment may still be
 * faster).  Then the steady state: the run of equivalent segments at the end.
 */
/* the last segment's mean +- max(var, delta) */
static void band_of(const struct an_pexec *p, double delta, double *lo, double *hi)
{
	const struct an_segment *ls = &p->segs[p->nsegs - 1];
	double halfw = ls->var > delta ? ls->var : delta;
	*lo = ls->mean - halfw;
	*hi = ls->mean + halfw;
}

double an_delta(const struct an_pexec *p, const struct an_opts *o)
{
	return pexec_delta(o, p);
}

void an_delta_text(const struct an_opts *o, struct strbuf *sb)
{
	const struct time_unit *tu = time_unit_for(o->delta);
	if (o->delta_pct > 0 && o->delta >= 0)
		sb_addf(sb, "min(%g %s, %g%% of the fastest segment)", o->delta * tu->scale, tu->name, o->delta_pct);
	else if (o->delta_pct > 0)
		sb_addf(sb, "%g%% of the fastest segment", o->delta_pct);
	else
		sb_addf(sb, "%g %s", o->delta * tu->scale, tu->name);
}

void an_band(const struct an_pexec *p, const struct an_opts *o, double *lo, double *hi)
{
	band_of(p, pexec_delta(o, p), lo, hi);
}

/* the values of segment j that are no outliers */
static size_t seg_kept(const struct an_pexec *p, size_t j)
{
	const struct an_segment *sg = &p->segs[j];
	size_t a = 0, b = p->noutliers;
	while (a < b && p->outliers[a] < sg->start)
		a++;
	while (b > a && p->outliers[b - 1] >= sg->end)
		b--;
	return sg->end - sg->start - (b - a);
}

/*
 * Is segment j equivalent to the last one?  warmup_stats: its mean +- var
 * overlaps the band.  The default method also when its mean is within the
 * noise of the steady state's (anr_same_level, autocorrelation included;
 * the noise of the segments after j, which the steady state is made of):
 * a difference PELT found in noise that is not normal and independent
 * (heavy tails, a wander) is no change of level.
 */
static int equivalent(const struct an_pexec *p, size_t j, double lo, double hi, int replicate)
{
	const struct an_segment *sg = &p->segs[j], *ref = &p->segs[p->nsegs - 1];
	if (overlaps(sg, lo, hi))
		return 1;
	if (replicate)
		return 0;
	double v = 0;
	size_t n = 0;
	for (size_t q = j + 1; q < p->nsegs; q++) {
		size_t c = seg_kept(p, q);
		v += p->segs[q].var * (double)c;
		n += c;
	}
	v = n ? v / (double)n : 0;
	return anr_same_level(sg->mean, v, seg_kept(p, j), ref->mean, v, seg_kept(p, p->nsegs - 1), p->tau);
}

/* a segment between two at the steady level: is its mean within its own noise of the reference's? */
static int same_level_own(const struct an_pexec *p, size_t j)
{
	const struct an_segment *sg = &p->segs[j], *ref = &p->segs[p->nsegs - 1];
	return anr_same_level(sg->mean, sg->var, seg_kept(p, j), ref->mean, ref->var, seg_kept(p, p->nsegs - 1),
			      p->tau);
}

/*
 * Which segments are equivalent to the last one (eq[j]).  The default
 * method adds excursions: a run of segments between two equivalent ones
 * that is `transient` iterations long at most (half the outlier window),
 * or whose segments are each within their own noise of the reference (a
 * noisier stretch, not another level), is a clump of pauses the outlier
 * window could not see as such, not a change of level.  So a steady state
 * is not cut at it, and a late one does not make "no steady state".  A run
 * from the first iteration is no excursion: that is where warmup is, noisy
 * with compilations, and it must be unlike the steady state, not like
 * itself.
 */
static void equivalents(const struct an_pexec *p, double lo, double hi, int replicate, size_t transient, char *eq)
{
	for (size_t j = 0; j < p->nsegs; j++)
		eq[j] = j == p->nsegs - 1 || equivalent(p, j, lo, hi, replicate);
	for (size_t j = 1; !replicate && j + 1 < p->nsegs; j++) {
		if (eq[j] || !eq[j - 1])
			continue;
		size_t r = j;
		int noisy = 1;
		while (!eq[r])
			noisy &= same_level_own(p, r++); /* ends at the last segment at the latest: it is equivalent */
		if (p->segs[r - 1].end - p->segs[j].start <= transient || noisy)
			memset(eq + j, 1, r - j);
		j = r;
	}
}

static void classify(struct an_pexec *p, double delta, long steady, int replicate, size_t transient)
{
	double lo, hi;
	band_of(p, delta, &lo, &hi);
	char *eq = xmalloc(p->nsegs);
	equivalents(p, lo, hi, replicate, transient, eq);
	p->cls = AN_FLAT;
	for (size_t j = p->nsegs - 1; j-- > 0;) {
		const struct an_segment *sg = &p->segs[j];
		if (eq[j])
			continue;
		if ((long)sg->end - 1 > (long)p->n - steady) {
			p->cls = AN_NO_STEADY;
			break;
		}
		if (sg->mean + sg->var < lo) {
			p->cls = AN_SLOWDOWN;
			break;
		}
		p->cls = AN_WARMUP;
	}
	p->first_steady = p->nsegs - 1;
	while (p->first_steady > 0 && eq[p->first_steady - 1])
		p->first_steady--;
	free(eq);
}

/*
 * Where the steady state starts and what it costs to get there.  kiln's
 * convention (docs/analysis.md): the steady iteration is the number of
 * iterations before the steady state (the 0-based index of its first
 * iteration, warmup_stats' number wherever a pexec has changepoints), the
 * time to steady state their wall time, outliers included.  The pexec's
 * steady mean is what a steady iteration costs: the mean of every
 * iteration from the steady start on, pauses (outliers) included;
 * warmup_stats' - the mean of its steady segments' means, unweighted,
 * outliers left out - is beside it (steady_mean_clean), and is the steady
 * mean under --replicate-warmup-stats.  The warmup cost is the time the
 * iterations before the steady state took beyond the steady mean.
 * --replicate-warmup-stats: a flat pexec's steady iteration is 1, and the
 * time sums one iteration fewer (warmup_stats' errors).
 */
static void steady_part(struct an_pexec *p, const double *x, const struct an_opts *o)
{
	if (p->cls == AN_NO_STEADY) {
		p->steady_start = p->n;
		p->steady_iter = -1;
		p->time_to_steady = NAN;
		p->steady_mean = p->steady_mean_clean = p->warmup_cost = NAN;
		return;
	}
	size_t st = p->segs[p->first_steady].start;
	p->steady_start = st;
	p->steady_iter = (long)st;
	size_t upto = st;
	if (o->replicate) {
		if (p->cls == AN_FLAT) {
			p->steady_iter = 1;
			upto = 0;
		} else
			upto = st - 1;
	}
	double t = 0;
	for (size_t i = 0; i < upto; i++)
		t += x[i];
	p->time_to_steady = t;
	double sum = 0;
	for (size_t s = p->first_steady; s < p->nsegs; s++)
		sum += p->segs[s].mean;
	p->steady_mean = p->steady_mean_clean = sum / (double)(p->nsegs - p->first_steady);
	if (!o->replicate) {
		sum = 0;
		for (size_t i = st; i < p->n; i++)
			sum += x[i];
		p->steady_mean = sum / (double)(p->n - st);
	}
	p->warmup_cost = 0;
	for (size_t i = 0; i < st; i++)
		p->warmup_cost += x[i] - p->steady_mean;
}

/*
 * The default method's drift test: a steady part (no steady state: the
 * last segment) whose values trend by more than delta, significantly, and
 * along a line rather than a step, is no steady state (anr_trend,
 * anr_is_drift).  y[0, m) are the values without outliers, idx[] their
 * iterations.
 */
static void drift_check(struct an_pexec *p, const double *y, const size_t *idx, size_t m)
{
	p->drift_rate = NAN;
	p->drift_span = 0;
	size_t start = p->segs[p->cls == AN_NO_STEADY ? p->nsegs - 1 : p->first_steady].start, from = 0;
	while (from < m && idx[from] < start)
		from++;
	struct anr_trend t;
	if (!anr_trend(y, idx, from, m, &t))
		return;
	p->drift_rate = t.rate;
	p->drift_span = t.span;
	p->drift_fit = t.fit;
	if (anr_is_drift(&t, p->segs[p->nsegs - 1].mean, p->delta)) {
		p->warn |= AN_WARN_DRIFT;
		p->cls = AN_NO_STEADY;
	}
}

/*
 * A pexec's outliers, first step: those at w/2 and after; the default's
 * band spread is P75 - P25, which pauses do not inflate until a quarter of
 * the window is pauses, and it finds the candidates among the first w/2
 * (anr_early_find), which its key then decides on (anr_early_decide).
 */
static void pexec_outliers(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p,
			   struct anr_early *e)
{
	long w = (long)opt_count(o->window, o->window_pct, n);
	p->n = n;
	p->outliers = xmalloc((n ? n : 1) * sizeof(size_t));
	memset(e, 0, sizeof(*e));
	if (o->replicate) {
		p->noutliers = an_outliers(x, n, w, o->outlier_k, p->outliers);
		return;
	}
	p->noutliers = outliers_band(x, n, w, o->outlier_k, ANR_OUT_PLO, ANR_OUT_PHI, p->outliers);
	anr_early_find(x, n, w > 1 ? (size_t)w / 2 : 0, o->outlier_k, p->outliers, p->noutliers, e);
}

/* the series x[0, n) without p's outliers, y[0, m), and where each value came from; returns m */
static size_t kept_values(const double *x, size_t n, const struct an_pexec *p, double **y, size_t **idx)
{
	*y = xmalloc((n ? n : 1) * sizeof(double));
	*idx = xmalloc((n ? n : 1) * sizeof(size_t));
	size_t m = 0, oi = 0;
	for (size_t i = 0; i < n; i++) {
		if (oi < p->noutliers && p->outliers[oi] == i) {
			oi++;
			continue;
		}
		(*y)[m] = x[i];
		(*idx)[m++] = i;
	}
	return m;
}

/*
 * Once the key decided on the early candidates (merged into the
 * outliers): the changepoints at the plain penalty (p->tau = 1), whose
 * residuals' autocorrelation goes to ac for the key.
 */
static void pexec_cut(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p, struct anr_ac *ac)
{
	double *y;
	size_t *idx, m = kept_values(x, n, p, &y, &idx);
	p->tau = 1;
	find_segments(y, idx, m, n, o, p, o->replicate ? NULL : ac);
	free(y);
	free(idx);
}

/*
 * The rest, once the key decided on the autocorrelation of its noise
 * (p->tau; above 1, the changepoints again at the penalty it scales):
 * class, drift and steady part.
 */
static void pexec_rest(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p)
{
	double *y;
	size_t *idx, m = kept_values(x, n, p, &y, &idx);
	if (p->tau > 1) {
		free(p->segs);
		find_segments(y, idx, m, n, o, p, NULL);
	}
	p->delta = pexec_delta(o, p);
	classify(p, p->delta, (long)opt_count(o->steady, o->steady_pct, n), o->replicate,
		 o->replicate ? 0 : opt_count(o->window, o->window_pct, n) / 2);
	p->drift_rate = NAN;
	if (!o->replicate)
		drift_check(p, y, idx, m);
	steady_part(p, x, o);
	free(y);
	free(idx);
}

/*
 * The key's first decision, between its pexecs' outliers and their first
 * cut: which early candidates are pauses (anr_early_decide), merged into
 * the outliers of its np pexecs p[] (candidates e[], freed).  Nothing
 * under replicate.
 */
static void key_early(struct an_pexec *p, struct anr_early *e, size_t np, const struct an_opts *o)
{
	if (!o->replicate)
		anr_early_decide(e, np);
	for (size_t i = 0; i < np; i++) {
		p[i].noutliers = anr_early_merge(&e[i], p[i].outliers, p[i].noutliers);
		anr_early_free(&e[i]);
	}
}

/* the key's second decision: the autocorrelation of its noise, from its pexecs' cuts (ac) */
static void key_tau(struct an_pexec *p, size_t np, const struct anr_ac *ac, const struct an_opts *o)
{
	double tau = o->replicate ? 1 : anr_ac_tau(ac);
	for (size_t i = 0; i < np; i++)
		p[i].tau = tau;
}

/* all of it for the series x[0, n) alone, as a key of one pexec (the short-series test aside) */
static void pexec_core(const double *x, size_t n, const struct an_opts *o, struct an_pexec *p)
{
	struct anr_early e;
	struct anr_ac ac = { 0, 0 };
	pexec_outliers(x, n, o, p, &e);
	key_early(p, &e, 1, o);
	pexec_cut(x, n, o, p, &ac);
	key_tau(p, 1, &ac, o);
	pexec_rest(x, n, o, p);
}

/* the first iterations the short-series test looks at: the outlier window's half, at least 3 */
static size_t short_lead(size_t n, const struct an_opts *o)
{
	size_t h = opt_count(o->window, o->window_pct, n) / 2;
	return h > 3 ? h : 3;
}

/* the last excursion of p's steady part (anr_excursion), -1 if none */
static long pexec_excursion(const struct an_pexec *p, const double *x, const struct an_opts *o)
{
	if (p->cls == AN_NO_STEADY)
		return -1;
	int examined = opt_count(o->window, o->window_pct, p->n) >= ANR_SHORT_WINDOW;
	return anr_excursion(x, p->n, p->steady_start, short_lead(p->n, o), examined, p->outliers, p->noutliers,
			     o->outlier_k, p->delta);
}

/* anr_short_need's re-analysis: is the excursion still in the steady part of the longer series? */
static int still_short(const double *x, size_t n, void *ctx)
{
	const struct an_opts *o = ctx;
	struct an_pexec q;
	memset(&q, 0, sizeof(q));
	pexec_core(x, n, o, &q);
	int r = q.cls == AN_NO_STEADY || pexec_excursion(&q, x, o) >= 0;
	free(q.outliers);
	free(q.segs);
	return r;
}

/*
 * The short-series test: a steady part that starts with iterations far
 * above all the rest of it, or, where the outlier window is too short to
 * examine anything, that holds iterations far above it, holds warmup the
 * method could not separate (too few iterations for the outlier window
 * and the changepoint penalty).  AN_WARN_SHORT, and how many iterations
 * would do: the series grown by a resample of what follows the excursion
 * (of the whole steady part when little follows).
 */
static void short_check(struct an_pexec *p, const double *x, const struct an_opts *o)
{
	p->short_need = 0;
	long at = pexec_excursion(p, x, o);
	if (at < 0)
		return;
	p->warn |= AN_WARN_SHORT;
	size_t from = (size_t)at + 1;
	if (p->n - from < 3)
		from = p->steady_start;
	p->short_need = anr_short_need(x, p->n, from, o->seed, still_short, (void *)o);
}

/* a pexec of a key, in steps around its key's decisions (key_early, key_tau) */
static void analyse_pexec_outliers(const struct ds_pexec *dp, const struct an_opts *o, struct an_pexec *p,
				   struct anr_early *e)
{
	p->num = dp->num;
	pexec_outliers(dp->wall, dp->n, o, p, e);
}

static void analyse_pexec_rest(const struct ds_pexec *dp, const struct an_opts *o, struct an_pexec *p)
{
	pexec_rest(dp->wall, dp->n, o, p);
	if (!o->replicate)
		short_check(p, dp->wall, o);
}

/* ---- per key ---- */

static int usable(const struct ds_pexec *p)
{
	return p->status == DS_OK && p->n > 0 && p->wall;
}

static void key_init(const struct ds_key *k, struct an_key *out)
{
	memset(out, 0, sizeof(*out));
	out->key = k;
	out->p = xcalloc(k->npexecs ? k->npexecs : 1, sizeof(*out->p));
	for (size_t i = 0; i < k->npexecs; i++) {
		if (usable(&k->pexecs[i]))
			out->p[out->np++].index = i;
		else
			out->nskipped++;
	}
}

/* the summary of series s in k, made when new; names holds k's series names by index (no linear search) */
static struct an_series_sum *series_slot(struct an_key *k, struct strmap *names, const struct ds_series *s)
{
	size_t i = strmap_add(names, s->name);
	if (i < k->nseries)
		return &k->series[i];
	if ((k->nseries & (k->nseries - 1)) == 0) /* grown at powers of two */
		k->series = xrealloc(k->series, (k->nseries ? 2 * k->nseries : 1) * sizeof(*k->series));
	struct an_series_sum *r = &k->series[k->nseries++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(s->name);
	r->unit = xstrdup(s->unit ? s->unit : "");
	return r;
}

/* one more segment of s: the values x[from, to) that are not outliers (out[0..nout) ascending) */
static void sample_add(struct an_sample *s, const double *x, size_t from, size_t to, const size_t *out, size_t nout)
{
	s->seg = xrealloc(s->seg, (s->nseg + 1) * sizeof(*s->seg));
	s->len = xrealloc(s->len, (s->nseg + 1) * sizeof(*s->len));
	double *v = xmalloc((to > from ? to - from : 1) * sizeof(double));
	size_t n = 0, oi = 0;
	for (size_t j = from; j < to; j++) {
		while (oi < nout && out[oi] < j)
			oi++;
		if (oi < nout && out[oi] == j)
			continue;
		v[n++] = x[j];
	}
	s->seg[s->nseg] = v;
	s->len[s->nseg++] = n;
}

static void sample_end_group(struct an_sample *s)
{
	s->group_end = xrealloc(s->group_end, (s->ngroups + 1) * sizeof(*s->group_end));
	s->group_end[s->ngroups++] = s->nseg;
}

void an_sample_of(const struct an_key *k, const struct an_opts *o, struct an_sample *s)
{
	memset(s, 0, sizeof(*s));
	if (k->whole) {
		double *v = xmalloc((k->np ? k->np : 1) * sizeof(double));
		for (size_t i = 0; i < k->np; i++)
			v[i] = k->key->pexecs[k->p[i].index].wall[0];
		sample_add(s, v, 0, k->np, NULL, 0);
		sample_end_group(s);
		free(v);
		return;
	}
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		if (p->cls == AN_NO_STEADY)
			continue;
		const double *x = k->key->pexecs[p->index].wall;
		for (size_t q = p->first_steady; q < p->nsegs; q++) {
			size_t from = p->segs[q].start;
			/* warmup_stats starts the last segment at its changepoint, one iteration early */
			if (o->replicate && q == p->nsegs - 1 && q > 0)
				from--;
			/* the default: what a steady iteration costs, pauses (outliers) included */
			sample_add(s, x, from, p->segs[q].end, p->outliers, o->replicate ? p->noutliers : 0);
		}
		sample_end_group(s);
	}
}

void an_sample_free(struct an_sample *s)
{
	for (size_t i = 0; i < s->nseg; i++)
		free(s->seg[i]);
	free(s->seg);
	free(s->len);
	free(s->group_end);
	memset(s, 0, sizeof(*s));
}

/* median, 5th and 95th percentiles of v[0..n) (reorders v) */
static void med_p5_p95(double *v, size_t n, double *med, double *p5, double *p95)
{
	qsort(v, n, sizeof(double), cmp_double);
	*med = an_percentile_sorted(v, n, 50);
	*p5 = an_percentile_sorted(v, n, 5);
	*p95 = an_percentile_sorted(v, n, 95);
}

/*
 * The pexecs' steady iteration and time to reach it, when some pexec is
 * not flat.  Iterations are counted, so the default's median and 5th and
 * 95th percentiles of the steady iteration are pexecs' own numbers (the
 * nearest rank: the ceil(p/100 * N)-th smallest; the median of an even
 * count the lower middle one); warmup_stats interpolates (29.45).
 */
static void key_steady_iters(struct an_key *k, int replicate)
{
	double *it = xmalloc(k->np * sizeof(double)), *tt = xmalloc(k->np * sizeof(double));
	for (size_t i = 0; i < k->np; i++) {
		it[i] = (double)k->p[i].steady_iter;
		tt[i] = k->p[i].time_to_steady;
	}
	med_p5_p95(it, k->np, &k->iter_med, &k->iter_p5, &k->iter_p95);
	if (!replicate) {
		const double p[3] = { 50, 5, 95 };
		double *dst[3] = { &k->iter_med, &k->iter_p5, &k->iter_p95 };
		for (int q = 0; q < 3; q++) {
			size_t r = (size_t)ceil(p[q] / 100.0 * (double)k->np);
			*dst[q] = it[r ? r - 1 : 0];
		}
	}
	med_p5_p95(tt, k->np, &k->tts_med, &k->tts_p5, &k->tts_p95);
	free(it);
	free(tt);
}

/* a per-pexec scalar (user_time, sys_time, max_rss) of pexec i, NAN if it has none */
static double scalar_of(const struct an_key *k, size_t i, const char *name)
{
	const struct ds_pexec *dp = &k->key->pexecs[k->p[i].index];
	for (size_t s = 0; s < dp->nscalars; s++)
		if (!strcmp(dp->scalars[s].name, name))
			return dp->scalars[s].value;
	return NAN;
}

/* mean of a scalar over the pexecs that have it (and its largest value) */
static double scalar_mean(const struct an_key *k, const char *name, double *maxp)
{
	double sum = 0, mx = NAN;
	size_t n = 0;
	for (size_t i = 0; i < k->np; i++) {
		double v = scalar_of(k, i, name);
		if (isnan(v))
			continue;
		sum += v;
		n++;
		if (!(v <= mx))
			mx = v;
	}
	if (maxp)
		*maxp = mx;
	return n ? sum / (double)n : NAN;
}

/* one iteration per pexec: what hyperfine reports, over the pexecs */
static void key_whole(struct an_key *k)
{
	struct an_whole *w = &k->wp;
	double *v = xmalloc(k->np * sizeof(double));
	double sum = 0;
	for (size_t i = 0; i < k->np; i++) {
		v[i] = k->key->pexecs[k->p[i].index].wall[0];
		sum += v[i];
	}
	w->mean = sum / (double)k->np;
	double ss = 0;
	for (size_t i = 0; i < k->np; i++)
		ss += (v[i] - w->mean) * (v[i] - w->mean);
	w->sd = k->np > 1 ? sqrt(ss / (double)(k->np - 1)) : NAN;
	qsort(v, k->np, sizeof(double), cmp_double);
	w->median = an_percentile_sorted(v, k->np, 50);
	w->min = v[0];
	w->max = v[k->np - 1];
	free(v);
	w->user = scalar_mean(k, "user_time", NULL);
	w->sys = scalar_mean(k, "sys_time", NULL);
	w->rss_mean = scalar_mean(k, "max_rss", &w->rss_max);
}

static void key_series(struct an_key *k);

/*
 * A key's warnings: its pexecs' (AN_WARN_*), and drift of the pexecs
 * together (anr_key_drift; the default method).  A drifting key has no
 * steady state, whatever its pexecs' classes; a short one keeps them, and
 * the most iterations a pexec would need.
 */
static void key_warnings(struct an_key *k, const struct an_opts *o)
{
	k->drift_rate = k->drift_lo = k->drift_hi = k->drift_span = NAN;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		k->warn |= p->warn;
		if (p->short_need < 0 || k->short_need < 0)
			k->short_need = -1;
		else if (p->short_need > k->short_need)
			k->short_need = p->short_need;
	}
	if (o->replicate || k->whole)
		return;
	anr_key_drift(k, o);
	if (k->warn & AN_WARN_DRIFT)
		k->cls = AN_NO_STEADY;
}

static void key_summarise(struct an_key *k, const struct an_opts *o)
{
	k->whole = k->np > 0;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		k->counts[p->cls]++;
		k->whole &= p->n == 1;
		/* delta against the pexec's reference (its last segment's mean) */
		double ref = fabs(p->segs[p->nsegs - 1].mean);
		double r = ref > 0 ? p->delta / ref : p->delta > 0 ? INFINITY : 0;
		if (p->n > 1 && r > k->delta_ratio)
			k->delta_ratio = r;
	}
	int nclasses = 0;
	for (int c = 0; c < AN_NPCLASS; c++)
		nclasses += k->counts[c] > 0;
	if (!k->np)
		k->cls = AN_NO_DATA;
	else if (nclasses == 1)
		k->cls = k->p[0].cls;
	else if (!k->counts[AN_SLOWDOWN] && !k->counts[AN_NO_STEADY])
		k->cls = AN_GOOD_INCONSISTENT;
	else
		k->cls = AN_BAD_INCONSISTENT;
	key_warnings(k, o);
	k->has_steady = k->np > 0 && !k->counts[AN_NO_STEADY] && !(k->warn & AN_WARN_DRIFT);
	k->iter_med = k->iter_p5 = k->iter_p95 = NAN;
	k->tts_med = k->tts_p5 = k->tts_p95 = NAN;
	k->perf_med = k->perf_lo = k->perf_hi = k->perf_ci = k->perf_clean = NAN;
	/* all flat: no iteration and time to steady state, as in warmup_stats */
	if (k->has_steady && k->counts[AN_FLAT] < k->np)
		key_steady_iters(k, o->replicate);
	if (k->has_steady) {
		double c = 0;
		for (size_t i = 0; i < k->np; i++)
			c += k->p[i].steady_mean_clean;
		k->perf_clean = c / (double)k->np;
	}
	if (k->has_steady) {
		struct an_sample smp;
		an_sample_of(k, o, &smp);
		an_bootstrap(&smp, o->resamples, o->seed, o->confidence, &k->perf_med, &k->perf_lo, &k->perf_hi);
		an_sample_free(&smp);
		if (k->whole) {
			key_whole(k);
			k->perf_med = k->wp.mean;
		}
		k->perf_ci = ((k->perf_hi - k->perf_med) + (k->perf_med - k->perf_lo)) / 2.0;
	}
	key_series(k);
}

/* instrumentation: each series' mean per iteration before and after the steady state */
static void key_series(struct an_key *k)
{
	const struct ds_key *dk = k->key;
	struct strmap names = STRMAP_INIT;
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		const struct ds_pexec *dp = &dk->pexecs[p->index];
		size_t st = p->steady_start;
		for (size_t s = 0; s < dp->nseries; s++) {
			const struct ds_series *ser = &dp->series[s];
			struct an_series_sum *sum = series_slot(k, &names, ser);
			for (size_t j = 0; j < ser->n; j++) {
				double v = ser->v[j];
				if (isnan(v))
					continue;
				if (j < st) {
					sum->before = sum->nbefore ? sum->before + v : v;
					sum->nbefore++;
				} else {
					sum->after = sum->nafter ? sum->after + v : v;
					sum->nafter++;
				}
			}
		}
	}
	strmap_clear(&names);
	for (size_t s = 0; s < k->nseries; s++) {
		struct an_series_sum *sum = &k->series[s];
		sum->before = sum->nbefore ? sum->before / (double)sum->nbefore : NAN;
		sum->after = sum->nafter ? sum->after / (double)sum->nafter : NAN;
	}
}

void an_analyse_key(const struct ds_key *k, const struct an_opts *o, struct an_key *out)
{
	key_init(k, out);
	struct anr_early *e = xcalloc(out->np ? out->np : 1, sizeof(*e));
	struct anr_ac ac = { 0, 0 };
	for (size_t i = 0; i < out->np; i++)
		analyse_pexec_outliers(&k->pexecs[out->p[i].index], o, &out->p[i], &e[i]);
	key_early(out->p, e, out->np, o);
	for (size_t i = 0; i < out->np; i++)
		pexec_cut(k->pexecs[out->p[i].index].wall, out->p[i].n, o, &out->p[i], &ac);
	key_tau(out->p, out->np, &ac, o);
	for (size_t i = 0; i < out->np; i++)
		analyse_pexec_rest(&k->pexecs[out->p[i].index], o, &out->p[i]);
	free(e);
	key_summarise(out, o);
}

void an_key_free(struct an_key *k)
{
	for (size_t i = 0; i < k->np; i++) {
		free(k->p[i].outliers);
		free(k->p[i].segs);
	}
	free(k->p);
	for (size_t i = 0; i < k->nseries; i++) {
		free(k->series[i].name);
		free(k->series[i].unit);
	}
	free(k->series);
	memset(k, 0, sizeof(*k));
}

/* ---- the threaded driver ---- */

struct job {
	const struct an_opts *o;
	struct an_key *keys;
	size_t nkeys;
	const char *todo;   /* per key: 1 to analyse it (NULL: every key) */
	size_t (*pairs)[2]; /* (key, analysed pexec), key by key */
	size_t npairs;
	/* the pexecs' steps, with their key's decisions between them (key_early, key_tau) */
	enum { STEP_OUTLIERS, STEP_CUT, STEP_REST } step;
	struct anr_early *early; /* per pair: its early candidates */
	struct anr_ac *ac;       /* per pair: its cut's residual autocorrelation */
	atomic_size_t next;
};

static void *pexec_worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, 1);
		if (i >= j->npairs)
			break;
		struct an_key *k = &j->keys[j->pairs[i][0]];
		struct an_pexec *p = &k->p[j->pairs[i][1]];
		const struct ds_pexec *dp = &k->key->pexecs[p->index];
		switch (j->step) {
		case STEP_OUTLIERS: analyse_pexec_outliers(dp, j->o, p, &j->early[i]); break;
		case STEP_CUT: pexec_cut(dp->wall, dp->n, j->o, p, &j->ac[i]); break;
		case STEP_REST: analyse_pexec_rest(dp, j->o, p); break;
		}
	}
	return NULL;
}

static void *key_worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, 1);
		if (i >= j->nkeys)
			break;
		if (!j->todo || j->todo[i])
			key_summarise(&j->keys[i], j->o);
	}
	return NULL;
}

/* run fn on nt threads (the caller being one); fewer if threads cannot start */
static void run_phase(void *(*fn)(void *), struct job *j, long nt)
{
	pthread_t th[64];
	long started = 0;
	atomic_store(&j->next, 0);
	for (long t = 1; t < nt; t++) {
		if (pthread_create(&th[started], NULL, fn, j))
			break;
		started++;
	}
	fn(j);
	for (long t = 0; t < started; t++)
		pthread_join(th[t], NULL);
}

void an_analyse_keys(const struct dataset *ds, const struct an_opts *o, const char *todo, struct an_key *keys)
{
	struct job j;
	memset(&j, 0, sizeof(j));
	j.o = o;
	j.keys = keys;
	j.nkeys = ds->nkeys;
	j.todo = todo;
	size_t total = 0;
	for (size_t i = 0; i < ds->nkeys; i++)
		if (!todo || todo[i]) {
			key_init(&ds->keys[i], &keys[i]);
			total += keys[i].np;
		}
	j.pairs = xmalloc((total ? total : 1) * sizeof(*j.pairs));
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; (!todo || todo[i]) && p < keys[i].np; p++) {
			j.pairs[j.npairs][0] = i;
			j.pairs[j.npairs][1] = p;
			j.npairs++;
		}
	long nt = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (nt < 1)
		nt = 1;
	if (nt > 64)
		nt = 64;
	j.early = xcalloc(j.npairs ? j.npairs : 1, sizeof(*j.early));
	j.ac = xcalloc(j.npairs ? j.npairs : 1, sizeof(*j.ac));
	j.step = STEP_OUTLIERS;
	run_phase(pexec_worker, &j, nt);
	/* each key's decisions between the steps (the pairs are key by key) */
	for (size_t i = 0, from = 0; i < ds->nkeys; i++)
		if (!todo || todo[i]) {
			key_early(keys[i].p, j.early + from, keys[i].np, o);
			from += keys[i].np;
		}
	j.step = STEP_CUT;
	run_phase(pexec_worker, &j, nt);
	for (size_t i = 0, from = 0; i < ds->nkeys; i++)
		if (!todo || todo[i]) {
			struct anr_ac ac = { 0, 0 };
			for (size_t q = from; q < from + keys[i].np; q++) {
				ac.phi_sum += j.ac[q].phi_sum;
				ac.pairs += j.ac[q].pairs;
			}
			key_tau(keys[i].p, keys[i].np, &ac, o);
			from += keys[i].np;
		}
	j.step = STEP_REST;
	run_phase(pexec_worker, &j, nt);
	run_phase(key_worker, &j, nt);
	free(j.early);
	free(j.ac);
	free(j.pairs);
}

int an_analyse(const struct dataset *ds, const struct an_opts *o, struct an_result *r, struct kerr *e)
{
	(void)e;
	memset(r, 0, sizeof(*r));
	r->opts = *o;
	r->nkeys = ds->nkeys;
	r->keys = xcalloc(ds->nkeys ? ds->nkeys : 1, sizeof(*r->keys));
	an_analyse_keys(ds, o, NULL, r->keys);
	return 0;
}

void an_result_free(struct an_result *r)
{
	for (size_t i = 0; i < r->nkeys; i++)
		an_key_free(&r->keys[i]);
	free(r->keys);
	memset(r, 0, sizeof(*r));
}

/*
 * The ratio of two keys' steady means: A's and B's bootstrap resample
 * means made as the report makes them (B's with the next seed), B's
 * shuffled (GSL), and each pair one ratio B/A; their median and interval.
 * diff compares experiments with it, kiln bench its commands.
 */
struct an_ratio an_ratio_ci(const struct an_key *a, const struct an_key *b, const struct an_opts *o)
{
	struct an_ratio r = { NAN, NAN, NAN, 0 };
	if (!a->has_steady || !b->has_steady)
		return r;
	struct an_sample sa, sb;
	an_sample_of(a, o, &sa);
	an_sample_of(b, o, &sb);
	size_t ca = an_bootstrap_count(&sa, o->resamples), cb = an_bootstrap_count(&sb, o->resamples);
	double *ma = xmalloc((ca + 1) * sizeof(double)), *mb = xmalloc((cb + 1) * sizeof(double));
	size_t ga = an_bootstrap_means(&sa, o->resamples, o->seed, ma);
	size_t gb = an_bootstrap_means(&sb, o->resamples, o->seed + 1, mb);
	size_t N = ga < gb ? ga : gb;
	if (N) {
		gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(g, (unsigned long)(o->seed + 2));
		gsl_ran_shuffle(g, mb, gb, sizeof(double));
		gsl_rng_free(g);
		int finite = 1;
		for (size_t i = 0; i < N; i++) {
			mb[i] = mb[i] / ma[i];
			finite &= isfinite(mb[i]);
		}
		/* a zero steady time (an empty benchmark) has no ratio */
		if (finite) {
			an_quantiles(mb, N, o->confidence, &r.med, &r.lo, &r.hi);
			r.ok = 1;
		}
	}
	free(ma);
	free(mb);
	an_sample_free(&sa);
	an_sample_free(&sb);
	return r;
}
