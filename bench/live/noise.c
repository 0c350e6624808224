/*
 * noise.c - the noisy neighbour of bench/live.sh: for SECONDS at most (an
 * alarm ends it whatever happens to its parent), bursts of CPU work, half
 * of them streaming through a 64 MiB buffer (caches and memory bandwidth),
 * and now and then a long burst (a stall for whatever shares its CPU),
 * separated by sleeps so that it uses about DUTY of one CPU on average.
 *   noise SECONDS DUTY
 * Burst lengths are exponential (mean 20 ms; one in 50 is 150 ms), so the
 * interference differs from one moment to the next, as a shared machine's.
 */
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

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	double secs = atof(argv[1]), duty = atof(argv[2]);
	if (!(secs > 0) || !(duty > 0 && duty < 1))
		return 2;
	alarm((unsigned)ceil(secs) + 1);
	s ^= (uint64_t)getpid() << 20;
	size_t big = 64u << 20;
	volatile unsigned char *buf = malloc(big);
	if (!buf)
		return 3;
	memset((void *)buf, 1, big);
	double stop = now_s() + secs;
	while (now_s() < stop) {
		double burst = unit() < 0.02 ? 0.150 : -0.020 * log(unit());
		int mem = unit() < 0.5;
		double end = now_s() + burst;
		size_t at = (size_t)(unit() * (double)big);
		while (now_s() < end) {
			if (mem)
				for (size_t i = 0; i < 65536; i += 64)
					buf[(at + i) % big] += 1;
			at += 65536;
		}
		double rest = burst * (1 - duty) / duty;
		struct timespec ts = { (time_t)rest, (long)((rest - floor(rest)) * 1e9) };
		nanosleep(&ts, NULL);
	}
	return 0;
}
