// fannkuch_redux (JavaScript) - pancake flips over all permutations; see
// ../README.md.  Same permutation order as the C version; checksum() is
// sum * 100 + max_flips.
'use strict';

let result = 0;

function runIter(param) {
	const n = param;
	const perm = new Int32Array(n), perm1 = new Int32Array(n), count = new Int32Array(n);
	let sum = 0, nperm = 0, maxflips = 0, r = n;
	for (let i = 0; i < n; i++)
		perm1[i] = i;
	for (;;) {
		for (; r !== 1; r--)
			count[r - 1] = r;
		perm.set(perm1);
		let flips = 0;
		for (let k = perm[0]; k !== 0; k = perm[0]) {
			for (let lo = 0, hi = k; lo < hi; lo++, hi--) {
				const t = perm[lo];
				perm[lo] = perm[hi];
				perm[hi] = t;
			}
			flips++;
		}
		if (flips > maxflips)
			maxflips = flips;
		sum += nperm % 2 === 0 ? flips : -flips;
		// next permutation
		for (;;) {
			if (r === n) {
				result = sum * 100 + maxflips;
				return;
			}
			const p0 = perm1[0];
			for (let i = 0; i < r; i++)
				perm1[i] = perm1[i + 1];
			perm1[r] = p0;
			if (--count[r] > 0)
				break;
			r++;
		}
		nperm++;
	}
}

module.exports = { run_iter: runIter, checksum: () => result };
