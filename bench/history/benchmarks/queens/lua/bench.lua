-- queens: all solutions of the n-queens problem by backtracking over
-- boolean tables (kiln's history corpus).  checksum() is the count.
local result = 0
local function run_iter(n)
	local cols, d1, d2, count = {}, {}, {}, 0
	local function place(r)
		if r > n then count = count + 1; return end
		for c = 1, n do
			if not cols[c] and not d1[r + c] and not d2[r - c + n] then
				cols[c], d1[r + c], d2[r - c + n] = true, true, true
				place(r + 1)
				cols[c], d1[r + c], d2[r - c + n] = false, false, false
			end
		end
	end
	place(1)
	result = count
end
return { run_iter = run_iter, checksum = function() return result end }
