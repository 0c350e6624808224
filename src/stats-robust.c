/*
 * stats-robust.c - Huber's and Tukey's biweight M-estimates of location
 * (stats-robust.h).
 *
 * The estimate m solves sum psi((x_i - m) / s) = 0 with psi(u) = clamp(u,
 * -k, k) and s = 1.4826 MAD (consistent for the normal sd), i.e. m is the
 * mean of the values clamped to [m - ks, m + ks]; iterated from the median.
 * Its asymptotic variance is s^2 E[psi^2] / E[psi']^2 / n (Huber 1964;
 * Huber & Ronchetti, Robust Statistics, 2009, ch. 3): E[psi^2] from the
 * clamped deviations (n - 1 in the denominator), E[psi'] the share of
 * values inside the clamp. For symmetric noise (an A/B round's log ratio is
 * the difference of two like pexecs' deviations, so symmetric whatever
 * their law) it estimates the same shift as the mean does.
 */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "stats-robust.h"
#include "util.h"

static void plain(const double *x, size_t n, double *m, double *sd)
{
	double s = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	*m = s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - *m) * (x[i] - *m);
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

/* the median and 1.4826 MAD, the normal sd's consistent robust estimate */
static double mad_scale(const double *x, size_t n, double *med)
{
	*med = an_percentile(x, n, 50);
	double *t = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		t[i] = fabs(x[i] - *med);
	double s = 1.4826 * an_percentile(t, n, 50);
	free(t);
	return s;
}

int robust_huber(const double *x, size_t n, double k, double *m, double *sd, double *df)
{
	*m = *sd = NAN;
	if (df)
		*df = n > 1 ? (double)n - 1 : NAN;
	if (n < 1)
		return -1;
	if (n < 3 || !(k > 0)) {
		plain(x, n, m, sd);
		return 0;
	}
	double med, s = mad_scale(x, n, &med);
	if (!(s > 0)) {
		plain(x, n, m, sd);
		return 0;
	}
	double c = k * s, mu = med;
	/* the fixed point: each pass moves mu by at most c; 50 passes reach 1e-9 s for any sample seen */
	for (int it = 0; it < 50; it++) {
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += fmin(fmax(x[i], mu - c), mu + c);
		double next = sum / (double)n;
		int done = fabs(next - mu) <= 1e-9 * s;
		mu = next;
		if (done)
			break;
	}
	double ss = 0;
	size_t inside = 0;
	for (size_t i = 0; i < n; i++) {
		double u = fmin(fmax(x[i] - mu, -c), c);
		ss += u * u;
		inside += fabs(x[i] - mu) < c;
	}
	/* at least one value inside: the share cannot be 0 when mu is the mean of the clamped values */
	double share = (double)(inside ? inside : 1) / (double)n;
	*m = mu;
	/* Huber's small-sample correction of the sandwich, K = 1 + (1 - share) / (n share) (Huber & Ronchetti 2009, 7.6) */
	double K = 1 + (1 - share) / ((double)n * share);
	*sd = K * sqrt(ss / (double)(n - 1)) / share;
	/* the values the clamp left alone carry the information, as the untrimmed ones do in Yuen's trimmed t */
	if (df)
		*df = inside > 1 ? (double)inside - 1 : 1;
	return 0;
}

/*
 * Tukey's biweight: psi(r) = r (1 - (r/c)^2)^2 inside |r| < c, 0 outside,
 * c = k s with s = 1.4826 MAD; solved by iteratively reweighted means
 * from the median (weights (1 - (r/c)^2)^2), the scale held fixed, so the
 * root found is the one nearest the median (Hampel et al., Robust
 * Statistics, 1986, 2.6; Mosteller & Tukey 1977).  Its standard error is
 * the same sandwich as Huber's: sqrt(sum psi^2 / (n - 1)) / mean psi',
 * and a t quantile on 0.7 (n - 1) degrees of freedom.
 * Unlike Huber's clamp, a value beyond c has no say at all: a slow-mode
 * round 20-50% off among rounds spread by 3-6% (the busy host's, README)
 * leaves both the centre and the sd, where Huber's still counts it at
 * 1.5 sd.  Below ROBUST_BIWEIGHT_MIN_N values, or when too few sit well
 * inside (mean psi' < 0.3), the sandwich is unstable and Huber's estimate
 * is returned instead: in simulated A/A bisections (bench/history), from
 * 10 rounds on the biweight named 5 culprits in 3600 ranges where Huber's
 * named 2, each on a look of 10 rounds whose few alike values left an sd
 * near 0 once the rest had no weight; from 20 on, 2.
 */
int robust_biweight(const double *x, size_t n, double k, double *m, double *sd, double *df)
{
	if (!(k > 0) || !isfinite(k))
		return robust_huber(x, n, k, m, sd, df);
	if (n < ROBUST_BIWEIGHT_MIN_N)
		return robust_huber(x, n, ROBUST_HUBER_K, m, sd, df);
	double med, s = mad_scale(x, n, &med);
	if (!(s > 0))
		return robust_huber(x, n, ROBUST_HUBER_K, m, sd, df);
	double c = k * s, mu = med;
	for (int it = 0; it < 100; it++) {
		double sw = 0, swx = 0;
		for (size_t i = 0; i < n; i++) {
			double u = (x[i] - mu) / c;
			double w = fabs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0;
			sw += w;
			swx += w * x[i];
		}
		if (!(sw > 0))
			break;
		double next = swx / sw;
		int done = fabs(next - mu) <= 1e-9 * s;
		mu = next;
		if (done)
			break;
	}
	double spsi2 = 0, sdpsi = 0;
	size_t inside = 0;
	for (size_t i = 0; i < n; i++) {
		double r = x[i] - mu, u = r / c;
		if (fabs(u) >= 1)
			continue;
		double a = 1 - u * u;
		spsi2 += r * a * a * r * a * a;
		sdpsi += a * (1 - 5 * u * u);
		inside++;
	}
	double dpsi = sdpsi / (double)n;
	if (!(dpsi >= 0.3) || inside < 3)
		return robust_huber(x, n, ROBUST_HUBER_K, m, sd, df);
	*m = mu;
	/* Huber's small-sample factor with the mean psi' in place of the share inside */
	double K = 1 + (1 - dpsi) / ((double)n * dpsi);
	*sd = K * sqrt(spsi2 / (double)(n - 1)) / dpsi;
	/*
	 * a t on 0.7 (n - 1) degrees of freedom (Mosteller & Tukey 1977,
	 * Data Analysis and Regression, ch. 10; Kafadar 1982): with the values
	 * with weight less one, its 99% interval covered 0.979 at n = 10
	 */
	if (df)
		*df = fmin(0.7 * (double)(n - 1), (double)inside - 1);
	return 0;
}
