/*
 * test-rng.h - the unit tests' own random numbers: xorshift64 from a seed
 * the test sets, the same on every machine and libc (rand48 and GSL's
 * generators are not what these tests want to depend on).
 */
#ifndef KILN_TEST_RNG_H
#define KILN_TEST_RNG_H

#include <math.h>
#include <stdint.h>

static uint64_t test_seed = 1; /* never 0: xorshift stays at 0 */

/* uniform on (0, 1), both ends excluded */
static inline double unif(void)
{
	test_seed ^= test_seed << 13;
	test_seed ^= test_seed >> 7;
	test_seed ^= test_seed << 17;
	return ((double)(test_seed >> 11) + 0.5) / 9007199254740992.0;
}

/* standard normal (Box-Muller, the two uniforms drawn in this order) */
static inline double gauss(void)
{
	double u = unif(), v = unif();
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

#endif
