/*
 * spin.c - a whole-process "VM" for bench/live.sh: busy-waits a time drawn
 * from a known distribution, so that the true ratio of two builds is known.
 *   spin BASE_US SIGMA
 * waits BASE_US x FACTOR x exp(SIGMA z - SIGMA^2/2) microseconds of wall
 * time from its start (z standard normal, seeded from /dev/urandom: mean
 * BASE_US x FACTOR exactly, coefficient of variation about SIGMA).  FACTOR
 * is built in (cc -DFACTOR=1.02): two builds of one program, as a VM team
 * compares them.
 */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef FACTOR
#define FACTOR 1.0
#endif

static uint64_t s;

static uint64_t next(void)
{
	uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit(void)
{
	return ((double)(next() >> 11) + 0.5) / 9007199254740992.0;
}

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	double t0 = now_us();
	int fd = open("/dev/urandom", O_RDONLY);
	if (argc != 3 || fd < 0 || read(fd, &s, sizeof(s)) != (ssize_t)sizeof(s))
		return 2;
	close(fd);
	double base = atof(argv[1]), sigma = atof(argv[2]);
	double z = sqrt(-2 * log(unit())) * cos(2 * M_PI * unit());
	double end = t0 + base * FACTOR * exp(sigma * z - sigma * sigma / 2);
	while (now_us() < end)
		;
	return 0;
}
