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
 *   timer pair         one kiln_timer_start/kiln_timer_stop pair, on each of
 *                      the timers' clocks: the one lib/timers.c picks by
 *                      default (the TSC where it is invariant) in this
 *                      process, and clock_gettime forced in a child process
 *                      (the clock is chosen once per process) started once a
 *                      round, which measures the floor beside it.  Target
 *                      <= 50 ns on the default clock, <= 2.5 clock reads
 *                      with clock_gettime (issue 30: two clock reads cost
 *                      some 60 ns on some machines, so 50 ns was below the
 *                      physical floor there); shown against one clock read.  These
 *                      are costs in the thread's CPU time, which the other
 *                      processes of a loaded machine do not inflate (a
 *                      preemption inside a round adds to its wall time, and
 *                      on the 2-core development VM, busy with other work,
 *                      doubled or tripled the wall-clock means while the CPU
 *                      time per call stayed put); the wall-clock means follow
 *                      as info.
 * Each figure is the median of 7 rounds of a mean over many calls.
 *
 *   overhead [COUNTER-SPEC]   (default: $KILN_COUNTERS, else "task-clock")
 *   overhead --pair-round N   (the child: prints its clock, floor and pair cost)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kiln.h"

/* lib/timers.c: which clock the timers use ("tsc: ..." or "clock_gettime: ...");
 * hidden, not in kiln.h, reachable because this program links libkiln statically */
const char *kt_clock_desc(void);

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

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* mean cost of one clock_gettime(CLOCK_MONOTONIC_RAW); in CPU time into *cpu */
static double clock_floor(long n, double *cpu)
{
	uint64_t c0 = cpu_ns(), t0 = now_ns();
	for (long i = 0; i < n; i++) {
		uint64_t t = now_ns();
		__asm__ volatile("" : : "r"(t)); /* keep the read */
	}
	uint64_t t1 = now_ns(), c1 = cpu_ns();
	if (cpu)
		*cpu = (double)(c1 - c0) / (double)n;
	return (double)(t1 - t0) / (double)n;
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

/* mean cost of a timer pair; in CPU time into *cpu */
static double timer_pair_cost(long n, double *cpu)
{
	uint64_t c0 = cpu_ns(), t0 = now_ns();
	for (long i = 0; i < n; i++) {
		kiln_timer_start("us_bench_pair");
		kiln_timer_stop();
	}
	uint64_t t1 = now_ns(), c1 = cpu_ns();
	if (cpu)
		*cpu = (double)(c1 - c0) / (double)n;
	return (double)(t1 - t0) / (double)n;
}

/* wall and CPU-time figures of one round */
struct wc {
	double wall, cpu;
};

/* the child: one round of the floor and the pair cost on its own clock */
static int pair_round(long n)
{
	struct wc fl, tp;
	clock_floor(n / 10, NULL);
	timer_pair_cost(1000, NULL);
	fl.wall = clock_floor(n, &fl.cpu);
	tp.wall = timer_pair_cost(n, &tp.cpu);
	printf("%.3f %.3f %.3f %.3f %s\n", fl.wall, fl.cpu, tp.wall, tp.cpu, kt_clock_desc());
	return 0;
}

/*
 * One round in a child with KILN_TIMERS_CLOCK=clock: its floor and pair cost,
 * and its clock's description into desc.  -1 when the child failed.
 */
static int child_round(const char *clock, long n, struct wc *fl, struct wc *tp, char *desc, size_t dn)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		setenv("KILN_TIMERS_CLOCK", clock, 1);
		char arg[32];
		snprintf(arg, sizeof(arg), "%ld", n);
		execl("/proc/self/exe", "overhead", "--pair-round", arg, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char buf[512];
	size_t len = 0;
	ssize_t r;
	while (len + 1 < sizeof(buf) && (r = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = 0;
	close(p[0]);
	int st, used = 0;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	if (sscanf(buf, "%lf %lf %lf %lf %n", &fl->wall, &fl->cpu, &tp->wall, &tp->cpu, &used) != 4 || !used)
		return -1;
	snprintf(desc, dn, "%.*s", (int)strcspn(buf + used, "\n"), buf + used);
	return 0;
}

static void row(const char *what, double fig, double base, const char *base_name, double target_ratio,
		double target_abs)
{
	char target[32] = "-", verdict[8] = "info";
	int pass = 1;
	if (target_ratio > 0) {
		snprintf(target, sizeof(target), "<= %g clocks", target_ratio);
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
	if (argc > 2 && !strcmp(argv[1], "--pair-round"))
		return pair_round(atol(argv[2]));
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
	/* the timer rows: CPU time, wall as info (this process, the clock_gettime child) */
	double flc[ROUNDS], tpc[ROUNDS], cfl[ROUNDS], ctp[ROUNDS], cflc[ROUNDS], ctpc[ROUNDS];
	char cdesc[256] = "";
	/* warm up caches, the vDSO page, the timer's name slot */
	clock_floor(n, NULL);
	timer_pair_cost(1000, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		/* interleaved, so drift on the shared machine hits all figures alike */
		fl[r] = clock_floor(n, &flc[r]);
		bare[r] = bare_calls(n);
		c0[r] = runner_loop(n, none, s, &w0[r]);
		c1[r] = runner_loop(n / 10, ctr, s, &w1[r]);
		rd[r] = kiln_counters_count(ctr) ? counters_read_cost(ctr, n / 10) : 0;
		tp[r] = timer_pair_cost(n, &tpc[r]);
		struct wc cf, ct;
		if (child_round("clock_gettime", n, &cf, &ct, cdesc, sizeof(cdesc)) < 0) {
			fprintf(stderr, "overhead: the clock_gettime child failed\n");
			return 1;
		}
		cfl[r] = cf.wall, cflc[r] = cf.cpu, ctp[r] = ct.wall, ctpc[r] = ct.cpu;
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
	printf("\ntimers' clock: %s (this process); %s (the child's)", kt_clock_desc(), cdesc);
	printf("\n\n%-34s %12s  %12s %-8s %6s  %-12s %s\n", "figure", "value", "baseline", "", "ratio",
	       "target", "result");
	row("clock read (floor)", floor, floor, "1 clock", 0, 0);
	row("empty-iter wall_ns, no counters", median(w0), floor, "1 clock", 2, 0);
	row("empty-iter wall_ns, with counters", median(w1), floor, "1 clock", 2, 0);
	row("iter loop cost, no counters", median(c0) - b, floor, "1 clock", 0, 0);
	row("iter loop cost, with counters", median(c1) - b, floor, "1 clock", 0, 0);
	if (kiln_counters_count(ctr))
		row("kiln_counters_read", median(rd), floor, "1 clock", 0, 0);
	char what[64];
	int cl = (int)strcspn(kt_clock_desc(), ":");
	row("clock read, CPU time", median(flc), median(flc), "1 clock", 0, 0);
	snprintf(what, sizeof(what), "timer pair, %.*s (default)", cl, kt_clock_desc());
	row(what, median(tpc), median(flc), "1 clock", 0, 50);
	row("timer pair, clock_gettime (forced)", median(ctpc), median(cflc), "1 clock", 2.5, 0);
	snprintf(what, sizeof(what), "  wall time: %.*s", cl, kt_clock_desc());
	row(what, median(tp), floor, "1 clock", 0, 0);
	row("  wall time: clock_gettime", median(ctp), median(cfl), "1 clock", 0, 0);
	printf("\nempty-iter wall_ns: what the C runner reports for an empty run_iter (target <= 2 clock reads);\n"
	       "iter loop cost: its whole loop body per iteration (counter reads, clock reads, the\n"
	       "result-stream write(2) to /dev/null) minus the bare call; timer pair: one start/stop pair\n"
	       "in the thread's CPU time, beside one clock read measured the same way (with\n"
	       "KILN_TIMERS_CLOCK=clock_gettime: in a child process, beside its own clock read).\n");
	kiln_stream_done(s);
	kiln_counters_close(ctr);
	kiln_counters_close(none);
	return 0;
}
