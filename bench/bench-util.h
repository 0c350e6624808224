/*
 * bench-util.h - what the C benches that make synthetic data share: a
 * seeded xorshift64 (each bench defines BENCH_SEED before including this,
 * so that its data are its own and the same run after run), a normal draw,
 * and the wall and CPU clocks the figures are read from.
 */
#ifndef KILN_BENCH_UTIL_H
#define KILN_BENCH_UTIL_H

#include <math.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t st = BENCH_SEED;
static double urand(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return ((st >> 11) + 0.5) / 9007199254740992.0;
}

static double nrand(void)
{
	return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process so far: the figure that does not depend on other load */
static double cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

#endif
