/*
 * test_timers.c - libkiln's internal timers and counters (lib/timers.c):
 * nesting (inclusive, prefix = superset), recursion counted once, counts,
 * reset, threads adding to one total, and the `stats` dump format parsed
 * back line by line (sorted names, us_ timers in microseconds, the
 * KILN_INSTR_DIR/stats.txt destination).
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
#include <time.h>
#include <unistd.h>
#include "kiln.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_nesting_prefix_superset, reset),
		cmocka_unit_test_setup(test_recursion_counted_once, reset),
		cmocka_unit_test_setup(test_counts_and_units, reset),
		cmocka_unit_test_setup(test_same_pointer_names, reset),
		cmocka_unit_test_setup(test_reset, reset),
		cmocka_unit_test_setup(test_deep_nesting, reset),
		cmocka_unit_test_setup(test_threads, reset),
		cmocka_unit_test_setup(test_dump_to_instr_dir, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
