// binary_trees (JavaScript) - allocate and walk many perfect binary trees;
// see ../README.md.  checksum() is the sum of every check() (node count).
'use strict';

class Node {
	constructor(left, right) {
		this.left = left;
		this.right = right;
	}
}

function make(d) {
	return d === 0 ? new Node(null, null) : new Node(make(d - 1), make(d - 1));
}

function check(t) {
	return t.left === null ? 1 : 1 + check(t.left) + check(t.right);
}

let result = 0;

function runIter(param) {
	const maxd = Math.max(6, param);
	let sum = check(make(maxd + 1));
	const longlived = make(maxd);
	for (let d = 4; d <= maxd; d += 2) {
		const n = 2 ** (maxd - d + 4);
		for (let i = 0; i < n; i++)
			sum += check(make(d));
	}
	result = sum + check(longlived);
}

module.exports = { run_iter: runIter, checksum: () => result };
