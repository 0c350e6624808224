/*
 * test_gauge.c - the gauge line parsers (src/gauge.c): the exact decimal to
 * nanoseconds conversion, RebenchLog totals and criteria, JMH warm-up and
 * measured lines, time's two layouts, a regex, lines split over chunks, and
 * each fault with its line number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gauge.h"

static int64_t ns_of(const char *s, int exp)
{
	int64_t v = -7;
	assert_int_equal(gauge_decimal_ns(s, strlen(s), exp, &v), 0);
	return v;
}

static void test_decimal(void **state)
{
	(void)state;
	int64_t v;
	assert_int_equal(ns_of("12.345", 6), 12345000);
	assert_int_equal(ns_of("1234", 3), 1234000);
	assert_int_equal(ns_of("1.0000005", 6), 1000001); /* half a nanosecond rounds up */
	assert_int_equal(ns_of("1.00000049", 6), 1000000);
	assert_int_equal(ns_of("0.0000004", 6), 0);
	assert_int_equal(ns_of("2e-3", 6), 2000);
	assert_int_equal(ns_of("1.5E+1", 9), 15000000000LL);
	assert_int_equal(ns_of(".5", 9), 500000000);
	assert_int_equal(ns_of("5.", 0), 5);
	assert_int_equal(ns_of("0e999999", 9), 0);
	assert_int_equal(ns_of("9223372036854775807", 0), INT64_MAX);
	assert_int_equal(ns_of("000000000000000000000000000001", 9), 1000000000);
	static const char *const bad[] = { "", ".", "1.2.3", "-1", "+1", "1e", "1e+", "12x", "1,5", "\xe2\x89\x88",
					   "9223372036854775808", "1e400", "99999999999999999999", " 1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(gauge_decimal_ns(bad[i], strlen(bad[i]), 6, &v), -1);
}

/* a reading of text in chunks of `chunk` bytes */
static int read_text(struct gauge *g, const struct gauge_conf *c, const char *text, size_t chunk, long expected,
		     long warm)
{
	struct kerr e = KERR_INIT;
	assert_int_equal(gauge_init(g, c, expected, warm, &e), 0);
	size_t n = strlen(text);
	for (size_t at = 0; at < n; at += chunk)
		if (gauge_feed(g, text + at, n - at < chunk ? n - at : chunk) < 0)
			return -1;
	return gauge_finish(g);
}

static const struct kiln_rec *rec(const struct gauge *g, const char *name, long i)
{
	for (size_t k = 0; k < g->recs.n; k++)
		if (!strcmp(g->recs.v[k].name, name) && g->recs.v[k].iter == i)
			return &g->recs.v[k];
	return NULL;
}

static void test_rebench(void **state)
{
	(void)state;
	struct gauge_conf c = { .format = GAUGE_REBENCH, .max_iterations = 100 };
	struct gauge g;
	const char *text = "noise: 12 things\r\n"
			   "Bounce: GC: 120kb\n"
			   "run 1: Bounce compile: iterations=1 runtime: 15us\n"
			   "run 1: Bounce: iterations=1 runtime: 1234us\n"
			   "Bounce total: iterations=1 runtime: 2ms\n"
			   "Bounce: iterations=1 runtime: 2.5ms";
	for (size_t chunk = 1; chunk <= 64; chunk *= 4) {
		assert_int_equal(read_text(&g, &c, text, chunk, 3, 0), 0);
		assert_int_equal(g.n, 3);
		assert_int_equal(g.wall[0], 1234000);
		assert_int_equal(g.wall[1], 2000000);
		assert_int_equal(g.wall[2], 2500000);
		const struct kiln_rec *gc = rec(&g, "gauge.GC", 0), *comp = rec(&g, "gauge.compile", 0);
		assert_non_null(gc);
		assert_true(gc->value == 120 && !strcmp(gc->unit, "kb"));
		assert_non_null(comp);
		assert_true(comp->value == 15e-6 && !strcmp(comp->unit, "s"));
		/* `noise: 12 things` is no criterion: no NAME: before it */
		assert_int_equal(g.recs.n, 2);
		gauge_release(&g);
	}
}

static void expect_error(const struct gauge_conf *c, const char *text, long expected, long warm, const char *msg)
{
	struct gauge g;
	assert_int_equal(read_text(&g, c, text, 7, expected, warm), -1);
	if (!strstr(g.error.buf, msg))
		fail_msg("'%s' lacks '%s'", g.error.buf, msg);
	gauge_release(&g);
}

static void test_rebench_faults(void **state)
{
	(void)state;
	struct gauge_conf c = { .format = GAUGE_REBENCH, .max_iterations = 2 };
	expect_error(&c, "hello\n", 0, 0, "gauge rebench: stdout (1 line): no iterations in the output");
	/* lines ReBench's expressions do not match are skipped, as ReBench skips them */
	expect_error(&c, "a\nB: iterations=1 runtime: 1.2.3us\nB: iterations=x\nB: iterations=1 runtime: 12s\n", 0, 0,
		     "stdout (4 lines): no iterations in the output");
	expect_error(&c, "B: iterations=1 runtime: 99999999999999999999ms\n", 0, 0,
		     "line 1: '99999999999999999999' is not a number of nanoseconds kiln can store");
	expect_error(&c, "B: iterations=1 runtime: 1us\nB: iterations=1 runtime: 1us\nB: iterations=1 runtime: 1us\n",
		     0, 0, "line 3: more iterations than the 2 allowed (gauge.max_iterations)");
	expect_error(&c, "B: iterations=1 runtime: 1us\n", 2, 0, "(1 line): 1 iterations where 2 were asked for");
	expect_error(&c, "B: total: 12kb\n", 0, 0, "line 1: a total in 'kb', not a time");
	struct strbuf many = STRBUF_INIT;
	for (int i = 0; i < 33; i++)
		sb_adds(&many, "B: GC: 1kb\n");
	expect_error(&c, many.buf, 0, 0, "line 33: more than 32 criteria for one iteration");
	sb_release(&many);
	c.from_stderr = 1;
	expect_error(&c, "nothing", 0, 0, "gauge rebench: stderr (1 line)");
}

/*
 * AWFY's harnesses end with `NAME: iterations=N average: Tus total: Tus`: a
 * criterion line to ReBench (criterion `iterations=N average`), of the
 * iteration the next total would end; none does, and it is dropped.  The
 * other lines are cases where ReBench's greedy prefix and backtracking
 * decide (checked against its expressions in Python while writing this).
 */
static void test_rebench_as_rebench(void **state)
{
	(void)state;
	struct gauge_conf c = { .format = GAUGE_REBENCH, .max_iterations = 100 };
	struct gauge g;
	assert_int_equal(read_text(&g, &c, "B: iterations=1 runtime: 5us\nB: iterations=1 average: 5us total: 5us\n", 3, 1, 0),
			 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.wall[0], 5000);
	assert_non_null(rec(&g, "gauge.iterations=1 average", 1)); /* of an iteration that never ended */
	gauge_release(&g);
	const char *text = "X: iterations=1 runtime: 5us Y: iterations=1 runtime: 7us\n" /* criterion Y of 7 us */
			   "a: b: iterations=1 runtime: 2e3us\n"                   /* NAME b, an exponent */
			   "B: iterations=1 runtime: 1.5ms trailing words\n"       /* not anchored at the end */
			   "B: iterations=1 runtime: .5ms\n"
			   "B: iterations=1 runtime: 3.us\n"
			   "B: x y: 5e\n"                                           /* criterion 'x y', 5 in unit 'e' */
			   "B total: iterations=1 runtime: 4ms\n";
	assert_int_equal(read_text(&g, &c, text, 5, 0, 0), 0);
	assert_int_equal(g.n, 5);
	int64_t want[] = { 2000000, 1500000, 500000, 3000, 4000000 };
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(g.wall[i], want[i]);
	assert_true(rec(&g, "gauge.Y", 0)->value == 7e-6);
	const struct kiln_rec *xy = rec(&g, "gauge.x y", 4);
	assert_non_null(xy);
	assert_true(xy->value == 5 && !strcmp(xy->unit, "e"));
	gauge_release(&g);
	/* a control character in a criterion's name is kept, escaped */
	assert_int_equal(read_text(&g, &c, "B: x\x01y: 12ms\nB: iterations=1 runtime: 1us\n", 4, 0, 0), 0);
	assert_non_null(rec(&g, "gauge.x\\x01y", 0));
	gauge_release(&g);
}

static void test_other_rebench_adapters(void **state)
{
	(void)state;
	struct gauge g;
	struct gauge_conf mv = { .format = GAUGE_MULTIVARIATE, .max_iterations = 100 };
	assert_int_equal(read_text(&g, &mv, "RESULT-bar:kbyte: 12\nRESULT-total: 3.5\nRESULT-total:us: 7\n"
					    "2:RESULT-baz: 4\n2:RESULT-total:s: 1\nnoise\n", 4, 3, 0), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.wall[0], 3500000);
	assert_int_equal(g.wall[1], 7000);
	assert_int_equal(g.wall[2], 1000000000);
	assert_true(rec(&g, "gauge.bar", 0)->value == 12 && !strcmp(rec(&g, "gauge.bar", 0)->unit, "kbyte"));
	assert_true(!strcmp(rec(&g, "gauge.baz", 2)->unit, "ms"));
	gauge_release(&g);
	expect_error(&mv, "RESULT-total:kb: 1\n", 0, 0, "a total in 'kb', not a time");
	expect_error(&mv, "RESULT-total: 1\n0:RESULT-total: 1\n", 0, 0, "line 2: a second total for data point 0");
	expect_error(&mv, "3:RESULT-total: 1\n", 0, 0, "data point 3 before data point 0 has its total");

	struct gauge_conf pl = { .format = GAUGE_PLAIN, .max_iterations = 100 };
	assert_int_equal(read_text(&g, &pl, "warming up\n1.25\n  +2e-3 \nthe end: 3\n", 3, 2, 0), 0);
	assert_int_equal(g.wall[0], 1250000000);
	assert_int_equal(g.wall[1], 2000000);
	gauge_release(&g);
	expect_error(&pl, "-1.5\n", 0, 0, "line 1: '-1.5': a negative time");

	struct gauge_conf sv = { .format = GAUGE_SAVINA, .max_iterations = 100 };
	assert_int_equal(read_text(&g, &sv, "PingPong  Iteration-0: 12.5 ms\nPingPong Iteration-1: 12 ms\n"
					    "a.b\tIteration-7:  0.25 ms x\n", 6, 2, 0), 0);
	assert_int_equal(g.wall[0], 12500000);
	assert_int_equal(g.wall[1], 250000);
	gauge_release(&g);

	struct gauge_conf vl = { .format = GAUGE_VALIDATION, .max_iterations = 100 };
	assert_int_equal(read_text(&g, &vl, "run: Fib: iterations=1 runtime: 120us success: true\n"
					    "Fib: iterations=1 runtime: 1.5ms success: true\n"
					    "[Total]   A#12 M#30 P#4\n", 8, 2, 0), 0);
	assert_int_equal(g.wall[0], 120000);
	assert_int_equal(g.wall[1], 0);
	assert_true(rec(&g, "gauge.Success", 0)->value == 1);
	assert_true(rec(&g, "gauge.Messages", 1)->value == 30);
	gauge_release(&g);
}

static void test_jmh(void **state)
{
	(void)state;
	struct gauge_conf c = { .format = GAUGE_JMH, .max_iterations = 100 };
	struct gauge g;
	const char *text = "# Warmup: 2 iterations, 1 s each\n"
			   "# Warmup Iteration   1: 20.5 ms/op\n"
			   "# Warmup Iteration   2: 15 us/op\n"
			   "Iteration   1: 10.001 ms/op\n"
			   "                 \xc2\xb7gc.alloc.rate: 0.001 MB/sec\n"
			   "Iteration   2: 3 s/op\n"
			   "Iterations: 2\n";
	assert_int_equal(read_text(&g, &c, text, 5, 4, 2), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.warmup, 2);
	assert_int_equal(g.wall[0], 20500000);
	assert_int_equal(g.wall[1], 15000);
	assert_int_equal(g.wall[2], 10001000);
	assert_int_equal(g.wall[3], 3000000000LL);
	gauge_release(&g);
	/* warmup_iterations 0: warm-up lines are iterations, as ReBench reads them */
	assert_int_equal(read_text(&g, &c, text, 5, 4, 0), 0);
	assert_int_equal(g.warmup, 0);
	gauge_release(&g);
	expect_error(&c, text, 4, 3, "2 warm-up iterations where warmup_iterations is 3");
	/* a throughput: its inverse is the time, the value kept as a series */
	assert_int_equal(read_text(&g, &c, "Iteration   1: 4.000 ops/ms\nIteration   2: 8 ops/us\n"
					  "Run complete. Total time: 00:00:02\nIteration   3: 1 s/op\n", 9, 0, 0), 0);
	assert_int_equal(g.n, 2); /* nothing after `Run complete` */
	assert_int_equal(g.wall[0], 250000);
	assert_int_equal(g.wall[1], 125);
	assert_true(rec(&g, "gauge.throughput", 1)->value == 8 && !strcmp(rec(&g, "gauge.throughput", 1)->unit, "ops/us"));
	gauge_release(&g);
	expect_error(&c, "Iteration   1: 12 B/op\n", 0, 0, "line 1: '12 B/op': a time per operation");
	/* not JMH's `N: VALUE UNIT` with VALUE of digits: skipped, as ReBench skips them */
	expect_error(&c, "Iteration   1: \xe2\x89\x88 10\xe2\x81\xbb\xe2\x81\xb4 s/op\nIteration   2: 1,5 ms/op\n"
			 "Iteration   3: n = 95, mean = 10 ms/op\n", 0, 0, "no iterations in the output");
	expect_error(&c, "# Warmup Iteration   1: 1 ms/op\nIteration   1: 1 ms/op\n# Warmup Iteration   1: 1 ms/op\n", 0, 1,
		     "line 3: a warm-up iteration after measured ones");
}

static void test_time_and_regex(void **state)
{
	(void)state;
	struct gauge_conf t = { .format = GAUGE_TIME, .max_iterations = 100, .from_stderr = 1 };
	struct gauge g;
	assert_int_equal(read_text(&g, &t, "real 1.25\nuser 1.00\nsys 0.20\nreal\t1m2.500s\nuser\t0m2.000s\nreal bad\n"
					  "max rss (kb): 5120\nwall-time (secounds): 0.75\n", 3, 0, 0), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.wall[2], 750000000LL);
	assert_true(rec(&g, "gauge.MaxRSS", 2)->value == 5120);
	assert_int_equal(g.wall[0], 1250000000LL);
	assert_int_equal(g.wall[1], 62500000000LL);
	assert_non_null(rec(&g, "gauge.user", 1));
	assert_true(rec(&g, "gauge.sys", 1)->value == 0.2);
	gauge_release(&g);
	struct gauge_conf r = { .format = GAUGE_REGEX, .regex = "took ([0-9.]+) (ms)?", .unit = "us",
				.max_iterations = 100 };
	assert_int_equal(read_text(&g, &r, "took 12.5 ms\ntook no time\nx took 3 ms and took 4 ms\n", 4, 0, 0), 0);
	assert_int_equal(g.n, 2); /* one match a line, the first */
	assert_int_equal(g.wall[0], 12500);
	assert_int_equal(g.wall[1], 3000);
	gauge_release(&g);
	struct gauge_conf r2 = { .format = GAUGE_REGEX, .regex = "took (x)?([0-9]+)", .unit = "s", .max_iterations = 100 };
	expect_error(&r2, "took 5\n", 0, 0, "line 1: 'took 5' matches, but its capture group took no part");
}

static void test_long_line(void **state)
{
	(void)state;
	struct gauge_conf c = { .format = GAUGE_REBENCH, .max_iterations = 100 };
	struct gauge g;
	struct kerr e = KERR_INIT;
	assert_int_equal(gauge_init(&g, &c, 0, 0, &e), 0);
	char *big = malloc(GAUGE_MAX_LINE + 1);
	memset(big, 'x', GAUGE_MAX_LINE);
	big[GAUGE_MAX_LINE] = '\n';
	assert_int_equal(gauge_feed(&g, big, GAUGE_MAX_LINE + 1), 0); /* exactly the bound: a line */
	assert_int_equal(gauge_feed(&g, big, GAUGE_MAX_LINE), 0);
	assert_int_equal(gauge_feed(&g, "y", 1), -1);
	assert_string_equal(g.error.buf, "gauge rebench: stdout line 2: a line longer than 1048576 bytes");
	free(big);
	gauge_release(&g);
}

static void test_regex_check(void **state)
{
	(void)state;
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(gauge_check_regex("a([0-9]+)", &why), 0);
	assert_int_equal(gauge_check_regex("a[0-9]+", &why), -1);
	assert_non_null(strstr(why.buf, "needs a capture group"));
	sb_reset(&why);
	assert_int_equal(gauge_check_regex("a(", &why), -1);
	assert_non_null(strstr(why.buf, "not a POSIX extended regex"));
	sb_release(&why);
	assert_int_equal(gauge_format_find("jmh"), GAUGE_JMH);
	assert_int_equal(gauge_format_find("JMH"), GAUGE_NONE);
	assert_int_equal(gauge_unit_exp("ms", 2), 6);
	assert_int_equal(gauge_unit_exp("m", 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_rebench),
		cmocka_unit_test(test_rebench_faults),
		cmocka_unit_test(test_rebench_as_rebench),
		cmocka_unit_test(test_other_rebench_adapters),
		cmocka_unit_test(test_jmh),
		cmocka_unit_test(test_time_and_regex),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_regex_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
