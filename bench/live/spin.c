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
#include <stdlib.h>

#include "live.h"

#ifndef FACTOR
#define FACTOR 1.0
#endif

int main(int argc, char **argv)
{
	long long t0 = live_now_ns();
	if (argc != 3 || live_seed() < 0)
		return 2;
	double base = atof(argv[1]), sigma = atof(argv[2]);
	double us = base * FACTOR * exp(sigma * live_normal() - sigma * sigma / 2);
	long long end = t0 + (long long)(us * 1000);
	while (live_now_ns() < end)
		;
	return 0;
}
