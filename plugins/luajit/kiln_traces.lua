-- kiln_traces.lua - what kiln profile needs to name LuaJIT's JIT'd code,
-- loaded by runner.lua when KILN_PROFILE=1.
--
--     local tr = dofile(dir .. "kiln_traces.lua").start()
--     ... the benchmark ...
--     tr:finish(instr_dir)
--
-- start() maps an empty jitdump named after the process (jit-PID.dump in
-- the working folder, a header only) executable, so that perf's recording
-- says where it is, and attaches to the JIT's trace events: at each
-- trace's start the function and bytecode it starts at (jit.util.funcinfo:
-- source and line), at its stop its machine code (jit.util.tracemc: bytes
-- and address) and the time (CLOCK_MONOTONIC_RAW, the result stream's
-- clock).  finish() writes one JSON line per trace to
-- KILN_INSTR_DIR/luajit-traces.jsonl:
--     {"trace":3,"parent":1,"exit":2,"t_ns":...,"addr":...,"size":...,"src":"@b.lua","line":45,"code":"4889..."}
-- from which kiln writes the real jitdump (src/jitcode.c).  Nothing here
-- runs inside the timed region except the JIT's own trace events.

local ffi = require("ffi")
local jutil = require("jit.util")

-- each declaration on its own: the runner may have made some (a second one is an error)
for _, d in ipairs({
	"struct kiln_timespec { long tv_sec; long tv_nsec; };",
	"int clock_gettime(int clk, struct kiln_timespec *ts);",
	"int open(const char *path, int flags, int mode);",
	"long write(int fd, const void *buf, unsigned long n);",
	"void *mmap(void *addr, unsigned long len, int prot, int flags, int fd, long off);",
	"int getpid(void);",
}) do
	pcall(ffi.cdef, d)
end

local C = ffi.C
local M = {}

-- jit-PID.dump: magic 'JiTD', version 1, header size 40, x86-64, pid, no timestamp or flags
local function marker()
	local pid = C.getpid()
	local fd = C.open(string.format("jit-%d.dump", pid), 0x42 + 0x200, 420) -- O_RDWR|O_CREAT|O_TRUNC, 0644
	if fd < 0 then
		io.stderr:write("kiln luajit runner: no jitdump marker for kiln profile (working folder not writable?)\n")
		return nil
	end
	local h = ffi.new("uint32_t[10]", 0x4A695444, 1, 40, 62, 0, pid, 0, 0, 0, 0)
	C.write(fd, h, 40)
	local p = C.mmap(nil, 40, 1 + 4, 2, fd, 0) -- PROT_READ|PROT_EXEC, MAP_PRIVATE
	return p
end

local function json_str(s)
	-- quotes, backslashes, control characters and bytes above ASCII escaped (always valid JSON)
	return '"' .. s:gsub('[%c"\\\128-\255]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

local function hex(s)
	return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

function M.start()
	local self = { traces = {}, starts = {}, map = marker() }
	local ts = ffi.new("struct kiln_timespec")
	local CLOCK_MONOTONIC_RAW = 4
	self.handler = function(what, tr, func, pc, otr, oex)
		if what == "start" then
			local fi = jutil.funcinfo(func, pc)
			self.starts[tr] = { fi.source or "?", fi.currentline or 0, otr or 0, oex or 0 }
		elseif what == "stop" then
			C.clock_gettime(CLOCK_MONOTONIC_RAW, ts)
			local mc, addr = jutil.tracemc(tr)
			if mc and addr then
				local s = self.starts[tr] or { "?", 0, 0, 0 }
				self.traces[#self.traces + 1] = { tr, s[3], s[4], tonumber(ts.tv_sec), tonumber(ts.tv_nsec), addr, mc, s[1], s[2] }
			end
		end
	end
	jit.attach(self.handler, "trace")
	function self.finish(_, instr_dir)
		jit.attach(self.handler) -- detach
		if not instr_dir then return end
		local f = io.open(instr_dir .. "/luajit-traces.jsonl", "w")
		if not f then return end
		for _, t in ipairs(self.traces) do
			local ns = t[4] > 0 and string.format("%d%09d", t[4], t[5]) or string.format("%d", t[5])
			f:write(string.format('{"trace":%d,"parent":%d,"exit":%d,"t_ns":%s,"addr":%.0f,"size":%d,"src":%s,"line":%d,"code":"%s"}\n',
				t[1], t[2], t[3], ns, t[6], #t[7], json_str(t[8]), t[9], hex(t[7])))
		end
		f:close()
	end
	return self
end

return M
