/*
 * plugins/luajit/plugin.c - the `luajit` plugin: LuaJIT 2.1.
 *
 * Runs benchmarks/<b>/lua/bench.lua (the same sources as the `lua` plugin:
 * they keep to Lua 5.1 syntax) with plugins/luajit/runner.lua, which reads
 * CLOCK_MONOTONIC_RAW through the FFI.  With `instrument: true` the runner
 * also counts trace events (jit.attach) and writes heap size, GC cycles and
 * trace counts per iteration as generic records (luajit.kiln.jsonl).
 */
#include "config.h"
#include "plugin.h"

static int luajit_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
			struct kerr *e)
{
	if (!c->vm_path || !c->plugin_dir || !c->entry_path)
		return kerr_set(e, "luajit: missing VM, plugin or benchmark path");
	sv_push(argv, c->vm_path);
	if (c->vm)
		for (size_t i = 0; i < c->vm->args.n; i++)
			sv_push(argv, c->vm->args.v[i]);
	sv_pushf(argv, "%s/runner.lua", c->plugin_dir);
	sv_push(argv, c->entry_path);
	if (c->instrument)
		sv_setenv(env, "KILN_INSTRUMENT", "1");
	return 0;
}

const struct kiln_plugin plugin_luajit = {
	.name = "luajit",
	.language = "lua",
	.entry = "bench.lua",
	.vm_default = "luajit",
	.summary = "LuaJIT: Lua benchmarks timed with CLOCK_MONOTONIC_RAW (FFI)",
	.records = "per iteration: heap (bytes), gc.count, jit.traces_started, jit.traces_completed, "
		   "jit.traces_aborted, luajit.trace_time (s); per pexec: checksum",
	.build = luajit_build,
};
