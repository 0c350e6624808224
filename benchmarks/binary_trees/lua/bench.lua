-- binary_trees (Lua 5.4 and LuaJIT) - allocate and walk many perfect binary
-- trees; see ../README.md.  A node is {left, right}, a leaf {}.  checksum()
-- is the sum of every check() (node count).

local result = 0

local function make(d)
	if d == 0 then
		return {}
	end
	d = d - 1
	return { make(d), make(d) }
end

local function check(t)
	local l = t[1]
	if l == nil then
		return 1
	end
	return 1 + check(l) + check(t[2])
end

local function run_iter(param)
	local maxd = param < 6 and 6 or param
	local total = check(make(maxd + 1))
	local longlived = make(maxd)
	for d = 4, maxd, 2 do
		local n = 1
		for _ = 1, maxd - d + 4 do
			n = n * 2
		end
		for _ = 1, n do
			total = total + check(make(d))
		end
	end
	result = total + check(longlived)
end

return { run_iter = run_iter, checksum = function() return result end }
