/*
 * analysis-int.h - what the parts of the warmup analysis share and nothing
 * else uses: analysis.c (options, outliers, per pexec and per key, the
 * driver), analysis-pelt.c (changepoints) and analysis-bootstrap.c.
 */
#ifndef KILN_ANALYSIS_INT_H
#define KILN_ANALYSIS_INT_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AN_HAVE_AVX2 1
#endif

#include "analysis.h"

/* the minimum segment length of the changepoint searches */
#define AN_MINSEG 2

/*
 * The widest vector unit to use: 2 AVX-512, 1 AVX2, 0 scalar.
 * KILN_NO_SIMD=512 stops at AVX2, any other value at scalar (tests compare them).
 */
int an_simd_level(void);
/* the segment ends (ascending, the last n) from last[t], the start of the segment ending at t */
size_t an_backtrack(const size_t *last, size_t n, size_t *ends);

/*
 * an_pelt, telling how many candidate values it computed (the quadratic
 * search computes about n^2/2; the rest were skipped by bounds or pruned):
 * for the tests and bench/analysis.
 */
size_t an_pelt_counted(const double *x, size_t n, double pen, size_t *ends, double *cost, size_t *computed);

/*
 * an_bootstrap_means, with exact = 1 every resample drawn value by value:
 * the reference the tests and bench/analysis measure the near-exact draws
 * against.
 */
size_t an_bootstrap_means_how(const struct an_sample *s, long resamples, uint64_t seed, double *means, int exact);

#endif
