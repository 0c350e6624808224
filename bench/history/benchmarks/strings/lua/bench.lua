-- strings: string.format, concatenation through a table, gsub and find on
-- the result (kiln's history corpus).  run_iter(n) builds n records;
-- checksum() is the length of the last text plus the matches counted.
local result = 0
local function run_iter(n)
	local parts = {}
	for i = 1, n do
		parts[#parts + 1] = string.format("item%05d=%d;", i, (i * 7919) % 1000)
	end
	local text = table.concat(parts)
	local swapped, count = text:gsub("item(%d+)=(%d+)", "%2:%1")
	local found, pos = 0, 1
	while true do
		local s, e = swapped:find("99", pos, true)
		if not s then break end
		found, pos = found + 1, e + 1
	end
	result = #swapped + count + found
end
return { run_iter = run_iter, checksum = function() return result end }
