/*
 * stats-robust.h - location estimates that one wild value cannot move far:
 * Huber's and Tukey's biweight M-estimates of a sample's centre with their
 * sandwich standard errors.  kiln bisect's sequential tests use them on A/B
 * rounds (history-bisect.c: the biweight from ROBUST_BIWEIGHT_MIN_N rounds),
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

/*
 * The biweight's constant in units of the MAD-scaled sd: 95% efficiency at
 * the normal (Beaton & Tukey 1974); a value 4.685 sd out has no weight
 */
#define ROBUST_BIWEIGHT_C 4.685
/* fewer values than this get Huber's estimate: the MAD of a handful is no scale to reject values by */
#define ROBUST_BIWEIGHT_MIN_N 20

/*
 * Tukey's biweight M-estimate of the centre of x[0..n), the scale fixed at
 * 1.4826 MAD, with the same sandwich sd as robust_huber() and df the
 * smaller of 0.7 (n - 1) and the values with weight less one; values
 * beyond k scaled sd have no weight.  Falls back to robust_huber() (at
 * ROBUST_HUBER_K, or the mean for k <= 0 or infinite) for n <
 * ROBUST_BIWEIGHT_MIN_N, MAD 0, or when too few values sit well inside.
 */
int robust_biweight(const double *x, size_t n, double k, double *m, double *sd, double *df);

#endif
