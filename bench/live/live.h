/*
 * live.h - what bench/live.sh's programs share: a splitmix64 generator
 * seeded from /dev/urandom, a standard normal draw, the monotonic clock.
 * Each program is one file built on its own (cc -O2 PROG.c -lm).
 */
#ifndef KILN_BENCH_LIVE_H
#define KILN_BENCH_LIVE_H

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static uint64_t live_state;

static uint64_t live_next(void)
{
	uint64_t z = (live_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* seeded from /dev/urandom: -1 when it cannot be read */
static int live_seed(void)
{
	int fd = open("/dev/urandom", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, &live_state, sizeof(live_state));
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(live_state) ? 0 : -1;
}

static double live_unit(void)
{
	return ((double)(live_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double live_normal(void)
{
	return sqrt(-2 * log(live_unit())) * cos(2 * M_PI * live_unit());
}

static long long live_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#endif
