#!/bin/bash
# 31b-record-units.sh - the records of one series and iteration are added
# together when a pexec is stored (docs/results.md#series), so they must be
# in one unit first.  An external runner writes, for each iteration, a GC
# pause of 0.3 ms from its VM's log (unit ms), another of 0.0002 s from a
# callback (unit s), 900000 ns of compiler-thread CPU time as cpu.time
# (unit ns) beside the stream's cpu_ns of 1 ms (kiln's own cpu.time, in s),
# and a heap figure in bytes and in s (a mistake).  Before 2026-12-06 the
# sums were 0.3002 "ms" (the second pause read as 0.0002 ms) and 900000.001
# "ns" (kiln's 1 ms read as 0.001 ns), and the heap's two units were added:
# now the time units are converted to the series' first one (0.5 ms,
# 1900000 ns) and a record in a unit that cannot be converted is left out,
# said in the pexec's instrumentation error.
source "$KILN_ROOT/tests/lib.sh"

mkdir -p "$T/benchmarks/b/ext"
echo x >"$T/benchmarks/b/ext/bench.txt"
cat >"$T/runner.py" <<'EOF2'
import json, os, time
n = int(os.environ["KILN_ITERATIONS"]); fd = int(os.environ["KILN_RESULT_FD"]); d = os.environ["KILN_INSTR_DIR"]
os.write(fd, b'{"kiln":1,"clock":"monotonic","counters":[]}\n')
t = time.monotonic_ns()
for i in range(n):
    s = t + 2000000 * i
    os.write(fd, ('{"i":%d,"wall_ns":1000000,"start_ns":%d,"end_ns":%d,"cpu_ns":1000000}\n' % (i, s, s + 1000000)).encode())
with open(os.path.join(d, "a.kiln.jsonl"), "w") as f:
    for i in range(n):
        f.write(json.dumps({"i": i, "name": "gc.time", "value": 0.3, "unit": "ms"}) + "\n")
        f.write(json.dumps({"i": i, "name": "heap", "value": 4096, "unit": "bytes"}) + "\n")
with open(os.path.join(d, "b.kiln.jsonl"), "w") as f:
    for i in range(n):
        f.write(json.dumps({"i": i, "name": "gc.time", "value": 0.0002, "unit": "s"}) + "\n")
        f.write(json.dumps({"i": i, "name": "cpu.time", "value": 900000, "unit": "ns"}) + "\n")
        f.write(json.dumps({"i": i, "name": "heap", "value": 1, "unit": "s"}) + "\n")
os.write(fd, b'{"done":true}\n')
EOF2
cat >"$T/exp.yaml" <<EOF2
name: units
pexecs: 1
iterations: 3
benchmarks_dir: $T/benchmarks
vms:
  ext: {plugin: external, runner: [python3, $T/runner.py], language: ext}
benchmarks:
  b: 1
EOF2
( cd "$T" && "$KILN" run -q exp.yaml ) || fail "kiln run failed"
python3 - "$T/exp.kiln.db" <<'EOF2' || fail "the series are not in one unit"
import sqlite3, struct, sys
c = sqlite3.connect(sys.argv[1])
got = {n: (u, struct.unpack("<%dd" % (len(v) // 8), v)) for n, u, v in c.execute("SELECT name, unit, vals FROM series")}
def near(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))
u, v = got["gc.time"]
assert u == "ms" and all(near(x, 0.5) for x in v), ("gc.time", u, v)
u, v = got["cpu.time"]
assert u == "ns" and all(near(x, 1900000) for x in v), ("cpu.time", u, v)
u, v = got["heap"]
assert u == "bytes" and all(x == 4096 for x in v), ("heap", u, v)
(err,), = c.execute("SELECT instr_error FROM pexecs")
assert err and "record 'heap' of iteration 0 in 's'" in err and "'bytes'" in err, err
print("ok:", got["gc.time"], got["cpu.time"], err)
EOF2


# the same across the iterations of one series: a harness that scales its
# units (ReBench's criterion lines, through the rebench gauge) printed 800us
# and then 1.5ms, stored as 800 and 1.5 "us" before 2026-12-06
cat >"$T/h.sh" <<'EOF2'
#!/bin/sh
echo "B: GC: 800us"
echo "B: iterations=1 runtime: 1000us"
echo "B: GC: 1.5ms"
echo "B: iterations=1 runtime: 2000us"
EOF2
chmod +x "$T/h.sh"
cat >"$T/g.yaml" <<EOF2
name: g
pexecs: 1
iterations: 2
vms:
  h: {plugin: command, path: $T/h.sh, gauge: rebench}
benchmarks:
  B: 1
EOF2
( cd "$T" && "$KILN" run -q g.yaml ) || fail "kiln run of the gauge failed"
python3 - "$T/g.kiln.db" <<'EOF2' || fail "a gauge's criterion is not in one unit"
import sqlite3, struct, sys
c = sqlite3.connect(sys.argv[1])
(u, v), = c.execute("SELECT unit, vals FROM series WHERE name = 'gauge.GC'")
v = struct.unpack("<%dd" % (len(v) // 8), v)
print("gauge.GC", u, v)
assert u == "us" and v == (800.0, 1500.0), (u, v)
EOF2

echo "ok"
