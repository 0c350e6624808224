/*
 * analysis-bootstrap.c - the steady-state bootstrap of the analysis:
 * GSL's mt19937 (seeded by --seed) seeds eight xoshiro256++ lanes per
 * pexec.  A long segment's resample sum is drawn near-exactly (see
 * AN_NEAR_MIN: its far values' counts exactly, its core's sum from its
 * first four cumulants); a short one's value by value, the lanes drawing
 * the indices (AVX-512, AVX2 or scalar: the same numbers).  Order
 * statistics by selection, not sorting.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "analysis-int.h"

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

static void xo8_seed(struct xo8 *x, gsl_rng *g, uint64_t extra)
{
	uint64_t z = (((uint64_t)gsl_rng_get(g) << 32) ^ (uint64_t)gsl_rng_get(g)) ^ extra;
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
	switch (an_simd_level()) {
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

void an_select_kth(double *a, size_t n, size_t k)
{
	select_kth(a, n, k);
}

size_t an_bootstrap_count(const struct an_sample *s, long resamples)
{
	if (!s->ngroups || resamples < 1)
		return 0;
	return s->ngroups * ((size_t)resamples / s->ngroups + 1);
}

/*
 * Near-exact resample means.  A resample of m values of a segment is m
 * draws with replacement; its sum is what the bootstrap needs.  Drawing
 * every value costs m random indices per resample; instead, split the
 * segment's values into a core and a few far values (outside the quartiles
 * by 3 interquartile ranges: a spike, or the value of another level that
 * warmup_stats' segment starts with).  The number of draws that land on far
 * values is Binomial(m, T/m), drawn exactly, and so is which far values they
 * are; the sum of the m' draws left, from the core, is drawn from its
 * Cornish-Fisher expansion with the core's exact first four cumulants
 * (m' times one draw's), whose error in a quantile is O(1/m'^1.5) of the
 * spread.  A segment shorter than AN_NEAR_MIN, with more than AN_NEAR_FAR
 * far values, or whose core is too skewed or heavy-tailed for the
 * expansion (|skew| > 0.1, |excess kurtosis| > 0.1 at m'), is resampled
 * value by value.  bench/analysis measures the agreement with the exact
 * bootstrap against the exact one's own spread from seed to seed.
 */
#define AN_NEAR_MIN 200
#define AN_NEAR_FAR 32

struct seg_model {
	int exact;              /* resample this segment value by value */
	size_t m, nfar;
	double far[AN_NEAR_FAR];
	double p0;              /* (1 - nfar/m)^m: no draw on a far value */
	double mu, sd, g1, g2;  /* one core draw's mean, standard deviation, skewness, excess kurtosis */
};

static void seg_model_make(const double *x, size_t m, struct seg_model *sm)
{
	memset(sm, 0, sizeof(*sm));
	sm->m = m;
	sm->exact = 1;
	if (m < AN_NEAR_MIN)
		return;
	double *v = xmalloc(m * sizeof(double));
	memcpy(v, x, m * sizeof(double));
	size_t i1 = (m - 1) / 4, i3 = 3 * (m - 1) / 4;
	select_kth(v, m, i1);
	double q1 = v[i1];
	select_kth(v + i1, m - i1, i3 - i1);
	double q3 = v[i3], lo = q1 - 3 * (q3 - q1), hi = q3 + 3 * (q3 - q1);
	free(v);
	double sum = 0;
	size_t nc = 0;
	for (size_t i = 0; i < m; i++) {
		if (x[i] < lo || x[i] > hi) {
			if (sm->nfar == AN_NEAR_FAR)
				return;
			sm->far[sm->nfar++] = x[i];
		} else {
			sum += x[i];
			nc++;
		}
	}
	double mu = sum / (double)nc, m2 = 0, m3 = 0, m4 = 0;
	for (size_t i = 0; i < m; i++)
		if (x[i] >= lo && x[i] <= hi) {
			double d = x[i] - mu, d2 = d * d;
			m2 += d2;
			m3 += d2 * d;
			m4 += d2 * d2;
		}
	m2 /= (double)nc;
	m3 /= (double)nc;
	m4 /= (double)nc;
	sm->mu = mu;
	sm->sd = sqrt(m2);
	if (m2 > 0) {
		sm->g1 = m3 / (m2 * sm->sd);
		sm->g2 = m4 / (m2 * m2) - 3;
	}
	double mc = (double)(m - 2 * sm->nfar) - 10; /* the fewest core draws that matter */
	if (mc < AN_NEAR_MIN / 2 || fabs(sm->g1) > 0.1 * sqrt(mc) || fabs(sm->g2) > 0.1 * mc)
		return;
	double q = 1 - (double)sm->nfar / (double)m, p0 = 1;
	for (size_t e = m; e; e >>= 1, q *= q) /* q^m by squaring: the same bits everywhere */
		if (e & 1)
			p0 *= q;
	sm->p0 = p0;
	sm->exact = 0;
}

/* the next 64 bits of lane 0 of st (the near-exact draws use one stream) */
static inline uint64_t xo1_next(struct xo8 *x)
{
	uint64_t *s0 = &x->s[0][0], *s1 = &x->s[1][0], *s2 = &x->s[2][0], *s3 = &x->s[3][0];
	uint64_t r = rotl64(*s0 + *s3, 23) + *s0, t = *s1 << 17;
	*s2 ^= *s0;
	*s3 ^= *s1;
	*s1 ^= *s2;
	*s0 ^= *s3;
	*s2 ^= t;
	*s3 = rotl64(*s3, 45);
	return r;
}

static inline double xo1_unit(struct xo8 *x) /* in [0, 1) */
{
	return (double)(xo1_next(x) >> 11) * 0x1p-53;
}

/* a standard normal (Marsaglia's polar method, with an_log: the same bits on every machine) */
static double std_normal(struct xo8 *x)
{
	for (;;) {
		double u = 2 * xo1_unit(x) - 1, v = 2 * xo1_unit(x) - 1, s = u * u + v * v;
		if (s > 0 && s < 1)
			return u * sqrt(-2 * an_log(s) / s);
	}
}

/* the sum of one resample of the segment sm models */
static double near_sum(const struct seg_model *sm, struct xo8 *x)
{
	size_t nf = 0;
	double sum = 0;
	if (sm->nfar) { /* Binomial(m, nfar/m) by inversion */
		double p = (double)sm->nfar / (double)sm->m, r = p / (1 - p);
		double u = xo1_unit(x), pk = sm->p0, cdf = pk;
		while (u >= cdf && nf < sm->m) {
			pk *= (double)(sm->m - nf) / (double)(nf + 1) * r;
			nf++;
			cdf += pk;
		}
		for (size_t j = 0; j < nf; j++)
			sum += sm->far[((xo1_next(x) >> 32) * sm->nfar) >> 32];
	}
	size_t mc = sm->m - nf;
	if (!mc)
		return sum;
	double dm = (double)mc, sq = sqrt(dm);
	if (!(sm->sd > 0))
		return sum + dm * sm->mu;
	double z = std_normal(x), z2 = z * z, G1 = sm->g1 / sq, G2 = sm->g2 / dm;
	double w = z + G1 * (z2 - 1) / 6 + G2 * z * (z2 - 3) / 24 - G1 * G1 * z * (2 * z2 - 5) / 36;
	return sum + dm * sm->mu + sq * sm->sd * w;
}

/*
 * warmup_stats' bootstrap: floor(N / groups) + 1 resamples per group (so
 * at least N in all), each the mean of its segments resampled one by one
 * (each as many draws, with replacement, as it has values) and put
 * together.  Every group has its own streams, seeded from --seed.
 */
size_t an_bootstrap_means_how(const struct an_sample *s, long resamples, uint64_t seed, double *means, int exact)
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
	/*
	 * GSL's mt19937 keeps the seed's low 32 bits and takes 0 as 4357: what
	 * it drops goes into the streams' seeds, so that every --seed gives
	 * streams of its own (0 and 4357, 1 and 2^32 + 1 gave the same); 0 for
	 * the seeds it keeps whole, whose resamples stay what they were
	 */
	uint64_t extra = (seed >> 32) | ((seed & 0xffffffffULL) == 0 ? 1ULL << 63 : 0);
	struct seg_model *sm = NULL;
	for (size_t gi = 0; gi < s->ngroups; gi++) {
		size_t from = gi ? s->group_end[gi - 1] : 0, to = s->group_end[gi], total = 0;
		for (size_t q = from; q < to; q++)
			total += s->len[q];
		struct xo8 st;
		xo8_seed(&st, g, extra);
		if (!total)
			continue;
		sm = xrealloc(sm, (to - from) * sizeof(*sm));
		for (size_t q = from; q < to; q++) {
			seg_model_make(s->seg[q], s->len[q], &sm[q - from]);
			sm[q - from].exact |= exact;
		}
		for (size_t r = 0; r < per; r++) {
			double sum = 0;
			for (size_t q = from; q < to; q++) {
				if (!s->len[q])
					continue;
				if (sm[q - from].exact)
					sum += resample(s->seg[q], s->len[q], &st) * (double)s->len[q];
				else
					sum += near_sum(&sm[q - from], &st);
			}
			means[at++] = sum / (double)total;
		}
	}
	free(sm);
	gsl_rng_free(g);
	return at;
}

size_t an_bootstrap_means(const struct an_sample *s, long resamples, uint64_t seed, double *means)
{
	return an_bootstrap_means_how(s, resamples, seed, means, 0);
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
