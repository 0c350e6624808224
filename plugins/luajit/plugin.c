/*
 * plugins/luajit/plugin.c - the `luajit` plugin: LuaJIT 2.1.
 *
 * Runs benchmarks/<b>/lua/bench.lua (the same sources as the `lua` plugin:
 * they keep to Lua 5.1 syntax) with plugins/luajit/runner.lua, which reads
 * CLOCK_MONOTONIC_RAW through the FFI.  With `instrument: true` the runner
 * also counts trace events (jit.attach) and writes heap size, GC cycles and
 * trace counts per iteration as generic records (luajit.kiln.jsonl).
 * Under kiln profile, KILN_PROFILE=1 has the runner record every trace's
 * machine code, address and source line (kiln_traces.lua) for kiln to
 * name the JIT'd code (jitcode.c).  What the two Lua runners share
 * (loading the benchmark, the probe line, the checksum) is
 * plugins/lua/kiln_bench.lua, which this runner loads from the lua plugin's
 * folder.
 */
#include <stdlib.h>

#include "config.h"
#include "idcache.h"
#include "plugin.h"

/* the shared runner file lies in the lua plugin's folder, which this key's provenance does not hash */
static void luajit_describe(const struct plugin_ctx *c, struct strvec *lines)
{
	char *f = xasprintf("%s/../lua/kiln_bench.lua", c->plugin_dir);
	char sha[65];
	struct kerr e = KERR_INIT;
	if (idc_sha256(f, sha, &e) == 0)
		sv_pushf(lines, "plugin.shared ../lua/kiln_bench.lua sha256:%s", sha);
	else
		sv_pushf(lines, "plugin.shared ../lua/kiln_bench.lua %s", sb_str(&e.msg));
	kerr_release(&e);
	free(f);
}

static int luajit_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
			struct kerr *e)
{
	if (plugin_build_script(c, "runner.lua", NULL, argv, env, e) < 0)
		return -1;
	if (c->profile)
		sv_setenv(env, "KILN_PROFILE", "1");
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
	.probe = 1,
	.describe = luajit_describe,
};
