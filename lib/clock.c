/*
 * clock.c - libkiln's clocks: CLOCK_MONOTONIC_RAW, the clock of the result
 * stream (perf can record in it: `perf record -k monotonic_raw`), and the
 * process's CPU time for the per-iteration cpu_ns.
 */
#include <time.h>
#include "kiln.h"

uint64_t kiln_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t kiln_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
