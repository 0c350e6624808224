-- hashmap: a table used as a hash map with string keys: n inserts, lookups
-- and deletions, with objects built from a metatable (kiln's history corpus).
local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({ x = x, y = y }, Point) end
function Point:norm1() return math.abs(self.x) + math.abs(self.y) end
local result = 0
local function run_iter(n)
	local map = {}
	for i = 1, n do map["k" .. i] = Point.new(i, -i) end
	local s = 0
	for i = 1, n, 3 do
		local p = map["k" .. i]
		if p then s = s + p:norm1() end
	end
	for i = 2, n, 2 do map["k" .. i] = nil end
	local left = 0
	for _ in pairs(map) do left = left + 1 end
	result = s + left
end
return { run_iter = run_iter, checksum = function() return result end }
