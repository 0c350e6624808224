/*
 * noise.c - the noisy neighbour of bench/live.sh: for SECONDS at most (an
 * alarm ends it whatever happens to its parent), bursts of CPU work, half
 * of them streaming through a 64 MiB buffer (caches and memory bandwidth),
 * and now and then a long burst (a stall for whatever shares its CPU),
 * separated by sleeps so that it uses about DUTY of one CPU on average.
 *   noise SECONDS DUTY [shared]
 * Burst lengths are exponential (mean 20 ms; one in 50 is 150 ms), so the
 * interference differs from one moment to the next, as a shared machine's.
 * With "shared", one such neighbour pinned to each online CPU, all drawing
 * the same bursts at the same moments (one seed, absolute deadlines): the
 * interference a co-tenant or the host puts on every CPU of a machine at
 * once, which is what duet benchmarking is for (Bulej et al. 2020), as
 * against one neighbour that hits whichever CPU it runs on.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>

static uint64_t s = 88172645463325252ULL;

static double unit(void)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return ((double)(s >> 11) + 0.5) / 9007199254740992.0;
}

static void add_s(struct timespec *t, double d)
{
	double ns = (double)t->tv_nsec + d * 1e9;
	long whole = (long)floor(ns / 1e9);
	t->tv_sec += whole;
	t->tv_nsec = (long)(ns - (double)whole * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static int later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* bursts and sleeps from t on until stop, on absolute deadlines (so that the shared mode's neighbours stay aligned) */
static void neighbour(struct timespec t, double secs, double duty)
{
	size_t big = 64u << 20;
	volatile unsigned char *buf = malloc(big);
	if (!buf)
		_exit(3);
	memset((void *)buf, 1, big);
	struct timespec stop = t, cur;
	add_s(&stop, secs);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &cur);
		if (later(&cur, &stop))
			break;
		double burst = unit() < 0.02 ? 0.150 : -0.020 * log(unit());
		int mem = unit() < 0.5;
		size_t at = (size_t)(unit() * (double)big);
		struct timespec end = t;
		add_s(&end, burst);
		do {
			if (mem)
				for (size_t i = 0; i < 65536; i += 64)
					buf[(at + i) % big] += 1;
			at += 65536;
			clock_gettime(CLOCK_MONOTONIC, &cur);
		} while (!later(&cur, &end));
		t = end;
		add_s(&t, burst * (1 - duty) / duty);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "shared")))
		return 2;
	double secs = atof(argv[1]), duty = atof(argv[2]);
	if (!(secs > 0) || !(duty > 0 && duty < 1))
		return 2;
	alarm((unsigned)ceil(secs) + 1);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (argc == 3) {
		s ^= (uint64_t)getpid() << 20;
		neighbour(t0, secs, duty);
		return 0;
	}
	/* shared: a child a CPU, each ending with its parent (and by its own alarm), all from one start and one seed */
	cpu_set_t mine;
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
		return 3;
	add_s(&t0, 0.1);
	int kids = 0;
	for (int c = 0; c < CPU_SETSIZE && kids < 64; c++) {
		if (!CPU_ISSET(c, &mine))
			continue;
		pid_t p = fork();
		if (p < 0)
			break;
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			alarm((unsigned)ceil(secs) + 1);
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			sched_setaffinity(0, sizeof(one), &one);
			neighbour(t0, secs, duty);
			_exit(0);
		}
		kids++;
	}
	while (kids > 0 && wait(NULL) > 0)
		kids--;
	return 0;
}
