/*
 * test_pypylog.c - the PYPYLOG parser of the pypy plugin on hand-made logs:
 * PyPy's documented exclusive-time example, iterations delimited by
 * kiln-iter (including a JIT section that crosses an iteration boundary),
 * independence from how the bytes are chunked, content lines (short, and
 * longer than the parse buffer), the calibration, .zst logs, and every
 * malformed case giving FILE:LINE instead of a crash.
 *
 * The calibration used here makes one tick one second (ns_per_tick 1e9), so
 * tick counts can be compared exactly.
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
#include "../../plugins/pypy/pypylog.h"

static const struct pypylog_calib one_s = { 1e9, 0, 0 };

static int parse(const char *text, struct rec_list *l, struct kerr *e)
{
	struct rec_sink s = rec_list_sink(l);
	return pypylog_parse_mem("t.log", text, strlen(text), &one_s, &s, e);
}

/* the value of a record, failing the test when it is missing or doubled */
static double get(const struct rec_list *l, enum rec_kind kind, long iter, const char *name)
{
	const struct kiln_rec *found = NULL;
	for (size_t i = 0; i < l->n; i++) {
		const struct kiln_rec *r = &l->v[i];
		if (r->kind == kind && !strcmp(r->name, name) && (kind != REC_ITER || r->iter == iter)) {
			if (found)
				fail_msg("record %s (iteration %ld) twice", name, iter);
			found = r;
		}
	}
	if (!found)
		fail_msg("no record %s (iteration %ld)", name, iter);
	return found->value;
}

static size_t count_kind(const struct rec_list *l, enum rec_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].kind == kind;
	return n;
}

/* PyPy's documentation: foo[2..17] with bar[4..5], bar[7..9]; then bar[20..30] */
static void test_documented_example(void **state)
{
	(void)state;
	const char *log =
		"[2] {foo\n"
		"[4] {bar\n"
		"[5] bar}\n"
		"[7] {bar\n"
		"[9] bar}\n"
		"[11] foo}\n"
		"[14] {bar\n"
		"[1e] bar}\n";
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse(log, &l, &e), 0);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.foo.time") == 12);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.bar.time") == 13);
	assert_true(get(&l, REC_PEXEC, 0, "outside.time") == 3);
	assert_true(get(&l, REC_PEXEC, 0, "other.time") == 25);
	assert_true(get(&l, REC_PEXEC, 0, "gc.time") == 0);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.bar.count") == 3);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.foo.count") == 1);
	assert_int_equal(count_kind(&l, REC_ITER), 0);
	rec_list_clear(&l);
	kerr_release(&e);
}

/*
 * Two iterations.  Iteration 0 (ticks 0x10..0x40): gc-minor 0x12..0x1a with
 * walkroots 0x14..0x16 inside (one pause, 8 ticks of GC), a jit-tracing
 * 0x20..0x30 with jit-optimize 0x22..0x25.  Iteration 1 (0x50..0x90): a
 * jit-tracing that began before it at 0x48 and ends inside at 0x58 (crossing
 * the boundary, as PyPy's tracer can), gc-collect-step 0x60..0x61 and a
 * gc-minor 0x70..0x78: two GC pauses.  An "import" section is other.
 */
static const char *iter_log =
	"[8] {gc-set-nursery-size\n"
	"nursery size: 270336\n"
	"[c] gc-set-nursery-size}\n"
	"[10] {kiln-iter\n"
	"[12] {gc-minor\n"
	"[14] {gc-minor-walkroots\n"
	"[16] gc-minor-walkroots}\n"
	"minor collect, total memory used: 0\n"
	"[1a] gc-minor}\n"
	"[20] {jit-tracing\n"
	"[22] {jit-optimize\n"
	"[p0, p1, p2]\n"
	"[25] jit-optimize}\n"
	"[30] jit-tracing}\n"
	"[40] kiln-iter}\n"
	"[48] {jit-tracing\n"
	"[50] {kiln-iter\n"
	"[58] jit-tracing}\n"
	"[60] {gc-collect-step\n"
	"[61] gc-collect-step}\n"
	"[64] {import\n"
	"[66] import}\n"
	"[70] {gc-minor\n"
	"[78] gc-minor}\n"
	"[90] kiln-iter}\n"
	"[a0] {jit-summary\n"
	"[a1] jit-summary}\n";

static void test_iterations(void **state)
{
	(void)state;
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse(iter_log, &l, &e), 0);
	assert_int_equal(count_kind(&l, REC_ITER), 2 * 6);
	/* iteration 0 */
	assert_true(get(&l, REC_ITER, 0, "gc.time") == 8);
	assert_true(get(&l, REC_ITER, 0, "gc.count") == 1);
	assert_true(get(&l, REC_ITER, 0, "jit.time") == 16);
	assert_true(get(&l, REC_ITER, 0, "jit.count") == 1);
	assert_true(get(&l, REC_ITER, 0, "other.time") == 0);
	assert_true(get(&l, REC_ITER, 0, "outside.time") == 0x30 - 8 - 16);
	/* iteration 1: the crossing jit-tracing counts only its part inside, and not as a new episode */
	assert_true(get(&l, REC_ITER, 1, "jit.time") == 8);
	assert_true(get(&l, REC_ITER, 1, "jit.count") == 0);
	assert_true(get(&l, REC_ITER, 1, "gc.time") == 1 + 8);
	assert_true(get(&l, REC_ITER, 1, "gc.count") == 2);
	assert_true(get(&l, REC_ITER, 1, "other.time") == 2);
	assert_true(get(&l, REC_ITER, 1, "outside.time") == 0x40 - 8 - 9 - 2);
	/* the pexec: everything between the first and the last timestamp */
	double sum = get(&l, REC_PEXEC, 0, "gc.time") + get(&l, REC_PEXEC, 0, "jit.time") +
		     get(&l, REC_PEXEC, 0, "other.time") + get(&l, REC_PEXEC, 0, "outside.time");
	assert_true(sum == 0xa1 - 8);
	assert_true(get(&l, REC_PEXEC, 0, "gc.time") == 4 + 8 + 1 + 8);
	assert_true(get(&l, REC_PEXEC, 0, "gc.count") == 4);
	assert_true(get(&l, REC_PEXEC, 0, "jit.count") == 3);
	assert_true(get(&l, REC_PEXEC, 0, "jit.time") == 16 + 16 + 1);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.gc-minor.time") == 6 + 8);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.gc-minor-walkroots.time") == 2);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.gc-minor.count") == 2);
	assert_true(get(&l, REC_PEXEC, 0, "pypy.jit-tracing.count") == 2);
	/* kiln-iter is a marker, not a section of the summary */
	for (size_t i = 0; i < l.n; i++)
		assert_null(strstr(l.v[i].name, "kiln-iter"));
	rec_list_clear(&l);
	kerr_release(&e);
}

/* the calibration scales ticks: 2.5 ns per tick */
static void test_calibration(void **state)
{
	(void)state;
	struct pypylog_calib c;
	struct kerr e = KERR_INIT;
	const char *j = "{\"clock\":\"monotonic_raw\",\"pairs\":[[1000,500],[1200,999],[5000,10500]]}";
	assert_int_equal(pypylog_calib_parse("c.json", j, strlen(j), &c, &e), 0);
	assert_true(c.ns_per_tick == 2.5);
	struct rec_list l = REC_LIST_INIT;
	struct rec_sink s = rec_list_sink(&l);
	const char *log = "[0] {gc-minor\n[190] gc-minor}\n"; /* 400 ticks = 1 us */
	assert_int_equal(pypylog_parse_mem("t.log", log, strlen(log), &c, &s, &e), 0);
	assert_true(get(&l, REC_PEXEC, 0, "gc.time") == 1e-6);
	rec_list_clear(&l);

	const char *bad[] = {
		"[1,2]", "{}", "{\"pairs\":[[1,2]]}", "{\"pairs\":[[1,2],[1,3]]}",
		"{\"pairs\":[[1,2],[3,2]]}", "{\"pairs\":[[1,2],[3,\"4\"]]}", "{\"pairs\":[[1,2],[3]]}", "nope",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(pypylog_calib_parse("c.json", bad[i], strlen(bad[i]), &c, &e), -1);
		assert_non_null(strstr(sb_str(&e.msg), "c.json"));
	}
	kerr_release(&e);
}

static void to_json(const struct rec_list *l, struct strbuf *sb)
{
	for (size_t i = 0; i < l->n; i++) {
		rec_to_json(&l->v[i], sb);
		sb_addc(sb, '\n');
	}
}

/* any chunking of the input gives the same records; over-long content lines are skipped */
static void test_chunking(void **state)
{
	(void)state;
	struct strbuf text = STRBUF_INIT;
	sb_adds(&text, iter_log);
	/* a content line longer than the parse buffer, then more events */
	sb_adds(&text, "[b0] {jit-backend-dump\nCODE_DUMP @7f8e45e03000 +0  ");
	for (int i = 0; i < 70000; i++)
		sb_adds(&text, "48894D48");
	sb_adds(&text, "\n[b8] jit-backend-dump}\n");

	struct rec_list whole = REC_LIST_INIT, bytes = REC_LIST_INIT, odd = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse(text.buf, &whole, &e), 0);
	assert_true(get(&whole, REC_PEXEC, 0, "pypy.jit-backend-dump.time") == 8);

	struct rec_sink s1 = rec_list_sink(&bytes);
	struct pypylog *p = pypylog_new("t.log", &one_s, &s1);
	for (size_t i = 0; i < text.len; i++)
		assert_int_equal(pypylog_feed(p, text.buf + i, 1, &e), 0);
	assert_int_equal(pypylog_finish(p, &e), 0);
	pypylog_free(p);

	struct rec_sink s2 = rec_list_sink(&odd);
	p = pypylog_new("t.log", &one_s, &s2);
	for (size_t i = 0, step = 1; i < text.len; i += step, step = step * 7 % 65536 + 1) {
		size_t n = step < text.len - i ? step : text.len - i;
		assert_int_equal(pypylog_feed(p, text.buf + i, n, &e), 0);
	}
	assert_int_equal(pypylog_finish(p, &e), 0);
	pypylog_free(p);

	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
	to_json(&whole, &a);
	to_json(&bytes, &b);
	to_json(&odd, &c);
	assert_string_equal(a.buf, b.buf);
	assert_string_equal(a.buf, c.buf);
	sb_release(&a);
	sb_release(&b);
	sb_release(&c);
	rec_list_clear(&whole);
	rec_list_clear(&bytes);
	rec_list_clear(&odd);
	sb_release(&text);
	kerr_release(&e);
}

static void expect_error(const char *log, const char *want)
{
	struct rec_list l = REC_LIST_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(parse(log, &l, &e), -1);
	if (!strstr(sb_str(&e.msg), want))
		fail_msg("for\n%s\nexpected '%s' in '%s'", log, want, sb_str(&e.msg));
	assert_int_equal(e.code, KEXIT_CONFIG);
	rec_list_clear(&l);
	kerr_release(&e);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_error("[1] {a\n[2] {b\n[3] a}\n", "t.log:3: 'a}' does not close the innermost open section 'b' (line 2)");
	expect_error("[1] {a\n[2] a}\n[3] a}\n", "t.log:3: 'a}' closes no open section");
	expect_error("[1] {a\n[2] {b\n[3] b}\n", "t.log:1: section 'a' opened here is not finished");
	expect_error("[1] {a\n[2] a}\n[3] {b", "t.log:3: last line has no newline (truncated log?)");
	expect_error("[1] {a\n[2] a}\n[3", "t.log:3: last line has no newline");
	expect_error("[1] {kiln-iter\n[2] {a\n[3] a}\n", "t.log:1: iteration 0 ('{kiln-iter') is not finished");
	expect_error("[1] kiln-iter}\n", "t.log:1: 'kiln-iter}' without '{kiln-iter'");
	expect_error("[1] {kiln-iter\n[2] {kiln-iter\n", "t.log:2: '{kiln-iter' inside the unfinished iteration opened at line 1");
	expect_error("[5] {a\n[4] a}\n", "t.log:2: timestamp 4 is earlier than the one before (5)");
	expect_error("[11112222333344445] {a\n", "t.log:1: timestamp longer than 16 hex digits");
	expect_error("", "t.log: no sections in the log");
	expect_error("just some text\nand more\n", "no sections in the log");
	struct strbuf deep = STRBUF_INIT, wide = STRBUF_INIT, longname = STRBUF_INIT;
	for (int i = 0; i < 1100; i++)
		sb_addf(&deep, "[%x] {d\n", i);
	expect_error(deep.buf, "t.log:1025: sections nested deeper than 1024");
	for (int i = 0; i < 5000; i++)
		sb_addf(&wide, "[%x] {n%d\n[%x] n%d}\n", i, i, i, i);
	expect_error(wide.buf, "t.log:8191: more than 4096 distinct section names");
	sb_adds(&longname, "[1] {");
	for (int i = 0; i < 200; i++)
		sb_addc(&longname, 'x');
	sb_adds(&longname, "\n");
	expect_error(longname.buf, "t.log:1: section name longer than 128 bytes");
	sb_release(&deep);
	sb_release(&wide);
	sb_release(&longname);
}

/* the plugin's parse function: calibration beside the log, plain and .zst */
static void test_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/kiln-test-pypylog.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *log = path_join(dir, "pypylog");
	char *cal = path_join(dir, "calibration.json");
	char *zst = xasprintf("%s.zst", log);
	struct kerr e = KERR_INIT;
	struct rec_list a = REC_LIST_INIT, b = REC_LIST_INIT;
	struct rec_sink sa = rec_list_sink(&a), sb = rec_list_sink(&b);

	assert_int_equal(write_file(log, iter_log, strlen(iter_log), &e), 0);
	/* no calibration yet: a clear error */
	assert_int_equal(instr_parse_path(pypylog_parse_file, log, &sa, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "calibration.json"));
	const char *c = "{\"pairs\":[[0,0],[1000,2000]]}\n";
	assert_int_equal(write_file(cal, c, strlen(c), &e), 0);
	assert_int_equal(instr_parse_path(pypylog_parse_file, log, &sa, &e), 0);
	assert_true(get(&a, REC_ITER, 0, "gc.time") == 8 * 2e-9);

	assert_int_equal(pypylog_compress(log, &e), 0);
	assert_false(file_exists(log));
	assert_true(file_exists(zst));
	if (instr_parse_path(pypylog_parse_file, zst, &sb, &e)) fail_msg("%s", sb_str(&e.msg));
	struct strbuf ja = STRBUF_INIT, jb = STRBUF_INIT;
	to_json(&a, &ja);
	to_json(&b, &jb);
	assert_string_equal(ja.buf, jb.buf);

	/* a truncated .zst is an error, not a short parse */
	struct strbuf z = STRBUF_INIT;
	assert_int_equal(read_file(zst, &z, &e), 0);
	assert_int_equal(write_file(zst, z.buf, z.len - 6, &e), 0);
	rec_list_clear(&b);
	assert_int_equal(instr_parse_path(pypylog_parse_file, zst, &sb, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "zst"));

	assert_int_equal(instr_parse_path(pypylog_parse_file, "/nonexistent/pypylog", &sb, &e), -1);
	sb_release(&z);
	sb_release(&ja);
	sb_release(&jb);
	rec_list_clear(&a);
	rec_list_clear(&b);
	rm_rf(dir);
	free(log);
	free(cal);
	free(zst);
	kerr_release(&e);
}

/*
 * A log of many parse buffers (files are read 256 KB at a time) with every
 * kind of line crossing buffer edges, and a content line longer than the
 * buffer, sized to end exactly on a page boundary: the file path (read,
 * fast path) must give exactly the records of the byte-by-byte reference
 * on the same bytes.
 */
static void test_big_file_paths(void **state)
{
	(void)state;
	static const char *const names[] = { "gc-minor", "gc-minor-walkroots", "jit-tracing",
					      "jit-backend-dump", "gc-collect-step", "import" };
	struct strbuf text = STRBUF_INIT;
	uint64_t t = 0x2f1dd6c3b8b;
	unsigned seed = 12345;
	long iter = 0;
	while (text.len < (9u << 20)) {
		sb_addf(&text, "[%llx] {kiln-iter\n", (unsigned long long)(t += 7));
		for (int k = 0; k < 20; k++) {
			seed = seed * 1103515245u + 12345u;
			const char *a = names[(seed >> 16) % ARRAY_SIZE(names)];
			const char *b = names[(seed >> 20) % ARRAY_SIZE(names)];
			sb_addf(&text, "[%llx] {%s\n", (unsigned long long)(t += seed % 97), a);
			if (seed & 1) {
				sb_addf(&text, "[%llx] {%s\n", (unsigned long long)(t += 3), b);
				sb_addf(&text, "[%llx] %s}\n", (unsigned long long)(t += (seed >> 8) % 300), b);
			}
			if ((seed & 6) == 6)
				sb_adds(&text, "some content [p0, p1] {not a section\n");
			sb_addf(&text, "[%llx] %s}\n", (unsigned long long)(t += 11), a);
		}
		sb_addf(&text, "[%llx] kiln-iter}\n", (unsigned long long)(t += 5));
		if (++iter % 3000 == 0) { /* a content line longer than the parse buffer */
			sb_adds(&text, "CODE_DUMP ");
			for (int i = 0; i < 40000; i++)
				sb_adds(&text, "48894D48");
			sb_addc(&text, '\n');
		}
	}
	/* pad with content so the file ends exactly at a page boundary */
	size_t pad = 4096 - (text.len + 2) % 4096;
	for (size_t i = 0; i < pad; i++)
		sb_addc(&text, 'x');
	sb_adds(&text, "\n\n");
	assert_int_equal(text.len % 4096, 0);

	char dir[] = "/tmp/kiln-test-pypylog-big.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *log = path_join(dir, "pypylog"), *cal = path_join(dir, "calibration.json");
	struct kerr e = KERR_INIT;
	const char *c = "{\"pairs\":[[0,0],[1000000000,1000000000000000000]]}\n";
	assert_int_equal(write_file(cal, c, strlen(c), &e), 0);
	assert_int_equal(write_file(log, text.buf, text.len, &e), 0);

	struct rec_list ref = REC_LIST_INIT, fast = REC_LIST_INIT;
	struct rec_sink sr = rec_list_sink(&ref), sf = rec_list_sink(&fast);
	pypylog_fast = 0;
	assert_int_equal(pypylog_parse_mem("t.log", text.buf, text.len, &one_s, &sr, &e), 0);
	assert_int_equal(count_kind(&ref, REC_ITER), 6 * iter);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	to_json(&ref, &a);
	/* the file through the word path (1) and the widest one (2) */
	for (int f = 1; f <= 2; f++) {
		pypylog_fast = f;
		rec_list_clear(&fast);
		if (instr_parse_path(pypylog_parse_file, log, &sf, &e))
			fail_msg("%s", sb_str(&e.msg));
		sb_reset(&b);
		to_json(&fast, &b);
		assert_string_equal(a.buf, b.buf);
	}

	/* cut at every kind of place near a buffer edge: the same error either way */
	for (size_t cut = (4u << 20) - 40; cut < (4u << 20) + 40; cut += 7) {
		struct rec_list r1 = REC_LIST_INIT, r2 = REC_LIST_INIT;
		struct rec_sink s1 = rec_list_sink(&r1), s2 = rec_list_sink(&r2);
		struct kerr e1 = KERR_INIT, e2 = KERR_INIT;
		assert_int_equal(write_file(log, text.buf, cut, &e), 0);
		pypylog_fast = 0;
		int x1 = pypylog_parse_mem(log, text.buf, cut, &one_s, &s1, &e1);
		pypylog_fast = 2;
		int x2 = instr_parse_path(pypylog_parse_file, log, &s2, &e2);
		assert_int_equal(x1, -1);
		assert_int_equal(x2, -1);
		assert_string_equal(sb_str(&e1.msg), sb_str(&e2.msg));
		assert_int_equal(r1.n, r2.n);
		rec_list_clear(&r1);
		rec_list_clear(&r2);
		kerr_release(&e1);
		kerr_release(&e2);
	}
	sb_release(&a);
	sb_release(&b);
	rec_list_clear(&ref);
	rec_list_clear(&fast);
	rm_rf(dir);
	free(log);
	free(cal);
	sb_release(&text);
	kerr_release(&e);
}

/*
 * every path (0: reference, 1: word at a time, 2: widest the CPU has) on a
 * log; the reference's result and number of records
 */
static int all_paths_agree(const char *text, size_t len, size_t *nrec)
{
	struct strbuf out[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int r0 = 0;
	for (int f = 0; f < 3; f++) {
		struct rec_list l = REC_LIST_INIT;
		struct rec_sink s = rec_list_sink(&l);
		struct kerr e = KERR_INIT;
		pypylog_fast = f;
		int r = pypylog_parse_mem("t.log", text, len, &one_s, &s, &e);
		if (!f) {
			r0 = r;
			*nrec = l.n;
		}
		to_json(&l, &out[f]);
		sb_addf(&out[f], "%d %s", r, sb_str(&e.msg));
		rec_list_clear(&l);
		kerr_release(&e);
	}
	pypylog_fast = 2;
	assert_string_equal(out[0].buf, out[1].buf);
	assert_string_equal(out[0].buf, out[2].buf);
	for (int f = 0; f < 3; f++)
		sb_release(&out[f]);
	return r0;
}

/* the fast paths and the reference agree on the hand-made logs too */
static void test_fast_equals_reference(void **state)
{
	(void)state;
	static const char nul[] = "[1] {ab\n[2] ab}\n[3] {ab\n[4] {ab\0\n[5] ab}\n[6] ab}\n";
	const char *logs[] = {
		iter_log, "[2] {foo\n[4] {bar\n[5] bar}\n[11] foo}\n",
		"[1] {a\n[2] {b\n[3] a}\n", "[5] {a\n[4] a}\n", "[1] {A\n[2] A}\n[3] {A\n[4] a}\n",
		/* stops of no section, of the wrong one, iteration marks out of place */
		"[1] {a\n[2] a}\n[3] a}\n", "[1] kiln-iter}\n", "[1] {kiln-iter\n[2] {a\n[3] {kiln-iter\n",
		"[1] {kiln-iter\n[2] {a\n[3] kiln-iter}\n[4] a}\n[5] {kiln-iter\n[6] kiln-iter}\n",
		/* timestamps: 15 and 16 digits, uppercase, none, not hex, going back */
		"[1] {a\n[123456789abcdef] a}\n", "[1] {a\n[123456789abcdef0] a}\n",
		"[1] {a\n[1234567890abcdef1] a}\n", "[a] {b\n[B] b}\n[C] {b\n[d] b}\n",
		"[] {a\n[1] {a\n[2] a}\n", "[1] {a\n[1g] a}\n[2] a}\n", "[10] {a\n[f] a}\n",
		/* not quite events: content */
		"[1] {a\n[2] \n[3] {\n[4] }\n[5]  {b\n[6] {b}\n[7] b}}\n[8] a}\n",
		"[1] {a\n[2]{b\n[3] a} \n[4] a}\n", "[1] {a\n[2] {a\n[3] a}\n[4] a}\n",
	};
	size_t n;
	for (size_t i = 0; i < ARRAY_SIZE(logs); i++)
		all_paths_agree(logs[i], strlen(logs[i]), &n);
	all_paths_agree(nul, sizeof(nul) - 1, &n);

	/*
	 * Names of 1 to 40 bytes (the AVX2 path caches up to 30), timestamps of
	 * 1 to 15 digits and content lines of 1 to 130 bytes put lines at
	 * every offset of its 64-byte blocks and across them.
	 */
	struct strbuf text = STRBUF_INIT;
	char name[64];
	uint64_t t = 1;
	for (int k = 0; k < 400; k++) {
		int len = 1 + k % 40, m = 1 + (k * 7) % 23;
		for (int j = 0; j < len; j++)
			name[j] = "abcdefghijklmnopqrstuvwxyz-0123456789"[(j + k) % 37];
		name[len] = '\0';
		if (k % 5 == 0)
			memcpy(name, "gc-", 3 < len ? 3 : len);
		t += (uint64_t)k * 131;
		int d = 1 + (int)(t % 3); /* more digits: leading zeros */
		sb_addf(&text, "[%0*llx] {%s\n", d + k % 13, (unsigned long long)t, name);
		if (k % 3 == 0)
			sb_addf(&text, "[%llx] {kiln-iter\n", (unsigned long long)++t);
		for (int j = 0; j < k % 4; j++) {
			sb_addf(&text, "[%llx] {jit-%s\n", (unsigned long long)(t += 5), name);
			for (int c = 0; c < m * 5 + j; c++)
				sb_addc(&text, (char)('!' + (c * 13 + k) % 90));
			sb_addc(&text, '\n');
			sb_addf(&text, "[%llx] jit-%s}\n", (unsigned long long)(t += 3), name);
		}
		if (k % 3 == 0)
			sb_addf(&text, "[%llx] kiln-iter}\n", (unsigned long long)++t);
		sb_addf(&text, "[%llx] %s}\n", (unsigned long long)++t, name);
	}
	assert_int_equal(all_paths_agree(text.buf, text.len, &n), 0);
	assert_true(n > 134 * 6); /* the 134 iterations were all seen */
	/* and cut at many places: the same error, from the same line */
	for (size_t cut = 1; cut < text.len; cut += text.len / 97)
		assert_int_equal(all_paths_agree(text.buf, cut, &n), -1);
	sb_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documented_example),
		cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_chunking),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_big_file_paths),
		cmocka_unit_test(test_fast_equals_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
