/*
 * analysis-pelt.c - the changepoint search of the analysis (analysis.c
 * calls it per pexec): PELT with the normal mean-and-variance cost from
 * prefix sums, and plain optimal partitioning (an_op) for the tests.
 *
 * With few changepoints PELT prunes little and is quadratic.  Two things
 * make it fast without changing a single result:
 *  - a tree of bounds over the candidates (see AN_LEAF) skips whole nodes
 *    of candidates that cannot be the minimum, by the cost's
 *    superadditivity: on the series benchmarks give, some 98% of the
 *    candidate values are never computed;
 *  - the candidates left are computed by a vector kernel: AVX2 computes
 *    every value exactly with the same operations as the scalar code (no
 *    FMA, the same fdlibm-style log, bit-identical results); AVX-512
 *    screens with a cheap log and computes exactly only the candidates the
 *    screen cannot decide - the same results again.
 * tests/unit/test_analysis_kernels.c checks all of it against an_op, bit for
 * bit, on every path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"

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

/*
 * What the candidate loop found: the minimum and its first index.  cut is
 * the best value found elsewhere (INFINITY: none): a kernel need not
 * compute exactly the values it can tell are above it.
 */
struct cand_out {
	double min;
	size_t argmin;
	double cut;
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
	}
}

/*
 * The cheap logarithm the AVX-512 kernel screens with and the tree's
 * bounds use: log(1 + x) on [-0.25, 0.5) by Chebyshev-node interpolation,
 * max error 1.7e-6 (an_log_approx is its scalar twin, for the tests).  The
 * kernel takes it to be within AN_SCR_EPS per unit of L, + AN_SCR_ABS.
 */
#define AN_SCR_EPS 1e-5
#define AN_SCR_ABS 1e-6
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
	__m256d vmin = _mm256_set1_pd(INFINITY);
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
		vidx = _mm256_add_pd(vidx, four);
	}
	if (i) {
		double mn[4], bi[4];
		_mm256_storeu_pd(mn, vmin);
		_mm256_storeu_pd(bi, vbest);
		for (int l = 0; l < 4; l++)
			if (mn[l] < co->min || (mn[l] == co->min && (size_t)bi[l] < co->argmin)) {
				co->min = mn[l];
				co->argmin = (size_t)bi[l];
			}
	}
	for (; i < k; i++) { /* the tail, after the vector lanes: later indices, so strictly less */
		double v = cand_value(tau[i], F[i], c1[i], c2[i], a);
		out[i] = v;
		if (v < co->min) {
			co->min = v;
			co->argmin = i;
		}
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
	__m512d vU = _mm512_set1_pd(INFINITY);
	size_t kv = k & ~(size_t)7, i;
	/* pass 1: approximate values, and the smallest upper bound */
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
		vU = _mm512_min_pd(vU, _mm512_add_pd(av, _mm512_fmadd_pd(L, eps, eabs)));
	}
	double U = _mm512_reduce_min_pd(vU);
	for (i = kv; i < k; i++) {
		out[i] = cand_value(tau[i], F[i], c1[i], c2[i], a);
		if (out[i] < U)
			U = out[i];
	}
	/* pass 2: the exact minimum among those that could be it or beat co->cut (ascending: the first on ties) */
	if (co->cut < U)
		U = co->cut;
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
}

/*
 * After cand_avx512 on the same candidates: make every out[i] > thr (the
 * pruning decision) what the exact value says, computing exactly the
 * values the approximation leaves within E of thr.  Returns whether any
 * out[i] > thr.
 */
__attribute__((target("avx512f"))) static int settle_avx512(size_t k, const int32_t *tau, const double *F,
							    const double *c1, const double *c2,
							    const struct cand_at *a, double *out, double thr)
{
	const __m256i vt = _mm256_set1_epi32(a->t);
	const __m512d eps = _mm512_set1_pd(AN_SCR_EPS), eabs = _mm512_set1_pd(AN_SCR_ABS);
	const __m512d vthr = _mm512_set1_pd(thr);
	size_t kv = k & ~(size_t)7, i;
	int above = 0;
	for (i = 0; i < kv; i += 8) {
		__m256i li = _mm256_sub_epi32(vt, _mm256_loadu_si256((const __m256i *)(tau + i)));
		__m512d E = _mm512_fmadd_pd(_mm512_cvtepi32_pd(li), eps, eabs);
		__m512d av = _mm512_loadu_pd(out + i);
		__mmask8 hi = _mm512_cmp_pd_mask(_mm512_add_pd(av, E), vthr, _CMP_GT_OQ);
		__mmask8 mk = hi & _mm512_cmp_pd_mask(_mm512_sub_pd(av, E), vthr, _CMP_LE_OQ);
		above |= hi != mk;
		while (mk) {
			int l = __builtin_ctz(mk);
			mk &= (__mmask8)(mk - 1);
			size_t q = i + (size_t)l;
			out[q] = cand_value(tau[q], F[q], c1[q], c2[q], a);
			above |= out[q] > thr;
		}
	}
	for (i = kv; i < k; i++) /* exact already */
		above |= out[i] > thr;
	return above;
}
#endif

typedef void (*cand_fn)(size_t, const int32_t *, const double *, const double *, const double *,
			const struct cand_at *, double *, struct cand_out *);
/* after a kernel that leaves approximations in out: settle the decisions out[i] > thr (NULL: exact kernels) */
typedef int (*settle_fn)(size_t, const int32_t *, const double *, const double *, const double *,
			 const struct cand_at *, double *, double);

/*
 * The widest vector unit to use: 2 AVX-512, 1 AVX2, 0 scalar.
 * KILN_NO_SIMD=512 stops at AVX2, any other value at scalar (tests compare them).
 */
int an_simd_level(void)
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

static cand_fn pick_kernel(settle_fn *settle)
{
	*settle = NULL;
#ifdef AN_HAVE_AVX2
	switch (an_simd_level()) {
	case 2:
		*settle = settle_avx512;
		return cand_avx512;
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

size_t an_backtrack(const size_t *last, size_t n, size_t *ends)
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

_Static_assert(AN_MINSEG == 2, "an_pelt defers a pruning decision by AN_MINSEG - 1 = one step");

/*
 * Skipping candidates by the thousand, exactly.  With few changepoints
 * PELT prunes almost nothing (on a flat series no candidate ever satisfies
 * its rule), so the search is quadratic; but most candidates are far from
 * being the minimum, by about a penalty, and a bound shows it for a whole
 * node of them at once.  For the normal cost C (log-likelihood at its
 * maximum, variances not floored) splitting a segment never raises its
 * cost: C(tau, t) >= C(tau, b) + C(b, t) for tau < b < t.  So for every
 * candidate tau of a node whose candidates all lie before b,
 *   F(tau) + C(tau, t) + pen >= min over the node of [F(tau) + C(tau, b)] + C(b, t) + pen,
 * where the minimum (dmin) is computed once, when the node fills (b is its
 * last tau + a gap of a quarter of its size: the segments [tau, b) are
 * then long enough for their w to be well above its error bound), and
 * C(b, t) needs one sum of squares SS(b, t), or a lower bound of it, and a
 * lower bound of its log (log_lower).  On a flat series the bound is within
 * a few units of the values, and the penalty (15 log n ~ 114) above the
 * best: nodes of hundreds of candidates are skipped at a time.
 *
 * The nodes form a binary tree over the candidates' positions (leaves of
 * AN_LEAF); at each t the complete nodes that cover the candidates are
 * tried from the root down, a node skipped when its bound is above the
 * best value found so far (so none of its candidates can be the minimum,
 * not even on a tie), leaves not skipped computed by the kernel.  The
 * nodes on the way to the minimum cannot be skipped so, as it is in them;
 * but the minimum is mostly the last one (computed first) and, in each of
 * its nodes, the candidate of the smallest F(tau) + C(tau, b): so a node
 * also keeps the second smallest (dmin2), which bounds the others.  What the
 * computed values differ from exact arithmetic by is bounded: the bound
 * holds only when no segment involved is constant or floored, and when the
 * fast w's error bound (w_unsafe's) is below 1e-6 of every segment's w;
 * then every computed value is within 1.01e-6 L (+ roundings, taken as 1e-9
 * of the terms' sizes) of the exact one, and the bound is lowered by that.
 */
#define AN_LEAF 8

struct pnode {
	double dmin;            /* min of F(tau) + C(tau, b) over the live candidates, lowered; -INF: no bound, INF: all dead */
	double dmin2;           /* the same over all but the one at position pos1, where dmin is */
	size_t pos1;
	double c1abs;           /* max |S1(tau)| over the node */
	int32_t ta, tb, b;      /* first and last tau, split point */
};

struct cands {
	int32_t *tau;
	double *F, *c1, *c2, *out;
	size_t *doomed, ndoomed;        /* the positions doomed at the last step: they die at this one */
	size_t k, n;
	struct pnode *nd[32];   /* nodes by level: level l covers AN_LEAF << l positions */
	int nlev;
	cand_fn kernel;
	settle_fn settle;
	const struct sums *sm;
	const int32_t *rs;
	const double *T;
	/* this step's outcome: the best value and its position, what was computed and what skipped */
	double best;
	size_t bpos;
	size_t (*done)[2];      /* position ranges computed by the kernel */
	size_t ndone, computed; /* and how many candidates were, in all */
	size_t prevpos;         /* the last argmin's position, computed first at this step (k: none) */
	struct skip { int lev; size_t i, except; double lb; } *skip;  /* except: prevpos, or k */
	size_t nskip;
	struct skip *dying;     /* nodes doomed whole at the last step */
	size_t ndying;
};

/*
 * Whether every fast w of the candidates [ta, tb] at t is within 1e-6 of
 * its exact value, given wq <= w(b, t) = Lb SS(b, t): their error bound
 * (w_unsafe's, at the node's worst) below 1e-6 (t - tb) SS(b, t), which is
 * below each exact w.  (B / AN_SAFE is twice the error: a multiplication by
 * its inverse loses nothing that matters.)
 */
#define AN_INV_SAFE (1.0 / AN_SAFE)
static int w_precise(const struct cand_at *a, double c1abs, int32_t ta, int32_t tb, double wq, int32_t Lb)
{
	double Am = a->a1 + c1abs, Lmax = (double)(a->t - ta);
	double em = (Lmax * a->k1 + (fabs(a->S1t) + c1abs) * Am * AN_K2 + Am * Am * AN_K3) * AN_INV_SAFE;
	return em * (double)Lb <= 1e-6 * (double)(a->t - tb) * wq;
}

/* a lower bound of w(b, t) = L SS(b, t) from the fast sums and their error bound (0: none) */
static double w_lower(const struct sums *sm, int32_t b, const struct cand_at *a)
{
	double L = (double)(a->t - b), s1 = sm->h1[b];
	double m1 = a->S1t - s1, m2 = a->S2t - sm->h2[b];
	double A = a->a1 + fabs(s1);
	double eq = (L * a->k1 + fabs(m1) * A * AN_K2 + A * A * AN_K3) * AN_INV_SAFE;
	double w = ((L * m2 - m1 * m1) - eq) * (1 - 1e-12);
	return w > 1e-300 ? w : 0;
}

static struct cand_at at_of(const struct cands *c, int32_t t, double pen)
{
	struct cand_at a = { t, c->rs[t - 1], c->sm->h1[t], c->sm->h2[t], pen, c->T, c->sm, 0, 0 };
	cand_at_screen(&a);
	return a;
}

/* a node's statistics, when its last candidate has come (children first) */
static void node_build(struct cands *c, int lev, size_t i)
{
	size_t size = (size_t)AN_LEAF << lev, p0 = i * size, p1 = p0 + size;
	struct pnode *nd = &c->nd[lev][i];
	nd->ta = c->tau[p0];
	nd->tb = c->tau[p1 - 1];
	nd->b = nd->tb + (int32_t)(size / 4 > 2 ? size / 4 : 2);
	nd->dmin = -INFINITY;
	if (lev) {
		double l = c->nd[lev - 1][2 * i].c1abs, r = c->nd[lev - 1][2 * i + 1].c1abs;
		nd->c1abs = l > r ? l : r;
	} else {
		nd->c1abs = 0;
		for (size_t p = p0; p < p1; p++)
			if (fabs(c->c1[p]) > nd->c1abs)
				nd->c1abs = fabs(c->c1[p]);
	}
	if ((size_t)nd->b + AN_MINSEG > c->n)
		return; /* never usable */
	struct cand_at a = at_of(c, nd->b, 0);
	double wq = w_lower(c->sm, nd->tb, &a);
	if (nd->tb >= a.rs || !(wq > 0) || !w_precise(&a, nd->c1abs, nd->ta, nd->tb, wq, nd->b - nd->tb))
		return;
	struct cand_out co = { INFINITY, 0, INFINITY };
	c->computed += size;
	c->kernel(size, c->tau + p0, c->F + p0, c->c1 + p0, c->c2 + p0, &a, c->out + p0, &co);
	/*
	 * The second smallest from out: values the AVX-512 kernel may have left
	 * approximate, so each lowered by the screen's error E (AN_SCR_EPS)
	 */
	double d2 = INFINITY;
	for (size_t p = p0; p < p1; p++) {
		double v = c->out[p] - ((double)(nd->b - c->tau[p]) * AN_SCR_EPS + AN_SCR_ABS);
		if (p != p0 + co.argmin && v < d2)
			d2 = v;
	}
	double L = (double)(nd->b - nd->ta);
	double low = 1.01e-6 * L + 1e-9 * (fabs(co.min) + fabs(d2 < INFINITY ? d2 : 0) + 800 * L + c->T[nd->b - nd->ta]) + 1e-6;
	nd->dmin = co.min - low;
	nd->dmin2 = d2 - low;
	nd->pos1 = p0 + co.argmin;
}

static void cands_push(struct cands *c, int32_t tau, double F, double s1, double s2)
{
	size_t k = c->k++;
	c->tau[k] = tau;
	c->F[k] = F;
	c->c1[k] = s1;
	c->c2[k] = s2;
	for (int lev = 0; lev < c->nlev && c->k % ((size_t)AN_LEAF << lev) == 0; lev++)
		node_build(c, lev, c->k / ((size_t)AN_LEAF << lev) - 1);
}

/* the kernel on positions [p0, p1); the best (first on ties) into c */
static void eval_range(struct cands *c, size_t p0, size_t p1, const struct cand_at *a)
{
	if (p1 <= p0)
		return;
	struct cand_out co = { INFINITY, 0, c->best };
	c->kernel(p1 - p0, c->tau + p0, c->F + p0, c->c1 + p0, c->c2 + p0, a, c->out + p0, &co);
	size_t pos = p0 + co.argmin;
	if (co.min < c->best || (co.min == c->best && pos < c->bpos)) {
		c->best = co.min;
		c->bpos = pos;
	}
	c->computed += p1 - p0;
	c->done[c->ndone][0] = p0;
	c->done[c->ndone++][1] = p1;
}

/* the node's bound at a->t (-INFINITY: none), refreshing its SS(b, t) when the old one does not exclude it */
/*
 * A lower bound of log(x) for normal x > 0, cheaply: the exponent, and the
 * screening polynomial of the AVX-512 kernel on the mantissa in [0.75,
 * 1.5) (an_log_approx's: error below 1.7e-6), less 1e-5.
 */
static inline double log_lower(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof(b));
	double e = (double)((long)((b >> 52) & 0x7ff) - 1023);
	b = (b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	double m;
	memcpy(&m, &b, sizeof(m));
	if (m >= 1.5) {
		m *= 0.5;
		e += 1.0;
	}
	double y = m - 1.0;
	double p = ((((((SP6 * y + SP5) * y + SP4) * y + SP3) * y + SP2) * y + SP1) * y + SP0);
	return e * 0.69314718055994530942 + p - 1e-5;
}

/*
 * What the node's bound adds at a->t to a lower bound d of its candidates'
 * F(tau) + C(tau, b): C(b, t) + pen, lowered by the errors (see AN_LEAF),
 * but for 1e-9 |d|, which the caller takes off (bound_of).  NAN: no bound.
 */
static double node_add(const struct cands *c, const struct pnode *nd, const struct cand_at *a)
{
	if (!(nd->dmin > -INFINITY) || nd->dmin == INFINITY)
		return NAN;
	if (a->t < nd->b + AN_MINSEG || nd->b >= a->rs)
		return NAN;
	int32_t Lb = a->t - nd->b;
	double wq = w_lower(c->sm, nd->b, a);
	if (!(wq > 0) || !w_precise(a, nd->c1abs, nd->ta, nd->tb, wq, Lb))
		return NAN;
	/* C(b, t) = Lb (log 2pi + 1 + log(w / Lb^2)) = Lb (log 2pi + 1 + log w) - T[Lb] */
	double cl = AN_LOG2PI_1 + log_lower(wq), Lm = (double)(a->t - nd->ta);
	double cb = (double)Lb * cl - a->T[Lb];
	double margin = 1.01e-6 * Lm + 1e-9 * ((double)Lb * fabs(cl) + a->T[Lb] + a->pen + 800 * Lm) + 1e-6;
	return cb + a->pen - margin;
}

static double bound_of(double d, double add)
{
	if (d == INFINITY)
		return INFINITY;
	return isnan(add) || !(d > -INFINITY) ? -INFINITY : d + add - 1e-9 * fabs(d);
}

/*
 * Skip node (lev, i) when its bound is above the best value found; or when
 * its bound without its smallest F(tau) + C(tau, b) (dmin2) is, and that
 * smallest one's candidate is the last argmin, computed first (most often
 * the reason why a node's bound is not above: the minimum is in it).
 */
static void node_search(struct cands *c, int lev, size_t i, const struct cand_at *a)
{
	struct pnode *nd = &c->nd[lev][i];
	double add = node_add(c, nd, a), lb = bound_of(nd->dmin, add);
	size_t except = c->k;
	if (!(lb > c->best) && (nd->pos1 == c->prevpos || c->F[nd->pos1] == INFINITY)) {
		lb = bound_of(nd->dmin2, add);
		except = nd->pos1;
	}
	if (lb > c->best) {
		if (lb < INFINITY) {
			c->skip[c->nskip].lev = lev;
			c->skip[c->nskip].i = i;
			c->skip[c->nskip].except = except;
			c->skip[c->nskip++].lb = lb;
		}
		return;
	}
	if (lev == 0) {
		eval_range(c, i * AN_LEAF, i * AN_LEAF + AN_LEAF, a);
		return;
	}
	node_search(c, lev - 1, 2 * i, a);
	node_search(c, lev - 1, 2 * i + 1, a);
}

/* F(t) and its argmin: the last argmin and the newest candidates first, then the tree */
static void pelt_min(struct cands *c, const struct cand_at *a, int32_t prev)
{
	c->best = INFINITY;
	c->bpos = 0;
	c->ndone = c->nskip = 0;
	size_t lo = 0, hi = c->k;
	while (lo < hi) { /* prev's position */
		size_t mid = lo + (hi - lo) / 2;
		if (c->tau[mid] < prev)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t kl = c->k / AN_LEAF * AN_LEAF;
	c->prevpos = c->k;
	if (lo < kl && c->tau[lo] == prev) {
		c->prevpos = lo;
		struct cand_out co = { INFINITY, 0, INFINITY };
		c->kernel(1, c->tau + lo, c->F + lo, c->c1 + lo, c->c2 + lo, a, c->out + lo, &co);
		c->computed++;
		c->best = co.min;
		c->bpos = lo;
	}
	eval_range(c, kl, c->k, a);
	/* the complete nodes covering [0, kl): kl's binary digits in leaves */
	size_t p = 0;
	for (int lev = c->nlev - 1; lev >= 0; lev--) {
		size_t size = (size_t)AN_LEAF << lev;
		if (p + size <= kl) {
			node_search(c, lev, p / size, a);
			p += size;
		}
	}
}

/*
 * Doom what can never be optimal after the next step (value > thr): the
 * computed candidates by their values, a skipped node's all at once when
 * its bound is above thr, else none of them (keeping a candidate never
 * changes the optimum).  What the last step doomed dies now (F = INFINITY:
 * never a minimum again; a node doomed whole is skipped from now on).
 */
static void pelt_prune(struct cands *c, const struct cand_at *a, double thr)
{
	for (size_t q = 0; q < c->ndying; q++)
		c->nd[c->dying[q].lev][c->dying[q].i].dmin = INFINITY;
	c->ndying = 0;
	for (size_t q = 0; q < c->ndoomed; q++)
		c->F[c->doomed[q]] = INFINITY;
	c->ndoomed = 0;
	for (size_t q = 0; q < c->ndone; q++) {
		size_t p0 = c->done[q][0], p1 = c->done[q][1];
		if (c->settle)
			c->settle(p1 - p0, c->tau + p0, c->F + p0, c->c1 + p0, c->c2 + p0, a, c->out + p0, thr);
		for (size_t p = p0; p < p1; p++)
			if (c->out[p] > thr && c->F[p] < INFINITY)
				c->doomed[c->ndoomed++] = p;
	}
	for (size_t q = 0; q < c->nskip; q++) {
		struct skip *s = &c->skip[q];
		/* the exception, the last argmin, by its value (computed exactly, first) */
		int whole = 1;
		if (s->except < c->k && c->F[s->except] < INFINITY) {
			whole = c->out[s->except] > thr;
			if (whole)
				c->doomed[c->ndoomed++] = s->except;
		}
		if (!(s->lb > thr))
			continue;
		size_t size = (size_t)AN_LEAF << s->lev;
		for (size_t p = s->i * size; p < s->i * size + size; p++)
			if (p != s->except && c->F[p] < INFINITY)
				c->doomed[c->ndoomed++] = p;
		if (whole)
			c->dying[c->ndying++] = *s;
	}
}

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
 * prunes little, so the tree's bounds (AN_LEAF) do most of the skipping.
 */
size_t an_pelt(const double *x, size_t n, double pen, size_t *ends, double *cost)
{
	return an_pelt_counted(x, n, pen, ends, cost, NULL);
}

size_t an_pelt_counted(const double *x, size_t n, double pen, size_t *ends, double *cost, size_t *computed)
{
	if (computed)
		*computed = 0;
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
	static settle_fn settle;
	if (!kernel)
		kernel = pick_kernel(&settle);
	struct sums sm;
	sums_make(x, n, &sm);
	double *F = xmalloc((n + 1) * sizeof(double)), *T = xmalloc((n + 1) * sizeof(double));
	size_t *last = xcalloc(n + 1, sizeof(size_t));
	int32_t *rs = xmalloc(n * sizeof(int32_t));
	struct cands c = { 0 };
	c.n = n;
	c.kernel = kernel;
	c.settle = settle;
	c.sm = &sm;
	c.rs = rs;
	c.T = T;
	c.tau = xmalloc(n * sizeof(int32_t));
	c.F = xmalloc(n * sizeof(double));
	c.c1 = xmalloc(n * sizeof(double));
	c.c2 = xmalloc(n * sizeof(double));
	c.out = xmalloc(n * sizeof(double));
	c.doomed = xmalloc(n * sizeof(size_t));
	size_t nn = 0;
	for (c.nlev = 0; ((size_t)AN_LEAF << c.nlev) <= n; c.nlev++)
		nn += n / ((size_t)AN_LEAF << c.nlev);
	struct pnode *nodes = xcalloc(nn ? nn : 1, sizeof(*nodes));
	for (int l = 0, at = 0; l < c.nlev; l++) {
		c.nd[l] = nodes + at;
		at += (int)(n / ((size_t)AN_LEAF << l));
	}
	c.done = xmalloc((n / AN_LEAF + 2) * sizeof(*c.done));
	c.skip = xmalloc((nn + 1) * sizeof(*c.skip));
	c.dying = xmalloc((nn + 1) * sizeof(*c.dying));
	int prune = !run_starts(x, n, rs);
	T[0] = 0;
	for (size_t L = 1; L <= n; L++)
		T[L] = two_llogl(L);
	F[0] = -pen;
	for (size_t t = AN_MINSEG; t < 2 * AN_MINSEG; t++) {
		struct cand_at at = at_of(&c, (int32_t)t, pen);
		F[t] = cand_value(0, F[0], sm.h1[0], sm.h2[0], &at);
		last[t] = 0;
	}
	cands_push(&c, 0, F[0], sm.h1[0], sm.h2[0]);
	cands_push(&c, AN_MINSEG, F[AN_MINSEG], sm.h1[AN_MINSEG], sm.h2[AN_MINSEG]);
	for (size_t t = 2 * AN_MINSEG; t <= n; t++) {
		struct cand_at at = at_of(&c, (int32_t)t, pen);
		pelt_min(&c, &at, (int32_t)last[t - 1]);
		F[t] = c.best;
		last[t] = (size_t)c.tau[c.bpos];
		if (prune)
			pelt_prune(&c, &at, c.best + pen);
		size_t nt = t - AN_MINSEG + 1;
		cands_push(&c, (int32_t)nt, F[nt], sm.h1[nt], sm.h2[nt]);
	}
	*cost = F[n];
	if (computed)
		*computed = c.computed;
	size_t ns = an_backtrack(last, n, ends);
	sums_free(&sm);
	free(F);
	free(T);
	free(last);
	free(rs);
	free(c.tau);
	free(c.F);
	free(c.c1);
	free(c.c2);
	free(c.out);
	free(c.doomed);
	free(nodes);
	free(c.done);
	free(c.skip);
	free(c.dying);
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
	size_t ns = an_backtrack(last, n, ends);
	sums_free(&sm);
	free(F);
	free(T);
	free(last);
	free(rs);
	return ns;
}
