# 22-runner-luajit: the LuaJIT runner (plugins/luajit/runner.lua) for real on
# every benchmark: protocol v1 stream, checksum equal to the C version's,
# heap, GC-cycle and trace records per iteration (traces must complete).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need luajit
check_vm luajit --nonzero gc.count --nonzero jit.traces_started --nonzero jit.traces_completed

# trace events balance: every started trace completes or aborts, give or
# take one per iteration boundary (a trace in flight across it, or begun in
# the runner's own code between iterations, which is not counted)
python3 - "$T/luajit-nbody/instr/luajit.kiln.jsonl" <<'PY' || fail "luajit trace counts do not balance"
import json, sys
tot = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    tot[r["name"]] = tot.get(r["name"], 0) + r["value"]
s, c, a = tot["jit.traces_started"], tot["jit.traces_completed"], tot["jit.traces_aborted"]
print("traces started %d completed %d aborted %d" % (s, c, a))
n = 1 + max(r["i"] for r in map(json.loads, open(sys.argv[1])))
sys.exit(0 if abs(s - c - a) <= n and c > 0 else 1)
PY
