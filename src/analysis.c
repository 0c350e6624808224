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
 *                  little and is quadratic, so the candidate loop is an AVX2
 *                  kernel (with a scalar twin giving bit-identical results:
 *                  same operations, no FMA, the same fdlibm-style log);
 *   classification per pexec, then per key;
 *   bootstrap      GSL's mt19937 (seeded by --seed) seeds one fast
 *                  xoshiro256++ stream per pexec, which draws the resample
 *                  indices; order statistics by selection, not sorting;
 *   drivers        an_analyse_key (one key, pure) and an_analyse (threads
 *                  over pexecs, then over keys).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AN_HAVE_AVX2 1
#endif

#include "analysis.h"

/* ---- options ---- */

void an_opts_default(struct an_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window = 200;
	o->delta = 0.001;
	o->steady = 500;
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
					     "--seed", "--confidence", "--threads", NULL };
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
		break;
	case 1: {
		size_t n = strlen(val);
		if (n > 1 && val[n - 1] == '%') {
			char *s = xstrndup(val, n - 1);
			int r = parse_double(s, &d);
			free(s);
			if (r || !(d >= 0))
				goto bad;
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
	if (o->delta_pct > 0)
		sb_addf(out, " delta=%g%%", o->delta_pct);
	else
		sb_addf(out, " delta=%gs", o->delta);
	if (o->steady_pct > 0)
		sb_addf(out, " steady=%g%%", o->steady_pct);
	else
		sb_addf(out, " steady=%ld", o->steady);
	sb_addf(out, " penalty=%g*log(n) outlier=%g*(P90-P10) resamples=%ld seed=%llu confidence=%g",
		o->penalty, o->outlier_k, o->resamples, (unsigned long long)o->seed, o->confidence);
}

void an_opts_hash(const struct an_opts *o, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	/* bump the "v" when the method changes so that caches are invalidated */
	sb_addf(&sb, "kiln-analysis v1 %ld %.17g %.17g %.17g %ld %.17g %.17g %ld %llu %.17g %.17g", o->window,
		o->window_pct, o->delta, o->delta_pct, o->steady, o->steady_pct, o->penalty, o->resamples,
		(unsigned long long)o->seed, o->confidence, o->outlier_k);
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

void an_class_text(const struct an_key *k, struct strbuf *out)
{
	sb_adds(out, an_class_name(k->cls));
	if (k->cls != AN_GOOD_INCONSISTENT && k->cls != AN_BAD_INCONSISTENT)
		return;
	/* counts, most frequent first, as warmup_stats' tables do */
	int order[AN_NPCLASS] = { 0, 1, 2, 3 };
	for (int i = 1; i < AN_NPCLASS; i++)
		for (int j = i; j > 0 && k->counts[order[j]] > k->counts[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	sb_adds(out, " (");
	int first = 1;
	for (int i = 0; i < AN_NPCLASS; i++) {
		if (!k->counts[order[i]])
			continue;
		sb_addf(out, "%s%zu %s", first ? "" : ", ", k->counts[order[i]], an_class_name(order[i]));
		first = 0;
	}
	sb_addc(out, ')');
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

size_t an_outliers(const double *x, size_t n, long w, double k, size_t *out)
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
		double band = k * (an_percentile_sorted(win, wn, 90) - an_percentile_sorted(win, wn, 10));
		if (x[i] > med + band || x[i] < med - band)
			out[nout++] = i;
	}
	free(win);
	return nout;
}

/* ---- the cost and its logarithm ---- */

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
double an_log(double x)
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

double an_seg_cost(double s1, double s2, size_t len)
{
	double L = (double)len;
	double r = 1.0 / L;
	double v = (s2 - s1 * s1 * r) * r;
	if (!(v > AN_VAR_FLOOR))
		v = AN_VAR_FLOOR;
	return L * (AN_LOG2PI_1 + an_log(v));
}

/*
 * The PELT inner loop: out[i] = F(tau_i) + cost(tau_i, t) + pen for every
 * candidate, with the candidates' tau, F and prefix sums in parallel arrays.
 */
static void cand_scalar(size_t k, const double *tau, const double *F, const double *c1, const double *c2,
			double tD, double S1t, double S2t, double pen, double *out)
{
	for (size_t i = 0; i < k; i++) {
		double L = tD - tau[i];
		double r = 1.0 / L;
		double m1 = S1t - c1[i];
		double m2 = S2t - c2[i];
		double v = (m2 - m1 * m1 * r) * r;
		if (!(v > AN_VAR_FLOOR))
			v = AN_VAR_FLOOR;
		double cost = L * (AN_LOG2PI_1 + an_log(v));
		out[i] = F[i] + cost + pen;
	}
}

#ifdef AN_HAVE_AVX2
__attribute__((target("avx2"))) static void cand_avx2(size_t k, const double *tau, const double *F,
						       const double *c1, const double *c2, double tD,
						       double S1t, double S2t, double pen, double *out)
{
	const __m256d vt = _mm256_set1_pd(tD), vs1 = _mm256_set1_pd(S1t), vs2 = _mm256_set1_pd(S2t);
	const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0), half = _mm256_set1_pd(0.5);
	const __m256d floor_ = _mm256_set1_pd(AN_VAR_FLOOR), c = _mm256_set1_pd(AN_LOG2PI_1);
	const __m256d vpen = _mm256_set1_pd(pen), sqrt2 = _mm256_set1_pd(SQRT2);
	const __m256i mant = _mm256_set1_epi64x(0x000fffffffffffffLL);
	const __m256i onebits = _mm256_set1_epi64x(0x3ff0000000000000LL);
	const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
	const __m256d magic_bias = _mm256_set1_pd(4503599627370496.0 + 1023.0); /* 2^52 + 1023 */
	size_t i = 0;
	for (; i + 4 <= k; i += 4) {
		__m256d L = _mm256_sub_pd(vt, _mm256_loadu_pd(tau + i));
		__m256d r = _mm256_div_pd(one, L);
		__m256d m1 = _mm256_sub_pd(vs1, _mm256_loadu_pd(c1 + i));
		__m256d m2 = _mm256_sub_pd(vs2, _mm256_loadu_pd(c2 + i));
		__m256d v = _mm256_mul_pd(_mm256_sub_pd(m2, _mm256_mul_pd(_mm256_mul_pd(m1, m1), r)), r);
		v = _mm256_max_pd(v, floor_); /* NaN in v gives the floor, as in the scalar */
		/* an_log, lane by lane */
		__m256i b = _mm256_castpd_si256(v);
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
		__m256d w = _mm256_mul_pd(z, z);
		__m256d t1 = _mm256_mul_pd(w, _mm256_add_pd(_mm256_set1_pd(LG2),
			_mm256_mul_pd(w, _mm256_add_pd(_mm256_set1_pd(LG4), _mm256_mul_pd(w, _mm256_set1_pd(LG6))))));
		__m256d t2 = _mm256_mul_pd(z, _mm256_add_pd(_mm256_set1_pd(LG1),
			_mm256_mul_pd(w, _mm256_add_pd(_mm256_set1_pd(LG3),
			_mm256_mul_pd(w, _mm256_add_pd(_mm256_set1_pd(LG5), _mm256_mul_pd(w, _mm256_set1_pd(LG7))))))));
		__m256d R = _mm256_add_pd(t2, t1);
		__m256d inner = _mm256_add_pd(_mm256_mul_pd(s, _mm256_add_pd(hfsq, R)),
					      _mm256_mul_pd(kd, _mm256_set1_pd(LN2_LO)));
		__m256d lg = _mm256_sub_pd(_mm256_mul_pd(kd, _mm256_set1_pd(LN2_HI)),
					   _mm256_sub_pd(_mm256_sub_pd(hfsq, inner), f));
		__m256d cost = _mm256_mul_pd(L, _mm256_add_pd(c, lg));
		_mm256_storeu_pd(out + i, _mm256_add_pd(_mm256_add_pd(_mm256_loadu_pd(F + i), cost), vpen));
	}
	cand_scalar(k - i, tau + i, F + i, c1 + i, c2 + i, tD, S1t, S2t, pen, out + i);
}
#endif

typedef void (*cand_fn)(size_t, const double *, const double *, const double *, const double *, double, double,
			double, double, double *);

static cand_fn pick_kernel(void)
{
#ifdef AN_HAVE_AVX2
	if (!getenv("KILN_NO_SIMD") && __builtin_cpu_supports("avx2"))
		return cand_avx2;
#endif
	return cand_scalar;
}

/* prefix sums of x - mean (centring keeps s2 - s1^2/n accurate) */
static void prefix_sums(const double *x, size_t n, double *S1, double *S2)
{
	double mu = 0;
	for (size_t i = 0; i < n; i++)
		mu += x[i];
	mu /= (double)(n ? n : 1);
	S1[0] = S2[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mu;
		S1[i + 1] = S1[i] + d;
		S2[i + 1] = S2[i] + d * d;
	}
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

size_t an_pelt(const double *x, size_t n, double pen, size_t *ends, double *cost)
{
	if (n < 2 * AN_MINSEG) {
		double s1 = 0, s2 = 0, mu = 0;
		for (size_t i = 0; i < n; i++)
			mu += x[i];
		mu /= (double)(n ? n : 1);
		for (size_t i = 0; i < n; i++) {
			s1 += x[i] - mu;
			s2 += (x[i] - mu) * (x[i] - mu);
		}
		*cost = n ? an_seg_cost(s1, s2, n) : 0;
		ends[0] = n;
		return 1;
	}
	static cand_fn kernel;
	if (!kernel)
		kernel = pick_kernel();
	double *S1 = xmalloc((n + 1) * sizeof(double)), *S2 = xmalloc((n + 1) * sizeof(double));
	double *F = xmalloc((n + 1) * sizeof(double));
	size_t *last = xcalloc(n + 1, sizeof(size_t));
	double *ctau = xmalloc(n * sizeof(double)), *cF = xmalloc(n * sizeof(double));
	double *c1 = xmalloc(n * sizeof(double)), *c2 = xmalloc(n * sizeof(double));
	double *tmp = xmalloc(n * sizeof(double));
	size_t *cidx = xmalloc(n * sizeof(size_t));
	prefix_sums(x, n, S1, S2);
	F[0] = -pen;
	for (size_t t = AN_MINSEG; t < 2 * AN_MINSEG; t++) {
		F[t] = F[0] + an_seg_cost(S1[t], S2[t], t) + pen;
		last[t] = 0;
	}
	size_t k = 0;
#define PUSH(tt) do { ctau[k] = (double)(tt); cF[k] = F[tt]; c1[k] = S1[tt]; c2[k] = S2[tt]; cidx[k] = (tt); k++; } while (0)
	PUSH(0);
	PUSH(AN_MINSEG);
	for (size_t t = 2 * AN_MINSEG; t <= n; t++) {
		kernel(k, ctau, cF, c1, c2, (double)t, S1[t], S2[t], pen, tmp);
		double best = tmp[0], worst = tmp[0];
		size_t bi = 0;
		for (size_t i = 1; i < k; i++) {
			if (tmp[i] < best) {
				best = tmp[i];
				bi = i;
			}
			if (tmp[i] > worst)
				worst = tmp[i];
		}
		F[t] = best;
		last[t] = cidx[bi];
		/* prune candidates that can never be optimal again (K = 0) */
		double thr = best + pen;
		if (worst > thr) {
			size_t j = 0;
			for (size_t i = 0; i < k; i++) {
				if (tmp[i] <= thr) {
					ctau[j] = ctau[i];
					cF[j] = cF[i];
					c1[j] = c1[i];
					c2[j] = c2[i];
					cidx[j] = cidx[i];
					j++;
				}
			}
			k = j;
		}
		PUSH(t - AN_MINSEG + 1);
	}
#undef PUSH
	*cost = F[n];
	size_t ns = backtrack(last, n, ends);
	free(S1);
	free(S2);
	free(F);
	free(last);
	free(ctau);
	free(cF);
	free(c1);
	free(c2);
	free(tmp);
	free(cidx);
	return ns;
}

size_t an_op(const double *x, size_t n, double pen, size_t *ends, double *cost)
{
	if (n < 2 * AN_MINSEG)
		return an_pelt(x, n, pen, ends, cost);
	double *S1 = xmalloc((n + 1) * sizeof(double)), *S2 = xmalloc((n + 1) * sizeof(double));
	double *F = xmalloc((n + 1) * sizeof(double));
	size_t *last = xcalloc(n + 1, sizeof(size_t));
	prefix_sums(x, n, S1, S2);
	F[0] = -pen;
	for (size_t t = AN_MINSEG; t <= n; t++) {
		double best = INFINITY;
		size_t bi = 0;
		for (size_t tau = 0; tau + AN_MINSEG <= t; tau = tau ? tau + 1 : AN_MINSEG) {
			double v = F[tau] + an_seg_cost(S1[t] - S1[tau], S2[t] - S2[tau], t - tau) + pen;
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
	free(S1);
	free(S2);
	free(F);
	free(last);
	return ns;
}

/* ---- bootstrap ---- */

/* xoshiro256++ (Blackman and Vigna): the fast stream each pexec resamples with */
struct xo {
	uint64_t s[4];
};

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t xo_next(struct xo *x)
{
	uint64_t *s = x->s;
	uint64_t r = rotl64(s[0] + s[3], 23) + s[0];
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return r;
}

static uint64_t splitmix64(uint64_t *z)
{
	uint64_t r = (*z += 0x9e3779b97f4a7c15ULL);
	r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ULL;
	r = (r ^ (r >> 27)) * 0x94d049bb133111ebULL;
	return r ^ (r >> 31);
}

static void xo_seed(struct xo *x, gsl_rng *g)
{
	uint64_t z = ((uint64_t)gsl_rng_get(g) << 32) ^ (uint64_t)gsl_rng_get(g);
	for (int i = 0; i < 4; i++)
		x->s[i] = splitmix64(&z);
}

/*
 * The mean of one resample (with replacement, same size) of x[0..m).
 * Indices come from 32-bit halves by multiply-shift (bias below m/2^32);
 * four sums keep the FP adds from serialising.
 */
static double resample_mean(const double *x, size_t m, struct xo *st)
{
	double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
	uint64_t mm = m;
	size_t j = 0;
	for (; j + 4 <= m; j += 4) {
		uint64_t r1 = xo_next(st), r2 = xo_next(st);
		a0 += x[((r1 & 0xffffffffULL) * mm) >> 32];
		a1 += x[((r1 >> 32) * mm) >> 32];
		a2 += x[((r2 & 0xffffffffULL) * mm) >> 32];
		a3 += x[((r2 >> 32) * mm) >> 32];
	}
	for (; j < m; j++)
		a0 += x[((xo_next(st) >> 32) * mm) >> 32];
	return ((a0 + a1) + (a2 + a3)) / (double)m;
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

void an_bootstrap(const double *const *segs, const size_t *len, size_t nsegs, long resamples, uint64_t seed,
		  double conf, double *med, double *lo, double *hi)
{
	size_t nz = 0;
	for (size_t i = 0; i < nsegs; i++)
		nz += len[i] > 0;
	if (!nz || resamples < 1) {
		*med = *lo = *hi = NAN;
		return;
	}
	size_t N = (size_t)resamples;
	double *means = xmalloc(N * sizeof(double));
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, (unsigned long)seed);
	size_t base = N / nz, extra = N % nz, at = 0, seen = 0;
	for (size_t i = 0; i < nsegs; i++) {
		if (!len[i])
			continue;
		size_t cnt = base + (seen++ < extra);
		struct xo st;
		xo_seed(&st, g);
		for (size_t r = 0; r < cnt; r++)
			means[at++] = resample_mean(segs[i], len[i], &st);
	}
	gsl_rng_free(g);
	/* libkalibera's indices: floor(excl*N) and ceil((1-excl)*N)-1, rounded first */
	double excl = (1.0 - conf) / 2.0;
	size_t li = (size_t)floor(round(excl * (double)N * 1e6) / 1e6);
	size_t ui = (size_t)ceil(round((1.0 - excl) * (double)N * 1e6) / 1e6);
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
		if (kk < from) { /* equal to an earlier one (tiny N) */
			vals[q] = vals[q - 1];
			continue;
		}
		select_kth(means + from, N - from, kk - from);
		vals[q] = means[kk];
		from = kk;
	}
	*lo = vals[0];
	*med = (vals[1] + vals[2]) / 2.0;
	*hi = vals[3];
	free(means);
}

/* ---- per pexec ---- */

static size_t opt_count(long n, double pct, size_t iters)
{
	if (pct > 0)
		return (size_t)floor((double)iters * pct / 100.0);
	return (size_t)n;
}

static void analyse_pexec(const struct ds_pexec *dp, const struct an_opts *o, struct an_pexec *p)
{
	size_t n = dp->n;
	const double *x = dp->wall;
	p->num = dp->num;
	p->n = n;
	size_t *outl = xmalloc((n ? n : 1) * sizeof(size_t));
	p->noutliers = an_outliers(x, n, (long)opt_count(o->window, o->window_pct, n), o->outlier_k, outl);
	p->outliers = outl;
	/* the series without outliers, and where each value came from */
	double *y = xmalloc((n ? n : 1) * sizeof(double));
	size_t *idx = xmalloc((n ? n : 1) * sizeof(size_t));
	size_t m = 0, oi = 0;
	for (size_t i = 0; i < n; i++) {
		if (oi < p->noutliers && outl[oi] == i) {
			oi++;
			continue;
		}
		y[m] = x[i];
		idx[m++] = i;
	}
	size_t *ends = xmalloc((m ? m : 1) * sizeof(size_t));
	double cost;
	double pen = o->penalty * log((double)(m > 1 ? m : 1));
	size_t ns = an_pelt(y, m, pen, ends, &cost);
	p->segs = xcalloc(ns, sizeof(*p->segs));
	p->nsegs = ns;
	size_t b = 0;
	for (size_t s = 0; s < ns; s++) {
		size_t e = ends[s];
		struct an_segment *sg = &p->segs[s];
		sg->start = s == 0 ? 0 : idx[b - 1] + 1;
		sg->end = s == ns - 1 ? n : idx[e - 1] + 1;
		double mu = 0, v = 0;
		for (size_t i = b; i < e; i++)
			mu += y[i];
		mu /= (double)(e - b);
		for (size_t i = b; i < e; i++)
			v += (y[i] - mu) * (y[i] - mu);
		sg->mean = mu;
		sg->var = v / (double)(e - b);
		b = e;
	}
	/* classification: the last segment is the reference */
	const struct an_segment *ls = &p->segs[ns - 1];
	double delta = o->delta_pct > 0 ? fabs(ls->mean) * o->delta_pct / 100.0 : o->delta;
	double halfw = ls->var > delta ? ls->var : delta;
	double blo = ls->mean - halfw, bhi = ls->mean + halfw;
	long steady = (long)opt_count(o->steady, o->steady_pct, n);
	p->cls = AN_FLAT;
	p->first_steady = ns - 1;
	for (size_t j = ns - 1; j-- > 0;) {
		const struct an_segment *sg = &p->segs[j];
		if (sg->mean + sg->var >= blo && sg->mean - sg->var <= bhi) {
			p->first_steady = j;
			continue;
		}
		if ((long)sg->end > (long)n - steady)
			p->cls = AN_NO_STEADY;
		else if (sg->mean + sg->var < blo)
			p->cls = AN_SLOWDOWN;
		else
			p->cls = AN_WARMUP;
		break;
	}
	if (p->cls == AN_NO_STEADY) {
		p->steady_iter = -1;
		p->time_to_steady = NAN;
		p->steady_mean = NAN;
	} else {
		size_t st = p->segs[p->first_steady].start;
		p->steady_iter = (long)st + 1;
		double t = 0;
		for (size_t i = 0; i < st; i++)
			t += x[i];
		p->time_to_steady = t;
		double sum = 0;
		size_t cnt = 0;
		oi = 0;
		for (size_t i = 0; i < n; i++) {
			while (oi < p->noutliers && outl[oi] < i)
				oi++;
			if (i < st || (oi < p->noutliers && outl[oi] == i))
				continue;
			sum += x[i];
			cnt++;
		}
		p->steady_mean = cnt ? sum / (double)cnt : NAN;
	}
	free(y);
	free(idx);
	free(ends);
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

static struct an_series_sum *series_slot(struct an_key *k, const struct ds_series *s)
{
	for (size_t i = 0; i < k->nseries; i++)
		if (!strcmp(k->series[i].name, s->name))
			return &k->series[i];
	k->series = xrealloc(k->series, (k->nseries + 1) * sizeof(*k->series));
	struct an_series_sum *r = &k->series[k->nseries++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(s->name);
	r->unit = xstrdup(s->unit ? s->unit : "");
	return r;
}

static void key_summarise(struct an_key *k, const struct an_opts *o)
{
	const struct ds_key *dk = k->key;
	for (size_t i = 0; i < k->np; i++)
		k->counts[k->p[i].cls]++;
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
	k->has_steady = k->np > 0 && !k->counts[AN_NO_STEADY];
	k->iter_med = k->iter_p5 = k->iter_p95 = NAN;
	k->tts_med = k->tts_p5 = k->tts_p95 = NAN;
	k->perf_med = k->perf_lo = k->perf_hi = k->perf_ci = NAN;
	if (k->has_steady) {
		double *it = xmalloc(k->np * sizeof(double)), *tt = xmalloc(k->np * sizeof(double));
		for (size_t i = 0; i < k->np; i++) {
			it[i] = (double)k->p[i].steady_iter;
			tt[i] = k->p[i].time_to_steady;
		}
		qsort(it, k->np, sizeof(double), cmp_double);
		qsort(tt, k->np, sizeof(double), cmp_double);
		k->iter_med = an_percentile_sorted(it, k->np, 50);
		k->iter_p5 = an_percentile_sorted(it, k->np, 5);
		k->iter_p95 = an_percentile_sorted(it, k->np, 95);
		k->tts_med = an_percentile_sorted(tt, k->np, 50);
		k->tts_p5 = an_percentile_sorted(tt, k->np, 5);
		k->tts_p95 = an_percentile_sorted(tt, k->np, 95);
		free(it);
		free(tt);
		/* each pexec's steady iterations without outliers, resampled separately */
		double **segs = xcalloc(k->np, sizeof(double *));
		size_t *len = xcalloc(k->np, sizeof(size_t));
		for (size_t i = 0; i < k->np; i++) {
			const struct an_pexec *p = &k->p[i];
			const struct ds_pexec *dp = &dk->pexecs[p->index];
			size_t st = (size_t)p->steady_iter - 1, oi = 0;
			segs[i] = xmalloc((p->n - st + 1) * sizeof(double));
			for (size_t j = 0; j < p->n; j++) {
				while (oi < p->noutliers && p->outliers[oi] < j)
					oi++;
				if (j < st || (oi < p->noutliers && p->outliers[oi] == j))
					continue;
				segs[i][len[i]++] = dp->wall[j];
			}
		}
		an_bootstrap((const double *const *)segs, len, k->np, o->resamples, o->seed, o->confidence,
			     &k->perf_med, &k->perf_lo, &k->perf_hi);
		k->perf_ci = ((k->perf_hi - k->perf_med) + (k->perf_med - k->perf_lo)) / 2.0;
		for (size_t i = 0; i < k->np; i++)
			free(segs[i]);
		free(segs);
		free(len);
	}
	/* instrumentation: mean per iteration before and after the steady state */
	for (size_t i = 0; i < k->np; i++) {
		const struct an_pexec *p = &k->p[i];
		const struct ds_pexec *dp = &dk->pexecs[p->index];
		size_t st = p->steady_iter > 0 ? (size_t)p->steady_iter - 1 : p->n;
		for (size_t s = 0; s < dp->nseries; s++) {
			const struct ds_series *ser = &dp->series[s];
			struct an_series_sum *sum = series_slot(k, ser);
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
	for (size_t s = 0; s < k->nseries; s++) {
		struct an_series_sum *sum = &k->series[s];
		sum->before = sum->nbefore ? sum->before / (double)sum->nbefore : NAN;
		sum->after = sum->nafter ? sum->after / (double)sum->nafter : NAN;
	}
}

void an_analyse_key(const struct ds_key *k, const struct an_opts *o, struct an_key *out)
{
	key_init(k, out);
	for (size_t i = 0; i < out->np; i++)
		analyse_pexec(&k->pexecs[out->p[i].index], o, &out->p[i]);
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
	size_t (*pairs)[2]; /* (key, analysed pexec) */
	size_t npairs;
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
		analyse_pexec(&k->key->pexecs[p->index], j->o, p);
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

int an_analyse(const struct dataset *ds, const struct an_opts *o, struct an_result *r, struct kerr *e)
{
	(void)e;
	memset(r, 0, sizeof(*r));
	r->opts = *o;
	r->nkeys = ds->nkeys;
	r->keys = xcalloc(ds->nkeys ? ds->nkeys : 1, sizeof(*r->keys));
	struct job j;
	memset(&j, 0, sizeof(j));
	j.o = o;
	j.keys = r->keys;
	j.nkeys = ds->nkeys;
	size_t total = 0;
	for (size_t i = 0; i < ds->nkeys; i++) {
		key_init(&ds->keys[i], &r->keys[i]);
		total += r->keys[i].np;
	}
	j.pairs = xmalloc((total ? total : 1) * sizeof(*j.pairs));
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < r->keys[i].np; p++) {
			j.pairs[j.npairs][0] = i;
			j.pairs[j.npairs][1] = p;
			j.npairs++;
		}
	long nt = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (nt < 1)
		nt = 1;
	if (nt > 64)
		nt = 64;
	run_phase(pexec_worker, &j, nt);
	run_phase(key_worker, &j, nt);
	free(j.pairs);
	return 0;
}

void an_result_free(struct an_result *r)
{
	for (size_t i = 0; i < r->nkeys; i++)
		an_key_free(&r->keys[i]);
	free(r->keys);
	memset(r, 0, sizeof(*r));
}
