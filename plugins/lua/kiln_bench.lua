-- kiln_bench.lua - what the `lua` and `luajit` runners share: loading the
-- benchmark in kiln's layout or Krun's, the probe line of KILN_PROBE=1, and
-- the checksum record.  Both load it with dofile: the lua runner from beside
-- itself, the luajit runner from plugins/lua/ (installed beside
-- plugins/luajit/ under share/kiln/plugins).  It keeps to Lua 5.1 syntax,
-- for LuaJIT.

local M = {}

-- kiln's layout: BENCH.lua returns a table {run_iter, checksum}, both
-- required; Krun's (the warmup experiment's benchmarks): a global run_iter
-- and nothing returned, checksum optional (Krun's benchmarks check their
-- own results)
function M.load(entry, fail)
	local bench = dofile(entry)
	if bench == nil and type(run_iter) == "function" then
		return { run_iter = run_iter, checksum = type(checksum) == "function" and checksum or nil }
	end
	if type(bench) ~= "table" then fail(entry .. " returns no table (nor defines a global run_iter)") end
	for _, f in ipairs({ "run_iter", "checksum" }) do
		if type(bench[f]) ~= "function" then fail(entry .. " defines no " .. f .. "()") end
	end
	return bench
end

-- KILN_PROBE=1 (docs/protocol.md): the benchmark is loaded and checked, one
-- probe line written, nothing run
function M.probe(out, version)
	local function q(s) return (tostring(s):gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end)) end
	out:write(string.format('{"kiln":1,"probe":true,"version":"%s","executable":"%s"}\n', q(version), q(arg[-1] or "")))
	out:close()
	os.exit(0)
end

-- a checksum as a JSON number, exactly: an integer in full, any other
-- number in the shortest of %.15g..%.17g that reads back the same (a "%d"
-- of 0.75 was 0 in LuaJIT and an error that failed the pexec in Lua 5.4,
-- and of 2^63 LuaJIT's -9223372036854775808); nil for anything else
local function json_number(v)
	if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
		return nil
	end
	if math.type and math.type(v) == "integer" then
		return string.format("%d", v)
	end
	if v == math.floor(v) and v >= -2^53 and v <= 2^53 then
		return string.format("%.0f", v)
	end
	for prec = 15, 17 do
		local s = string.format("%." .. prec .. "g", v)
		if tonumber(s) == v then return s end
	end
	return string.format("%.17g", v)
end

-- after the last iteration: the benchmark's checksum, when it has one
function M.write_checksum(instr_dir, bench, fail)
	local f = io.open(instr_dir .. "/runner.kiln.jsonl", "a") or fail("cannot write to KILN_INSTR_DIR")
	if bench.checksum then
		local v = bench.checksum()
		local s = json_number(v)
		if not s then
			f:close()
			fail("checksum() returned " .. tostring(v) .. ", not a finite number")
		end
		f:write('{"name":"checksum","value":' .. s .. '}\n')
	end
	f:close()
end

return M
