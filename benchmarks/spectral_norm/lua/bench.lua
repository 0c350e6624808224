-- spectral_norm (Lua 5.4 and LuaJIT) - power method on
-- A(i,j) = 1/((i+j)(i+j+1)/2+i+1); see ../README.md.  Indices i, j are
-- 0-based in the formula, arrays 1-based.  (i+j)(i+j+1) is even, so the
-- float division by 2 is exact and the doubles match the C version's.
-- checksum() is floor(result * 1e9 + 0.5).

local sqrt, floor = math.sqrt, math.floor
local result = 0.0

local function mul_av(n, v, out)
	for i = 0, n - 1 do
		local s = 0.0
		for j = 0, n - 1 do
			s = s + 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1) * v[j + 1]
		end
		out[i + 1] = s
	end
end

local function mul_atv(n, v, out)
	for i = 0, n - 1 do
		local s = 0.0
		for j = 0, n - 1 do
			s = s + 1.0 / ((j + i) * (j + i + 1) / 2 + j + 1) * v[j + 1]
		end
		out[i + 1] = s
	end
end

local function run_iter(param)
	local n = param < 1 and 1 or param
	local u, v, tmp = {}, {}, {}
	for i = 1, n do
		u[i], v[i], tmp[i] = 1.0, 0.0, 0.0
	end
	for _ = 1, 10 do
		mul_av(n, u, tmp)
		mul_atv(n, tmp, v)
		mul_av(n, v, tmp)
		mul_atv(n, tmp, u)
	end
	local vbv, vv = 0.0, 0.0
	for i = 1, n do
		vbv = vbv + u[i] * v[i]
		vv = vv + v[i] * v[i]
	end
	result = sqrt(vbv / vv)
end

return { run_iter = run_iter, checksum = function() return floor(result * 1e9 + 0.5) end }
