/*
 * test_profile.c - profile.c without perf: the `perf script` parser on
 * hand-written output (one-line samples, call chains, commands with spaces,
 * pid/tid, symbols with parentheses, garbage), the classification of
 * samples, and the report's split of samples by iteration window and phase.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static void parse(struct pscript *ps, const char *text)
{
	pscript_init(ps);
	pscript_parse(ps, text, strlen(text));
}

static void test_one_line_samples(void **state)
{
	(void)state;
	struct pscript ps;
	parse(&ps,
	      "            node 23063/23063  1526.461852585: cpu-clock:      7f0efeffe84a JS:^advance /b/bench.js:38:17 (/tmp/perf-23063.map)\n"
	      " C2 CompilerThre 31000/31007  1526.5: cycles:u:  ffffffff8158c221 next_uptodate_folio ([kernel.kallsyms])\n"
	      "node 42 7.000000001: cpu-clock: 0 [unknown] ([unknown])\n"
	      "node 42 8.000000001: cpu-clock: 1234 foo(int, char) const (/usr/lib/libx (old).so)\n");
	assert_int_equal(ps.n, 4);
	assert_int_equal(ps.bad_lines, 0);
	assert_string_equal(ps_str(&ps, ps.s[0].comm), "node");
	assert_int_equal(ps.s[0].pid, 23063);
	assert_int_equal(ps.s[0].tid, 23063);
	assert_true(ps.s[0].t_ns == 1526461852585LL);
	assert_true(ps.s[0].ip == 0x7f0efeffe84aULL);
	assert_string_equal(ps_str(&ps, ps.s[0].sym), "JS:^advance /b/bench.js:38:17");
	assert_string_equal(ps_str(&ps, ps.s[0].dso), "/tmp/perf-23063.map");
	assert_string_equal(ps_str(&ps, ps.s[1].comm), "C2 CompilerThre");
	assert_int_equal(ps.s[1].tid, 31007);
	assert_true(ps.s[1].t_ns == 1526500000000LL);
	assert_string_equal(ps_str(&ps, ps.s[1].dso), "[kernel.kallsyms]");
	assert_int_equal(ps.s[2].pid, -1);
	assert_int_equal(ps.s[2].tid, 42);
	assert_string_equal(ps_str(&ps, ps.s[2].sym), "[unknown]");
	assert_string_equal(ps_str(&ps, ps.s[3].sym), "foo(int, char) const");
	assert_string_equal(ps_str(&ps, ps.s[3].dso), "/usr/lib/libx (old).so");
	/* interned: the same name is one string */
	assert_int_equal(ps.s[2].comm, ps.s[3].comm);
	pscript_release(&ps);
}

static void test_call_chains_and_garbage(void **state)
{
	(void)state;
	struct pscript ps;
	parse(&ps,
	      "node 10/11  5.000000100: cpu-clock: \n"
	      "\t    7fff0010 leaf_fn (/usr/bin/node)\n"
	      "\t    7fff0020 caller (/usr/bin/node)\n"
	      "\n"
	      "this line is not perf output\n"
	      "node 10/10  5.000000200: cpu-clock:\n"
	      "\n"
	      "node 10/10 5.000000300: cpu-clock: zz not-hex (x)\n"
	      "\t    7fff0030 orphan_frame (/usr/bin/node)\n");
	assert_int_equal(ps.n, 2);
	assert_string_equal(ps_str(&ps, ps.s[0].sym), "leaf_fn");
	assert_int_equal(ps.s[0].tid, 11);
	/* a header whose chain is empty is still a sample, at an unknown place */
	assert_true(ps.s[1].t_ns == 5000000200LL);
	assert_int_equal(ps.s[1].sym, 0);
	assert_int_equal(ps.bad_lines, 2);
	assert_int_equal(ps.s[0].jdso, 0); /* no JIT'd frame in that chain */
	pscript_release(&ps);

	/* the innermost JIT'd frame of a chain: the JIT'd caller of a builtin */
	parse(&ps,
	      "node 5/5 1.000000001: cpu-clock:\n"
	      "\t    55550010 Builtins_LoadIC (/usr/bin/node)\n"
	      "\t    7f000100 JS:*inner a.js:2:1 (/tmp/perf-5.map)\n"
	      "\t    7f000200 JS:*outer a.js:9:1 (/tmp/perf-5.map)\n"
	      "\n"
	      "node 5/5 1.000000002: cpu-clock:\n"
	      "\t    7f000100 JS:*inner a.js:2:1 (/tmp/perf-5.map)\n"
	      "\t    7f000200 JS:*outer a.js:9:1 (/tmp/perf-5.map)\n"
	      "\n"
	      "node 5/5 1.000000003: cpu-clock: 55550010 Builtins_LoadIC (/usr/bin/node)\n"
	      "\t    7f000200 JS:*outer a.js:9:1 (/tmp/perf-5.map)\n");
	assert_int_equal(ps.n, 3);
	assert_string_equal(ps_str(&ps, ps.s[0].sym), "Builtins_LoadIC");
	assert_string_equal(ps_str(&ps, ps.s[0].jsym), "JS:*inner a.js:2:1");
	assert_string_equal(ps_str(&ps, ps.s[1].jsym), "JS:*inner a.js:2:1");
	assert_int_equal(ps.s[1].jsym, ps.s[1].sym);
	/* frame lines after a one-line sample are its chain */
	assert_string_equal(ps_str(&ps, ps.s[2].jsym), "JS:*outer a.js:9:1");
	pscript_release(&ps);
}

static void test_classify(void **state)
{
	(void)state;
	struct prof_vm node = { "node", "/usr/bin/node" };
	assert_int_equal(prof_classify(&node, "node", "JS:*advance x.js:1:1", "/tmp/perf-1.map"), PC_JIT);
	/* a JIT'd function whose name says collect is still JIT'd code */
	assert_int_equal(prof_classify(&node, "node", "JS:*collect x.js:1:1", "/tmp/perf-1.map"), PC_JIT);
	assert_int_equal(prof_classify(&node, "node", "foo", "/root/.debug/jit/jitted-12-3.so"), PC_JIT);
	assert_int_equal(prof_classify(&node, "node", "Builtins_LoadIC", "/usr/bin/node"), PC_VM);
	assert_int_equal(prof_classify(&node, "node", "v8::internal::Scavenger::Process", "/usr/bin/node"), PC_GC);
	assert_int_equal(prof_classify(&node, "node", "v8::internal::compiler::GraphReducer::ReduceTop", "/usr/bin/node"),
			 PC_COMPILER);
	assert_int_equal(prof_classify(&node, "node", "exc_page_fault", "[kernel.kallsyms]"), PC_KERNEL);
	assert_int_equal(prof_classify(&node, "node", "malloc", "/usr/lib/x86_64-linux-gnu/libc.so.6"), PC_OTHER);
	struct prof_vm java = { "java", "/usr/lib/jvm/java-17/bin/java" };
	assert_int_equal(prof_classify(&java, "C2 CompilerThre", "Parse::do_one_bytecode", "/usr/lib/jvm/x/libjvm.so"),
			 PC_COMPILER);
	assert_int_equal(prof_classify(&java, "GC Thread#0", "[unknown]", "/usr/lib/jvm/x/libjvm.so"), PC_GC);
	assert_int_equal(prof_classify(&java, "java", "JVM_DoPrivileged", "/usr/lib/jvm/x/libjvm.so"), PC_VM);
	/* HotSpot's perf map names its interpreter and stubs beside the compiled methods */
	assert_int_equal(prof_classify(&java, "java", "void Bench.advance(Bench$Body[], double)", "/tmp/perf-5.map"), PC_JIT);
	assert_int_equal(prof_classify(&java, "java", "Interpreter", "/tmp/perf-5.map"), PC_VM);
	assert_int_equal(prof_classify(&java, "java", "flush_icache_stub", "/tmp/perf-5.map"), PC_VM);
	assert_int_equal(prof_classify(&node, "node", "Builtin:ArgumentsAdaptorTrampoline", "/tmp/perf-5.map"), PC_VM);
	assert_int_equal(prof_classify(&node, "node", "JS:*myStubAdapter a.js:1:1", "/tmp/perf-5.map"), PC_JIT);
	struct prof_vm py = { "python", "/usr/bin/python3.11" };
	assert_int_equal(prof_classify(&py, "python3", "gc_collect_main", "/usr/bin/python3.11"), PC_GC);
	assert_int_equal(prof_classify(&py, "python3", "_PyEval_EvalFrameDefault", "/usr/bin/python3.11"), PC_VM);
	assert_int_equal(prof_classify(&py, "python3", "py::run_iter:bench.py", "/tmp/perf-9.map"), PC_JIT);
}

static json_t *cat(json_t *o, const char *name)
{
	return json_object_get(json_object_get(o, "categories"), name);
}

static void test_report_split(void **state)
{
	(void)state;
	/* three iterations [100,200] [300,400] [500,600] ns (+1e9), samples in and between them */
	struct pscript ps;
	parse(&ps,
	      "n 7/7 1.000000050: c: 10 start (/usr/bin/vm)\n"        /* before iteration 1 */
	      "n 7/7 1.000000100: c: 7f00 JS:hot (/tmp/perf-7.map)\n" /* it 1 (edge) */
	      "n 7/7 1.000000150: c: 7f00 JS:hot (/tmp/perf-7.map)\n" /* it 1 */
	      "n 7/8 1.000000160: c: 11 v8::internal::compiler::X (/usr/bin/vm)\n" /* it 1, compiler thread */
	      "n 7/7 1.000000250: c: 12 between (/usr/bin/vm)\n"       /* outside */
	      "n 7/7 1.000000350: c: 7f00 JS:hot (/tmp/perf-7.map)\n"  /* it 2 */
	      "n 7/7 1.000000550: c: 7f10 JS:cold (/tmp/perf-7.map)\n" /* it 3 */
	      "n 7/7 1.000000600: c: ffffffff81000000 k ([kernel.kallsyms])\n" /* it 3 (edge) */
	      "n 7/7 1.000000700: c: 13 exit (/usr/bin/vm)\n");        /* after */
	struct prof_iter it[3] = {
		{ 1000000100, 1000000200, 100 }, { 1000000300, 1000000400, 100 }, { 1000000500, 1000000600, 100 },
	};
	struct prof_input in = { .key = "b:vm:v", .event = "cpu-clock", .pid = 7, .ps = &ps, .iters = it, .niters = 3,
				 .split = 1, .split_how = "--split 1", .vm = { "node", "/usr/bin/vm" }, .top = 5 };
	json_t *r = prof_report(&in);
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 9);
	assert_int_equal(json_integer_value(json_object_get(r, "in_iterations")), 6);
	assert_int_equal(json_integer_value(json_object_get(r, "outside_iterations")), 3);
	json_t *its = json_object_get(r, "iterations");
	long sum = 0, want[3] = { 3, 1, 2 };
	for (size_t i = 0; i < 3; i++) {
		json_t *o = json_array_get(its, i);
		assert_int_equal(json_integer_value(json_object_get(o, "samples")), want[i]);
		sum += (long)json_integer_value(json_object_get(o, "samples"));
	}
	assert_int_equal(sum, json_integer_value(json_object_get(r, "in_iterations")));
	assert_int_equal(json_integer_value(cat(json_array_get(its, 0), "compiler")), 1);
	assert_int_equal(json_integer_value(cat(json_array_get(its, 2), "kernel")), 1);
	/* phases: iteration 1 before, 2-3 after */
	json_t *ph = json_object_get(r, "phases");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ph, 0), "samples")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ph, 1), "samples")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ph, 2), "samples")), 3);
	/* the hottest JIT'd symbol overall */
	json_t *hj = json_object_get(r, "hottest_jit");
	assert_string_equal(json_string_value(json_object_get(hj, "symbol")), "JS:hot");
	assert_int_equal(json_integer_value(json_object_get(hj, "samples")), 3);
	json_t *top0 = json_array_get(json_object_get(r, "top"), 0);
	assert_string_equal(json_string_value(json_object_get(top0, "symbol")), "JS:hot");
	assert_int_equal(json_integer_value(cat(r, "jit")), 4);
	json_decref(r);
	pscript_release(&ps);
}

static void test_windows_fix(void **state)
{
	(void)state;
	/* lines 1 and 2 read in one chunk with line 3: all stamped 1000 */
	struct prof_iter it[4] = { { 800, 900, 100 }, { 900, 1000, 100 }, { 900, 1000, 100 }, { 950, 1000, 50 } };
	assert_int_equal(prof_windows_fix(it, 4), 3);
	assert_true(it[3].start_ns == 950 && it[3].end_ns == 1000);
	assert_true(it[2].start_ns == 850 && it[2].end_ns == 950);
	assert_true(it[1].start_ns == 750 && it[1].end_ns == 850);
	assert_true(it[0].start_ns == 650 && it[0].end_ns == 750);
	/* consistent windows stay */
	struct prof_iter ok[2] = { { 0, 10, 10 }, { 15, 20, 5 } };
	assert_int_equal(prof_windows_fix(ok, 2), 0);
	assert_true(ok[0].end_ns == 10);
	assert_int_equal(prof_windows_fix(ok, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_line_samples),
		cmocka_unit_test(test_call_chains_and_garbage),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_report_split),
		cmocka_unit_test(test_windows_fix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
