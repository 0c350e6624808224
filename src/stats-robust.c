/*
 * stats-robust.c - Huber's M-estimate of location (stats-robust.h).
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
	double med = an_percentile(x, n, 50);
	double *t = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		t[i] = fabs(x[i] - med);
	double s = 1.4826 * an_percentile(t, n, 50);
	free(t);
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
