-- fib: doubly recursive Fibonacci, Lua function calls and returns (kiln's
-- history corpus, bench/history).  run_iter(n) computes fib(n); checksum()
-- is the last result.
local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end
local result = 0
local function run_iter(n) result = fib(n) end
return { run_iter = run_iter, checksum = function() return result end }
