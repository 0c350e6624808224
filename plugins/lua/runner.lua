-- runner.lua - kiln's iteration runner for Lua 5.4 (the `lua` plugin).
--
--     lua5.4 [VM args] runner.lua BENCH.lua
--
-- BENCH.lua returns a table {run_iter = function(param), checksum = function()},
-- both checked before the first iteration, or (Krun's benchmarks) defines a
-- global run_iter(param) and returns nothing, checksum() optional (both
-- layouts, the probe line and the checksum record are kiln_bench.lua's,
-- beside this file, which the luajit runner loads too).
-- The runner times KILN_ITERATIONS calls of run_iter(KILN_PARAM) with
-- CLOCK_MONOTONIC_RAW, read through kilnclock.so (a tiny C module beside this
-- file: Lua 5.4 itself has no monotonic clock), and writes the result stream
-- (runner protocol v1) to /dev/fd/KILN_RESULT_FD: header, one line per
-- iteration after its clock stopped (its window, the two clock reads, and
-- the process CPU time read just outside them), {"done":true}.  After the last
-- iteration the checksum goes to KILN_INSTR_DIR/runner.kiln.jsonl.
--
-- With KILN_INSTRUMENT=1 it also records per iteration the heap size at the
-- end of the iteration (collectgarbage("count")) and how many GC cycles
-- finished during it (a sentinel object whose finaliser re-arms itself at
-- every cycle), buffered in memory and written to lua.kiln.jsonl at the end.

local function fail(msg)
	io.stderr:write("kiln lua runner: ", msg, "\n")
	os.exit(1)
end

local function env(name)
	return os.getenv(name) or fail(name .. " is not set")
end

local here = (arg[0]:match("^(.*)/[^/]*$") or ".")
package.cpath = here .. "/?.so;" .. package.cpath
local ok, kc = pcall(require, "kilnclock")
if not ok then
	fail("cannot load kilnclock.so beside the runner (build it with make): " .. tostring(kc))
end
local now, cpu = kc.ns, kc.cpu_ns
local shared = dofile(here .. "/kiln_bench.lua")

local entry = arg[1] or fail("usage: runner.lua BENCH.lua")
local iters = tonumber(env("KILN_ITERATIONS")) or fail("bad KILN_ITERATIONS")
local param = tonumber(env("KILN_PARAM")) or fail("bad KILN_PARAM (a number is expected)")
local out = io.open("/dev/fd/" .. env("KILN_RESULT_FD"), "a") or fail("cannot open the result fd")
local instr_dir = os.getenv("KILN_INSTR_DIR")
local instrument = os.getenv("KILN_INSTRUMENT") == "1"

-- kiln's layout or Krun's (kiln_bench.lua)
local bench = shared.load(entry, fail)
local run_iter = bench.run_iter

-- KILN_PROBE=1: kiln's probe before the first pexec
if os.getenv("KILN_PROBE") == "1" then
	shared.probe(out, _VERSION)
end

-- GC cycle counter: the sentinel's finaliser runs once per finished cycle
local cycles = 0
if instrument then
	local function arm()
		setmetatable({}, { __gc = function() cycles = cycles + 1; arm() end })
	end
	arm()
end

local heap, counts = {}, {}
out:write('{"kiln":1,"clock":"monotonic_raw","counters":[]}\n')
out:flush()
for i = 0, iters - 1 do
	local c0 = cycles
	local u0 = cpu()
	local t0 = now()
	run_iter(param)
	local t1 = now()
	local u1 = cpu()
	local c1 = cycles
	out:write(string.format('{"i":%d,"wall_ns":%d,"start_ns":%d,"end_ns":%d,"cpu_ns":%d}\n', i, t1 - t0, t0, t1, u1 - u0))
	out:flush()
	if instrument then
		counts[i] = c1 - c0
		heap[i] = collectgarbage("count") * 1024
	end
end

if instr_dir then
	shared.write_checksum(instr_dir, bench, fail)
	if instrument then
		local f = io.open(instr_dir .. "/lua.kiln.jsonl", "a") or fail("cannot write to KILN_INSTR_DIR")
		for i = 0, iters - 1 do
			f:write(string.format('{"i":%d,"name":"heap","value":%.0f,"unit":"bytes"}\n', i, heap[i]))
			f:write(string.format('{"i":%d,"name":"gc.count","value":%d}\n', i, counts[i]))
		end
		f:close()
	end
end
out:write('{"done":true}\n')
out:close()
