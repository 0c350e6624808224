// nbody (JavaScript) - the Jovian planets and the sun; see ../README.md.
//
// runIter(param) resets the bodies, offsets the sun's momentum, advances
// `param` steps of 0.01 and computes the energy; checksum() is
// floor(energy * 1e9 + 0.5), the same as every other language.
'use strict';

const PI = 3.141592653589793;
const SOLAR_MASS = 4 * PI * PI;
const DAYS = 365.24;

const INITIAL = [
	[0, 0, 0, 0, 0, 0, SOLAR_MASS],
	[4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
	 1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
	 -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS],
	[8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
	 -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
	 2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS],
	[1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
	 2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
	 -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS],
	[1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
	 2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
	 -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS],
];

class Body {
	constructor(s) {
		this.x = s[0]; this.y = s[1]; this.z = s[2];
		this.vx = s[3]; this.vy = s[4]; this.vz = s[5];
		this.mass = s[6];
	}
}

let result = 0;

function advance(b, dt) {
	const n = b.length;
	for (let i = 0; i < n; i++) {
		const bi = b[i];
		for (let j = i + 1; j < n; j++) {
			const bj = b[j];
			const dx = bi.x - bj.x, dy = bi.y - bj.y, dz = bi.z - bj.z;
			const d2 = dx * dx + dy * dy + dz * dz;
			const mag = dt / (d2 * Math.sqrt(d2));
			const mi = bi.mass * mag, mj = bj.mass * mag;
			bi.vx -= dx * mj;
			bi.vy -= dy * mj;
			bi.vz -= dz * mj;
			bj.vx += dx * mi;
			bj.vy += dy * mi;
			bj.vz += dz * mi;
		}
	}
	for (const bi of b) {
		bi.x += dt * bi.vx;
		bi.y += dt * bi.vy;
		bi.z += dt * bi.vz;
	}
}

function energy(b) {
	let e = 0;
	const n = b.length;
	for (let i = 0; i < n; i++) {
		const bi = b[i];
		e += 0.5 * bi.mass * (bi.vx * bi.vx + bi.vy * bi.vy + bi.vz * bi.vz);
		for (let j = i + 1; j < n; j++) {
			const bj = b[j];
			const dx = bi.x - bj.x, dy = bi.y - bj.y, dz = bi.z - bj.z;
			e -= bi.mass * bj.mass / Math.sqrt(dx * dx + dy * dy + dz * dz);
		}
	}
	return e;
}

function runIter(param) {
	const b = INITIAL.map((s) => new Body(s));
	let px = 0, py = 0, pz = 0;
	for (const bi of b) {
		px += bi.vx * bi.mass;
		py += bi.vy * bi.mass;
		pz += bi.vz * bi.mass;
	}
	b[0].vx = -px / SOLAR_MASS;
	b[0].vy = -py / SOLAR_MASS;
	b[0].vz = -pz / SOLAR_MASS;
	for (let s = 0; s < param; s++)
		advance(b, 0.01);
	result = energy(b);
}

module.exports = { run_iter: runIter, checksum: () => Math.floor(result * 1e9 + 0.5) };
