/*
 * clock.c - libkiln's clock: CLOCK_MONOTONIC_RAW, the clock of the result
 * stream and of `perf record -k mono` style correlation.
 */
#include <time.h>
#include "kiln.h"

uint64_t kiln_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
