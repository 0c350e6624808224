-- coro: a producer/filter/consumer chain of coroutines passing n values
-- (kiln's history corpus).  checksum() is the sum the consumer saw.
local result = 0
local function run_iter(n)
	local producer = coroutine.wrap(function()
		for i = 1, n do coroutine.yield(i) end
		coroutine.yield(nil)
	end)
	local filter = coroutine.wrap(function()
		while true do
			local v = producer()
			if v == nil then coroutine.yield(nil) end
			if v % 3 ~= 0 then coroutine.yield(v * 2) end
		end
	end)
	local sum = 0
	while true do
		local v = filter()
		if v == nil then break end
		sum = sum + v
	end
	result = sum % 1000000007
end
return { run_iter = run_iter, checksum = function() return result end }
