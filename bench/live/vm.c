/*
 * vm.c - an in-process "VM" for bench/live.sh, run as an external plugin's
 * runner (runner: ["{vm_path}", "{iterations}", "{param}"]): each iteration
 * busy-waits a time drawn from a known distribution and is timed, so that
 * kiln's warmup analysis and steady state see real iterations on a real,
 * loaded machine, with a known true ratio between two builds.
 *   vm ITERATIONS BASE_US:WARM:PEXEC_SIGMA:ITER_SIGMA
 * A pexec's level is BASE_US x FACTOR x exp(PEXEC_SIGMA z - PEXEC_SIGMA^2/2)
 * (the spread of one pexec's steady mean to the next: "runs that vary by
 * 10%" is PEXEC_SIGMA 0.1); iteration i busy-waits the level x
 * exp(ITER_SIGMA z_i - ITER_SIGMA^2/2), the first WARM of them twice as
 * long.  Seeded from /dev/urandom; FACTOR built in (cc -DFACTOR=1.02), and
 * WARMX, a build whose warm-up lasts WARMX times WARM iterations (cc
 * -DWARMX=2: the same steady state, twice the time to reach it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "live.h"

#ifndef FACTOR
#define FACTOR 1.0
#endif
#ifndef WARMX
#define WARMX 1
#endif

int main(int argc, char **argv)
{
	const char *rfd = getenv("KILN_RESULT_FD");
	double base, ps, is;
	long n, warm;
	if (argc != 3 || !rfd || live_seed() < 0 || sscanf(argv[1], "%ld", &n) != 1 ||
	    sscanf(argv[2], "%lf:%ld:%lf:%lf", &base, &warm, &ps, &is) != 4)
		return 2;
	warm *= WARMX;
	FILE *o = fdopen(atoi(rfd), "w");
	if (!o)
		return 3;
	fprintf(o, "{\"kiln\":1,\"clock\":\"monotonic\",\"counters\":[]}\n");
	double level = base * FACTOR * exp(ps * live_normal() - ps * ps / 2);
	for (long i = 0; i < n; i++) {
		double us = level * exp(is * live_normal() - is * is / 2) * (i < warm ? 2 : 1);
		long long t0 = live_now_ns(), end = t0 + (long long)(us * 1000), t;
		while ((t = live_now_ns()) < end)
			;
		fprintf(o, "{\"i\":%ld,\"wall_ns\":%lld}\n", i, t - t0);
		fflush(o);
	}
	fprintf(o, "{\"done\":true}\n");
	return fclose(o) ? 4 : 0;
}
