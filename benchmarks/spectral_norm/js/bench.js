// spectral_norm (JavaScript) - power method on
// A(i,j) = 1/((i+j)(i+j+1)/2+i+1); see ../README.md.  Same summation order
// as the C version; checksum() is floor(result * 1e9 + 0.5).
'use strict';

function a(i, j) {
	return 1 / ((i + j) * (i + j + 1) / 2 + i + 1);
}

function mulAv(n, v, out) {
	for (let i = 0; i < n; i++) {
		let s = 0;
		for (let j = 0; j < n; j++)
			s += a(i, j) * v[j];
		out[i] = s;
	}
}

function mulAtv(n, v, out) {
	for (let i = 0; i < n; i++) {
		let s = 0;
		for (let j = 0; j < n; j++)
			s += a(j, i) * v[j];
		out[i] = s;
	}
}

let result = 0;

function runIter(param) {
	const n = Math.max(1, param);
	const u = new Float64Array(n).fill(1), v = new Float64Array(n), tmp = new Float64Array(n);
	for (let k = 0; k < 10; k++) {
		mulAv(n, u, tmp);
		mulAtv(n, tmp, v);
		mulAv(n, v, tmp);
		mulAtv(n, tmp, u);
	}
	let vbv = 0, vv = 0;
	for (let i = 0; i < n; i++) {
		vbv += u[i] * v[i];
		vv += v[i] * v[i];
	}
	result = Math.sqrt(vbv / vv);
}

module.exports = { run_iter: runIter, checksum: () => Math.floor(result * 1e9 + 0.5) };
