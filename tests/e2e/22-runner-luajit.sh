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

# luajit.trace_time is the part of each trace inside the iteration's window,
# so never above its wall time: a trace begun in the runner's own loop
# between iterations (here the 23rd and the 34th, every time) and compiled
# inside the next was counted whole, from its start outside the window, and
# gave 22.6 us of trace time in a 17.4 us iteration (before 2026-12-06)
mkdir -p "$T/ljspan"
cat >"$T/ljspan/bench.lua" <<'LUA'
local r = 0
local function f(n)
  local s = 0
  for k = 1, n do
    if k % 3 == 0 then s = s + k elseif k % 5 == 1 then s = s - 1 else s = s + 2 end
  end
  return s
end
return {
  run_iter = function(p) for j = 1, 3 do r = r + f(p + j) end end,
  checksum = function() return r end,
}
LUA
mkdir "$T/ljspan/instr"
env -i PATH="$PATH" KILN_ITERATIONS=100 KILN_PARAM=50 KILN_INSTR_DIR="$T/ljspan/instr" KILN_INSTRUMENT=1 \
	KILN_RESULT_FD=3 luajit "$KILN_ROOT/plugins/luajit/runner.lua" "$T/ljspan/bench.lua" 3>"$T/ljspan/stream.jsonl" \
	|| fail "the luajit runner failed"
python3 - "$T/ljspan/stream.jsonl" "$T/ljspan/instr/luajit.kiln.jsonl" <<'PY' || fail "luajit.trace_time above the iteration's wall time"
import json, sys
wall = {o["i"]: o["wall_ns"] / 1e9 for o in map(json.loads, open(sys.argv[1])) if "wall_ns" in o}
tt = {o["i"]: o["value"] for o in map(json.loads, open(sys.argv[2])) if o["name"] == "luajit.trace_time"}
assert sorted(tt) == list(range(100)), sorted(tt)
over = [(i, tt[i], wall[i]) for i in tt if tt[i] > wall[i]]
print("trace time %.1f us in all, %d iterations over their wall time %s" % (sum(tt.values()) * 1e6, len(over), over))
sys.exit(1 if over or sum(tt.values()) <= 0 else 0)
PY
