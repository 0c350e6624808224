# 23-runner-node: the Node.js runner (plugins/node/runner.js) for real on
# every benchmark: protocol v1 stream, checksum equal to the C version's,
# per-iteration GC pauses from perf_hooks (binary_trees must scavenge, with a
# small young generation given as VM args, as a config's `args` would).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need node
VM_ARGS="--max-semi-space-size=1" check_vm node --nonzero gc.count --nonzero gc.time --nonzero gc.minor.count

# the records are written a few thousand lines at a time: a million
# iterations gave more than V8's longest string (2^29 - 24 characters) in one
# join, and the runner died with "RangeError: Invalid string length" after
# its last iteration, without {"done":true}, losing the pexec (before
# 2026-12-06)
mkdir -p "$T/nmany/instr"
cat >"$T/nmany/bench.js" <<'JS'
let r = 0;
module.exports = { run_iter: (p) => { r += p; }, checksum: () => r };
JS
env -i PATH="$PATH" KILN_ITERATIONS=1000000 KILN_PARAM=1 KILN_INSTR_DIR="$T/nmany/instr" KILN_INSTRUMENT=1 \
	KILN_RESULT_FD=3 node "$KILN_ROOT/plugins/node/runner.js" "$T/nmany/bench.js" 3>"$T/nmany/stream.jsonl" \
	2>"$T/nmany/err" || fail "the node runner failed with a million instrumented iterations: $(tail -3 "$T/nmany/err")"
assert_eq "$(tail -n 1 "$T/nmany/stream.jsonl")" '{"done":true}' "last stream line"
assert_eq "$(wc -l <"$T/nmany/instr/node.kiln.jsonl")" 11000000 "records (11 an iteration)"
assert_eq "$(tail -n 1 "$T/nmany/instr/node.kiln.jsonl" | cut -d, -f1-2)" '{"i":999999,"name":"heap"' "the last record"
rm -rf "$T/nmany"
