/*
 * plugins/lua/plugin.c - the `lua` plugin: PUC Lua 5.4.
 *
 * Runs benchmarks/<b>/lua/bench.lua with plugins/lua/runner.lua.  Lua 5.4
 * has no monotonic clock, so the runner loads kilnclock.so (built by the
 * Makefile from plugins/lua/kilnclock.c against liblua5.4-dev) from its own
 * folder; prepare() checks it is there before anything runs.  With
 * `instrument: true` the runner writes heap size and GC cycles per iteration
 * as generic records (lua.kiln.jsonl).
 */
#include <stdlib.h>

#include "config.h"
#include "plugin.h"

static int lua_prepare(const struct plugin_ctx *c, struct kerr *e)
{
	char *so = path_join(c->plugin_dir, "kilnclock.so");
	int ok = file_exists(so);
	if (!ok)
		kerr_setc(e, KEXIT_CONFIG, "lua: %s is missing: build it with `make` (needs liblua5.4-dev)", so);
	free(so);
	return ok ? 0 : -1;
}

static int lua_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
		     struct kerr *e)
{
	return plugin_build_script(c, "runner.lua", NULL, argv, env, e);
}

const struct kiln_plugin plugin_lua = {
	.name = "lua",
	.language = "lua",
	.entry = "bench.lua",
	.vm_default = "lua5.4",
	.summary = "Lua 5.4: Lua benchmarks timed with CLOCK_MONOTONIC_RAW (kilnclock.so)",
	.records = "per iteration: heap (bytes), gc.count (GC cycles finished); per pexec: checksum",
	.build = lua_build,
	.prepare = lua_prepare,
	.probe = 1,
};
