#!/bin/bash
# 30-pypy.sh - the pypy plugin's runner and PYPYLOG parser on real PyPy: the
# runner is started the way kiln starts it (KILN_* variables, the result
# stream on fd 3, PYPYLOG as the plugin sets it), with a small nursery so the
# GC really runs; then `kiln parse pypy` summarises the real log.  Checks:
# one set of records per iteration, GC time per iteration >= 0 and no more
# than that iteration's wall time, the categories adding up to the wall time
# (the calibration is right), GC pauses really seen, the checksum record,
# the same records from a zstd-compressed log, and a truncated log refused
# with exit 3 and FILE:LINE.  Then the same through `kiln run` (plugin
# build(), the harness's parse and store, read back from the Krun export),
# and every bundled benchmark's checksum under PyPy against its C version.
source "$KILN_ROOT/tests/lib.sh"

PYPY=$(command -v pypy3) || skip "pypy3 not installed"
[ -x "$KILN" ] || fail "no $KILN"
N=15

# a small allocation-heavy benchmark of our own (the suite's may change)
cat >"$T/bench.py" <<'EOF'
_r = 0
def _tree(d):
    return (None, None) if d == 0 else (_tree(d - 1), _tree(d - 1))
def _count(t):
    return 1 if t[0] is None else 1 + _count(t[0]) + _count(t[1])
def run_iter(param):
    global _r
    keep = []
    for k in range(int(param)):
        t = _tree(12)
        _r += _count(t)
        if k % 4 == 0:
            keep.append(t)
def checksum():
    return _r
EOF

mkdir "$T/instr"
env -i PATH="$PATH" KILN_ITERATIONS=$N KILN_PARAM=12 KILN_INSTR_DIR="$T/instr" \
	KILN_INSTRUMENT=1 KILN_RESULT_FD=3 PYPYLOG="+$T/instr/pypylog" PYPY_GC_NURSERY=256KB \
	"$PYPY" "$KILN_ROOT/plugins/pypy/runner.py" "$T/bench.py" 3>"$T/stream.jsonl" \
	|| fail "runner failed"
[ -s "$T/instr/pypylog" ] || fail "no PYPYLOG written"
[ -s "$T/instr/calibration.json" ] || fail "no calibration.json written"
assert_eq "$(tail -n 1 "$T/stream.jsonl")" '{"done":true}' "last stream line"
assert_eq "$(grep -c '"wall_ns"' "$T/stream.jsonl")" "$N" "iteration lines"
python3 "$KILN_ROOT/tests/helpers/check_runner.py" --stream "$T/stream.jsonl" --n $N --instr-dir "$T/instr" \
	--plugin pypy || fail "the pypy runner's stream (windows, CPU time) is not right"

"$KILN" parse pypy "$T/instr/pypylog" >"$T/recs.jsonl" || fail "kiln parse pypy failed"

python3 - "$T/stream.jsonl" "$T/recs.jsonl" "$N" <<'EOF' || fail "records are not plausible"
import json, sys
stream, recs, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
wall, off = {}, {}
for line in open(stream):
    o = json.loads(line)
    if "wall_ns" in o:
        wall[o["i"]] = o["wall_ns"] / 1e9
        # the time the process was off the CPU in the iteration (its CPU time is read just outside)
        off[o["i"]] = max(0.0, (o["wall_ns"] - o["cpu_ns"]) / 1e9)
it, px = {}, {}
for line in open(recs):
    o = json.loads(line)
    if "i" in o:
        it.setdefault(o["i"], {})[o["name"]] = o["value"]
    else:
        px[o["name"]] = o["value"]
assert sorted(it) == list(range(n)), "iterations %s" % sorted(it)
cats = ("gc.time", "jit.time", "other.time", "outside.time")
for i in range(n):
    r = it[i]
    assert set(r) == set(cats) | {"gc.count", "jit.count"}, r
    assert all(r[c] >= 0 for c in cats), (i, r)
    assert r["gc.time"] <= wall[i], ("gc time above wall time", i, r["gc.time"], wall[i])
    s = sum(r[c] for c in cats)
    # the log's iteration lies inside the timed region, minus two calls
    assert s <= wall[i] * 1.001, ("sections add up to more than the wall time", i, s, wall[i])
    # less, by no more than 10%, and by the time the process waited for the CPU (on a
    # loaded machine it lost the CPU for 16 ms right after the section's end: 88 of 105 ms)
    assert s >= wall[i] * 0.9 - off[i] or wall[i] - s < 50e-6, ("sections cover too little", i, s, wall[i], off[i])
    assert r["gc.count"] == int(r["gc.count"]) >= 0
total_gc = sum(it[i]["gc.time"] for i in range(n))
assert total_gc > 0 and sum(it[i]["gc.count"] for i in range(n)) > 0, "no GC seen"
assert px["gc.count"] >= sum(it[i]["gc.count"] for i in range(n))
assert px["gc.time"] >= total_gc * 0.999999
assert px.get("pypy.gc-minor.count", 0) > 0, "no gc-minor section"
print("ok: %d iterations, GC %.4f s in %d pauses, JIT %.4f s" %
      (n, total_gc, sum(it[i]["gc.count"] for i in range(n)), sum(it[i]["jit.time"] for i in range(n))))
EOF

# the same through `kiln run` (the plugin's build(), the harness's parse and
# store), checked from the Krun export: series per iteration next to wall times
cat >"$T/exp.yaml" <<Y
name: pypy
pexecs: 2
iterations: 6
seed: 1
benchmarks_dir: $T/benchmarks
vms:
  pypy: {plugin: pypy, path: $PYPY, instrument: true, env: {PYPY_GC_NURSERY: 256KB}}
benchmarks:
  gcb: 8
Y
mkdir -p "$T/benchmarks/gcb/python"
cp "$T/bench.py" "$T/benchmarks/gcb/python/bench.py"
( cd "$T" && "$KILN" run -q exp.yaml ) || fail "kiln run failed"
"$KILN" export "$T/exp.kiln.db" --format krun -o "$T/exp.json" || fail "export failed"
python3 - "$T/exp.json" <<'EOF2' || fail "run records are not plausible"
import bz2, json, sys
d = json.load(open(sys.argv[1]))
key = "gcb:pypy:default-python"
# the series are in Krun's instrumentation folder beside the export, a file per pexec
instr = [json.loads(bz2.decompress(open(sys.argv[1][:-len(".json")] + "_instr_data/gcb__pypy__default-python__%d.json.bz2" % p,
                                        "rb").read())) for p in range(2)]
walls = d["wallclock_times"][key]
assert len(walls) == 2 and len(instr) == 2, (len(walls), len(instr))
for w, r in zip(walls, instr):
    assert len(w) == 6 and all(len(r[n]) == 6 for n in ("gc.time", "jit.time", "outside.time", "gc.count")), r.keys()
    for i in range(6):
        s = r["gc.time"][i] + r["jit.time"][i] + r["other.time"][i] + r["outside.time"][i]
        assert 0 <= r["gc.time"][i] <= w[i], (i, r["gc.time"][i], w[i])
        assert s <= w[i] * 1.001, (i, s, w[i])
    assert sum(r["gc.count"]) > 0
print("ok: kiln run stored", sum(len(w) for w in walls), "iterations with PYPYLOG series")
EOF2
[ "$(sqlite3 "$T/exp.kiln.db" "SELECT COUNT(*) FROM scalars WHERE name='checksum'")" = 2 ] || fail "no checksum scalars"

# every bundled benchmark under PyPy gives the checksum of its C version
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
if [ -x "$REFSUM" ]; then
	for b in $BENCHES; do
		param=$(small_param "$b")
		want=$(ref_checksum "$b" "$param")
		mkdir -p "$T/ck-$b"
		env -i PATH="$PATH" KILN_ITERATIONS=2 KILN_PARAM="$param" KILN_INSTR_DIR="$T/ck-$b" \
			KILN_RESULT_FD=3 "$PYPY" "$KILN_ROOT/plugins/pypy/runner.py" \
			"$KILN_ROOT/benchmarks/$b/python/bench.py" 3>/dev/null || fail "pypy runner on $b failed"
		got=$("$KILN" parse generic "$T/ck-$b/runner.kiln.jsonl")
		assert_eq "$got" "{\"name\":\"checksum\",\"value\":$want}" "checksum of $b under PyPy"
	done
	echo "ok: checksums of $BENCHES under PyPy equal the C versions'"
else
	echo "note: $REFSUM not built, checksums against C not compared"
fi

# the checksum, as a generic record
out=$("$KILN" parse generic "$T/instr/runner.kiln.jsonl") || fail "kiln parse generic failed"
assert_contains "$out" '"name":"checksum"'

# a compressed log (what keep_log keeps) gives the same records
if command -v zstd >/dev/null; then
	zstd -q -o "$T/instr/pypylog.zst" "$T/instr/pypylog"
	"$KILN" parse pypy "$T/instr/pypylog.zst" >"$T/recs2.jsonl" || fail "parse of .zst failed"
	cmp -s "$T/recs.jsonl" "$T/recs2.jsonl" || fail ".zst records differ"
fi

# a truncated log is an error with the place, exit 3
size=$(stat -c %s "$T/instr/pypylog")
head -c $((size / 2)) "$T/instr/pypylog" >"$T/instr/cut"
rc=0
err=$("$KILN" parse pypy "$T/instr/cut" 2>&1 >/dev/null) || rc=$?
assert_eq "$rc" 3 "exit status on a truncated log"
assert_contains "$err" "$T/instr/cut:[0-9]*: "
# without the calibration: a clear error too
rm "$T/instr/calibration.json"
rc=0
err=$("$KILN" parse pypy "$T/instr/pypylog" 2>&1 >/dev/null) || rc=$?
assert_eq "$rc" 3 "exit status without calibration"
assert_contains "$err" "calibration"
exit 0
