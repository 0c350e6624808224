/*
 * bench_checksum.c - the reference checksum of a C benchmark, for the e2e
 * tests that compare every language of the suite against it.
 *
 *   bench_checksum BENCH.so PARAM [ITERATIONS]
 *
 * dlopen()s BENCH.so, calls run_iter(PARAM) ITERATIONS times (default 1) and
 * prints checksum() as a decimal integer.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bench_checksum BENCH.so PARAM [ITERATIONS]\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "bench_checksum: %s\n", dlerror());
		return 1;
	}
	void (*run)(long) = (void (*)(long))(uintptr_t)dlsym(h, "run_iter");
	long (*sum)(void) = (long (*)(void))(uintptr_t)dlsym(h, "checksum");
	if (!run || !sum) {
		fprintf(stderr, "bench_checksum: %s lacks run_iter or checksum\n", argv[1]);
		return 1;
	}
	long param = atol(argv[2]);
	int n = argc > 3 ? atoi(argv[3]) : 1;
	for (int i = 0; i < n; i++)
		run(param);
	printf("%ld\n", sum());
	return 0;
}
