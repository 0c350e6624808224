// runner.js - kiln's iteration runner for Node.js / V8 (the `node` plugin).
//
//     node [VM args] runner.js BENCH.js
//
// BENCH.js is a CommonJS module exporting run_iter(param) and checksum(),
// both checked before the first iteration, or (Krun's benchmarks, d8
// scripts) a script defining a global function run_iter(param), checksum()
// optional.
// The runner times KILN_ITERATIONS calls of run_iter(KILN_PARAM) with
// process.hrtime.bigint() (CLOCK_MONOTONIC, as libuv reads it) and writes
// the result stream (runner protocol v1) to the fd KILN_RESULT_FD: header,
// one line per iteration after its clock stopped (its window, the two clock
// reads, and the process CPU time from process.cpuUsage(), microseconds,
// read just outside them), {"done":true}.  After the
// last iteration the checksum goes to KILN_INSTR_DIR/runner.kiln.jsonl.
//
// With KILN_INSTRUMENT=1 it records per iteration the GC pauses V8 reports
// through perf_hooks ('gc' performance entries: count and total duration, all
// kinds and per kind) and the used heap at the end of the iteration.  Entries
// arrive asynchronously, so between iterations (outside the timed region) the
// runner yields to the event loop once (setImmediate) to let the observer
// run, and attributes each entry by its start time to the iteration whose
// [start, end] (read with performance.now() just inside the wall clock
// reads, so that a pause counted in an iteration is inside its wall time)
// contains it; pauses that start between iterations are not counted.
// Records are kept in memory and written to node.kiln.jsonl at the end.
'use strict';

// kiln's layout: a module exporting run_iter and checksum, both required.
// Krun's: a script (run by d8's load()) defining a global function run_iter
// and exporting nothing, run again here as a script so that its top-level
// functions are globals; checksum optional, as Krun's benchmarks have none.
function loadBench(file) {
	const mod = require(file);
	if (typeof mod.run_iter !== 'function' && Object.keys(mod).length === 0) {
		require('vm').runInThisContext(require('fs').readFileSync(file, 'utf8'), { filename: file });
		if (typeof globalThis.run_iter === 'function')
			return { run_iter: globalThis.run_iter,
				checksum: typeof globalThis.checksum === 'function' ? globalThis.checksum : null };
	}
	for (const f of ['run_iter', 'checksum'])
		if (typeof mod[f] !== 'function')
			fail(`${file} exports no ${f}()`);
	return mod;
}

const fs = require('fs');
const path = require('path');
const v8 = require('v8');
const { performance, PerformanceObserver, constants } = require('perf_hooks');

function fail(msg) {
	process.stderr.write(`kiln node runner: ${msg}\n`);
	process.exit(1);
}

function env(name) {
	const v = process.env[name];
	if (v === undefined)
		fail(`${name} is not set`);
	return v;
}

const KINDS = {
	[constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
	[constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
	[constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
	[constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

// one iteration's GC figures
function gcSlot() {
	const s = { time: 0, count: 0 };
	for (const k of Object.values(KINDS))
		s[k] = { time: 0, count: 0 };
	return s;
}

async function main() {
	if (process.argv.length !== 3)
		fail('usage: runner.js BENCH.js');
	const iters = Number(env('KILN_ITERATIONS'));
	const param = Number(env('KILN_PARAM'));
	const fd = Number(env('KILN_RESULT_FD'));
	if (!Number.isInteger(iters) || iters < 0 || Number.isNaN(param) || !Number.isInteger(fd))
		fail('bad KILN_ITERATIONS, KILN_PARAM or KILN_RESULT_FD');
	const instrDir = process.env.KILN_INSTR_DIR;
	const instrument = process.env.KILN_INSTRUMENT === '1';
	const bench = loadBench(path.resolve(process.argv[2]));
	const runIter = bench.run_iter;
	// KILN_PROBE=1: kiln's probe before the first pexec (docs/protocol.md): checked, nothing run
	if (process.env.KILN_PROBE === '1') {
		fs.writeSync(fd, JSON.stringify({ kiln: 1, probe: true, version: `node ${process.version} (V8 ${process.versions.v8})`,
			executable: process.execPath }) + '\n');
		return;
	}

	// instrumentation: iteration windows in performance.now() ms, GC per iteration
	const windows = [], gc = [], heap = [];
	let observer = null, nextWin = 0;
	if (instrument) {
		observer = new PerformanceObserver((list) => {
			for (const e of list.getEntries()) {
				// windows are in time order and entries nearly so: scan from the last hit
				let w = Math.min(nextWin, windows.length - 1);
				while (w > 0 && windows[w][0] > e.startTime)
					w--;
				while (w < windows.length && windows[w][1] < e.startTime)
					w++;
				if (w >= windows.length || windows[w][0] > e.startTime)
					continue; // between iterations
				nextWin = w;
				const kind = KINDS[e.detail ? e.detail.kind : e.kind] || 'other';
				const s = gc[w];
				s.time += e.duration;
				s.count++;
				if (s[kind]) {
					s[kind].time += e.duration;
					s[kind].count++;
				}
			}
		});
		observer.observe({ entryTypes: ['gc'] });
	}

	fs.writeSync(fd, '{"kiln":1,"clock":"monotonic","counters":[]}\n');
	for (let i = 0; i < iters; i++) {
		if (instrument)
			gc.push(gcSlot());
		const u0 = process.cpuUsage();
		const t0 = process.hrtime.bigint();
		/*
		 * the GC window inside the timed one: a collection set off by the runner's own allocations
		 * just outside runIter (t1's BigInt, cpuUsage's object) was counted in the iteration's GC
		 * time but not in its wall time, and made the GC time exceed it (1.78 ms in a 0.89 ms
		 * iteration); now such a collection is in neither
		 */
		const p0 = instrument ? performance.now() : 0;
		runIter(param);
		const p1 = instrument ? performance.now() : 0;
		const t1 = process.hrtime.bigint();
		const u = process.cpuUsage(u0);
		if (instrument) {
			windows.push([p0, p1]);
			heap.push(v8.getHeapStatistics().used_heap_size);
		}
		const cpuNs = (u.user + u.system) * 1000;
		fs.writeSync(fd, `{"i":${i},"wall_ns":${t1 - t0},"start_ns":${t0},"end_ns":${t1},"cpu_ns":${cpuNs}}\n`);
		if (instrument)
			await new Promise((resolve) => setImmediate(resolve));
	}
	if (observer) {
		// a GC entry takes two event-loop turns to reach the observer: allow a few
		for (let k = 0; k < 4; k++)
			await new Promise((resolve) => setImmediate(resolve));
		observer.disconnect();
	}

	if (instrDir) {
		// a BigInt checksum in full (JSON.stringify throws on one: the runner died after its last
		// iteration and the pexec failed)
		const cs = bench.checksum ? bench.checksum() : undefined;
		fs.appendFileSync(path.join(instrDir, 'runner.kiln.jsonl'), !bench.checksum ? ''
			: typeof cs === 'bigint' ? `{"name":"checksum","value":${cs}}\n`
			: JSON.stringify({ name: 'checksum', value: cs }) + '\n');
		if (instrument) {
			// written a few thousand lines at a time: all of them in one string passed V8's longest
			// string (2^29 - 24 characters) at about a million iterations, and the pexec failed
			const out = fs.openSync(path.join(instrDir, 'node.kiln.jsonl'), 'a');
			let lines = [];
			const flush = () => {
				const b = Buffer.from(lines.length ? lines.join('\n') + '\n' : '');
				for (let at = 0; at < b.length;)
					at += fs.writeSync(out, b, at);
				lines = [];
			};
			const put = (i, name, value, unit) => {
				lines.push(JSON.stringify(unit ? { i, name, value, unit } : { i, name, value }));
				if (lines.length >= 4096)
					flush();
			};
			for (let i = 0; i < iters; i++) {
				const s = gc[i];
				put(i, 'gc.time', s.time / 1e3, 's');
				put(i, 'gc.count', s.count);
				for (const k of Object.values(KINDS)) {
					put(i, `gc.${k}.time`, s[k].time / 1e3, 's');
					put(i, `gc.${k}.count`, s[k].count);
				}
				put(i, 'heap', heap[i], 'bytes');
			}
			flush();
			fs.closeSync(out);
		}
	}
	fs.writeSync(fd, '{"done":true}\n');
}

main().catch((err) => fail(err && err.stack ? err.stack : String(err)));
