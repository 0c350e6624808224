/*
 * test_stats.c - the `stats` parser (plugins/stats/parse_stats.c): a Pyston
 * style block inside unrelated stderr text, units by prefix, the last block
 * winning, a dump from libkiln's own kiln_stats_dump() read back, and bad
 * blocks refused with FILE:LINE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kiln.h"
#include "record.h"
#include "../../plugins/stats/stats.h"

static int parse(const char *text, struct rec_list *l, struct kerr *e)
{
	struct rec_sink s = rec_list_sink(l);
	return stats_parse_mem("err.txt", text, strlen(text), &s, e);
}

static const struct kiln_rec *find(const struct rec_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static void test_block_in_noise(void **state)
{
	(void)state;
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	const char *text =
		"Traceback? no, just the program talking\n"
		"x: 12\n"
		"Stats:\n"
		"  us_compiling: 18234\n"
		"\n"
		"  us_compiling_irgen:\t2500  \r\n"
		"  num_traces: 12\n"
		"  gc_bytes: 1.5e6\n"
		"(End of stats)\n"
		"bye: 3\n";
	assert_int_equal(parse(text, &l, &e), 0);
	assert_int_equal(l.n, 4);
	const struct kiln_rec *r = find(&l, "us_compiling");
	assert_non_null(r);
	assert_int_equal(r->kind, REC_PEXEC);
	assert_true(r->value == 18234);
	assert_string_equal(r->unit, "us");
	assert_true(find(&l, "us_compiling_irgen")->value == 2500);
	assert_string_equal(find(&l, "num_traces")->unit, "");
	assert_true(find(&l, "num_traces")->value == 12);
	assert_true(find(&l, "gc_bytes")->value == 1.5e6);
	assert_null(find(&l, "x"));
	assert_null(find(&l, "bye"));
	rec_list_clear(&l);
	kerr_release(&e);
}

static void test_last_block_wins(void **state)
{
	(void)state;
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	const char *text =
		"Stats:\n  num_a: 1\n  num_b: 2\n(End of stats)\n"
		"(End of stats)\n" /* stray: outside any block, ignored */
		"Stats:\n  num_a: 10\n(End of stats)";
	assert_int_equal(parse(text, &l, &e), 0);
	assert_int_equal(l.n, 1);
	assert_true(find(&l, "num_a")->value == 10);
	assert_null(find(&l, "num_b"));
	rec_list_clear(&l);
	kerr_release(&e);
}

/* what libkiln's timers write is what this parser reads */
static void test_libkiln_dump(void **state)
{
	(void)state;
	kiln_stats_reset();
	kiln_timer_start("us_outer");
	kiln_timer_start("us_inner");
	kiln_timer_stop();
	kiln_timer_stop();
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	kiln_stats_dump(f);
	fclose(f);
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	struct rec_sink s = rec_list_sink(&l);
	if (stats_parse_mem("dump", out, n, &s, &e))
		fail_msg("%s\n%s", sb_str(&e.msg), out);
	const struct kiln_rec *outer = NULL, *inner = NULL;
	for (size_t i = 0; i < l.n; i++) {
		if (strstr(l.v[i].name, "us_outer"))
			outer = &l.v[i];
		if (strstr(l.v[i].name, "us_inner"))
			inner = &l.v[i];
	}
	assert_non_null(outer);
	assert_non_null(inner);
	assert_string_equal(outer->unit, "us");
	assert_true(outer->value >= inner->value);
	free(out);
	rec_list_clear(&l);
	kerr_release(&e);
	kiln_stats_reset();
}

static void expect_error(const char *text, const char *want)
{
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse(text, &l, &e), -1);
	if (!strstr(sb_str(&e.msg), want))
		fail_msg("for\n%s\nexpected '%s' in '%s'", text, want, sb_str(&e.msg));
	assert_int_equal(l.n, 0);
	rec_list_clear(&l);
	kerr_release(&e);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "err.txt: no 'Stats:'");
	expect_error("hello\nus_x: 3\n", "no 'Stats:'");
	expect_error("Stats:\n  num_a: 1\n", "err.txt:1: stats block opened here has no '(End of stats)'");
	expect_error("Stats:\n  num_a: 1\nStats:\n(End of stats)\n", "err.txt:3: 'Stats:' inside the unfinished");
	expect_error("Stats:\n  num_a 1\n(End of stats)\n", "err.txt:2: expected 'name: value'");
	expect_error("Stats:\n  num_a: one\n(End of stats)\n", "err.txt:2: field 'num_a': value 'one' is not a finite number");
	expect_error("Stats:\n  num_a: 1 2\n(End of stats)\n", "field 'num_a'");
	expect_error("Stats:\n  num_a: inf\n(End of stats)\n", "field 'num_a'");
	expect_error("Stats:\n  num_a:\n(End of stats)\n", "field 'num_a': missing");
	expect_error("Stats:\n  : 5\n(End of stats)\n", "err.txt:2: empty");
	expect_error("Stats:\n  num a: 5\n(End of stats)\n", "err.txt:2: field 'num a'");
	expect_error("Stats:\n  num_a: 1\n  num_b: 1\n  num_a: 2\n(End of stats)\n",
		     "err.txt:4: field 'num_a': appears twice in one stats block (first at line 2)");
	/* a NUL byte does not cut a value short */
	const char nul[] = "Stats:\n  num_a: 1\0x\n(End of stats)\n";
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	struct rec_sink s = rec_list_sink(&l);
	assert_int_equal(stats_parse_mem("err.txt", nul, sizeof(nul) - 1, &s, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "err.txt:2:"));
	kerr_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_in_noise),
		cmocka_unit_test(test_last_block_wins),
		cmocka_unit_test(test_libkiln_dump),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
