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
	if (!c->vm_path || !c->plugin_dir || !c->entry_path)
		return kerr_set(e, "node: missing VM, plugin or benchmark path");
	sv_push(argv, c->vm_path);
	if (c->profile) {
		sv_push(argv, "--perf-basic-prof");
		sv_push(argv, "--perf-prof");
		sv_push(argv, "--interpreted-frames-native-stack");
	}
	if (c->vm)
		for (size_t i = 0; i < c->vm->args.n; i++)
			sv_push(argv, c->vm->args.v[i]);
	sv_pushf(argv, "%s/runner.js", c->plugin_dir);
	sv_push(argv, c->entry_path);
	if (c->instrument)
		sv_setenv(env, "KILN_INSTRUMENT", "1");
	return 0;
}

const struct kiln_plugin plugin_node = {
	.name = "node",
	.language = "js",
	.entry = "bench.js",
	.vm_default = "node",
	.summary = "Node.js/V8: JavaScript benchmarks timed with process.hrtime.bigint()",
	.records = "per iteration: gc.time (s), gc.count, gc.{minor,major,incremental,weakcb}.{time,count}, "
		   "heap (bytes) (perf_hooks gc entries); per pexec: checksum",
	.build = node_build,
};
