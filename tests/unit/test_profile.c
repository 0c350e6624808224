/*
 * test_profile.c - kiln profile without perf: the `perf script` parser on
 * hand-written output (one-line samples, call chains, periods, commands
 * with spaces, pid/tid, symbols with parentheses, garbage, chains merged
 * from a second output), the classification of frames and samples, the
 * runner's clock mapped onto perf's, the iteration windows, and the
 * report's split of samples by iteration window, phase and pexec.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "stream.h"

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

/*
 * A thread names itself (prctl PR_SET_NAME, 15 bytes): a comm shaped like
 * "PID/TID TIME: IP" was taken for the sample's own fields, so the
 * benchmark moved its samples to any pid and time (another iteration, or
 * outside every one).  The ids are where perf prints them: after the comm.
 */
static void test_comm_shaped_like_ids(void **state)
{
	(void)state;
	struct pscript ps;
	parse(&ps,
	      "  1/1 12345.6: 0   23063/23063   1526.461852585: cpu-clock:      7f0efeffe84a JS:hot a.js:1:1 (/tmp/perf-23063.map)\n"
	      "1/1 9.5: 7 8.5:       7/7       5.000000001: cpu-clock:\n"
	      "\t    7fff0010 leaf_fn (/usr/bin/node)\n"
	      "\n"
	      /* a symbol's text that looks like ids and a time is still the symbol */
	      "            node 23063/23063  1526.5: cpu-clock: 7f00 JS:f 1/1 3.0: x (/tmp/perf-23063.map)\n");
	assert_int_equal(ps.n, 3);
	assert_int_equal(ps.bad_lines, 0);
	assert_string_equal(ps_str(&ps, ps.s[0].comm), "1/1 12345.6: 0");
	assert_int_equal(ps.s[0].pid, 23063);
	assert_int_equal(ps.s[0].tid, 23063);
	assert_true(ps.s[0].t_ns == 1526461852585LL);
	assert_true(ps.s[0].ip == 0x7f0efeffe84aULL);
	assert_string_equal(ps_str(&ps, ps.s[0].sym), "JS:hot a.js:1:1");
	assert_string_equal(ps_str(&ps, ps.s[1].comm), "1/1 9.5: 7 8.5:");
	assert_int_equal(ps.s[1].pid, 7);
	assert_true(ps.s[1].t_ns == 5000000001LL);
	assert_string_equal(ps_str(&ps, ps.s[1].sym), "leaf_fn");
	assert_int_equal(ps.s[2].pid, 23063);
	assert_true(ps.s[2].t_ns == 1526500000000LL);
	assert_string_equal(ps_str(&ps, ps.s[2].sym), "JS:f 1/1 3.0: x");
	pscript_release(&ps);
}

static void set_pids(struct pscript *ps, const int *pids, size_t n)
{
	pscript_init(ps);
	ps->s = xcalloc(n ? n : 1, sizeof(*ps->s));
	ps->n = ps->alloc = n;
	for (size_t i = 0; i < n; i++)
		ps->s[i].pid = pids ? pids[i] : (i % 2 ? 200 : 100);
}

/*
 * The benchmark's process is the pid with most samples, the first seen of
 * a tie.  Two processes sharing the CPU half and half cost samples x
 * samples / 2 steps: 400,000 samples took minutes; the alarm fails it.
 */
static void test_main_pid(void **state)
{
	(void)state;
	struct pscript ps;
	static const int tie[] = { -1, 5, 7, 7, 5, 9, 0 }, one[] = { 3 }, none[] = { -1, 0 };
	set_pids(&ps, tie, ARRAY_SIZE(tie));
	assert_int_equal(prof_main_pid(&ps, 0, ps.n), 5);
	assert_int_equal(prof_main_pid(&ps, 2, ps.n), 7);
	assert_int_equal(prof_main_pid(&ps, 3, 3), 0);
	pscript_release(&ps);
	set_pids(&ps, one, 1);
	assert_int_equal(prof_main_pid(&ps, 0, 1), 3);
	pscript_release(&ps);
	set_pids(&ps, none, 2);
	assert_int_equal(prof_main_pid(&ps, 0, 2), 0);
	pscript_release(&ps);
	set_pids(&ps, NULL, 400000);
	alarm(5);
	assert_int_equal(prof_main_pid(&ps, 0, ps.n), 100);
	alarm(0);
	pscript_release(&ps);
}

/* ten digits of seconds past what int64 nanoseconds hold: a bad line, not a wrapped time (the fuzzer's find) */
static void test_time_overflow(void **state)
{
	(void)state;
	struct pscript ps;
	parse(&ps, "node 1/1 9673126126.801719: cpu-clock: 7f00 f (/x)\n"
		   "node 1/1 9223372036.854775808: cpu-clock: 7f00 f (/x)\n"
		   "node 1/1 9223372036.854775807: cpu-clock: 7f00 f (/x)\n");
	assert_int_equal(ps.n, 1);
	assert_int_equal(ps.bad_lines, 2);
	assert_true(ps.s[0].t_ns == INT64_MAX);
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
	struct prof_vm node = { "node", "/usr/bin/node" };
	assert_int_equal(prof_jit_frame(&node, &ps, &ps.s[0]), -1); /* no JIT'd frame in that chain */
	assert_int_equal(ps.s[0].nframes, 2);
	assert_string_equal(ps_str(&ps, ps.frames[ps.s[0].frame0 + 1].sym), "caller");
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
	long j0 = prof_jit_frame(&node, &ps, &ps.s[0]), j1 = prof_jit_frame(&node, &ps, &ps.s[1]),
	     j2 = prof_jit_frame(&node, &ps, &ps.s[2]);
	assert_true(j0 >= 0 && j1 >= 0 && j2 >= 0);
	assert_string_equal(ps_str(&ps, ps.frames[j0].sym), "JS:*inner a.js:2:1");
	assert_string_equal(ps_str(&ps, ps.frames[j1].sym), "JS:*inner a.js:2:1");
	assert_int_equal(ps.frames[j1].sym, ps.s[1].sym);
	/* frame lines after a one-line sample are its chain */
	assert_string_equal(ps_str(&ps, ps.frames[j2].sym), "JS:*outer a.js:9:1");
	assert_int_equal(ps.s[2].nframes, 2);
	pscript_release(&ps);

	/* the VM's own code in a perf map is not the JIT'd function of a sample */
	struct prof_vm java = { "java", "/usr/bin/java" };
	parse(&ps,
	      "java 5/6 1.000000001: cpu-clock:\n"
	      "\t    7f000010 Interpreter (/tmp/perf-5.map)\n"
	      "\t    7f000020 flush_icache_stub (/tmp/perf-5.map)\n"
	      "\t    7f000100 void Bench.advance(double) (/tmp/perf-5.map)\n"
	      "\n"
	      "java 5/6 1.000000002: cpu-clock:\n"
	      "\t    7f000010 Interpreter (/tmp/perf-5.map)\n"
	      "\t    7f000030 StubRoutines (1) (/tmp/perf-5.map)\n");
	assert_int_equal(ps.n, 2);
	long jj = prof_jit_frame(&java, &ps, &ps.s[0]);
	assert_true(jj >= 0);
	assert_string_equal(ps_str(&ps, ps.frames[jj].sym), "void Bench.advance(double)");
	assert_int_equal(prof_jit_frame(&java, &ps, &ps.s[1]), -1);
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
	/* allocation bookkeeping is the VM's, not the collector's; glibc's iconv is nobody's GC */
	assert_int_equal(prof_classify(&py, "python3", "PyObject_GC_Del", "/usr/bin/python3.11"), PC_VM);
	assert_int_equal(prof_classify(&py, "python3", "_PyObject_GC_New", "/usr/bin/python3.11"), PC_VM);
	assert_int_equal(prof_classify(&py, "python3", "PyObject_GC_Track", "/usr/bin/python3.11"), PC_VM);
	assert_int_equal(prof_classify(&py, "python3", "gc_collect_main", "/usr/bin/python3.11"), PC_GC);
	assert_int_equal(prof_classify(&py, "python3", "deduce_unreachable", "/usr/bin/python3.11"), PC_GC);
	struct prof_vm pypy = { "pypy", "/usr/lib/pypy3.9/bin/pypy3.9" };
	assert_int_equal(prof_classify(&pypy, "pypy3", "__gconv_transform_utf8_internal",
				       "/usr/lib/x86_64-linux-gnu/libc.so.6"), PC_OTHER);
	assert_int_equal(prof_classify(&pypy, "pypy3", "__gconv", "/usr/lib/x86_64-linux-gnu/libc.so.6"), PC_OTHER);
	assert_int_equal(prof_classify(&pypy, "pypy3", "pypy_g_IncrementalMiniMarkGC_collect_and_reserve",
				       "/usr/lib/pypy3.9/bin/libpypy3.9-c.so"), PC_GC);
	struct prof_vm lua = { "lua", "/usr/bin/lua5.4" };
	assert_int_equal(prof_classify(&lua, "lua5.4", "luaC_step", "/usr/bin/lua5.4"), PC_GC);
	assert_int_equal(prof_classify(&lua, "lua5.4", "propagatemark", "/usr/bin/lua5.4"), PC_GC);
	assert_int_equal(prof_classify(&lua, "lua5.4", "luaC_newobj", "/usr/bin/lua5.4"), PC_VM);
	assert_int_equal(prof_classify(&lua, "lua5.4", "luaV_execute", "/usr/bin/lua5.4"), PC_VM);
	/* a user's function called collect is not a collector */
	assert_int_equal(prof_classify(&py, "python3", "collect_results", "/usr/lib/libfoo.so"), PC_OTHER);
	/* a frame's category ignores the thread; a sample's does not */
	assert_int_equal(prof_classify_frame(&java, "JVM_DoPrivileged", "/usr/lib/jvm/x/libjvm.so"), PC_VM);
	assert_int_equal(prof_classify(&java, "GC Thread#0", "JVM_DoPrivileged", "/usr/lib/jvm/x/libjvm.so"), PC_GC);
}

/* a period between the time and the event; chains from a second output, leaves kept */
static void test_periods_and_attached_chains(void **state)
{
	(void)state;
	struct pscript ps;
	parse(&ps,
	      "luajit 9/9  2.000000001:     250000 cpu-clock:  7f0000001000 [unknown] ([unknown])\n"
	      "luajit 9/9  2.000000002:     250000 cpu-clock:  55550020 lj_vm_call (/usr/bin/luajit)\n"
	      "luajit 9/9  2.000000003:     249999 cpu-clock:  55550030 lj_str_new (/usr/bin/luajit)\n");
	assert_int_equal(ps.n, 3);
	assert_int_equal(ps.bad_lines, 0);
	assert_true(ps.s[0].period == 250000 && ps.s[2].period == 249999);
	assert_true(ps.s[0].ip == 0x7f0000001000ULL);
	pscript_release(&ps);
	/* the first sample's chain was printed empty (no frame lines): it keeps its leaf */
	parse(&ps,
	      "luajit 9/9  2.000000001:     250000 cpu-clock:  7f0000001000 [unknown] ([unknown])\n"
	      "luajit 9/9  2.000000002:     250000 cpu-clock:  55550020 lj_vm_call (/usr/bin/luajit)\n"
	      "luajit 9/9  2.000000004:     250000 cpu-clock:  55550030 lj_str_new (/usr/bin/luajit)\n");
	const char *chains = "luajit 9/9  2.000000001:     250000 cpu-clock: \n"
			     "\n"
			     "luajit 9/9  2.000000002:     250000 cpu-clock: \n"
			     "\t    55550020 lj_vm_call (/usr/bin/luajit)\n"
			     "\t    55550100 lua_pcall (/usr/bin/luajit)\n"
			     "\t    55550200 main (/usr/bin/luajit)\n"
			     "\n"
			     "luajit 9/9  2.000000003:     250000 cpu-clock: \n"
			     "\t    55550040 x (/usr/bin/luajit)\n";
	assert_int_equal(pscript_attach_chains(&ps, 0, chains, strlen(chains)), 1); /* the third does not match */
	assert_int_equal(ps.s[0].nframes, 1);
	assert_true(ps.frames[ps.s[0].frame0].ip == 0x7f0000001000ULL);
	assert_string_equal(ps_str(&ps, ps.s[0].sym), "[unknown]");
	assert_int_equal(ps.s[1].nframes, 3);
	assert_string_equal(ps_str(&ps, ps.frames[ps.s[1].frame0].sym), "lj_vm_call");
	assert_string_equal(ps_str(&ps, ps.frames[ps.s[1].frame0 + 2].sym), "main");
	pscript_release(&ps);
}

/* the runner's clock onto perf's: identity for CLOCK_MONOTONIC, interpolation between pairs otherwise */
static void test_clockmap(void **state)
{
	(void)state;
	struct prof_clockmap m;
	prof_clockmap_init(&m);
	assert_false(prof_clockmap_ok(&m));
	m.clk = CLOCK_MONOTONIC;
	assert_true(prof_clockmap_ok(&m));
	assert_true(prof_clockmap_map(&m, 123456789) == 123456789);
	prof_clockmap_read(&m); /* nothing to pair for the identity */
	assert_int_equal(m.n, 0);
	m.clk = CLOCK_MONOTONIC_RAW;
	assert_false(prof_clockmap_ok(&m));
	/* offset 1000 at clk 0, 1100 at clk 1e6 (100 ppm apart), 1100 at 2e6 */
	prof_clockmap_add(&m, 0, 1000);
	prof_clockmap_add(&m, 1000000, 1001100);
	prof_clockmap_add(&m, 500, 99); /* out of order: ignored */
	prof_clockmap_add(&m, 2000000, 2001100);
	assert_int_equal(m.n, 3);
	assert_true(prof_clockmap_ok(&m));
	assert_true(prof_clockmap_map(&m, -10) == 990);           /* before the first pair: its offset */
	assert_true(prof_clockmap_map(&m, 0) == 1000);
	assert_true(prof_clockmap_map(&m, 500000) == 501050);     /* halfway: halfway between the offsets */
	assert_true(prof_clockmap_map(&m, 1000000) == 1001100);
	assert_true(prof_clockmap_map(&m, 1500000) == 1501100);
	assert_true(prof_clockmap_map(&m, 9000000) == 9001100);   /* after the last: its offset */
	prof_clockmap_release(&m);
	/* real pairs: the raw clock read now maps within a few microseconds of CLOCK_MONOTONIC read now */
	prof_clockmap_init(&m);
	m.clk = CLOCK_MONOTONIC_RAW;
	prof_clockmap_read(&m);
	struct timespec a, b, c;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	clock_gettime(CLOCK_MONOTONIC, &c);
	prof_clockmap_read(&m);
	int64_t raw = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec;
	int64_t lo = (int64_t)a.tv_sec * 1000000000 + a.tv_nsec, hi = (int64_t)c.tv_sec * 1000000000 + c.tv_nsec;
	int64_t mapped = prof_clockmap_map(&m, raw);
	assert_true(mapped >= lo - 2000 && mapped <= hi + 2000);
	prof_clockmap_release(&m);
}

/* windows from the runner (mapped) or, without them, from arrival stamps */
static void test_windows_from_stream(void **state)
{
	(void)state;
	const char *with = "{\"kiln\":1,\"clock\":\"monotonic_raw\"}\n"
			   "{\"i\":0,\"wall_ns\":100,\"start_ns\":1000,\"end_ns\":1100,\"cpu_ns\":90}\n"
			   "{\"i\":1,\"wall_ns\":50,\"start_ns\":1200,\"end_ns\":1250}\n{\"done\":true}\n";
	struct stream st;
	stream_init(&st, 2);
	stream_feed(&st, with, strlen(with));
	assert_int_equal(stream_finish(&st), 0);
	struct prof_clockmap m;
	prof_clockmap_init(&m);
	m.clk = CLOCK_MONOTONIC_RAW;
	prof_clockmap_add(&m, 0, 5000);
	int64_t arrival[2] = { 99999, 99999 }; /* read late, in one chunk */
	struct prof_iter it[2];
	size_t moved = 9;
	assert_int_equal(prof_windows(&st, arrival, &m, 1, it, &moved), 1);
	assert_int_equal(moved, 0);
	assert_true(it[0].start_ns == 6000 && it[0].end_ns == 6100 && it[0].wall_ns == 100 && it[0].cpu_ns == 90);
	assert_true(it[1].start_ns == 6200 && it[1].end_ns == 6250 && it[1].cpu_ns == -1);
	/* told not to use them (a runner whose windows were not in its clock): arrival stamps */
	assert_int_equal(prof_windows(&st, arrival, &m, 0, it, &moved), 0);
	assert_true(it[1].end_ns == 99999 && it[1].start_ns == 99949);
	assert_true(it[0].end_ns == 99949 && it[0].start_ns == 99849);
	assert_int_equal(moved, 1);
	stream_release(&st);
	/* an old runner: arrival stamps */
	stream_init(&st, 1);
	const char *old = "{\"kiln\":1,\"clock\":\"monotonic_raw\"}\n{\"i\":0,\"wall_ns\":100}\n{\"done\":true}\n";
	stream_feed(&st, old, strlen(old));
	assert_int_equal(stream_finish(&st), 0);
	assert_int_equal(prof_windows(&st, arrival, &m, 1, it, &moved), 0);
	assert_true(it[0].start_ns == 99899 && it[0].end_ns == 99999);
	stream_release(&st);
	prof_clockmap_release(&m);
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
		{ 1000000100, 1000000200, 100, -1 }, { 1000000300, 1000000400, 100, 80 }, { 1000000500, 1000000600, 100, -1 },
	};
	struct prof_pexec_in px = { .pid = 7, .iters = it, .niters = 3, .split = 1, .split_how = "--split 1",
				    .windows = "runner" };
	struct prof_input in = { .key = "b:vm:v", .event = "cpu-clock", .ps = &ps, .px = &px, .npx = 1,
				 .vm = { "node", "/usr/bin/vm" }, .top = 5 };
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
	/* one pexec: its iterations with their windows and CPU times */
	json_t *p0 = json_array_get(json_object_get(r, "pexecs"), 0);
	assert_int_equal(json_integer_value(json_object_get(p0, "samples")), 9);
	assert_string_equal(json_string_value(json_object_get(p0, "windows")), "runner");
	json_t *pi1 = json_array_get(json_object_get(p0, "iterations"), 1);
	assert_int_equal(json_integer_value(json_object_get(pi1, "start_ns")), 1000000300);
	assert_int_equal(json_integer_value(json_object_get(pi1, "cpu_ns")), 80);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(p0, "iterations"), 0), "cpu_ns")));
	/* callers of the hottest symbol: none beyond the leaf here */
	json_t *callers = json_object_get(top0, "callers");
	assert_int_equal(json_array_size(callers), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(callers, 0), "symbol")), "[no caller]");
	json_decref(r);
	pscript_release(&ps);
}

/* two pexecs, each split at its own iteration; iteration i of both counted together; callers */
static void test_report_pexecs(void **state)
{
	(void)state;
	struct pscript ps;
	parse(&ps,
	      "n 7/7 1.000000150: 100 c: 7f00 JS:hot (/tmp/perf-7.map)\n"
	      "\t    7f80 JS:caller (/tmp/perf-7.map)\n"
	      "\n"
	      "n 7/7 1.000000350: 100 c: 7f00 JS:hot (/tmp/perf-7.map)\n"
	      "\t    7f90 JS:other (/tmp/perf-7.map)\n"
	      "\n"
	      "m 8/8 1.000000150: 100 c: 7f00 JS:hot (/tmp/perf-8.map)\n"
	      "m 8/8 1.000000350: 100 c: 10 vmcode (/usr/bin/vm)\n"
	      "m 8/8 1.000000900: 100 c: 10 vmcode (/usr/bin/vm)\n");
	assert_int_equal(ps.n, 5);
	for (size_t i = 2; i < 5; i++)
		ps.s[i].pexec = 1;
	struct prof_iter it[2] = { { 1000000100, 1000000200, 100, 100 }, { 1000000300, 1000000400, 100, 50 } };
	struct prof_pexec_in px[2] = {
		{ .pid = 7, .iters = it, .niters = 2, .split = 1, .windows = "runner" },
		{ .pid = 8, .iters = it, .niters = 2, .split = 0, .windows = "arrival" },
	};
	struct prof_input in = { .key = "k", .event = "cpu-clock", .ps = &ps, .px = px, .npx = 2,
				 .vm = { "node", "/usr/bin/vm" }, .top = 5 };
	json_t *r = prof_report(&in);
	assert_int_equal(json_integer_value(json_object_get(r, "samples")), 5);
	assert_int_equal(json_integer_value(json_object_get(r, "in_iterations")), 4);
	json_t *ph = json_object_get(r, "phases");
	/* pexec 0: iteration 1 before, 2 after; pexec 1: split 0, both after */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ph, 0), "samples")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ph, 1), "samples")), 3);
	assert_null(json_object_get(json_array_get(ph, 0), "iterations")); /* ranges differ per pexec */
	json_t *its = json_object_get(r, "iterations");
	assert_int_equal(json_array_size(its), 2);
	json_t *i1 = json_array_get(its, 1);
	assert_int_equal(json_integer_value(json_object_get(i1, "samples")), 2);
	assert_int_equal(json_integer_value(json_object_get(i1, "pexecs")), 2);
	assert_int_equal(json_integer_value(json_object_get(i1, "cpu_ns")), 50);
	assert_int_equal(json_integer_value(json_object_get(i1, "on_cpu_ns")), 100); /* mean of 100 and 100 */
	json_t *pxs = json_object_get(r, "pexecs");
	assert_int_equal(json_array_size(pxs), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(pxs, 1), "samples")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(pxs, 1), "outside_iterations")), 1);
	json_t *top0 = json_array_get(json_object_get(r, "top"), 0);
	assert_string_equal(json_string_value(json_object_get(top0, "symbol")), "JS:hot");
	json_t *callers = json_object_get(top0, "callers");
	/* JS:hot of pexec 0 (its own perf map: another symbol than pexec 1's) was called by two callers */
	assert_string_equal(json_string_value(json_object_get(top0, "dso")), "/tmp/perf-7.map");
	assert_int_equal(json_array_size(callers), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(callers, 0), "symbol")), "JS:caller");
	assert_string_equal(json_string_value(json_object_get(json_array_get(callers, 1), "symbol")), "JS:other");
	json_decref(r);
	pscript_release(&ps);
}

static void test_windows_fix(void **state)
{
	(void)state;
	/* lines 1 and 2 read in one chunk with line 3: all stamped 1000 */
	struct prof_iter it[4] = { { 800, 900, 100, -1 }, { 900, 1000, 100, -1 }, { 900, 1000, 100, -1 }, { 950, 1000, 50, -1 } };
	assert_int_equal(prof_windows_fix(it, 4), 3);
	assert_true(it[3].start_ns == 950 && it[3].end_ns == 1000);
	assert_true(it[2].start_ns == 850 && it[2].end_ns == 950);
	assert_true(it[1].start_ns == 750 && it[1].end_ns == 850);
	assert_true(it[0].start_ns == 650 && it[0].end_ns == 750);
	/* consistent windows stay */
	struct prof_iter ok[2] = { { 0, 10, 10, -1 }, { 15, 20, 5, -1 } };
	assert_int_equal(prof_windows_fix(ok, 2), 0);
	assert_true(ok[0].end_ns == 10);
	assert_int_equal(prof_windows_fix(ok, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_line_samples),
		cmocka_unit_test(test_time_overflow),
		cmocka_unit_test(test_comm_shaped_like_ids),
		cmocka_unit_test(test_main_pid),
		cmocka_unit_test(test_call_chains_and_garbage),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_periods_and_attached_chains),
		cmocka_unit_test(test_clockmap),
		cmocka_unit_test(test_windows_from_stream),
		cmocka_unit_test(test_report_split),
		cmocka_unit_test(test_report_pexecs),
		cmocka_unit_test(test_windows_fix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
