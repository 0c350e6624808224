-- runner.lua - kiln's iteration runner for LuaJIT 2.1 (the `luajit` plugin).
--
--     luajit [VM args] runner.lua BENCH.lua
--
-- BENCH.lua returns a table {run_iter = function(param), checksum = function()},
-- both checked before the first iteration, or (Krun's benchmarks) defines a
-- global run_iter(param), checksum() optional: both layouts, the probe line
-- and the checksum record are ../lua/kiln_bench.lua's, shared with the lua
-- runner.
-- The runner times KILN_ITERATIONS calls of run_iter(KILN_PARAM) with
-- clock_gettime(CLOCK_MONOTONIC_RAW) through the FFI (seconds and
-- nanoseconds subtracted separately, so no precision is lost in a double)
-- and writes the result stream (runner protocol v1) to
-- /dev/fd/KILN_RESULT_FD: header, one line per iteration after its clock
-- stopped (its window, the two clock reads, written from seconds and
-- nanoseconds without a double, and the process CPU time read just outside
-- them), {"done":true}.  After the last iteration the checksum goes to
-- KILN_INSTR_DIR/runner.kiln.jsonl.
--
-- With KILN_INSTRUMENT=1 it also records per iteration: heap size at the end
-- (collectgarbage("count")), GC cycles finished (a self-re-arming finaliser
-- sentinel), and trace events from jit.attach: traces started, completed,
-- aborted, and the wall time from each trace's start to its stop or abort
-- (recording + compilation, interleaved with interpretation), the part of it
-- inside the iteration's window (the two clock reads).  Buffered in
-- memory, written to luajit.kiln.jsonl at the end.
--
-- Under kiln profile (KILN_PROFILE=1) kiln_traces.lua beside this runner
-- records every trace's machine code, address and source line for kiln to
-- name the JIT'd code; it is attached before the benchmark is loaded.

local ffi = require("ffi")
local jit = require("jit")

local function fail(msg)
	io.stderr:write("kiln luajit runner: ", msg, "\n")
	os.exit(1)
end

local function env(name)
	return os.getenv(name) or fail(name .. " is not set")
end

ffi.cdef [[
struct kiln_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct kiln_timespec *ts);
]]
local CLOCK_MONOTONIC_RAW, CLOCK_PROCESS_CPUTIME_ID = 4, 2
local C = ffi.C
local ts0, ts1 = ffi.new("struct kiln_timespec"), ffi.new("struct kiln_timespec")
local tsx = ffi.new("struct kiln_timespec")
local cpu0, cpu1 = ffi.new("struct kiln_timespec"), ffi.new("struct kiln_timespec")

local function elapsed(a, b)
	return tonumber(b.tv_sec - a.tv_sec) * 1e9 + tonumber(b.tv_nsec - a.tv_nsec)
end

-- a timespec as integer nanoseconds in decimal, exact (a double holds 2^53 ns: 104 days)
local function ns_text(t)
	local s = tonumber(t.tv_sec)
	if s == 0 then
		return string.format("%d", tonumber(t.tv_nsec))
	end
	return string.format("%d%09d", s, tonumber(t.tv_nsec))
end

local entry = arg[1] or fail("usage: runner.lua BENCH.lua")
local iters = tonumber(env("KILN_ITERATIONS")) or fail("bad KILN_ITERATIONS")
local param = tonumber(env("KILN_PARAM")) or fail("bad KILN_PARAM (a number is expected)")
local out = io.open("/dev/fd/" .. env("KILN_RESULT_FD"), "a") or fail("cannot open the result fd")
local instr_dir = os.getenv("KILN_INSTR_DIR")
local instrument = os.getenv("KILN_INSTRUMENT") == "1"
local here = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./")
local shared = dofile(here .. "../lua/kiln_bench.lua")
local traces = os.getenv("KILN_PROFILE") == "1" and dofile(here .. "kiln_traces.lua").start() or nil

-- kiln's layout or Krun's (kiln_bench.lua)
local bench = shared.load(entry, fail)
local run_iter = bench.run_iter

-- KILN_PROBE=1: kiln's probe before the first pexec
if os.getenv("KILN_PROBE") == "1" then
	shared.probe(out, jit and jit.version or _VERSION)
end

-- per-iteration event counters, reset after each iteration
local cycles, started, completed, aborted, trace_ns = 0, 0, 0, 0, 0
local open_traces = {}  -- trace number -> start time (ns since t0 of the run)
local base = ffi.new("struct kiln_timespec")
-- the part of [s, t] (ns since base) inside the iteration's window: ts0 is
-- zeroed before the iteration and read at its start, ts1 zeroed and read
-- at its end, so that nothing but the clock reads is added to the timed
-- region; between iterations, nothing
local function in_window(s, t)
	if ts0.tv_sec == 0 and ts0.tv_nsec == 0 then return 0 end
	local w0 = elapsed(base, ts0)
	if ts1.tv_sec ~= 0 or ts1.tv_nsec ~= 0 then t = elapsed(base, ts1) end
	if s < w0 then s = w0 end
	return t > s and t - s or 0
end
if instrument then
	C.clock_gettime(CLOCK_MONOTONIC_RAW, base)
	local function arm()
		local p = newproxy(true)
		getmetatable(p).__gc = function() cycles = cycles + 1; arm() end
	end
	arm()
	jit.attach(function(what, tr)
		C.clock_gettime(CLOCK_MONOTONIC_RAW, tsx)
		local t = elapsed(base, tsx)
		if what == "start" then
			started = started + 1
			open_traces[tr] = t
		elseif what == "stop" or what == "abort" then
			if what == "stop" then completed = completed + 1 else aborted = aborted + 1 end
			local s = open_traces[tr]
			if s then
				-- only the part inside this iteration's window (ts0 read, ts1 not yet): a trace begun
				-- before it (in the runner's loop, or the iteration before, whose part was counted there)
				trace_ns = trace_ns + in_window(s, t)
				open_traces[tr] = nil
			end
		end
	end, "trace")
end

-- libkiln's counters (KILN_COUNTERS) through the FFI binding beside this
-- runner, read into fixed buffers just outside the clock reads
local ctr = nil
if (os.getenv("KILN_COUNTERS") or "") ~= "" then
	ctr = dofile(here .. "kiln_counters.lua").open()
end

local rec = {}
out:write('{"kiln":1,"clock":"monotonic_raw",' .. (ctr and ctr:header_json() or '"counters":[]') .. '}\n')
out:flush()
for i = 0, iters - 1 do
	-- events in the runner's own code between iterations are not counted
	cycles, started, completed, aborted, trace_ns = 0, 0, 0, 0, 0
	ts0.tv_sec, ts0.tv_nsec, ts1.tv_sec, ts1.tv_nsec = 0, 0, 0, 0
	C.clock_gettime(CLOCK_PROCESS_CPUTIME_ID, cpu0)
	if ctr then ctr:start() end
	C.clock_gettime(CLOCK_MONOTONIC_RAW, ts0)
	run_iter(param)
	C.clock_gettime(CLOCK_MONOTONIC_RAW, ts1)
	if ctr then ctr:stop() end
	C.clock_gettime(CLOCK_PROCESS_CPUTIME_ID, cpu1)
	if instrument then
		-- traces still open at the window's end: their part inside it
		for _, s in pairs(open_traces) do
			trace_ns = trace_ns + in_window(s, 0)
		end
		rec[i] = { cycles, started, completed, aborted, trace_ns }
	end
	out:write(string.format('{"i":%d,"wall_ns":%d,"start_ns":%s,"end_ns":%s,"cpu_ns":%d%s}\n', i, elapsed(ts0, ts1),
		ns_text(ts0), ns_text(ts1), elapsed(cpu0, cpu1), ctr and ctr:iter_json() or ""))
	out:flush()
	if instrument then
		table.insert(rec[i], 1, collectgarbage("count") * 1024)
	end
end
if instrument then
	jit.attach(function() end)  -- detach: no callbacks while writing
end

if traces then
	traces:finish(instr_dir)
end

if instr_dir then
	shared.write_checksum(instr_dir, bench, fail)
	if instrument then
		local f = io.open(instr_dir .. "/luajit.kiln.jsonl", "a") or fail("cannot write to KILN_INSTR_DIR")
		local fmt = '{"i":%d,"name":"%s","value":%.0f%s}\n'
		for i = 0, iters - 1 do
			local r = rec[i]
			f:write(string.format(fmt, i, "heap", r[1], ',"unit":"bytes"'))
			f:write(string.format(fmt, i, "gc.count", r[2], ""))
			f:write(string.format(fmt, i, "jit.traces_started", r[3], ""))
			f:write(string.format(fmt, i, "jit.traces_completed", r[4], ""))
			f:write(string.format(fmt, i, "jit.traces_aborted", r[5], ""))
			f:write(string.format('{"i":%d,"name":"luajit.trace_time","value":%.9f,"unit":"s"}\n', i, r[6] / 1e9))
		end
		f:close()
	end
end
out:write('{"done":true}\n')
out:close()
