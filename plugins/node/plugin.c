/*
 * plugins/node/plugin.c - the `node` plugin: Node.js (V8).
 *
 * Runs benchmarks/<b>/js/bench.js (CommonJS) with plugins/node/runner.js,
 * which times each run_iter() with process.hrtime.bigint().  With
 * `instrument: true` the runner observes V8's GC performance entries and
 * writes GC pauses and heap size per iteration as generic records
 * (node.kiln.jsonl).  With profiling on, V8 writes a perf map
 * (/tmp/perf-PID.map) and a jitdump (jit-PID.dump, in the working directory)
 * and keeps interpreted frames visible to perf.
 */
#include "config.h"
#include "plugin.h"

static int node_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
		      struct kerr *e)
{
	static const char *const prof[] = { "--perf-basic-prof", "--perf-prof", "--interpreted-frames-native-stack",
					    NULL };
	return plugin_build_script(c, "runner.js", prof, argv, env, e);
}

const struct kiln_plugin plugin_node = {
	.name = "node",
	.language = "js",
	.krun_language = "javascript",
	.entry = "bench.js",
	.vm_default = "node",
	.summary = "Node.js/V8: JavaScript benchmarks timed with process.hrtime.bigint()",
	.records = "per iteration: gc.time (s), gc.count, gc.{minor,major,incremental,weakcb}.{time,count}, "
		   "heap (bytes) (perf_hooks gc entries); per pexec: checksum",
	.build = node_build,
	.probe = 1,
};
