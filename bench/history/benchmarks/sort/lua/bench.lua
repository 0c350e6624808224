-- sort: table.sort of n pseudo-random numbers with a Lua comparator, then
-- of strings (kiln's history corpus).  checksum() mixes a few sorted values.
local result = 0
local function run_iter(n)
	local t, s, x = {}, {}, 12345
	for i = 1, n do
		x = (x * 1103515245 + 12345) % 2147483648
		t[i] = x
		s[i] = tostring(x % 100000)
	end
	table.sort(t, function(a, b) return a > b end)
	table.sort(s)
	result = (t[1] + t[n // 2] + t[n]) % 1000003 + #s[1] + #s[n]
end
return { run_iter = run_iter, checksum = function() return result end }
