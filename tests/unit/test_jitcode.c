/*
 * test_jitcode.c - the JIT'd code of PyPy and LuaJIT from their logs
 * (src/jitcode.c): a real PYPYLOG (tests/data/pypy-jit.log, PyPy 7.3.11
 * running tests/data/pypy-jit-bench.py with
 * PYPYLOG=jit-backend-addr,jit-backend-dump,jit-log-opt) gives every loop
 * and bridge with its source location, its parent, and all its bytes; code
 * patched later and addresses reused are resolved by log order and time;
 * bad lines are errors naming FILE:LINE; LuaJIT's trace lines; the table
 * written as a jitdump reads back with jitdump_parse, cut to what is kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitcode.h"
#include "jitdump.h"

static const struct jc_entry *named(const struct jitcode *jc, const char *prefix)
{
	for (size_t i = 0; i < jc->n; i++)
		if (!strncmp(jc->v[i].name, prefix, strlen(prefix)))
			return &jc->v[i];
	return NULL;
}

static void test_real_pypylog(void **state)
{
	(void)state;
	const char *root = getenv("KILN_ROOT");
	char *path = xasprintf("%s/tests/data/pypy-jit.log", root ? root : ".");
	struct strbuf b = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(read_file(path, &b, &e), 0);
	struct jitcode jc;
	jitcode_init(&jc);
	struct jc_ticks t = { 0.5, 0, 1000, 1 }; /* 2 ticks a nanosecond, from 1000 ns */
	assert_int_equal(jitcode_parse_pypylog(path, b.buf, b.len, &t, &jc, &e), 0);
	assert_int_equal(jc.n, 8);
	assert_int_equal(jc.missing_bytes, 0); /* every byte of every region was dumped */
	assert_true(jc.dumps > 100);
	const struct jc_entry *l1 = named(&jc, "pypy:Loop 1 (f;/tmp/ptest/nb2.py:1-3~#12 FOR_ITER)");
	assert_non_null(l1);
	/* from the bootstrap (function) to the end of the failure stubs */
	assert_true(l1->addr == 0x7f9c75c8f910ULL && l1->size == 692);
	assert_true(l1->code[0] == 0x49 && l1->code[1] == 0xbb); /* movabs r11, ... */
	assert_true(l1->t_ns > 1000);
	const struct jc_entry *br = named(&jc, "pypy:bridge (f;/tmp/ptest/nb2.py:1-7~#50 LOAD_FAST) from Loop 2 (f;");
	assert_non_null(br);
	assert_true(br->addr == 0x7f9c75c90340ULL && br->size == 406);
	assert_non_null(named(&jc, "pypy:Loop 5 (g;/tmp/ptest/nb2.py:9-11~#12 FOR_ITER)"));
	jitcode_index(&jc);
	assert_ptr_equal(jitcode_lookup(&jc, 0x7f9c75c8f910ULL + 100, -1), l1);
	assert_ptr_equal(jitcode_lookup(&jc, 0x7f9c75c90340ULL + 405, -1), br);
	assert_null(jitcode_lookup(&jc, 0x7f9c75c90340ULL + 406 + 10000000, -1));
	assert_null(jitcode_lookup(&jc, 0x7f9c75c8f910ULL + 100, 999)); /* before it was made */
	jitcode_free(&jc);
	sb_release(&b);
	free(path);
}

/* a guard patched after the loop was made; the same addresses later reused by another loop */
static void test_patches_and_reuse(void **state)
{
	(void)state;
	const char *log =
		"[10] {jit-backend-dump\nBACKEND x86_64\nCODE_DUMP @1000 +0  9090909090909090\n[11] jit-backend-dump}\n"
		"[20] {jit-backend-addr\nLoop 1 (a;x.py:1~#0 X) has address 0x1000 to 0x1006 (bootstrap 0x1000)\n"
		"       end: 0x1008\n[21] jit-backend-addr}\n"
		"[30] {jit-backend-dump\nCODE_DUMP @1000 +2  E9\n[31] jit-backend-dump}\n"
		"[40] {jit-backend-dump\nCODE_DUMP @1000 +0  CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC\n[41] jit-backend-dump}\n"
		"[50] {jit-backend-addr\nLoop 2 (b;x.py:9~#0 Y) has address 0x1000 to 0x1004\n[51] jit-backend-addr}\n"
		"[60] {jit-log-opt-loop\n# Loop 2 (b;x.py:9~#0 Y) : loop with 2 ops\n[p0]\n"
		"+10: guard_true(i1, descr=<Guard0xabc>) [p0]\n[61] jit-log-opt-loop}\n"
		"[70] {jit-backend-addr\nbridge out of Guard 0xabc has address 0x2000 to 0x2002\n[71] jit-backend-addr}\n"
		"[80] {jit-log-opt-bridge\n# bridge out of Guard 0xabc with 1 ops\n[p0]\n"
		"debug_merge_point(0, 0, 'b;x.py:10~#4 Z')\n[81] jit-log-opt-bridge}\n";
	struct jitcode jc;
	jitcode_init(&jc);
	struct kerr e = KERR_INIT;
	struct jc_ticks t = { 1.0, 0, 0, 1 };
	assert_int_equal(jitcode_parse_pypylog("x.log", log, strlen(log), &t, &jc, &e), 0);
	assert_int_equal(jc.n, 3);
	const struct jc_entry *a = &jc.v[0], *b = &jc.v[1], *c = &jc.v[2];
	assert_string_equal(a->name, "pypy:Loop 1 (a;x.py:1~#0 X)");
	assert_true(a->size == 8 && a->t_ns == 0x20); /* ticks are hex */
	/* loop 1: its dump, patched at +2, before loop 2's code was written over it */
	assert_true(a->code[0] == 0x90 && a->code[2] == 0xe9 && a->code[3] == 0x90);
	assert_true(b->code[0] == 0xcc && b->code[3] == 0xcc && b->t_ns == 0x50);
	assert_string_equal(c->name, "pypy:bridge (b;x.py:10~#4 Z) from Loop 2 (b;x.py:9~#0 Y)");
	assert_int_equal(jc.missing_bytes, 2); /* the bridge was never dumped: int3 */
	assert_true(c->code[0] == 0xcc);
	jitcode_index(&jc);
	assert_ptr_equal(jitcode_lookup(&jc, 0x1001, 0x30), a);
	assert_ptr_equal(jitcode_lookup(&jc, 0x1001, 0x55), b);
	assert_ptr_equal(jitcode_lookup(&jc, 0x1005, 0x55), a); /* beyond loop 2: still loop 1's */
	assert_null(jitcode_lookup(&jc, 0x1001, 0x10));          /* before either */
	assert_ptr_equal(jitcode_lookup(&jc, 0x1001, -1), b);

	/* the table as a jitdump, the first and last kept */
	char path[] = "/tmp/kiln-test-jitdump.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unsigned char keep[3] = { 1, 0, 1 };
	assert_int_equal(jitcode_write_jitdump(&jc, 77, keep, path, &e), 0);
	struct strbuf bytes = STRBUF_INIT;
	assert_int_equal(read_file(path, &bytes, &e), 0);
	struct jitdump jd;
	assert_int_equal(jitdump_parse(bytes.buf, bytes.len, &jd, &e), 0);
	assert_int_equal(jd.nloads, 2);
	assert_int_equal(jd.pid, 77);
	assert_string_equal(jd.loads[0].name, a->name);
	assert_true(jd.loads[0].code_addr == 0x1000 && jd.loads[0].code_size == 8 && jd.loads[0].timestamp == 0x20);
	assert_memory_equal(jd.loads[0].code, a->code, 8);
	assert_string_equal(jd.loads[1].name, c->name);
	/* cut again: only the second load */
	unsigned char keep2[2] = { 0, 1 };
	assert_int_equal(jitdump_write_kept(bytes.buf, bytes.len, &jd, keep2, path, &e), 0);
	jitdump_free(&jd);
	sb_reset(&bytes);
	assert_int_equal(read_file(path, &bytes, &e), 0);
	assert_int_equal(jitdump_parse(bytes.buf, bytes.len, &jd, &e), 0);
	assert_int_equal(jd.nloads, 1);
	assert_string_equal(jd.loads[0].name, c->name);
	jitdump_free(&jd);
	unlink(path);
	sb_release(&bytes);
	jitcode_free(&jc);
}

static void expect_errorn(const char *log, size_t n, const char *msg)
{
	struct jitcode jc;
	jitcode_init(&jc);
	struct kerr e = KERR_INIT;
	if (jitcode_parse_pypylog("bad.log", log, n, NULL, &jc, &e) != -1)
		fail_msg("no error for '%s'", log);
	if (!strstr(sb_str(&e.msg), msg))
		fail_msg("'%s' lacks '%s'", sb_str(&e.msg), msg);
	assert_int_equal(e.code, KEXIT_CONFIG);
	kerr_release(&e);
	jitcode_free(&jc);
}

static void expect_error(const char *log, const char *msg)
{
	expect_errorn(log, strlen(log), msg);
}

static void test_pypylog_errors(void **state)
{
	(void)state;
	expect_error("[1] {jit-backend-dump\nCODE_DUMP @10 +0  4G\n", "bad.log:2: CODE_DUMP: not a hex digit");
	expect_error("[1] {jit-backend-dump\nCODE_DUMP @10 +0  123\n", "bad.log:2: CODE_DUMP: an even number");
	expect_error("[1] {jit-backend-dump\nCODE_DUMP @zz +0  12\n", "bad.log:2: CODE_DUMP: an address expected");
	expect_error("[1] {jit-backend-dump\nCODE_DUMP @10 0  12\n", "bad.log:2: CODE_DUMP: '+OFFSET' expected");
	expect_error("[1] {jit-backend-addr\nLoop 1 (x) has address 0x20 to 0x10\n", "bad.log:2: jit-backend-addr");
	expect_error("[1] {jit-backend-addr\nbridge out of Guard zz has address 0x20 to 0x30\n", "a bridge's guard");
	static const char nul[] = "[1] {x\nab\0cd\n";
	expect_errorn(nul, sizeof(nul) - 1, "bad.log:2: a NUL byte");
	/* content lines starting with '[' are content, other sections are skipped */
	struct jitcode jc;
	jitcode_init(&jc);
	struct kerr e = KERR_INIT;
	const char *ok = "[1] {gc-minor\n[p0, p1]\nanything\n[2] gc-minor}\n";
	assert_int_equal(jitcode_parse_pypylog("ok.log", ok, strlen(ok), NULL, &jc, &e), 0);
	assert_int_equal(jc.n, 0);
	jitcode_free(&jc);
}

/*
 * Each region is held with its bytes (int3 where no dump reached): 33
 * loops of 16 MiB each in a 2 KB log made kiln hold 528 MiB, and a few
 * thousand lines some terabytes.  All regions together are bounded.
 */
static void test_pypylog_total_code(void **state)
{
	(void)state;
	struct strbuf log = STRBUF_INIT;
	sb_adds(&log, "[1] {jit-backend-addr\n");
	for (unsigned k = 0; k < 33; k++)
		sb_addf(&log, "Loop %u (x) has address 0x%llx to 0x%llx\n", k, (unsigned long long)(k + 1) << 28,
			((unsigned long long)(k + 1) << 28) + JC_MAX_CODE);
	sb_adds(&log, "[2] jit-backend-addr}\n");
	/* the 33rd loop (line 34) would pass 512 MiB */
	expect_errorn(log.buf, log.len, "bad.log:34: this loop or bridge takes the JIT'd code's regions past 512 MiB");
	/* 32 of them are within the bound */
	struct jitcode jc;
	jitcode_init(&jc);
	struct kerr e = KERR_INIT;
	const char *l33 = strstr(log.buf, "Loop 32 ");
	assert_int_equal(jitcode_parse_pypylog("ok.log", log.buf, (size_t)(l33 - log.buf), NULL, &jc, &e), 0);
	assert_int_equal(jc.n, 32);
	assert_true(jc.code_bytes == JC_MAX_TOTAL_CODE);
	jitcode_free(&jc);
	sb_release(&log);
}

/*
 * A section's tick is 16 hex digits of the benchmark's: one past 2^63
 * wrapped (signed overflow, undefined) and made the region's load time
 * any value, so samples were named by the wrong region or by none.
 */
static void test_pypylog_tick_range(void **state)
{
	(void)state;
	struct jc_ticks t = { 1.0, 1000, 5000, 1 };
	static const char *const bad[] = {
		"[8000000000000000] {jit-backend-addr\nLoop 1 (x) has address 0x10 to 0x20\n",
		"[ffffffffffffffff] {jit-backend-addr\nLoop 1 (x) has address 0x10 to 0x20\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct jitcode jc;
		jitcode_init(&jc);
		struct kerr e = KERR_INIT;
		assert_int_equal(jitcode_parse_pypylog("t.log", bad[i], strlen(bad[i]), &t, &jc, &e), -1);
		if (!strstr(sb_str(&e.msg), "t.log:2: its section's tick"))
			fail_msg("case %zu: '%s'", i, sb_str(&e.msg));
		kerr_release(&e);
		jitcode_free(&jc);
	}
	/* within the run: ns0 + (tick - tick0) * ns_per_tick */
	const char *ok = "[7d0] {jit-backend-addr\nLoop 1 (x) has address 0x10 to 0x20\n";
	struct jitcode jc;
	jitcode_init(&jc);
	struct kerr e = KERR_INIT;
	assert_int_equal(jitcode_parse_pypylog("t.log", ok, strlen(ok), &t, &jc, &e), 0);
	assert_int_equal(jc.n, 1);
	assert_true(jc.v[0].t_ns == 5000 + 1000);
	jitcode_free(&jc);
}

/* a log cut short in a line's first word (the file's last line, no newline): parsed
 * from a heap block of exactly its size, so a read past its end is seen under ASan */
static void test_pypylog_cut_short(void **state)
{
	(void)state;
	static const struct {
		const char *log;
		size_t loops; /* the regions it has, whatever its last line */
	} heads[] = {
		{ "[1] {jit-backend-dump\nCODE_DUMP @", 0 },
		{ "[1] {jit-backend-addr\nbridge out of Guard ", 0 },
		{ "[1] {jit-backend-addr\nLoop 1 (x) has address 0x10 to 0x20\nfunction: ", 1 },
		{ "[1] {jit-backend-addr\nLoop 1 (x) has address 0x10 to 0x20\nend: ", 1 },
		{ "[1] {jit-log-opt-loop\n# Loop ", 0 },
		{ "[1] {jit-log-opt-bridge\n# bridge out of Guard ", 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		const char *nl = strrchr(heads[i].log, '\n');
		for (size_t n = (size_t)(nl - heads[i].log) + 2; n < strlen(heads[i].log); n++) {
			char *log = xmalloc(n);
			memcpy(log, heads[i].log, n);
			struct jitcode jc;
			jitcode_init(&jc);
			struct kerr e = KERR_INIT;
			assert_int_equal(jitcode_parse_pypylog("cut.log", log, n, NULL, &jc, &e), 0);
			assert_int_equal(jc.n, heads[i].loops);
			kerr_release(&e);
			jitcode_free(&jc);
			free(log);
		}
	}
}

static void test_luajit(void **state)
{
	(void)state;
	const char *lines =
		"{\"trace\":1,\"parent\":0,\"exit\":0,\"t_ns\":500,\"addr\":4096,\"size\":3,\"src\":\"@/b/bench.lua\",\"line\":32,\"code\":\"4883c4\"}\n"
		"{\"trace\":2,\"parent\":1,\"exit\":13,\"t_ns\":900,\"addr\":8192,\"size\":1,\"src\":\"=stdin\",\"line\":7,\"code\":\"c3\"}\n";
	struct jitcode jc;
	jitcode_init(&jc);
	struct kerr e = KERR_INIT;
	assert_int_equal(jitcode_parse_luajit("t.jsonl", lines, strlen(lines), &jc, &e), 0);
	assert_int_equal(jc.n, 2);
	assert_string_equal(jc.v[0].name, "luajit:trace 1 (/b/bench.lua:32)");
	assert_string_equal(jc.v[1].name, "luajit:trace 2 (stdin:7) side of 1/exit 13");
	assert_true(jc.v[0].code[2] == 0xc4 && jc.v[0].t_ns == 500);
	jitcode_free(&jc);
	static const char *const bad[][2] = {
		{ "{\"trace\":1}\n", "t.jsonl:1: fields trace" },
		{ "\n[1]\n", "t.jsonl:2: a JSON object expected" },
		{ "{\"trace\":1,\"parent\":0,\"exit\":0,\"t_ns\":5,\"addr\":1,\"size\":2,\"src\":\"x\",\"line\":1,\"code\":\"c3\"}\n",
		  "field 'code': 2 bytes in hex expected" },
		{ "{\"trace\":1,\"parent\":0,\"exit\":0,\"t_ns\":5,\"addr\":1,\"size\":1,\"src\":\"x\",\"line\":1,\"code\":\"zz\"}\n",
		  "not a hex digit" },
		{ "{\"trace\":1,\"parent\":0,\"exit\":0,\"t_ns\":5,\"addr\":1,\"size\":1,\"src\":7,\"line\":1,\"code\":\"c3\"}\n",
		  "fields src and code" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		jitcode_init(&jc);
		assert_int_equal(jitcode_parse_luajit("t.jsonl", bad[i][0], strlen(bad[i][0]), &jc, &e), -1);
		if (!strstr(sb_str(&e.msg), bad[i][1]))
			fail_msg("case %zu: '%s' lacks '%s'", i, sb_str(&e.msg), bad[i][1]);
		sb_reset(&e.msg);
		jitcode_free(&jc);
	}
	kerr_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_pypylog),
		cmocka_unit_test(test_patches_and_reuse),
		cmocka_unit_test(test_pypylog_errors),
		cmocka_unit_test(test_pypylog_total_code),
		cmocka_unit_test(test_pypylog_tick_range),
		cmocka_unit_test(test_pypylog_cut_short),
		cmocka_unit_test(test_luajit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
