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

#endif
