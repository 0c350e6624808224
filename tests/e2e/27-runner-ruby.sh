# 27-runner-ruby: the CRuby runner (plugins/ruby/runner.rb) for real on every
# benchmark, in both variants the plugin builds: the interpreter
# (--disable=yjit,mjit: no JIT series) and YJIT (--yjit, when this ruby has
# it: YJIT's code size must grow).  Protocol v1 stream, checksum equal to
# the C version's, GC.stat deltas and GC.total_time per iteration
# (binary_trees must collect).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need ruby
VM_ARGS="--disable=yjit,mjit" VARIANT=interp check_vm ruby --nonzero gc.count --nonzero gc.time \
	--nonzero ruby.gc.minor_count --nonzero ruby.allocated_objects
if ruby --yjit -e 'exit(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null; then
	VM_ARGS="--yjit" VARIANT=yjit check_vm ruby --nonzero gc.count --nonzero jit.code_added
	# the code size is YJIT's: it never shrinks (3.1 has no code GC) and
	# each iteration's growth is the step from the one before
	python3 - "$T/ruby-yjit-nbody/instr/ruby.kiln.jsonl" <<'PY' || fail "YJIT code size series inconsistent"
import json, sys
size, added = {}, {}
for r in map(json.loads, open(sys.argv[1])):
    if r["name"] == "jit.code_size": size[r["i"]] = r["value"]
    if r["name"] == "jit.code_added": added[r["i"]] = r["value"]
n = len(size)
ok = all(size[i] - size[i - 1] == added[i] for i in range(1, n)) and size[0] >= added[0] > 0
print("yjit code size", [size[i] for i in range(n)], "added", [added[i] for i in range(n)])
sys.exit(0 if ok else 1)
PY
else
	echo "note: $(ruby --version) has no YJIT: the yjit variant is not run here"
fi
