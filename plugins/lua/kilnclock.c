/*
 * kilnclock.c - a one-function Lua 5.4 module for the `lua` plugin's runner.
 *
 * Lua 5.4 has no monotonic clock (os.clock is CPU time, os.time whole
 * seconds), so the runner loads this module for CLOCK_MONOTONIC_RAW in
 * nanoseconds, as a Lua integer, and for the process's CPU time in
 * nanoseconds (os.clock goes through clock(3), microseconds in a float):
 *     local kc = require("kilnclock"); local t = kc.ns(); local c = kc.cpu_ns()
 * Built against liblua5.4-dev into kilnclock.so beside the runner.
 */
#include <time.h>
#include <lua.h>
#include <lauxlib.h>

static int kc_ns(lua_State *L)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
	return 1;
}

static int kc_cpu_ns(lua_State *L)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
	return 1;
}

int luaopen_kilnclock(lua_State *L)
{
	static const luaL_Reg fns[] = {
		{ "ns", kc_ns },
		{ "cpu_ns", kc_cpu_ns },
		{ NULL, NULL },
	};
	luaL_newlib(L, fns);
	return 1;
}
