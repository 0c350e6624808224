/*
 * overhead.c - what in-process measurement costs, against the physical floor
 * measured in the same run.
 *
 * The floor is one clock_gettime(CLOCK_MONOTONIC_RAW): the cheapest way to
 * read the clock the result stream uses.  Figures:
 *   empty-iter wall    the wall_ns the C runner (plugins/c/runner.c) reports
 *                      for an empty run_iter: its loop body is reproduced
 *                      here (counters read, kiln_clock_ns, call through a
 *                      function pointer, kiln_clock_ns, counters read, deltas,
 *                      kiln_stream_iter to /dev/null).  Target <= 2 clock reads.
 *   iter cost          the whole per-iteration cost of that loop minus the
 *                      bare calls: what measuring adds to a run (info).
 *   counters read      one kiln_counters_read of the available counters (info).
 *   timer pair         one kiln_timer_start/kiln_timer_stop pair.  Target
 *                      <= 50 ns; its own floor is 2 clock reads.
 * Each figure is the median of 7 rounds of a mean over many calls.
 *
 *   overhead [COUNTER-SPEC]   (default: $KILN_COUNTERS, else "task-clock")
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kiln.h"

#define ROUNDS 7

static __attribute__((noinline)) void empty_run_iter(long param)
{
	__asm__ volatile("" : : "r"(param) : "memory");
}

/* through a volatile pointer, as the runner calls a dlsym()ed function */
static void (*volatile run_iter)(long) = empty_run_iter;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_d);
	return v[ROUNDS / 2];
}

/* mean cost of one clock_gettime(CLOCK_MONOTONIC_RAW) */
static double clock_floor(long n)
{
	uint64_t t0 = now_ns();
	for (long i = 0; i < n; i++) {
		uint64_t t = now_ns();
		__asm__ volatile("" : : "r"(t)); /* keep the read */
	}
	return (double)(now_ns() - t0) / (double)n;
}

/* mean cost of the bare call, nothing measured */
static double bare_calls(long n)
{
	uint64_t t0 = now_ns();
	for (long i = 0; i < n; i++)
		run_iter(0);
	return (double)(now_ns() - t0) / (double)n;
}

/*
 * The runner's loop for n empty iterations; returns the mean cost of one
 * iteration and stores the mean of the wall_ns it would report.
 */
static double runner_loop(long n, struct kiln_counters *ctr, struct kiln_stream *s, double *mean_wall)
{
	int nc = kiln_counters_count(ctr);
	uint64_t c0[32], c1[32], d[32], sum = 0;
	uint64_t start = now_ns();
	for (long i = 0; i < n; i++) {
		if (nc)
			kiln_counters_read(ctr, c0);
		uint64_t t0 = kiln_clock_ns();
		run_iter(0);
		uint64_t t1 = kiln_clock_ns();
		if (nc) {
			kiln_counters_read(ctr, c1);
			for (int k = 0; k < nc; k++)
				d[k] = c1[k] - c0[k];
		}
		sum += t1 - t0;
		if (s && kiln_stream_iter(s, i, t1 - t0, nc ? d : NULL) < 0)
			return -1;
	}
	uint64_t end = now_ns();
	*mean_wall = (double)sum / (double)n;
	return (double)(end - start) / (double)n;
}

static double counters_read_cost(struct kiln_counters *ctr, long n)
{
	uint64_t v[32];
	uint64_t t0 = now_ns();
	for (long i = 0; i < n; i++)
		kiln_counters_read(ctr, v);
	return (double)(now_ns() - t0) / (double)n;
}

static double timer_pair_cost(long n)
{
	uint64_t t0 = now_ns();
	for (long i = 0; i < n; i++) {
		kiln_timer_start("us_bench_pair");
		kiln_timer_stop();
	}
	return (double)(now_ns() - t0) / (double)n;
}

static void row(const char *what, double fig, double base, const char *base_name, double target_ratio,
		double target_abs)
{
	char target[32] = "-", verdict[8] = "info";
	int pass = 1;
	if (target_ratio > 0) {
		snprintf(target, sizeof(target), "<= %.0f clocks", target_ratio);
		pass = fig <= target_ratio * base;
		snprintf(verdict, sizeof(verdict), "%s", pass ? "PASS" : "MISS");
	} else if (target_abs > 0) {
		snprintf(target, sizeof(target), "<= %.0f ns", target_abs);
		pass = fig <= target_abs;
		snprintf(verdict, sizeof(verdict), "%s", pass ? "PASS" : "MISS");
	}
	printf("%-34s %9.1f ns  %9.1f ns %-8s %6.2f  %-12s %s\n", what, fig, base, base_name, fig / base, target,
	       verdict);
}

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : getenv("KILN_COUNTERS");
	if (!spec)
		spec = "task-clock";
	long n = 200000;
	struct kiln_counters *none = kiln_counters_open("");
	struct kiln_counters *ctr = kiln_counters_open(spec);
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct kiln_stream *s = kiln_stream_open(devnull, ctr);
	if (!none || !ctr || !s) {
		fprintf(stderr, "overhead: cannot set up counters or the stream\n");
		return 1;
	}

	double fl[ROUNDS], bare[ROUNDS], w0[ROUNDS], c0[ROUNDS], w1[ROUNDS], c1[ROUNDS], rd[ROUNDS],
		tp[ROUNDS];
	/* warm up caches, the vDSO page, the timer's name slot */
	clock_floor(n);
	timer_pair_cost(1000);
	for (int r = 0; r < ROUNDS; r++) {
		/* interleaved, so drift on the shared machine hits all figures alike */
		fl[r] = clock_floor(n);
		bare[r] = bare_calls(n);
		c0[r] = runner_loop(n, none, s, &w0[r]);
		c1[r] = runner_loop(n / 10, ctr, s, &w1[r]);
		rd[r] = kiln_counters_count(ctr) ? counters_read_cost(ctr, n / 10) : 0;
		tp[r] = timer_pair_cost(n);
	}
	double floor = median(fl), b = median(bare);

	printf("kiln in-process measurement overhead (median of %d rounds; clock = one "
	       "clock_gettime(CLOCK_MONOTONIC_RAW))\n",
	       ROUNDS);
	printf("counters: ");
	for (int i = 0; i < kiln_counters_count(ctr); i++)
		printf("%s%s", i ? "," : "", kiln_counters_name(ctr, i));
	if (!kiln_counters_count(ctr))
		printf("(none available)");
	for (int i = 0; i < kiln_counters_unavailable_count(ctr); i++)
		printf("%s %s unavailable (%s)", i ? ";" : ",", kiln_counters_unavailable_name(ctr, i),
		       kiln_counters_unavailable_reason(ctr, i));
	printf("\n\n%-34s %12s  %12s %-8s %6s  %-12s %s\n", "figure", "value", "baseline", "", "ratio",
	       "target", "result");
	row("clock read (floor)", floor, floor, "1 clock", 0, 0);
	row("empty-iter wall_ns, no counters", median(w0), floor, "1 clock", 2, 0);
	row("empty-iter wall_ns, with counters", median(w1), floor, "1 clock", 2, 0);
	row("iter loop cost, no counters", median(c0) - b, floor, "1 clock", 0, 0);
	row("iter loop cost, with counters", median(c1) - b, floor, "1 clock", 0, 0);
	if (kiln_counters_count(ctr))
		row("kiln_counters_read", median(rd), floor, "1 clock", 0, 0);
	row("timer start/stop pair", median(tp), 2 * floor, "2 clocks", 0, 50);
	printf("\nempty-iter wall_ns: what the C runner reports for an empty run_iter (target <= 2 clock reads);\n"
	       "iter loop cost: its whole loop body per iteration (counter reads, clock reads, the\n"
	       "result-stream write(2) to /dev/null) minus the bare call; timer pair: its floor is 2 clock reads.\n");
	kiln_stream_done(s);
	kiln_counters_close(ctr);
	kiln_counters_close(none);
	return 0;
}
