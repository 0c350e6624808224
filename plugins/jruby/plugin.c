/*
 * plugins/jruby/plugin.c - the `jruby` plugin: JRuby on a HotSpot JVM.
 *
 * Runs the Ruby benchmarks (benchmarks/<b>/ruby/bench.rb) with
 * plugins/jruby/runner.rb, which shares the protocol loop with the CRuby
 * runner (plugins/ruby/kiln_loop.rb) and, with `instrument: true`, reads the
 * JVM's MX beans around each iteration as the java plugin does, plus JRuby's
 * own JIT counters (jruby.kiln.jsonl).  With profiling on, the JVM gets the
 * java plugin's perf-map switches through JRuby's -J prefix, so the perf
 * map names the JVM classes JRuby compiled Ruby methods into.
 */
#include "config.h"
#include "plugin.h"

static int jruby_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env, struct kerr *e)
{
	static const char *const prof[] = { "-J-XX:+UnlockDiagnosticVMOptions", "-J-XX:+DumpPerfMapAtExit",
					    "-J-XX:+PreserveFramePointer", NULL };
	return plugin_build_script(c, "runner.rb", prof, argv, env, e);
}

const struct kiln_plugin plugin_jruby = {
	.name = "jruby",
	.language = "ruby",
	.entry = "bench.rb",
	.vm_default = "jruby",
	.summary = "JRuby: Ruby benchmarks on the JVM, timed with Process.clock_gettime(CLOCK_MONOTONIC)",
	.records = "per iteration: gc.time (s), gc.count, gc.<collector>.time (s), gc.<collector>.count, "
		   "jit.time (s), heap (bytes) (JMX beans, millisecond resolution), jruby.jit.compiled, "
		   "jruby.jit.failed, jruby.jit.bytecode_added (bytes) (JRuby's JIT); per pexec: checksum",
	.build = jruby_build,
};
