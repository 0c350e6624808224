/*
 * synthvm.c - a make-believe VM whose iteration times are drawn, not
 * measured, for the tests of kiln compare: deterministic, instant, with a
 * known ratio between two "builds".  Used through an external plugin:
 *   runner: ["{vm_path}", "{iterations}", "{param}"]
 * with vm_path a script `exec synthvm FACTOR "$@"`, one per build.
 *   synthvm FACTOR ITERATIONS MEAN_US:WARM:NOISE[:TAIL]
 * Iteration i takes MEAN_US x FACTOR x (1 + NOISE x z), z about a standard normal
 * drawn from a generator seeded by KILN_BENCHMARK, KILN_PEXEC and FACTOR (so
 * the same pexec of the same build always gives the same times, and two
 * builds' noises are independent); the first WARM iterations take twice
 * as long (a warmup), the last TAIL three times (no steady state).  With
 * SYNTHVM_CPU_LOG set, the CPU it ran on is appended to that file as
 * "KEY PEXEC CPU".
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit(void)
{
	return ((double)(next() >> 11) + 0.5) / 9007199254740992.0;
}

/* about a standard normal: the sum of 12 uniforms less 6 (Irwin-Hall; no libm for the helpers) */
static double normal(void)
{
	double s = -6;
	for (int i = 0; i < 12; i++)
		s += unit();
	return s;
}

static void seed(const char *s)
{
	for (; s && *s; s++)
		state = (state ^ (unsigned char)*s) * 0x100000001b3ULL;
}

int main(int argc, char **argv)
{
	const char *fd_s = getenv("KILN_RESULT_FD");
	double factor, mean, noise;
	long n, warm, tail = 0;
	if (argc != 4 || !fd_s || sscanf(argv[1], "%lf", &factor) != 1 || sscanf(argv[2], "%ld", &n) != 1 ||
	    sscanf(argv[3], "%lf:%ld:%lf:%ld", &mean, &warm, &noise, &tail) < 3) {
		fprintf(stderr, "usage: synthvm FACTOR ITERATIONS MEAN_US:WARM:NOISE[:TAIL] (KILN_RESULT_FD set)\n");
		return 2;
	}
	state = 1469598103934665603ULL;
	seed(getenv("KILN_BENCHMARK"));
	seed("/");
	seed(getenv("KILN_PEXEC"));
	seed("/");
	seed(argv[1]);
	const char *log = getenv("SYNTHVM_CPU_LOG");
	FILE *lf = log ? fopen(log, "a") : NULL;
	if (lf) {
		fprintf(lf, "%s %s %d\n", getenv("KILN_KEY"), getenv("KILN_PEXEC"), sched_getcpu());
		fclose(lf);
	}
	FILE *o = fdopen(atoi(fd_s), "w");
	if (!o)
		return 3;
	fprintf(o, "{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
	for (long i = 0; i < n; i++) {
		double us = mean * factor * (1 + noise * normal());
		if (i < warm)
			us *= 2;
		if (i >= n - tail)
			us *= 3;
		fprintf(o, "{\"i\":%ld,\"wall_ns\":%lld}\n", i, (long long)(us * 1000 + 0.5));
	}
	fprintf(o, "{\"done\":true}\n");
	return fclose(o) ? 4 : 0;
}
