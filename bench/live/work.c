/*
 * work.c - a whole-process "VM" for bench/live.sh's duet section (E): a
 * fixed amount of CPU work, nothing drawn, so that what varies from run to
 * run is the machine (preemption, the hypervisor's steal, caches), the
 * variation duet benchmarking is meant to cancel.  spin.c waits a drawn
 * wall time instead: its runs vary by their own draw, which no pairing can
 * cancel, and the machine barely shows in them.
 *   work UNITS
 * runs UNITS x FACTOR x 1000 rounds of a 64-bit mixing step.  FACTOR is
 * built in (cc -DFACTOR=1.02): the work of two builds differs by FACTOR
 * exactly; their times by FACTOR less the share of process start and exit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef FACTOR
#define FACTOR 1.0
#endif

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	uint64_t n = (uint64_t)(atof(argv[1]) * FACTOR * 1000), x = 0x9e3779b97f4a7c15ULL;
	for (uint64_t i = 0; i < n; i++) {
		x ^= x >> 30;
		x *= 0xbf58476d1ce4e5b9ULL;
		x ^= x >> 27;
	}
	/* the result is used, so the loop is not optimized away */
	return x == 1 ? 3 : 0;
}
