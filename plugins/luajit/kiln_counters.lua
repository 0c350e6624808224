-- kiln_counters.lua - libkiln's per-iteration counters for the LuaJIT runner.
--
-- The LuaJIT iteration runner (plugins/luajit/runner.lua) reaches libkiln
-- through the FFI, so it records the same counters as the C runner (cycles,
-- instructions, task-clock, aperf/mperf, ...; docs/counters.md).  The shared
-- library is found through $KILN_LIBKILN (absolute path, set by kiln).
--
--     local kc = require("kiln_counters")   -- or dofile(dir .. "/kiln_counters.lua")
--     local ctr = kc.open()                 -- spec: nil -> $KILN_COUNTERS
--     ctr:names()                           -- available counters, in order
--     ctr:unavailable()                     -- { {name, reason}, ... }, never zeros
--     local a = ctr:read(); run_iter(p); local b = ctr:read()
--     ctr:deltas(a, b)                      -- { b[k] - a[k] } in counter order
--
-- For writing the result stream by hand: ctr:header_json() gives the
-- header's '"counters":[...]' (plus '"unavailable":[...]' when some are
-- missing), ctr:iter_json(a, b) an iteration's ',"counters":[...]' ('' when
-- none is available).
--
-- A runner that wants no Lua object made per iteration (tables are garbage
-- that a later iteration's GC step pays for) calls ctr:start() and
-- ctr:stop() around the iteration, which read into two cdata buffers kept by
-- ctr, then ctr:iter_json() with no arguments.
--
-- read() returns a Lua table of numbers (doubles: exact below 2^53, i.e. for
-- any count a pexec reaches).  When libkiln cannot be loaded every requested
-- counter is reported unavailable with the reason; a spec asking for nothing
-- never loads the library.
local ffi = require("ffi")

local M = {}

-- in a pcall: loading this file twice (dofile) must not fail on redefinition
pcall(ffi.cdef, [[
struct kiln_counters;
struct kiln_counters *kiln_counters_open(const char *spec);
int kiln_counters_count(const struct kiln_counters *c);
const char *kiln_counters_name(const struct kiln_counters *c, int i);
int kiln_counters_unavailable_count(const struct kiln_counters *c);
const char *kiln_counters_unavailable_name(const struct kiln_counters *c, int i);
const char *kiln_counters_unavailable_reason(const struct kiln_counters *c, int i);
void kiln_counters_read(struct kiln_counters *c, uint64_t *out);
void kiln_counters_close(struct kiln_counters *c);
]])

local lib, lib_err

-- libkiln, loaded once; lib or nil, reason
local function load()
	if lib or lib_err then
		return lib, lib_err
	end
	local path = os.getenv("KILN_LIBKILN")
	if not path or path == "" then
		lib_err = "libkiln not found (KILN_LIBKILN is not set)"
		return nil, lib_err
	end
	local ok, l = pcall(ffi.load, path)
	if not ok then
		lib_err = "libkiln not loadable: " .. tostring(l)
		return nil, lib_err
	end
	lib = l
	return lib
end

local function split(spec)
	local t = {}
	for tok in spec:gmatch("[^,%s]+") do
		t[#t + 1] = tok
	end
	return t
end

local function json_str(s)
	return '"' .. s:gsub('[%c"\\]', function(c)
		if c == '"' or c == "\\" then
			return "\\" .. c
		end
		return string.format("\\u%04x", c:byte())
	end) .. '"'
end

local Counters = {}
Counters.__index = Counters

function M.open(spec)
	spec = spec or os.getenv("KILN_COUNTERS") or ""
	local self = setmetatable({ _names = {}, _unav = {}, _n = 0 }, Counters)
	local want = split(spec)
	if #want == 0 then
		return self
	end
	local l, err = load()
	if not l then
		for _, n in ipairs(want) do
			self._unav[#self._unav + 1] = { n, err }
		end
		return self
	end
	local h = l.kiln_counters_open(spec)
	if h == nil then
		for _, n in ipairs(want) do
			self._unav[#self._unav + 1] = { n, "libkiln: out of memory" }
		end
		return self
	end
	self._h = ffi.gc(h, l.kiln_counters_close)
	self._n = l.kiln_counters_count(h)
	for k = 0, self._n - 1 do
		self._names[k + 1] = ffi.string(l.kiln_counters_name(h, k))
	end
	for k = 0, l.kiln_counters_unavailable_count(h) - 1 do
		self._unav[k + 1] = { ffi.string(l.kiln_counters_unavailable_name(h, k)),
			ffi.string(l.kiln_counters_unavailable_reason(h, k)) }
	end
	self._buf = ffi.new("uint64_t[?]", math.max(self._n, 1))
	self._a = ffi.new("uint64_t[?]", math.max(self._n, 1))
	self._b = ffi.new("uint64_t[?]", math.max(self._n, 1))
	return self
end

-- the available counters' names, in the order read() returns them
function Counters:names()
	local t = {}
	for k, v in ipairs(self._names) do t[k] = v end
	return t
end

-- { {name, reason}, ... } for every requested counter that is not counted
function Counters:unavailable()
	local t = {}
	for k, v in ipairs(self._unav) do t[k] = { v[1], v[2] } end
	return t
end

-- the current raw values of the available counters (a table of numbers)
function Counters:read()
	local t = {}
	if self._n == 0 or not self._h then
		return t
	end
	lib.kiln_counters_read(self._h, self._buf)
	for k = 0, self._n - 1 do
		t[k + 1] = tonumber(self._buf[k])
	end
	return t
end

-- read into the 'before' / 'after' buffers: nothing allocated
function Counters:start()
	if self._n > 0 and self._h then
		lib.kiln_counters_read(self._h, self._a)
	end
end

function Counters:stop()
	if self._n > 0 and self._h then
		lib.kiln_counters_read(self._h, self._b)
	end
end

function Counters:deltas(a, b)
	local t = {}
	for k = 1, self._n do t[k] = b[k] - a[k] end
	return t
end

function Counters:header_json()
	local n = {}
	for k, v in ipairs(self._names) do n[k] = json_str(v) end
	local s = '"counters":[' .. table.concat(n, ",") .. "]"
	if #self._unav > 0 then
		local u = {}
		for k, v in ipairs(self._unav) do u[k] = json_str(v[1]) end
		s = s .. ',"unavailable":[' .. table.concat(u, ",") .. "]"
	end
	return s
end

-- ',"counters":[...]' for an iteration line ('' with no counters); without
-- arguments, the values of the last start() and stop()
function Counters:iter_json(a, b)
	if self._n == 0 then
		return ""
	end
	local d = {}
	if a then
		for k = 1, self._n do d[k] = string.format("%.0f", b[k] - a[k]) end
	else
		for k = 0, self._n - 1 do
			d[k + 1] = tostring(self._b[k] - self._a[k]):gsub("ULL$", "")
		end
	end
	return ',"counters":[' .. table.concat(d, ",") .. "]"
end

function Counters:close()
	if self._h then
		lib.kiln_counters_close(ffi.gc(self._h, nil))
		self._h = nil
		self._n = 0
		self._names = {}
	end
end

return M
