/*
 * stats-mean.c - the interval of a mean, the median's distribution-free
 * interval, and the tests on a sample's shape that say when the mean is the
 * wrong question (stats.h; docs/statistics.md has the methods, their
 * references and their measured coverage).
 *
 * The interval is the union of two: Student's t interval, exact for normal
 * values, and Hall's (1992) interval from the t statistic with its
 * skewness removed by a monotone cubic transformation.  On skewed values
 * (benchmark times are: a run can be slowed by much more than it can be
 * sped up) the t interval misses on one side, mostly when the sample lacked
 * its slow values; Hall's moves that side out.  At small n the sample's
 * skewness is mostly noise and Hall's interval alone can be narrower than
 * t's on the other side: the union keeps t's coverage there.  No random
 * numbers: the same values give the same interval everywhere.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats.h"
#include "util.h"

double ks_tquantile(double p, double df)
{
	if (!(df >= 1))
		df = 1;
	if (df > 1e7)
		return gsl_cdf_ugaussian_Pinv(p);
	return gsl_cdf_tdist_Pinv(p, df);
}

/*
 * Hall's inverse transformation: the value t with g(t) = v for
 * g(t) = t + a t^2 / 3 + a^2 t^3 / 27 + a / 6 = ((1 + a t / 3)^3 - 1) / a + a / 6,
 * a the skewness of the estimator (the sample's over sqrt n).  g is
 * monotone, so its inverse is a cube root.
 */
double ks_hall_inv(double v, double a)
{
	if (fabs(a) < 1e-12)
		return v;
	return 3.0 / a * (cbrt(1.0 + a * (v - a / 6.0)) - 1.0);
}

/* p-th quantile (0..1) of sorted s[0..n) by linear interpolation at (n - 1) p */
static double quantile_sorted(const double *s, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t i = (size_t)floor(h);
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

void ks_median_ci(const double *s, size_t n, double conf, double *lo, double *hi, double *cover)
{
	*lo = *hi = *cover = NAN;
	if (!n)
		return;
	/* the largest k with P(s[k] <= median <= s[n-1-k]) = 1 - 2 P(Bin(n, 1/2) <= k - 1) >= conf */
	size_t k = 0;
	double cov = 1.0 - 2.0 * pow(0.5, (double)n); /* k = 0: [min, max] */
	if (n == 1)
		cov = 0;
	while (n >= 2 && k + 1 <= n - 2 - k) {
		/* the coverage of (s[k+1], s[n-2-k]) */
		double c = 1.0 - 2.0 * gsl_cdf_binomial_P((unsigned)(k + 1), 0.5, (unsigned)n);
		if (c < conf)
			break;
		k++;
		cov = c;
	}
	*lo = s[k];
	*hi = s[n - 1 - k];
	*cover = cov;
}

/* ---- the shape tests ---- */

/* D'Agostino's (1970) test of skewness: its z from the sample's sqrt(b1) (n >= 8) */
static double skew_z(double g1, size_t nn)
{
	double n = (double)nn;
	double y = g1 * sqrt((n + 1) * (n + 3) / (6 * (n - 2)));
	double b2 = 3 * (n * n + 27 * n - 70) * (n + 1) * (n + 3) / ((n - 2) * (n + 5) * (n + 7) * (n + 9));
	double w2 = -1 + sqrt(2 * (b2 - 1));
	double delta = 1 / sqrt(0.5 * log(w2));
	double alpha = sqrt(2 / (w2 - 1));
	double ya = y / alpha;
	return delta * log(ya + sqrt(ya * ya + 1));
}

/* Anscombe and Glynn's (1983) test of kurtosis: its z from the sample's b2 (n >= 8) */
static double kurt_z(double b2, size_t nn)
{
	double n = (double)nn;
	double e = 3 * (n - 1) / (n + 1);
	double v = 24 * n * (n - 2) * (n - 3) / ((n + 1) * (n + 1) * (n + 3) * (n + 5));
	double x = (b2 - e) / sqrt(v);
	double sb1 = 6 * (n * n - 5 * n + 2) / ((n + 7) * (n + 9)) * sqrt(6 * (n + 3) * (n + 5) / (n * (n - 2) * (n - 3)));
	double a = 6 + 8 / sb1 * (2 / sb1 + sqrt(1 + 4 / (sb1 * sb1)));
	double t = (1 - 2 / a) / (1 + x * sqrt(2 / (a - 4)));
	double c = 1 - 2 / (9 * a);
	double cr = t > 0 ? cbrt(t) : -cbrt(-t);
	return (c - cr) / sqrt(2 / (9 * a));
}

/*
 * The levels of the shape tests: skewness (what the mean's interval
 * depends on) at 1% two-sided, the others at 0.5%, so that all of them
 * together flag about 1% of normal samples (docs/statistics.md has the
 * rates)
 */
#define SKEW_Z 2.5758293035489004 /* two-sided 1% */
#define SHAPE_Z1 2.5758293035489004 /* one-sided 0.5% */
/* the fewest values the tests are made on */
#define SHAPE_MIN_N 8

/*
 * A second mode: on the values' logarithms (times are skewed; on a log
 * scale a unimodal skewed sample looks symmetric), for each split of the
 * sorted values into a lower and an upper group of at least max(2, n/50)
 * values, the gap between the groups against their pooled standard
 * deviation.  A gap of MODE_GAP or more such deviations is a mode apart:
 * fewer than 1% of samples of ten unimodal shapes (normal to Pareto
 * alpha 2.2, n = 8 to 1000) show one (docs/statistics.md); a slow mode
 * 20% apart with 1% noise is 18 deviations away.
 */
#define MODE_GAP 10.0
static int second_mode(const double *s, size_t n)
{
	if (n < SHAPE_MIN_N || !(s[0] > 0))
		return 0;
	double *y = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		y[i] = log(s[i]);
	/* prefix sums for the groups' variances (about a middle value: no cancellation) */
	double *c1 = xmalloc((n + 1) * sizeof(double)), *c2 = xmalloc((n + 1) * sizeof(double));
	c1[0] = c2[0] = 0;
	double y0 = y[n / 2];
	for (size_t i = 0; i < n; i++) {
		c1[i + 1] = c1[i] + (y[i] - y0);
		c2[i + 1] = c2[i] + (y[i] - y0) * (y[i] - y0);
	}
	size_t mg = n / 50 > 2 ? n / 50 : 2;
	int found = 0;
	for (size_t k = mg; k + mg <= n && !found; k++) {
		/* lower group [0, k), upper [k, n) */
		double gap = y[k] - y[k - 1];
		if (!(gap > 0))
			continue;
		double s1 = c1[k], q1 = c2[k], s2 = c1[n] - c1[k], q2 = c2[n] - c2[k];
		double ss = (q1 - s1 * s1 / (double)k) + (q2 - s2 * s2 / (double)(n - k));
		double sd = sqrt(fmax(ss, 0) / (double)(n - 2));
		if (gap >= MODE_GAP * sd)
			found = 1;
	}
	free(y);
	free(c1);
	free(c2);
	return found;
}

/*
 * Outliers: Rosner's (1983) generalized extreme Studentized deviate test
 * at 0.5%, for up to (n - 1) / 3 of them, on sorted s[0..n): the extremes
 * are taken off one at a time, each time the one farthest from the mean of
 * what is left, and the largest i whose deviation exceeds its critical
 * value lambda_i says how many there are.  Exact for normal samples (1% of
 * them show any; a little more below n = 25), no tuning; a stall of 40x in 30 runs is found at once.
 */
#define ESD_ALPHA 0.005
static size_t outliers(const double *s, size_t n)
{
	size_t r = (n - 1) / 3, lo = 0, hi = n, found = 0;
	double sum = 0, sq = 0, c = s[n / 2];
	for (size_t i = 0; i < n; i++) {
		sum += s[i] - c;
		sq += (s[i] - c) * (s[i] - c);
	}
	for (size_t i = 1; i <= r; i++) {
		double m = (double)(hi - lo), mean = sum / m, var = (sq - sum * sum / m) / (m - 1);
		if (!(var > 0))
			break;
		/* the farther of the two ends */
		double dl = mean - (s[lo] - c), dh = (s[hi - 1] - c) - mean;
		double x = dh >= dl ? s[--hi] - c : s[lo++] - c;
		double R = fmax(dl, dh) / sqrt(var);
		double nn = (double)n, ii = (double)i;
		double p = 1 - ESD_ALPHA / (2 * (nn - ii + 1));
		double t = ks_tquantile(p, nn - ii - 1);
		double lambda = (nn - ii) * t / sqrt((nn - ii - 1 + t * t) * (nn - ii + 1));
		if (R > lambda)
			found = i;
		sum -= x;
		sq -= x * x;
	}
	return found;
}

/* all values equal, within rounding: no spread */
static int constant(double sd, double mean)
{
	return !(sd > 1e-12 * fabs(mean)) || !(sd > 0);
}

void ks_mean(const double *x, size_t n, double conf, struct ks_mean *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->mean = out->sd = out->se = out->lo = out->hi = out->df = NAN;
	out->skew = out->kurt = out->median = out->med_lo = out->med_hi = out->med_conf = NAN;
	out->unseen = n ? 1.0 - pow(1.0 - conf, 1.0 / (double)n) : 1;
	if (!n)
		return;
	double *s = xmalloc(n * sizeof(double));
	memcpy(s, x, n * sizeof(double));
	sort_doubles(s, n);
	/* sums about the median: no cancellation when the spread is tiny against the level */
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	double m = sum / (double)n, m2 = 0, m3 = 0, m4 = 0;
	for (size_t i = 0; i < n; i++) {
		double d = s[i] - m, d2 = d * d;
		m2 += d2;
		m3 += d2 * d;
		m4 += d2 * d2;
	}
	out->mean = m;
	out->median = quantile_sorted(s, n, 0.5);
	ks_median_ci(s, n, conf, &out->med_lo, &out->med_hi, &out->med_conf);
	if (n < SHAPE_MIN_N)
		out->shape |= KS_FEW;
	if (n < 2) {
		free(s);
		return;
	}
	double nn = (double)n;
	out->sd = sqrt(m2 / (nn - 1));
	out->se = out->sd / sqrt(nn);
	out->df = nn - 1;
	m2 /= nn;
	m3 /= nn;
	m4 /= nn;
	if (constant(out->sd, m)) {
		out->shape |= KS_CONSTANT;
		out->lo = out->hi = m;
		free(s);
		return;
	}
	double g1 = m3 / pow(m2, 1.5), b2 = m4 / (m2 * m2);
	if (n >= 3)
		out->skew = g1 * sqrt(nn * (nn - 1)) / (nn - 2);
	if (n >= 4)
		out->kurt = ((nn + 1) * (b2 - 3) + 6) * (nn - 1) / ((nn - 2) * (nn - 3));
	/*
	 * The interval: t, and Hall's skew-corrected t, their union.  Below
	 * SHAPE_MIN_N values the sample's skewness is noise and the t quantile
	 * huge, which Hall's cubic turns into bounds far off: t alone (KS_FEW
	 * says the shape could not be checked).  Times are never negative: nor
	 * is the bound of their mean.
	 */
	double q = ks_tquantile(1 - (1 - conf) / 2, out->df);
	out->lo = m - q * out->se;
	out->hi = m + q * out->se;
	if (n >= SHAPE_MIN_N) {
		double a = g1 / sqrt(nn);
		out->lo = fmin(out->lo, m - out->se * ks_hall_inv(q, a));
		out->hi = fmax(out->hi, m - out->se * ks_hall_inv(-q, a));
	}
	if (s[0] >= 0 && out->lo < 0)
		out->lo = 0;
	/* the shape */
	if (n >= SHAPE_MIN_N) {
		if (fabs(skew_z(g1, n)) > SKEW_Z && nn < 25 * out->skew * out->skew)
			out->shape |= KS_SKEWED;
		if (kurt_z(b2, n) > SHAPE_Z1)
			out->shape |= KS_HEAVY;
		if (second_mode(s, n))
			out->shape |= KS_MODES;
	}
	if (n >= SHAPE_MIN_N) {
		out->noutliers = outliers(s, n);
		if (out->noutliers)
			out->shape |= KS_OUTLIERS;
	}
	free(s);
}

/*
 * The integrated autocorrelation time of x[0..n): 1 + 2 sum of the
 * autocorrelations, by Geyer's (1992) initial monotone sequence (pairs of
 * lags summed while positive and not rising), lags up to MAX_LAG.  1 for
 * independent values; about (1 + phi) / (1 - phi) for AR(1) noise.
 */
#define MAX_LAG 4096
static double iact(const double *x, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	double g0 = 0;
	for (size_t i = 0; i < n; i++)
		g0 += (x[i] - m) * (x[i] - m);
	if (!(g0 > 0))
		return 1;
	double sum = 0, prev = INFINITY;
	size_t maxlag = n / 4 < MAX_LAG ? n / 4 : MAX_LAG;
	for (size_t k = 0; 2 * k + 1 <= maxlag; k++) {
		double pair = 0;
		for (size_t lag = 2 * k; lag <= 2 * k + 1; lag++) {
			double g = 0;
			for (size_t i = lag; i < n; i++)
				g += (x[i] - m) * (x[i - lag] - m);
			pair += g / g0;
		}
		if (!(pair > 0))
			break;
		if (pair > prev)
			pair = prev;
		sum += pair;
		prev = pair;
	}
	double tau = 2 * sum - 1;
	return tau > 1 ? tau : 1;
}

/*
 * Batch means: batches BATCH_TAUS integrated autocorrelation times long
 * (their means are then nearly independent: adjacent ones correlate by
 * about 1/(2 BATCH_TAUS)), at most MAX_BATCHES of them and at least
 * MIN_BATCHES; values left over are taken off the front.
 */
#define BATCH_TAUS 10
#define MAX_BATCHES 32
#define MIN_BATCHES 4
size_t ks_batch_means(const double *x, size_t n, double *out)
{
	if (n < 2 * MAX_BATCHES) {
		memcpy(out, x, n * sizeof(double));
		return n;
	}
	double want = (double)n / (BATCH_TAUS * iact(x, n));
	size_t b = want >= MAX_BATCHES ? MAX_BATCHES : want <= MIN_BATCHES ? MIN_BATCHES : (size_t)want;
	size_t len = n / b, skip = n - len * b;
	for (size_t i = 0; i < b; i++) {
		double s = 0;
		for (size_t j = 0; j < len; j++)
			s += x[skip + i * len + j];
		out[i] = s / (double)len;
	}
	return b;
}

void ks_mean_series(const double *x, size_t n, double conf, struct ks_mean *out)
{
	double *bm = xmalloc((n ? n : 1) * sizeof(double));
	size_t b = ks_batch_means(x, n, bm);
	ks_mean(bm, b, conf, out);
	if (b && b < n) {
		double sum = 0, bsum = 0;
		for (size_t i = 0; i < n; i++)
			sum += x[i];
		for (size_t i = 0; i < b; i++)
			bsum += bm[i];
		/* centred on the whole series' mean */
		double shift = sum / (double)n - bsum / (double)b;
		out->mean += shift;
		out->lo += shift;
		out->hi += shift;
	}
	out->shape |= KS_WITHIN;
	free(bm);
}

const char *ks_shape_name(unsigned bit)
{
	switch (bit) {
	case KS_SKEWED: return "skewed";
	case KS_HEAVY: return "heavy-tailed";
	case KS_MODES: return "bimodal";
	case KS_OUTLIERS: return "outliers";
	case KS_CONSTANT: return "constant";
	case KS_FEW: return "few";
	case KS_WITHIN: return "within-process";
	}
	return "?";
}

void ks_shape_words(unsigned shape, const char *sep, struct strbuf *out)
{
	int first = 1;
	for (int i = 0; i < KS_NSHAPES; i++)
		if (shape & (1u << i)) {
			if (!first)
				sb_adds(out, sep);
			sb_adds(out, ks_shape_name(1u << i));
			first = 0;
		}
}

static void fmt_g(struct strbuf *sb, double v)
{
	sb_addf(sb, "%g", v);
}

void ks_shape_text(const struct ks_mean *m, void (*fmt_value)(struct strbuf *, double), struct strbuf *out)
{
	if (!fmt_value)
		fmt_value = fmt_g;
	unsigned sh = m->shape;
	size_t start = out->len; /* out may hold a line's start ("Warning: "): a separator only after our own text */
	struct strbuf what = STRBUF_INIT;
	if (sh & KS_MODES)
		sb_adds(&what, "a second mode");
	if (sh & KS_OUTLIERS) {
		if (what.len)
			sb_adds(&what, ", ");
		sb_addf(&what, "%zu outlier%s of %zu", m->noutliers, m->noutliers == 1 ? "" : "s", m->n);
	}
	if (sh & KS_SKEWED) {
		if (what.len)
			sb_adds(&what, ", ");
		sb_addf(&what, "skewed (G1 %.2g)", m->skew);
	}
	if (sh & KS_HEAVY) {
		if (what.len)
			sb_adds(&what, ", ");
		sb_addf(&what, "heavy tails (G2 %.2g)", m->kurt);
	}
	if (what.len) {
		sb_addf(out, "%s: the mean is pulled by a few values and its interval may cover less than it says; median ",
			what.buf);
		fmt_value(out, m->median);
		if (isfinite(m->med_lo)) {
			sb_adds(out, " (");
			fmt_value(out, m->med_lo);
			sb_adds(out, "–");
			fmt_value(out, m->med_hi);
			sb_addf(out, ", %.3g%%)", m->med_conf * 100);
		}
	}
	if (sh & KS_CONSTANT) {
		if (out->len > start)
			sb_adds(out, "; ");
		sb_addf(out, "all %zu values equal: nothing is known of what did not occur", m->n);
	}
	if (sh & KS_FEW) {
		if (out->len > start)
			sb_adds(out, "; ");
		if (m->n < 2)
			sb_adds(out, "1 value: no interval (one has no spread to measure)");
		else
			sb_addf(out, "%zu values: too few to check their shape; the interval assumes they are not skewed",
				m->n);
	}
	if (sh & KS_WITHIN) {
		if (out->len > start)
			sb_adds(out, "; ");
		sb_adds(out, "one pexec: the interval covers within-process noise only, not the variation between processes");
	}
	sb_release(&what);
}
