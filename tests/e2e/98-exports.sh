# Exports the real tools take as they are (issue 28): a pyperf file
# imported and exported again keeps pyperf's metadata, its calibration run
# and its values bit for bit; the warmup_stats CSV writes a stored time as
# its exact decimal; a hyperfine import takes no machine from its file's
# name (kiln diff says nothing of "different machines"); a key of more than
# three parts is said; warmup_stats' plotter reads the instrumentation
# files of the Krun export.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
D=$KILN_ROOT/tests/data/thirdparty

# ---- pyperf: a file pyperf wrote (its doc's py3.json.gz), through kiln and back ----
"$KILN" import "$D/py3.json.gz" -o p.kiln.db >/dev/null || fail "import pyperf"
"$KILN" export p.kiln.db --format pyperf -o back.json >/dev/null || fail "export pyperf"
python3 - "$D/py3.json.gz" back.json <<'P' || fail "pyperf round trip"
import gzip, json, sys
a = json.load(gzip.open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
for k, v in a["metadata"].items():
    assert b["metadata"].get(k) == v, ("suite metadata", k, v, b["metadata"].get(k))
for ba, bb in zip(a["benchmarks"], b["benchmarks"]):
    for k, v in ba.get("metadata", {}).items():
        assert bb["metadata"].get(k) == v, ("benchmark metadata", k)
    assert len(ba["runs"]) == len(bb["runs"]), (len(ba["runs"]), len(bb["runs"]))
    for ra, rb in zip(ba["runs"], bb["runs"]):
        assert ra.get("values") == rb.get("values") and ra.get("warmups") == rb.get("warmups"), "values bit for bit"
        for k, v in ra.get("metadata", {}).items():
            assert rb["metadata"].get(k) == v, ("run metadata", k)
P

# a benchmark's name given twice is refused, also when the first has calibration runs alone (it was merged)
cat > pdup.json <<'J'
{"version": "1.0", "metadata": {"unit": "second"}, "benchmarks": [
 {"metadata": {"name": "b"}, "runs": [{"warmups": [[1, 0.5]]}]},
 {"metadata": {"name": "b"}, "runs": [{"values": [0.1, 0.2]}]}]}
J
out=$("$KILN" import pdup.json -o pdup.kiln.db 2>&1) && fail "two benchmarks named b merged into one key"
assert_contains "$out" "pdup.json: benchmarks.1.: benchmark 'b' is there twice"

# ---- warmup_stats CSV: 1563 us is 0.001563 ----
cat > g.yaml <<'Y'
vms: {sh: {plugin: command, path: /bin/sh, gauge: rebench, args: [-c, "echo 'B: iterations=1 runtime: 1563us'; echo 'B: iterations=1 runtime: 2.5ms'"]}}
benchmarks: [b]
Y
"$KILN" run -q g.yaml || fail "run"
"$KILN" export g.kiln.db --format csv -o g.csv >/dev/null || fail "csv"
assert_eq "$(sed -n 2p g.csv)" "0,b:sh:default-command,0.001563,0.0025" "exact decimals"

# ---- hyperfine: no machine from the file's name ----
"$KILN" import "$D/hyperfine_1.15_export_node.json" -o h.kiln.db >/dev/null || fail "import hyperfine"
assert_eq "$(sqlite3 h.kiln.db "SELECT COUNT(*) FROM audit WHERE name='hostname'")" 0 "no machine made up"
out=$("$KILN" diff h.kiln.db g.kiln.db 2>&1 >/dev/null)
[[ "$out" != *"different machines"* && "$out" != *"ran on"* ]] || fail "a machine from a file name: $out"

# ---- hyperfine: a command's text and parameters come back as the file had them ----
# (the key's name has ':' as '_' and " (2)" for a command given twice; the export wrote those names)
cat > hp.json <<'J'
{"results": [{"command": "sleep 0.1; echo a:b", "times": [0.1, 0.2], "exit_codes": [0, 0], "parameters": {"n": "1"}},
             {"command": "sleep 0.1; echo a:b", "times": [0.3, 0.4], "exit_codes": [0, 0], "parameters": {"n": "2"}}]}
J
"$KILN" import hp.json -o hp.kiln.db >/dev/null || fail "import hyperfine with parameters"
"$KILN" export hp.kiln.db --format hyperfine -o hp-back.json >/dev/null || fail "export hyperfine"
python3 - hp.json hp-back.json <<'P' || fail "hyperfine round trip"
import json, sys
a, b = (json.load(open(p))["results"] for p in sys.argv[1:])
assert [r["command"] for r in a] == [r["command"] for r in b], [r["command"] for r in b]
assert [r["parameters"] for r in a] == [r.get("parameters") for r in b], [r.get("parameters") for r in b]
assert [r["times"] for r in a] == [r["times"] for r in b]
P
printf '{"results": [{"command": "x", "times": [0.1], "parameters": {"n": 1}}]}' > hbad.json
out=$("$KILN" import hbad.json -o hbad.kiln.db 2>&1) && fail "a parameter that is not a string was taken"
assert_contains "$out" "results.0.\.parameters\.n: not a string"

# ---- hyperfine 1.19's memory_usage_byte: each run's peak RSS, kept and written back ----
cat > hm.json <<'J'
{"results": [{"command": "a", "times": [0.4, 0.5], "memory_usage_byte": [3842048, 3850000], "exit_codes": [0, 0]}]}
J
"$KILN" import hm.json -o hm.kiln.db >/dev/null || fail "import memory_usage_byte"
assert_eq "$(sql hm.kiln.db "SELECT maxrss_kb FROM pexecs ORDER BY num" | tr '\n' ' ')" "3752 3760 " "peak RSS per run"
"$KILN" export hm.kiln.db --format hyperfine -o hm-back.json >/dev/null || fail "export memory_usage_byte"
python3 - hm.json hm-back.json <<'P' || fail "memory_usage_byte round trip"
import json, sys
a, b = (json.load(open(p))["results"][0] for p in sys.argv[1:])
assert b["memory_usage_byte"] == a["memory_usage_byte"], b.get("memory_usage_byte")
assert list(b)[-3:] == ["times", "memory_usage_byte", "exit_codes"], list(b)
P
printf '{"results": [{"command": "x", "times": [0.1], "memory_usage_byte": [-1]}]}' > hbad.json
out=$("$KILN" import hbad.json -o hbad2.kiln.db 2>&1) && fail "a negative memory_usage_byte was taken"
assert_contains "$out" "results.0.\.memory_usage_byte.0.: not a number of bytes"

# ---- a key of more than three parts ----
printf 'pexec_idx,bench,0,1\n0,nbody:node:default-js:V8:default-javascript,0.1,0.2\n' > five.csv
out=$("$KILN" import five.csv -o five.kiln.db 2>&1) || fail "import five: $out"
assert_contains "$out" "warning: key 'nbody:node:default-js:V8:default-javascript' has more than three parts"
# ---- Krun's _instr_data as warmup_stats' plotter reads it (its vm_instruments parsers, by the VM's name) ----
if command -v pypy3 >/dev/null && command -v java >/dev/null; then
	cat > i.yaml <<'Y'
pexecs: 2
iterations: 4
vms: {PyPy: {plugin: pypy, instrument: true}, HotSpot: {plugin: java, instrument: true}}
benchmarks: {nbody: 200}
Y
	"$KILN" run -q i.yaml || fail "instrumented run"
	"$KILN" export i.kiln.db --format krun -o i_results.json.bz2 >/dev/null || fail "krun export"
	python3 - <<'P' || fail "the instrumentation files as warmup_stats reads them"
import bz2, json
def load(vm, p):
    return json.loads(bz2.decompress(open("i_instr_data/nbody__%s__default-%s__%d.json.bz2" % (vm, "python" if vm == "PyPy" else "java", p), "rb").read()))
for p in range(2):
    d = load("PyPy", p)             # PyPy's parser: an event tree per iteration, and jit_times
    raw = d["raw_vm_events"]
    assert len(raw) == 4 and len(d["jit_times"]) == 4, d
    def net(node):
        kind, start, stop, children = node
        assert kind.startswith("gc-") or kind.startswith("jit-"), kind
        return (stop - start) - sum(net(c) for c in children)
    for node in raw:
        kind, start, stop, children = node
        assert start is None and stop is None
        assert abs(sum(net(c) for c in children if c[0].startswith("gc-")) - d["gc.time"][raw.index(node)]) < 1e-9
    h = load("HotSpot", p)          # HotSpot's: [iteration, cumulative JIT ms, [[collector, pools, cumulative ms, count]]]
    raw = h["raw_vm_events"]
    assert [r[0] for r in raw] == [0, 1, 2, 3], raw
    assert all(raw[i][1] <= raw[i + 1][1] for i in range(3)), "cumulative"
    assert all(isinstance(c[-1], (int, float)) and isinstance(c[0], str) for r in raw for c in r[2]), raw
P
fi
echo ok
