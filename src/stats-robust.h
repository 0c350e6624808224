/*
 * stats-robust.h - location estimates that one wild value cannot move far:
 * Huber's M-estimate of a sample's centre with its sandwich standard error.
 * kiln bisect's sequential tests use it on A/B rounds (history-bisect.c),
 * where a round whose pexec fell into a slow mode (a "bad inconsistent"
 * benchmark: seen +-53% among rounds whose median spread is 0.9%) would
 * otherwise inflate the variance of every later look. docs/statistics.md.
 */
#ifndef KILN_STATS_ROBUST_H
#define KILN_STATS_ROBUST_H

#include <stddef.h>

/*
 * The tuning constant in units of the MAD-scaled sd: 95% efficiency at the
 * normal (Huber 1964), and a value 1.5 sd out counts no more than that
 */
#define ROBUST_HUBER_K 1.5

/*
 * Huber's M-estimate of the centre of x[0..n) with the scale fixed at
 * 1.4826 MAD, and an sd such that sd / sqrt(n) is its standard error (the
 * sandwich sqrt(E psi^2) / E psi'), so the callers' t and SPRT arithmetic
 * is unchanged (with Huber's small-sample factor K); df (may be NULL) the
 * degrees of freedom for a t quantile: the values inside the clamp less
 * one, as Yuen's trimmed t counts the untrimmed. k <= 0, a sample whose
 * MAD is 0, or n < 3 get the plain mean, sd and n - 1. Returns 0, or -1
 * when n < 1 (m and sd NAN).
 */
int robust_huber(const double *x, size_t n, double k, double *m, double *sd, double *df);

#endif
