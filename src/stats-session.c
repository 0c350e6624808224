/*
 * stats-session.c - the between-session standard deviation of a program's
 * mean on one machine, from the sessions kiln recorded (stats-session.h).
 *
 * A session's log-mean y_i = mu_g + b_i + e_i: mu_g the program's level,
 * b_i the session's own shift (sd sigma_b, what we want), e_i the
 * within-session error whose variance v_i the session's runs tell.  A
 * group g of k sessions has E[sum (y_i - mean_g)^2] = (k - 1) sigma_b^2 +
 * (k - 1)/k sum v_i, so the pooled variance S of y about each program's
 * mean (over df = sessions - groups) has expectation sigma_b^2 + W, with
 * W = sum_g (k_g - 1)/k_g sum_{i in g} v_i / df (method of moments; the
 * mean of v when all are equal; a group of one session adds to neither S
 * nor W), so sigma_b^2 = max(0, S - W).  With few sessions S is itself
 * uncertain: kiln uses the upper bound df S / chi2_{1-c}(df) at one-sided
 * confidence c = SS_UPPER_CONF, minus W, so that a machine whose sessions
 * wander is not trusted to be steady on little evidence.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats-session.h"

int ss_of_units(const double *u, size_t n, double *y, double *v)
{
	if (n < 2)
		return -1;
	double m = 0, q = 0;
	for (size_t i = 0; i < n; i++)
		m += u[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		q += (u[i] - m) * (u[i] - m);
	if (!(m > 0) || !isfinite(q))
		return -1;
	*y = log(m);
	*v = q / (double)(n - 1) / ((double)n * m * m);
	return 0;
}

/* the mean of y over the sessions of group g */
static double group_mean(const struct ss_session *s, size_t n, long g, size_t *k)
{
	double sum = 0;
	*k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].group == g) {
			sum += s[i].y;
			++*k;
		}
	return sum / (double)*k;
}

void ss_estimate(const struct ss_session *s, size_t n, struct ss_estimate *out)
{
	*out = (struct ss_estimate){ .sessions = n, .total = NAN, .within = NAN, .sd = NAN, .sd_hi = NAN };
	double ss = 0, within = 0;
	for (size_t i = 0; i < n; i++) {
		size_t first = i, k;
		for (size_t j = 0; j < i; j++)
			if (s[j].group == s[i].group)
				first = j;
		if (first != i)
			continue; /* each group once, at its first session */
		out->groups++;
		double m = group_mean(s, n, s[i].group, &k);
		for (size_t j = i; j < n; j++)
			if (s[j].group == s[i].group) {
				ss += (s[j].y - m) * (s[j].y - m);
				/* the share of v_j in the expected sum of squares about the group's own mean */
				within += (double)(k - 1) / (double)k * s[j].v;
			}
	}
	out->df = (double)n - (double)out->groups;
	if (!n || out->df < 1)
		return;
	out->total = ss / out->df;
	out->within = within / out->df;
	out->sd = sqrt(fmax(0, out->total - out->within));
	double hi = out->df * out->total / gsl_cdf_chisq_Pinv(1 - SS_UPPER_CONF, out->df);
	out->sd_hi = sqrt(fmax(0, hi - out->within));
	out->measured = n >= SS_MIN_SESSIONS && out->df >= 2 && isfinite(out->sd_hi);
}
