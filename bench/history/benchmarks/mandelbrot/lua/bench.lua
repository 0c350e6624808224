-- mandelbrot: points of an n x n grid inside the Mandelbrot set, 50
-- iterations each, float arithmetic in a tight loop (kiln's history corpus).
local result = 0
local function run_iter(n)
	local inside = 0
	for y = 0, n - 1 do
		local ci = 2.0 * y / n - 1.0
		for x = 0, n - 1 do
			local cr = 2.0 * x / n - 1.5
			local zr, zi, k = 0.0, 0.0, 0
			while k < 50 and zr * zr + zi * zi <= 4.0 do
				zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
				k = k + 1
			end
			if k == 50 then inside = inside + 1 end
		end
	end
	result = inside
end
return { run_iter = run_iter, checksum = function() return result end }
