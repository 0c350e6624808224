/*
 * winrunner.c - a runner that knows when its iterations ran, for the test
 * of kiln profile's iteration windows (tests/e2e/63-profile-windows.sh).
 * Used through an external plugin:
 *   runner: [build/tests/helpers/winrunner, "{iterations}", SPIN, TRUTH, windows|nowindows]
 * Iteration i spins SPIN loop turns in spin_even() when i is even and in
 * spin_odd() when it is odd, between two CLOCK_MONOTONIC_RAW reads; so a
 * sample whose leaf is spin_even belongs to an even iteration, whatever
 * the window says.  The stream (protocol v1) carries the window
 * (start_ns/end_ns) with `windows`, only wall_ns with `nowindows` (an old
 * runner); either way TRUTH gets one line per iteration: "i start end" in
 * CLOCK_MONOTONIC_RAW and the same two instants in CLOCK_MONOTONIC (read
 * next to them), for comparing with the windows kiln reports in perf's
 * clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile long winrunner_sink;

static long long ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noinline)) void spin_even(long turns)
{
	for (long i = 0; i < turns; i++)
		winrunner_sink += i;
}

__attribute__((noinline)) void spin_odd(long turns)
{
	for (long i = 0; i < turns; i++)
		winrunner_sink -= i;
}

static void say(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			exit(3);
		s += w;
		n -= (size_t)w;
	}
}

int main(int argc, char **argv)
{
	const char *fdv = getenv("KILN_RESULT_FD");
	if (argc != 5 || !fdv) {
		fprintf(stderr, "usage: winrunner ITERATIONS SPIN TRUTH windows|nowindows (with KILN_RESULT_FD)\n");
		return 2;
	}
	long n = atol(argv[1]), spin = atol(argv[2]);
	int fd = atoi(fdv), windows = !strcmp(argv[4], "windows");
	FILE *truth = fopen(argv[3], "w");
	if (!truth)
		return 2;
	char line[256];
	int len = snprintf(line, sizeof(line), "{\"kiln\":1,\"clock\":\"monotonic_raw\"}\n");
	say(fd, line, (size_t)len);
	for (long i = 0; i < n; i++) {
		long long m0 = ns(CLOCK_MONOTONIC), t0 = ns(CLOCK_MONOTONIC_RAW);
		if (i % 2)
			spin_odd(spin);
		else
			spin_even(spin);
		long long t1 = ns(CLOCK_MONOTONIC_RAW), m1 = ns(CLOCK_MONOTONIC);
		if (windows)
			len = snprintf(line, sizeof(line), "{\"i\":%ld,\"wall_ns\":%lld,\"start_ns\":%lld,\"end_ns\":%lld}\n", i,
				       t1 - t0, t0, t1);
		else
			len = snprintf(line, sizeof(line), "{\"i\":%ld,\"wall_ns\":%lld}\n", i, t1 - t0);
		say(fd, line, (size_t)len);
		fprintf(truth, "%ld %lld %lld %lld %lld\n", i, t0, t1, m0, m1);
	}
	say(fd, "{\"done\":true}\n", 14);
	return fclose(truth) ? 1 : 0;
}
