/*
 * test_record.c - the record model (src/record.c): the rec_list sink keeps
 * its own copies, rec_to_json writes the generic format and the generic
 * JSON Lines parser reads it back, and every kind of bad line is refused with
 * FILE:LINE and the field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

static int parse(const char *text, struct rec_list *l, struct kerr *e)
{
	struct rec_sink s = rec_list_sink(l);
	return rec_parse_jsonl("t.jsonl", text, strlen(text), &s, e);
}

static void test_three_kinds(void **state)
{
	(void)state;
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	const char *text =
		"{\"i\":12,\"name\":\"gc\",\"value\":0.0031,\"unit\":\"s\"}\n"
		"\n   \n"
		"{\"name\":\"us_compiling\",\"value\":18234,\"unit\":\"us\"}\r\n"
		"{\"name\":\"gc-minor\",\"start_ns\":100,\"end_ns\":250}"; /* no final newline */
	assert_int_equal(parse(text, &l, &e), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.v[0].kind, REC_ITER);
	assert_int_equal(l.v[0].iter, 12);
	assert_string_equal(l.v[0].name, "gc");
	assert_true(l.v[0].value == 0.0031);
	assert_string_equal(l.v[0].unit, "s");
	assert_int_equal(l.v[1].kind, REC_PEXEC);
	assert_true(l.v[1].value == 18234);
	assert_string_equal(l.v[1].unit, "us");
	assert_int_equal(l.v[2].kind, REC_EVENT);
	assert_int_equal(l.v[2].start_ns, 100);
	assert_int_equal(l.v[2].end_ns, 250);
	assert_null(l.v[2].unit);
	rec_list_clear(&l);
	assert_int_equal(l.n, 0);
	kerr_release(&e);
}

/* a parser hands out pointers into its own buffers: the list must copy them */
static void test_list_copies(void **state)
{
	(void)state;
	struct rec_list l = REC_LIST_INIT;
	struct rec_sink s = rec_list_sink(&l);
	char name[16], unit[8];
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		snprintf(unit, sizeof(unit), "u%d", i % 3);
		struct kiln_rec r = { .kind = REC_ITER, .iter = i, .name = name, .value = i * 0.5, .unit = unit };
		assert_int_equal(s.emit(s.ctx, &r), 0);
	}
	strcpy(name, "XXXX");
	assert_int_equal(l.n, 100);
	assert_string_equal(l.v[7].name, "n7");
	assert_string_equal(l.v[7].unit, "u1");
	assert_string_equal(l.v[99].name, "n99");
	assert_true(l.v[99].value == 49.5);
	rec_list_clear(&l);
}

/* rec_to_json and rec_parse_jsonl are inverses, shortest exact numbers */
static void test_roundtrip(void **state)
{
	(void)state;
	struct kiln_rec in[] = {
		{ .kind = REC_ITER, .iter = 3, .name = "gc.time", .value = 0.0031, .unit = "s" },
		{ .kind = REC_ITER, .iter = 0, .name = "x", .value = 1.0 / 3.0, .unit = NULL },
		{ .kind = REC_PEXEC, .name = "we\"ird\\name", .value = -2.5e-300, .unit = "" },
		{ .kind = REC_EVENT, .name = "gc-minor", .start_ns = 5, .end_ns = 9000000000000LL },
	};
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		rec_to_json(&in[i], &sb);
		sb_addc(&sb, '\n');
	}
	assert_non_null(strstr(sb.buf, "\"value\":0.0031,"));
	assert_non_null(strstr(sb.buf, "{\"i\":0,\"name\":\"x\",\"value\":0.3333333333333333}"));
	assert_non_null(strstr(sb.buf, "\"we\\\"ird\\\\name\""));
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse(sb.buf, &l, &e), 0);
	assert_int_equal(l.n, ARRAY_SIZE(in));
	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		assert_int_equal(l.v[i].kind, in[i].kind);
		assert_string_equal(l.v[i].name, in[i].name);
		if (in[i].kind != REC_EVENT)
			assert_true(l.v[i].value == in[i].value);
	}
	assert_int_equal(l.v[0].iter, 3);
	assert_int_equal(l.v[3].end_ns, 9000000000000LL);
	rec_list_clear(&l);
	/* control characters are escaped, never written raw */
	sb_reset(&sb);
	struct kiln_rec tab = { .kind = REC_PEXEC, .name = "a\tb", .value = 1 };
	rec_to_json(&tab, &sb);
	assert_string_equal(sb.buf, "{\"name\":\"a\\u0009b\",\"value\":1}");
	sb_release(&sb);
	kerr_release(&e);
}

static void expect_error(const char *text, const char *want)
{
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse(text, &l, &e), -1);
	if (!strstr(sb_str(&e.msg), want))
		fail_msg("for %s: expected '%s' in '%s'", text, want, sb_str(&e.msg));
	assert_int_equal(e.code, KEXIT_CONFIG);
	rec_list_clear(&l);
	kerr_release(&e);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[1,2]\n", "t.jsonl:1: a record must be a JSON object");
	expect_error("\n42\n", "t.jsonl:2: a record must be a JSON object");
	expect_error("{\"value\":1}\n", "t.jsonl:1: field 'name': missing");
	expect_error("{\"name\":5,\"value\":1}\n", "field 'name': not a string");
	expect_error("{\"name\":\"\",\"value\":1}\n", "field 'name': empty");
	expect_error("{\"name\":\"a\\u0001b\",\"value\":1}\n", "field 'name'");
	expect_error("{\"name\":\"a\",\"value\":\"1\"}\n", "field 'value': not a number");
	expect_error("{\"name\":\"a\",\"value\":null}\n", "field 'value': not a number");
	expect_error("{\"i\":-1,\"name\":\"a\",\"value\":1}\n", "field 'i': negative");
	expect_error("{\"i\":1.5,\"name\":\"a\",\"value\":1}\n", "field 'i': not an integer");
	expect_error("{\"i\":2.0,\"name\":\"a\",\"value\":1}\n", "field 'i': not an integer");
	expect_error("{\"i\":\"2\",\"name\":\"a\",\"value\":1}\n", "field 'i': not a number");
	expect_error("{\"name\":\"a\",\"start_ns\":10,\"end_ns\":9}\n", "field 'end_ns': before start_ns");
	expect_error("{\"name\":\"a\",\"start_ns\":10}\n", "field 'end_ns': missing");
	expect_error("{\"name\":\"a\",\"start_ns\":1,\"end_ns\":2,\"value\":3}\n", "unknown combination");
	expect_error("{\"name\":\"a\",\"start_ns\":1,\"end_ns\":2,\"i\":3}\n", "field 'i'");
	expect_error("{\"name\":\"a\"}\n", "field 'value': missing");
	expect_error("{\"name\":\"a\",\"value\":1,\"vlaue\":2}\n", "field 'vlaue': unknown field");
	expect_error("{\"name\":\"a\",\"value\":1,\"unit\":3}\n", "field 'unit': not a string");
	expect_error("{\"name\":\"a\",\"value\":1}\n{\"name\":\"a\",\"value\":1", "t.jsonl:2:");
	expect_error("{\"name\":\"a\",\"value\":1} {}\n", "t.jsonl:1:");
	expect_error("{\"name\":\"a\",\"name\":\"b\",\"value\":1}\n", "t.jsonl:1:");
	expect_error("{\"name\":\"a\",\"value\":1e999}\n", "t.jsonl:1:");
}

/* records before the bad line stand, as record.h promises */
static void test_prefix_kept(void **state)
{
	(void)state;
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse("{\"name\":\"a\",\"value\":1}\n{\"name\":\"b\",\"value\":2}\nxx\n", &l, &e), -1);
	assert_int_equal(l.n, 2);
	assert_non_null(strstr(sb_str(&e.msg), "t.jsonl:3:"));
	rec_list_clear(&l);
	kerr_release(&e);
}

static void test_file_and_printer(void **state)
{
	(void)state;
	char path[] = "/tmp/kiln-test-record.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "{\"i\":1,\"name\":\"gc\",\"value\":2,\"unit\":\"s\"}\n{\"name\":\"e\",\"start_ns\":1,\"end_ns\":1}\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);

	char *out = NULL;
	size_t outn = 0;
	FILE *f = open_memstream(&out, &outn);
	struct rec_sink ps = rec_print_sink(f);
	struct kerr e = KERR_INIT;
	assert_int_equal(instr_parse_path(rec_parse_jsonl_file, path, &ps, &e), 0);
	fclose(f);
	assert_string_equal(out, text);
	free(out);

	unlink(path);
	struct rec_list l = REC_LIST_INIT;
	struct rec_sink s = rec_list_sink(&l);
	assert_int_equal(instr_parse_path(rec_parse_jsonl_file, path, &s, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), path));
	kerr_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_kinds),
		cmocka_unit_test(test_list_copies),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_prefix_kept),
		cmocka_unit_test(test_file_and_printer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
