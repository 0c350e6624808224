/*
 * test_timers.c - libkiln's internal timers and counters (lib/timers.c):
 * nesting (inclusive, prefix = superset), recursion counted once, counts,
 * reset, threads adding to one total, and the `stats` dump format parsed
 * back line by line (sorted names, us_ timers in microseconds, the
 * KILN_INSTR_DIR/stats.txt destination).
 *
 * The timers' clock (TSC or clock_gettime) is chosen once per process, so
 * test_clock_paths runs this program again as a child ("--clock-child") once
 * per KILN_TIMERS_CLOCK setting; the child times known intervals (a sleep,
 * a CPU-bound loop, two threads, a timer still running at the dump, a dump
 * right after first use) and checks each total against CLOCK_MONOTONIC_RAW
 * read just inside and just outside the timer, and against the thread's CPU
 * time.  Those brackets hold however loaded the machine is, and 0.1% is far
 * tighter than any mistake in converting TSC ticks would be.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kiln.h"

/* lib/timers.c: which clock the timers use ("tsc: ..." or "clock_gettime: ...");
 * hidden, not in kiln.h, reachable because this test links libkiln statically */
const char *kt_clock_desc(void);

#define MAXL 256

struct stat_line {
	char name[64];
	long long value;
};

/*
 * Dump into memory and parse the stats format strictly: "Stats:", lines
 * "  name: value", "(End of stats)".  Returns the number of lines.
 */
static int dump_parse(struct stat_line *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	kiln_stats_dump(f);
	fclose(f);
	int n = 0;
	char *save = NULL, *line = strtok_r(buf, "\n", &save);
	assert_non_null(line);
	assert_string_equal(line, "Stats:");
	int ended = 0;
	while ((line = strtok_r(NULL, "\n", &save))) {
		assert_false(ended);
		if (!strcmp(line, "(End of stats)")) {
			ended = 1;
			continue;
		}
		assert_true(n < MAXL);
		assert_true(!strncmp(line, "  ", 2));
		char *colon = strchr(line + 2, ':');
		assert_non_null(colon);
		assert_true(colon[1] == ' ');
		*colon = 0;
		snprintf(out[n].name, sizeof(out[n].name), "%s", line + 2);
		char *end;
		out[n].value = strtoll(colon + 2, &end, 10);
		assert_true(*end == 0 && end != colon + 2);
		if (n)
			assert_true(strcmp(out[n - 1].name, out[n].name) < 0);
		n++;
	}
	assert_true(ended);
	free(buf);
	return n;
}

static long long value_of(const char *name)
{
	struct stat_line l[MAXL];
	int n = dump_parse(l);
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i].name, name))
			return l[i].value;
	return -1;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

static int reset(void **state)
{
	kiln_stats_reset();
	return 0;
}

static void test_nesting_prefix_superset(void **state)
{
	uint64_t t0 = kiln_clock_ns();
	kiln_timer_start("us_compiling");
	sleep_us(3000);
	kiln_timer_start("us_compiling_parse");
	sleep_us(5000);
	kiln_timer_stop();
	kiln_timer_start("us_compiling_irgen");
	sleep_us(2000);
	kiln_timer_stop();
	kiln_timer_stop();
	uint64_t wall_us = (kiln_clock_ns() - t0) / 1000;

	long long all = value_of("us_compiling");
	long long parse = value_of("us_compiling_parse");
	long long irgen = value_of("us_compiling_irgen");
	assert_true(parse >= 5000 && parse <= (long long)wall_us);
	assert_true(irgen >= 2000 && irgen <= (long long)wall_us);
	/* inclusive: the outer timer is the superset of its nested ones */
	assert_true(all >= parse + irgen + 3000);
	assert_true(all <= (long long)wall_us);
}

static void test_recursion_counted_once(void **state)
{
	uint64_t t0 = kiln_clock_ns();
	kiln_timer_start("us_eval");
	kiln_timer_start("us_eval");
	sleep_us(4000);
	kiln_timer_stop();
	sleep_us(1000);
	kiln_timer_stop();
	uint64_t wall_us = (kiln_clock_ns() - t0) / 1000;
	long long v = value_of("us_eval");
	assert_true(v >= 5000);
	assert_true(v <= (long long)wall_us); /* not 9000: the inner frame adds nothing */
	/* unbalanced stops are ignored */
	kiln_timer_stop();
	kiln_timer_stop();
	assert_int_equal(value_of("us_eval"), v);
}

static void test_counts_and_units(void **state)
{
	kiln_count("num_instructions", 40);
	kiln_count("num_instructions", 2);
	kiln_count("num_traces", -1);
	char dyn[32];
	snprintf(dyn, sizeof(dyn), "num_instructions"); /* a different pointer, same name */
	kiln_count(dyn, 100);
	snprintf(dyn, sizeof(dyn), "num_zzz");          /* same pointer, new text */
	kiln_count(dyn, 7);
	assert_int_equal(value_of("num_instructions"), 142);
	assert_int_equal(value_of("num_traces"), -1);
	assert_int_equal(value_of("num_zzz"), 7);
	/* a timer not named us_ reports nanoseconds */
	kiln_timer_start("gc_pause");
	sleep_us(2000);
	kiln_timer_stop();
	long long ns = value_of("gc_pause");
	assert_true(ns >= 2000000 && ns < 2000000000);
}

/* one buffer (one pointer) holding names that differ only at the end, in
 * length, or by a prefix, at every alignment and at the very end of a page
 * whose successor is unmapped: each keeps its own total, nothing faults */
static void test_same_pointer_names(void **state)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + psz, (size_t)psz, PROT_NONE), 0);
	static const char *names[] = { "num_p7xxxx", "num_p7xxxxy", "num_p7xxxxz", "num_p15xxxxxxxx",
				       "num_p15xxxxxxxy", "num_p15xxxxxxx", "num_p16xxxxxxxxx", "num_p" };
	const int nn = sizeof(names) / sizeof(names[0]);
	for (int place = 0; place < 9; place++) {
		for (int k = 0; k < nn; k++) {
			size_t len = strlen(names[k]) + 1;
			/* at the page's end (place 8) or at offset `place` */
			char *buf = place == 8 ? m + psz - len : m + place;
			memcpy(buf, names[k], len);
			kiln_count(buf, k + 1);
			kiln_count(buf, k + 1); /* twice: the second hits the cache */
		}
	}
	for (int k = 0; k < nn; k++)
		assert_int_equal(value_of(names[k]), 9 * 2 * (k + 1));
	munmap(m, 2 * (size_t)psz);
}

static void test_reset(void **state)
{
	kiln_count("num_x", 5);
	kiln_timer_start("us_outer");
	sleep_us(3000);
	uint64_t t0 = kiln_clock_ns();
	kiln_stats_reset();
	assert_int_equal(value_of("num_x"), 0);
	/* a running timer counts from the reset: not the 3 ms before it */
	long long v = value_of("us_outer");
	uint64_t t1 = kiln_clock_ns();
	assert_true(v >= 0 && v <= (long long)((t1 - t0) / 1000));
	sleep_us(1000);
	kiln_timer_stop();
	uint64_t t2 = kiln_clock_ns();
	v = value_of("us_outer");
	assert_true(v >= 1000 && v <= (long long)((t2 - t0) / 1000));
}

static void test_deep_nesting(void **state)
{
	/* deeper than the stack: the extra frames are not timed, stops stay paired */
	char names[100][16];
	for (int i = 0; i < 100; i++) {
		snprintf(names[i], sizeof(names[i]), "us_d%03d", i);
		kiln_timer_start(names[i]);
	}
	for (int i = 0; i < 100; i++)
		kiln_timer_stop();
	kiln_timer_start("us_after");
	sleep_us(1000);
	kiln_timer_stop();
	assert_true(value_of("us_after") >= 1000);
	assert_true(value_of("us_d000") >= value_of("us_d010"));
	assert_int_equal(value_of("us_d099"), -1); /* never timed, never named */
}

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		kiln_timer_start("us_worker");
		kiln_count("num_work", 1);
		kiln_timer_stop();
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t th[4];
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++)
			assert_int_equal(pthread_create(&th[i], NULL, worker, NULL), 0);
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
	}
	/* 12 threads came and went; totals of exited threads are kept */
	assert_int_equal(value_of("num_work"), 12000);
	assert_true(value_of("us_worker") >= 0);
}

static void test_dump_to_instr_dir(void **state)
{
	char dir[] = "/tmp/kiln-timers.XXXXXX";
	assert_non_null(mkdtemp(dir));
	setenv("KILN_INSTR_DIR", dir, 1);
	kiln_count("num_dumped", 3);
	kiln_stats_dump(NULL);
	unsetenv("KILN_INSTR_DIR");
	char path[128], line[128];
	snprintf(path, sizeof(path), "%s/stats.txt", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "Stats:\n");
	int found = 0;
	while (fgets(line, sizeof(line), f))
		found |= !strcmp(line, "  num_dumped: 3\n");
	assert_string_equal(line, "(End of stats)\n");
	assert_true(found);
	fclose(f);
	unlink(path);
	rmdir(dir);
}

/* ---- the two clocks, in a child process per KILN_TIMERS_CLOCK setting ---- */

static int child_failed;

/*
 * lo_ns..hi_ns: the interval read just inside and just outside the timer;
 * the total must lie in it, give or take 2 us (truncation to us, the
 * calibration's pairs) and 0.1% (the calibration's rate)
 */
static void child_check(const char *name, uint64_t lo_ns, uint64_t hi_ns)
{
	long long v = value_of(name);
	long long unit = strncmp(name, "us_", 3) ? 1 : 1000;
	long long lo = (long long)lo_ns / unit, hi = (long long)hi_ns / unit;
	long long slack = 2000 / unit + hi / 1000;
	int ok = v >= lo - slack && v <= hi + slack;
	printf("%s %s: %lld %s, expected %lld..%lld\n", ok ? "ok" : "FAIL", name, v, unit == 1 ? "ns" : "us", lo,
	       hi);
	child_failed |= !ok;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct child_span {
	uint64_t in, out;
};

static void *child_thread(void *arg)
{
	struct child_span *sp = arg;
	uint64_t t0 = kiln_clock_ns();
	kiln_timer_start("us_threads");
	uint64_t t1 = kiln_clock_ns();
	sleep_us(10000);
	uint64_t t2 = kiln_clock_ns();
	kiln_timer_stop();
	uint64_t t3 = kiln_clock_ns();
	sp->in = t2 - t1;
	sp->out = t3 - t0;
	return NULL;
}

static int clock_child(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a dump soon after the first use: the calibration interval is short */
	uint64_t t0 = kiln_clock_ns();
	kiln_timer_start("us_first");
	uint64_t t1 = kiln_clock_ns();
	while (kiln_clock_ns() - t1 < 300000)
		;
	uint64_t t2 = kiln_clock_ns();
	kiln_timer_stop();
	uint64_t t3 = kiln_clock_ns();
	child_check("us_first", t2 - t1, t3 - t0);
	printf("clock: %s\n", kt_clock_desc());

	/* a sleep */
	t0 = kiln_clock_ns();
	kiln_timer_start("us_sleep");
	t1 = kiln_clock_ns();
	sleep_us(30000);
	t2 = kiln_clock_ns();
	kiln_timer_stop();
	t3 = kiln_clock_ns();
	child_check("us_sleep", t2 - t1, t3 - t0);

	/* 20 ms of this thread's CPU time, however long that takes on a busy machine */
	kiln_timer_start("cpu_busy"); /* interned now, not inside the CPU-time bracket */
	kiln_timer_stop();
	kiln_stats_reset();
	uint64_t c0 = thread_cpu_ns();
	t0 = kiln_clock_ns();
	kiln_timer_start("cpu_busy"); /* not us_: in ns */
	t1 = kiln_clock_ns();
	while (thread_cpu_ns() - c0 < 20000000)
		;
	t2 = kiln_clock_ns();
	kiln_timer_stop();
	t3 = kiln_clock_ns();
	uint64_t c1 = thread_cpu_ns();
	child_check("cpu_busy", t2 - t1, t3 - t0);
	long long busy = value_of("cpu_busy");
	/* wall time covers the CPU time spent in it, less the bits outside the timer:
	 * 100 us (0.5%) for those under a sanitizer on a loaded machine */
	int ok = busy >= (long long)(c1 - c0) - 100000 && busy <= (long long)(t3 - t0) + 2000;
	printf("%s cpu_busy: %lld ns, thread CPU time %llu ns\n", ok ? "ok" : "FAIL", busy,
	       (unsigned long long)(c1 - c0));
	child_failed |= !ok;

	/* two threads, possibly on two CPUs, adding to one total */
	pthread_t th[2];
	struct child_span sp[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, child_thread, &sp[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	child_check("us_threads", sp[0].in + sp[1].in, sp[0].out + sp[1].out);

	/* a timer still running at the dump counts up to it */
	t0 = kiln_clock_ns();
	kiln_timer_start("us_running");
	t1 = kiln_clock_ns();
	sleep_us(5000);
	t2 = kiln_clock_ns();
	long long run = value_of("us_running");
	t3 = kiln_clock_ns();
	kiln_timer_stop();
	ok = run >= (long long)((t2 - t1) / 1000) - 2 && run <= (long long)((t3 - t0) / 1000) + 2;
	printf("%s us_running: %lld us, expected %llu..%llu us\n", ok ? "ok" : "FAIL", run,
	       (unsigned long long)((t2 - t1) / 1000), (unsigned long long)((t3 - t0) / 1000));
	child_failed |= !ok;
	return child_failed;
}

/* run this program as a clock child with KILN_TIMERS_CLOCK=env (NULL: unset);
 * its stdout and stderr in out, its exit status returned */
static int run_child(const char *env, char *out, size_t n)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (env)
			setenv("KILN_TIMERS_CLOCK", env, 1);
		else
			unsetenv("KILN_TIMERS_CLOCK");
		execl("/proc/self/exe", "test_timers", "--clock-child", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t len = 0;
	ssize_t r;
	while (len + 1 < n && (r = read(p[0], out + len, n - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = 0;
	close(p[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the "clock: ..." line of a child's output, into desc */
static void child_clock(const char *out, char *desc, size_t n)
{
	const char *c = strstr(out, "clock: ");
	assert_non_null(c);
	c += strlen("clock: ");
	snprintf(desc, n, "%.*s", (int)strcspn(c, "\n"), c);
}

static void test_clock_paths(void **state)
{
	char out[4096], desc[256];
	char self[256];
	snprintf(self, sizeof(self), "%s", kt_clock_desc());
	int tsc_here = !strncmp(self, "tsc:", 4);

	/* the fallback, forced */
	int st = run_child("clock_gettime", out, sizeof(out));
	printf("KILN_TIMERS_CLOCK=clock_gettime:\n%s", out);
	assert_int_equal(st, 0);
	child_clock(out, desc, sizeof(desc));
	assert_string_equal(desc, "clock_gettime: forced by KILN_TIMERS_CLOCK");

	/* the default: what this process chose (the TSC on an invariant-TSC machine) */
	st = run_child(NULL, out, sizeof(out));
	printf("KILN_TIMERS_CLOCK unset:\n%s", out);
	assert_int_equal(st, 0);
	child_clock(out, desc, sizeof(desc));
	if (!getenv("KILN_TIMERS_CLOCK"))
		assert_string_equal(desc, self);

	/* tsc: never where the CPU lacks an invariant TSC, always where auto took it */
	st = run_child("tsc", out, sizeof(out));
	assert_int_equal(st, 0);
	child_clock(out, desc, sizeof(desc));
	if (tsc_here)
		assert_string_equal(desc, "tsc: invariant TSC, forced by KILN_TIMERS_CLOCK");
	else
		assert_true(!strncmp(desc, "tsc: invariant TSC, forced", 26) || !strncmp(desc, "clock_gettime: ", 15));

	/* a value it does not know: said on stderr, auto used */
	st = run_child("rdtsc", out, sizeof(out));
	assert_int_equal(st, 0);
	assert_non_null(strstr(out, "kiln: KILN_TIMERS_CLOCK=rdtsc is not auto, tsc or clock_gettime: using auto\n"));
	if (!getenv("KILN_TIMERS_CLOCK")) {
		child_clock(out, desc, sizeof(desc));
		assert_string_equal(desc, self);
	}
	if (!tsc_here)
		printf("note: the TSC is not used here (%s): only the clock_gettime path was tested\n", self);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--clock-child"))
		return clock_child();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_nesting_prefix_superset, reset),
		cmocka_unit_test_setup(test_recursion_counted_once, reset),
		cmocka_unit_test_setup(test_counts_and_units, reset),
		cmocka_unit_test_setup(test_same_pointer_names, reset),
		cmocka_unit_test_setup(test_reset, reset),
		cmocka_unit_test_setup(test_deep_nesting, reset),
		cmocka_unit_test_setup(test_threads, reset),
		cmocka_unit_test_setup(test_dump_to_instr_dir, reset),
		cmocka_unit_test(test_clock_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
