-- fannkuch_redux (Lua 5.4 and LuaJIT) - pancake flips over all permutations;
-- see ../README.md.  Same permutation order as the C version; checksum() is
-- sum * 100 + max_flips.  Arrays are 1-based: perm[1] is the C perm[0].

local result = 0

local function run_iter(param)
	local n = param
	local perm, perm1, count = {}, {}, {}
	for i = 1, n do
		perm1[i] = i - 1
		perm[i] = 0
		count[i] = 0
	end
	local total, nperm, maxflips, r = 0, 0, 0, n
	while true do
		while r ~= 1 do
			count[r] = r          -- C count[r-1]
			r = r - 1
		end
		for i = 1, n do
			perm[i] = perm1[i]
		end
		local flips = 0
		local k = perm[1]
		while k ~= 0 do
			local lo, hi = 1, k + 1
			while lo < hi do
				perm[lo], perm[hi] = perm[hi], perm[lo]
				lo, hi = lo + 1, hi - 1
			end
			flips = flips + 1
			k = perm[1]
		end
		if flips > maxflips then
			maxflips = flips
		end
		if nperm % 2 == 0 then
			total = total + flips
		else
			total = total - flips
		end
		-- next permutation
		while true do
			if r == n then
				result = total * 100 + maxflips
				return
			end
			local p0 = perm1[1]
			for i = 1, r do
				perm1[i] = perm1[i + 1]
			end
			perm1[r + 1] = p0
			count[r + 1] = count[r + 1] - 1
			if count[r + 1] > 0 then
				break
			end
			r = r + 1
		end
		nperm = nperm + 1
	end
end

return { run_iter = run_iter, checksum = function() return result end }
