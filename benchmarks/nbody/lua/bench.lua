-- nbody (Lua 5.4 and LuaJIT) - the Jovian planets and the sun; see ../README.md.
--
-- run_iter(param) resets the bodies, offsets the sun's momentum, advances
-- `param` steps of 0.01 and computes the energy; checksum() is
-- floor(energy * 1e9 + 0.5), the same as every other language (same float
-- operations in the same order).  Lua 5.1 syntax only, so LuaJIT runs it too.

local sqrt, floor = math.sqrt, math.floor
local PI = 3.141592653589793
local SOLAR_MASS = 4 * PI * PI
local DAYS = 365.24

local INITIAL = {
	{ 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, SOLAR_MASS },
	{ 4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
	  1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
	  -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS },
	{ 8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
	  -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
	  2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS },
	{ 1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
	  2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
	  -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS },
	{ 1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
	  2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
	  -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS },
}

local result = 0.0

local function advance(b, n, dt)
	for i = 1, n do
		local bi = b[i]
		for j = i + 1, n do
			local bj = b[j]
			local dx, dy, dz = bi.x - bj.x, bi.y - bj.y, bi.z - bj.z
			local d2 = dx * dx + dy * dy + dz * dz
			local mag = dt / (d2 * sqrt(d2))
			local mi, mj = bi.mass * mag, bj.mass * mag
			bi.vx = bi.vx - dx * mj
			bi.vy = bi.vy - dy * mj
			bi.vz = bi.vz - dz * mj
			bj.vx = bj.vx + dx * mi
			bj.vy = bj.vy + dy * mi
			bj.vz = bj.vz + dz * mi
		end
	end
	for i = 1, n do
		local bi = b[i]
		bi.x = bi.x + dt * bi.vx
		bi.y = bi.y + dt * bi.vy
		bi.z = bi.z + dt * bi.vz
	end
end

local function energy(b, n)
	local e = 0.0
	for i = 1, n do
		local bi = b[i]
		e = e + 0.5 * bi.mass * (bi.vx * bi.vx + bi.vy * bi.vy + bi.vz * bi.vz)
		for j = i + 1, n do
			local bj = b[j]
			local dx, dy, dz = bi.x - bj.x, bi.y - bj.y, bi.z - bj.z
			e = e - bi.mass * bj.mass / sqrt(dx * dx + dy * dy + dz * dz)
		end
	end
	return e
end

local function run_iter(param)
	local b, n = {}, #INITIAL
	for i = 1, n do
		local s = INITIAL[i]
		b[i] = { x = s[1], y = s[2], z = s[3], vx = s[4], vy = s[5], vz = s[6], mass = s[7] }
	end
	local px, py, pz = 0.0, 0.0, 0.0
	for i = 1, n do
		px = px + b[i].vx * b[i].mass
		py = py + b[i].vy * b[i].mass
		pz = pz + b[i].vz * b[i].mass
	end
	b[1].vx = -px / SOLAR_MASS
	b[1].vy = -py / SOLAR_MASS
	b[1].vz = -pz / SOLAR_MASS
	for _ = 1, param do
		advance(b, n, 0.01)
	end
	result = energy(b, n)
end

return {
	run_iter = run_iter,
	checksum = function() return floor(result * 1e9 + 0.5) end,
}
